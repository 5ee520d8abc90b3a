"""What the master needs from storage: games, their numbered event log, and one rule.

The rule: event n + 1 of a game is committed only by a writer that saw the game at n
(`append(..., expected_seq=n, ...)`); any other writer gets `ConflictError`. A game's state is
never stored as such: it is the replay of its events through the engine. `MemoryStore`
(dicepoker.master.memory) keeps this in memory; the web app's SQL store
(dicepoker.server.storage.store) in SQLite or PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


class ConflictError(RuntimeError):
    """Somebody else committed the game's next event first."""


@dataclass(frozen=True)
class StoredEvent:
    """One committed event: a roll (with the faces thrown), a move, or a forfeit."""

    seq: int
    seat: int
    action: str
    thrown: list[int] | None
    auto: bool


@dataclass
class StoredGame:
    """A game as stored: everything but its events. Seats are `{kind, name, level,
    token_hash}` (a token's hash, never the token)."""

    id: str
    variant: str
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    status: str  # open, running, finished, abandoned
    seq: int = 0
    turn_seconds: int = 0
    # Fair dice (docs/fair-dice.md): the secret seed and its public commitment (None: no seed).
    dice_seed: str | None = field(default=None, repr=False)
    dice_commitment: str | None = None
    # A seed withheld past the end until this time (a daily challenge); None: at the end.
    reveal_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    # Asked to be rated: rated when it ends if every person's seat is an account's.
    rated: bool = False
    # Whether the expert's help is open to its table (dicepoker.master.assistance); None: made
    # before that was decided at creation, and the default rule decides.
    assisted: bool | None = None
    # The last action of a person (its creation, a seat taken, a person's own move): a game
    # idle since long ago is closed as abandoned (`Store.abandon`). None: its creation.
    human_at: datetime | None = None


class Store(Protocol):
    """Storage behind the master (the SQL store of the web app, or `MemoryStore`)."""

    async def create_game(self, game: StoredGame) -> None:
        """Store a new game, or raise ConflictError when its id is taken."""
        ...

    async def game(self, game_id: str) -> StoredGame | None: ...

    async def events(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        """The game's events after seq `after`, in order."""
        ...

    async def append(
        self,
        game_id: str,
        expected_seq: int,
        stored: StoredEvent,
        status: str,
        *,
        person: bool = False,
    ) -> None:
        """Commit event `expected_seq + 1` and the game's new status, or raise ConflictError
        (also when the game was abandoned). `person`: a person's own intent, the game's latest
        human action now (not a bot's, nor a turn clock's)."""
        ...

    async def seqs(self, game_ids: Sequence[str]) -> dict[str, int]:
        """Each of these games' last committed seq, in one read (a game not stored is left out):
        how a process finds the games it missed a move of."""
        ...

    async def update_seats(
        self, game_id: str, seats: list[dict[str, Any]], status: str, expected: list[Any]
    ) -> bool:
        """Replace the seats if they are still `expected` (so two joins cannot take one seat)
        and the game was not abandoned; a seat taken is a person's action."""
        ...

    async def unfinished(self) -> list[str]:
        """The ids of every game still to be played (neither finished nor abandoned)."""
        ...

    async def moving_alone(self) -> list[str]:
        """The ids of the running games that may move with nobody touching them (a bot's seat
        or a turn clock): a starting process lets them go on; every other game waits in the
        store until it is asked for."""
        ...

    async def abandon(self, idle_since: datetime) -> list[str]:
        """Close as abandoned every game not over whose last person's action is older than
        `idle_since`; the ids of those this call closed (each game is closed once, whichever
        process asks)."""
        ...
