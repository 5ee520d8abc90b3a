"""What acts on a master's games when they change: bots, clocks, results, a local session; and
the one wait for what they do in the background."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dicepoker.master.live import LiveGame

#: Seconds between two looks of `settled` at its watchers.
SETTLED_POLL = 0.01


class Watcher(Protocol):
    """Something that acts on games when they change (bots, clocks, a local session)."""

    def look(self, live: LiveGame) -> None:
        """The game changed, or may need this watcher now; never blocks."""

    def holds(self, game_id: str) -> bool:
        """Whether the watcher has work of the game under way (then it stays in memory)."""

    async def close(self) -> None:
        """Stop for good (the master is closing)."""


async def settled(watchers: Iterable[Watcher], game_id: str) -> None:
    """Wait until none of `watchers` holds the game: the work they started for it (its results,
    its puzzles, a bot's move) is done, or handed on to work that holds no more than its id.

    A condition polled rather than a task awaited: `holds` is the one question every watcher
    answers, however it keeps its work, and work of a game may go on as other work (a game's
    results, then its accuracy), so the wait ends only at a look where none holds it. Work
    started and forgotten is waited for by this alone (tests), never by a hook per feature."""
    watching = list(watchers)
    while any(watcher.holds(game_id) for watcher in watching):
        await asyncio.sleep(SETTLED_POLL)
