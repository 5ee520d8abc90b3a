"""What acts on a master's games when they change: bots, clocks, results, a local session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from dicepoker.master.live import LiveGame


class Watcher(Protocol):
    """Something that acts on games when they change (bots, clocks, a local session)."""

    def look(self, live: LiveGame) -> None:
        """The game changed, or may need this watcher now; never blocks."""

    def holds(self, game_id: str) -> bool:
        """Whether the watcher has work of the game under way (then it stays in memory)."""

    async def close(self) -> None:
        """Stop for good (the master is closing)."""
