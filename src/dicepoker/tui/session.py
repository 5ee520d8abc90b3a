"""Sessions: where the terminal client's game lives.

A `Session` holds the current view of a game (the JSON structure of `dicepoker.view.game_view`,
documented in docs/api.md), says which seats the person at this terminal plays, and takes
intents as action text (`roll`, `hold 0 1`, `score pair`, ...). The user interface draws only
the view and sends only action text, so local and remote play look and behave the same and the
terminal never re-implements a rule.

- `LocalSession` plays here, on the same game master as the web app (`dicepoker.master`'s
  `LocalMaster`, in memory): a `Game` keeps the record, and the master's bot driver moves the
  bots after a short delay (0 in tests), exactly as the server's does.
- `RemoteSession` (in `dicepoker.tui.remote`) speaks the WebSocket protocol of the web app.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from dicepoker.bots import LEVELS, Bot, make_bot
from dicepoker.dice import DiceSource, SecretDice
from dicepoker.engine import GameState
from dicepoker.fair import VerifyResult
from dicepoker.master import BotDriver, InThread, LiveGame, LocalMaster, Refusal
from dicepoker.record import Game, replay
from dicepoker.rules import Rules
from dicepoker.view import game_view

if TYPE_CHECKING:
    from dicepoker.tui.rejoin import Rejoin

SeatKind = Literal["human", "bot"]
Status = Literal["connecting", "open", "running", "finished", "abandoned", "reconnecting", "closed"]


class SeatError(ValueError):
    """A `--seats` text that cannot be read, or seats that do not fit the game."""


class ActionRefused(Exception):
    """An intent that was not accepted; `message` says why (already in words for the user)."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True, slots=True)
class SeatChoice:
    """Who sits in a seat: a person (with a name) or a bot of a level."""

    kind: SeatKind
    name: str | None = None
    level: str | None = None

    def __str__(self) -> str:
        if self.kind == "bot":
            return f"bot:{self.level}" + (f":{self.name}" if self.name else "")
        return "human" + (f":{self.name}" if self.name else "")


def parse_seats(text: str) -> list[SeatChoice]:
    """Read `human:Ana,human:Bea,bot:greedy` (a bot may be named: `bot:expert:Max`)."""
    seats: list[SeatChoice] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        kind, _, rest = item.partition(":")
        kind = kind.strip().lower()
        if kind in {"human", "person", "h"}:
            seats.append(SeatChoice("human", rest.strip() or None))
        elif kind in {"bot", "b"}:
            level, _, name = rest.partition(":")
            level = level.strip().lower() or "greedy"
            if level not in LEVELS:
                raise SeatError(f"unknown bot level {level!r} (levels: {', '.join(LEVELS)})")
            seats.append(SeatChoice("bot", name.strip() or None, level))
        elif kind in LEVELS and not rest:
            seats.append(SeatChoice("bot", None, kind))
        else:
            raise SeatError(
                f"a seat is human[:NAME] or bot:LEVEL[:NAME], not {item!r} "
                "(e.g. --seats human:Ana,bot:greedy)"
            )
    if not seats:
        raise SeatError("no seats given (e.g. --seats human:Ana,bot:greedy)")
    return seats


def _bot_name(level: str, number: int) -> str:
    return f"{level.capitalize()} {number}"


def seat_names(
    seats: Sequence[SeatChoice],
    person: Callable[[int], str],
    bot: Callable[[str, int], str] = _bot_name,
) -> list[str]:
    """The players' names: given names, `person(n)` for unnamed people, `bot(level, n)` for
    unnamed bots (numbered when two seats would otherwise share a name)."""
    names: list[str] = []
    for number, seat in enumerate(seats, start=1):
        if seat.name:
            names.append(seat.name)
        elif seat.kind == "bot":
            names.append(bot(seat.level or "greedy", number))
        else:
            names.append(person(number))
    for index, name in enumerate(names):
        if names.count(name) > 1:
            names[index] = f"{name} {index + 1}"
    return names


@dataclass(frozen=True, slots=True)
class RematchOffer:
    """The rematch of a finished server game: its id, and this seat's place and token there
    (None for a spectator, who may watch it)."""

    game: str
    seat: int | None = None
    token: str | None = None


@dataclass(frozen=True, slots=True)
class Update:
    """What a session tells the interface: the view changed, a notice, an error, a player's
    quick reaction (`seat`, its id in `message`), or a rematch on offer (`Session.rematch`)."""

    kind: Literal["view", "notice", "error", "reaction", "rematch"]
    message: str = ""
    seat: int | None = None
    action: str | None = None


Listener = Callable[[Update], None]


class Session(ABC):
    """A game as the terminal sees it: the view, who plays here, and intents as text."""

    #: Whether this session plays through the engine here (records can be written at once).
    local: bool = False
    #: Whether the person here only watches.
    spectator: bool = False
    #: Why the session ended for good (a refused token, an unknown game), else None.
    fatal: str | None = None
    #: The turn clock of a game on a server (`{"seat", "deadline", "seconds"}`), else None.
    clock: dict[str, Any] | None = None
    #: A server game's fair-dice entry (`{"scheme", "commitment"}`, the `seed` at the end).
    fair_dice: dict[str, Any] | None = None
    #: The check of a finished server game's dice against its commitment, made here.
    dice_check: VerifyResult | None = None
    #: How to come back to this seat of a server game (its command, and the file keeping it).
    rejoin: Rejoin | None = None
    #: The dice the player to move holds now, as a server game said last: (seq, seat, dice).
    live_held: tuple[int, int, frozenset[int]] | None = None
    #: The rematch of a finished server game, once there is one.
    rematch: RematchOffer | None = None
    #: Why a server game is played without the expert's help (`rated`, `daily`, `casual`: made
    #: without hints; docs/fair-play.md), so the hint key only says so; None: hints are open, as
    #: in every local game (practice).
    competition: str | None = None

    def __init__(self) -> None:
        self.view: dict[str, Any] | None = None
        self.status: Status = "connecting"
        self.last_action: tuple[int, str] | None = None
        self._listeners: list[Listener] = []

    # --- listening ------------------------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def emit(self, update: Update) -> None:
        for listener in list(self._listeners):
            listener(update)

    # --- what the interface asks ----------------------------------------------------------

    @property
    def players(self) -> list[str]:
        if self.view is None:
            return []
        return [str(player["name"]) for player in self.view["players"]]

    @property
    def seat_to_move(self) -> int | None:
        """The seat whose turn it is, or None (no view yet, game over)."""
        if self.view is None or self.view.get("finished") or "turn" not in self.view:
            return None
        seat: int = self.view["turn"]["seat"]
        return seat

    @abstractmethod
    def controls(self, seat: int) -> bool:
        """Whether the person at this terminal plays `seat`."""

    def is_bot(self, seat: int) -> bool:
        """Whether `seat` is played by a bot (as far as this session knows)."""
        return False

    @property
    def my_turn(self) -> bool:
        seat = self.seat_to_move
        return seat is not None and self.status == "running" and self.controls(seat)

    @property
    def home_seat(self) -> int | None:
        """The seat whose sheet to show when it is nobody's turn here (None: the mover's)."""
        return None

    @abstractmethod
    async def start(self) -> None:
        """Begin: build the first view (local) or connect (remote)."""

    @abstractmethod
    async def act(self, action: str) -> None:
        """Send an intent for the seat to move; `ActionRefused` when it is refused at once."""

    @abstractmethod
    async def record(self) -> dict[str, Any]:
        """The game record so far (docs/record.md)."""

    async def close(self) -> None:  # noqa: B027 (nothing to stop by default)
        """Stop background work (bots, connections)."""

    @property
    def title(self) -> str:
        """A short description of where the game lives (for the side panel)."""
        return ""


class LocalSession(Session):
    """A game played here: hot seat for every human seat, bots driven by the master's driver."""

    local = True

    def __init__(
        self,
        game: Game,
        seats: Sequence[SeatChoice],
        *,
        bot_delay: float = 0.6,
        bot_seed: int | None = None,
    ) -> None:
        super().__init__()
        if len(seats) != len(game.state.players):
            raise SeatError(
                f"the game has {len(game.state.players)} players but {len(seats)} seats were given"
            )
        self.game = game
        self.seats = list(seats)
        self.bot_delay = bot_delay
        self.bots: dict[int, Bot] = {
            seat: make_bot(choice.level or "greedy", None if bot_seed is None else bot_seed + seat)
            for seat, choice in enumerate(self.seats)
            if choice.kind == "bot"
        }
        self.game.extra["bots"] = [
            choice.level if choice.kind == "bot" else None for choice in self.seats
        ]
        self.dirty = False
        self.master = LocalMaster()
        BotDriver(self.master, InThread(), delay=bot_delay, on_refused=self._bot_refused)
        self.master.watch(_Follow(self))
        players = game.state.players
        self.live: LiveGame = self.master.host(
            game,
            [
                {"kind": choice.kind, "name": players[seat], "level": choice.level}
                for seat, choice in enumerate(self.seats)
            ],
            self.bots,
        )
        self._seen = self.live.seq
        self._refresh()

    # --- building ---------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules,
        seats: Sequence[SeatChoice],
        *,
        dice: DiceSource | None = None,
        person: Callable[[int], str] = lambda n: f"Player {n}",
        bot: Callable[[str, int], str] = _bot_name,
        bot_delay: float = 0.6,
        bot_seed: int | None = None,
    ) -> LocalSession:
        if not rules.min_players <= len(seats) <= rules.max_players:
            raise SeatError(
                f"{rules.variant} is played by {rules.min_players} to {rules.max_players} players,"
                f" not {len(seats)}"
            )
        names = seat_names(seats, person, bot)
        game = Game(rules, names, dice or SecretDice())
        return cls(game, seats, bot_delay=bot_delay, bot_seed=bot_seed)

    @classmethod
    def load(
        cls,
        record: Mapping[str, Any],
        seats: Sequence[SeatChoice] | None = None,
        *,
        dice: DiceSource | None = None,
        bot_delay: float = 0.6,
        bot_seed: int | None = None,
    ) -> LocalSession:
        """Continue a saved game. Seats: as given, else the record's `bots` key, else people.

        Raises `RecordError` for a bad record and `SeatError` for seats that do not fit.
        """
        game = replay(record)
        game.dice = dice or SecretDice()
        players = list(game.state.players)
        if seats is None:
            seats = seats_of_record(record, players)
        else:
            seats = [
                SeatChoice(choice.kind, players[n] if n < len(players) else None, choice.level)
                for n, choice in enumerate(seats)
            ]
        return cls(game, seats, bot_delay=bot_delay, bot_seed=bot_seed)

    # --- the session interface ----------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self.game.state

    def controls(self, seat: int) -> bool:
        return seat not in self.bots

    def is_bot(self, seat: int) -> bool:
        return seat in self.bots

    async def start(self) -> None:
        self._refresh()
        self.emit(Update("view"))
        self.master.look(self.live)  # a bot to move first starts at once

    async def act(self, action: str) -> None:
        state = self.game.state
        if state.finished:
            raise ActionRefused("The game is over.", "game_over")
        if state.seat in self.bots:
            raise ActionRefused("It is not your turn.", "not_your_turn")
        try:
            await self.master.act(self.live, state.seat, action, self.live.seq)
        except Refusal as exc:
            raise ActionRefused(exc.message, exc.code) from None

    async def record(self) -> dict[str, Any]:
        return self.game.to_record()

    def saved(self) -> None:
        self.dirty = False

    async def close(self) -> None:
        await self.master.close()

    # --- inside ---------------------------------------------------------------------------

    def _refresh(self) -> None:
        self.view = game_view(self.game.state).to_data()
        self.status = "finished" if self.game.state.finished else "running"

    def _moved(self, live: LiveGame) -> None:
        """The master applied an event (a person's here, or a bot's): show it."""
        last = live.last
        if last is None or live.seq == self._seen:
            return
        self._seen = live.seq
        self.dirty = True
        self.last_action = (last.seat, last.action)
        self._refresh()
        self.emit(Update("view", seat=last.seat, action=last.action))

    def _bot_refused(self, live: LiveGame, seat: int, refusal: Refusal) -> None:
        """A bot's intent was refused (a bot bug must not freeze the game silently)."""
        self.emit(Update("error", f"{live.game.state.players[seat]}: {refusal.message}"))


class _Follow:
    """The session as a watcher of its master: every event applied is shown."""

    def __init__(self, session: LocalSession) -> None:
        self.session = session

    def look(self, live: LiveGame) -> None:
        self.session._moved(live)

    def holds(self, game_id: str) -> bool:
        return False  # a local session's games are its own: never forgotten

    async def close(self) -> None:
        return None


def seats_of_record(record: Mapping[str, Any], players: Sequence[str]) -> list[SeatChoice]:
    """The seats of a saved game: bots where its `bots` key names a level, else people.

    `SeatError` for a `bots` key that names a level no bot has (or is not a list of levels):
    playing a bot's seat as a person's, or the other way round, would be a different game."""
    bots = record.get("bots")
    levels: list[str | None] = [None] * len(players)
    if bots is not None and not isinstance(bots, list):
        raise SeatError(f"'bots' is a list of bot levels (or null for a person), not {bots!r}")
    for seat, level in enumerate((bots or [])[: len(players)]):
        if level is None:
            continue
        if not isinstance(level, str) or level not in LEVELS:
            raise SeatError(
                f"seat {seat + 1} ({players[seat]}) is a bot of an unknown level {level!r}"
                f" (levels: {', '.join(LEVELS)}; --seats chooses others)"
            )
        levels[seat] = level
    return [
        SeatChoice("bot", name, level) if level else SeatChoice("human", name)
        for name, level in zip(players, levels, strict=True)
    ]
