"""The live win probability: a watcher of committed events, like the bot driver and the clock.

A move's path ends at its broadcast; nothing on it asks for, waits for or carries the chances of
the position it leads to. After the event has been told, this watcher notes the game as one to
judge (`look`). It keeps one entry per game, the game itself, so an entry always stands for the
position the game rests at *now*: a game that moves on while it waits is judged at its newest
position, never at the ones it passed. Games are judged in the order they began to wait (each
game in its turn, however often it moves), at most `at_once` at a time, and a game's chances are
told (`Broadcaster.chances`) only if the game is still at the position that was judged; one that
moved on meanwhile waits again, at its new position.

How a position is judged is injected (`Forecast`): the server's work queue, behind every more
urgent job (so on a full machine the chances come later and the moves do not), or a thread. The
forecast is handed what gives the game's position, not the position: it takes it when it starts
(a job that waited judges where the game rests then), or learns that there is nothing to judge
any more.
In a game several processes hold, the process that committed an event judges the position it
leads to and tells the others (`LiveGame.judged_elsewhere`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from dicepoker.engine import GameState
from dicepoker.master import seats as seating
from dicepoker.master.live import LiveGame
from dicepoker.master.master import GameMaster

log = logging.getLogger("dicepoker.master")

#: The position to judge and the seats' levels (a bot's; None for a person), taken when the
#: judging starts; None when there is nothing to judge any more.
Position = Callable[[], tuple[GameState, tuple[str | None, ...]] | None]
#: Each seat's chance of finishing first in the position `Position` gives; None when it has none
#: (a solitaire game) or there was nothing to judge.
Forecast = Callable[[Position], Awaitable[tuple[float, ...] | None]]

#: Positions being judged at once: one judged while the next travels to its worker. More would
#: only queue positions that their games may have left by the time a worker reaches them.
AT_ONCE = 2


class ChancesWatcher:
    """Judges the position each game with rivals rests at, and tells it (a watcher of the
    master)."""

    def __init__(
        self,
        master: GameMaster,
        forecast: Forecast,
        *,
        at_once: int = AT_ONCE,
    ) -> None:
        self.master = master
        self.forecast = forecast
        self.at_once = max(1, at_once)
        # The games whose position waits to be judged, in the order they began to wait.
        self._waiting: dict[str, LiveGame] = {}
        # The games being judged now, and the task that judges each.
        self._judging: dict[str, asyncio.Task[None]] = {}
        self._closing = False
        master.watch(self)

    def look(self, live: LiveGame) -> None:
        """The game changed (or was loaded): its position now waits to be judged, unless it has
        its chances already, needs none, or another process judges it."""
        if self._closing or not _wanted(live) or live.id in self._judging:
            return  # (a game being judged is looked at again when its answer comes)
        self._waiting.setdefault(live.id, live)
        self._pump()

    def holds(self, game_id: str) -> bool:
        return game_id in self._judging

    async def close(self) -> None:
        self._closing = True
        self._waiting.clear()
        judging = list(self._judging.values())
        for task in judging:
            task.cancel()
        await asyncio.gather(*judging, return_exceptions=True)

    def _pump(self) -> None:
        """Start judging the games that waited longest, while there is room."""
        while self._waiting and len(self._judging) < self.at_once and not self._closing:
            game_id = next(iter(self._waiting))
            live = self._waiting.pop(game_id)
            if self.master.games.get(game_id) is live and _wanted(live):
                self._judging[game_id] = asyncio.create_task(
                    self._judge(live), name=f"chances-{game_id}"
                )

    async def _judge(self, live: LiveGame) -> None:
        taken: list[int] = []  # the seq of the position judged, once the judging starts

        def position() -> tuple[GameState, tuple[str | None, ...]] | None:
            if self._closing or self.master.games.get(live.id) is not live or not _wanted(live):
                return None
            taken.append(live.seq)
            return live.state, live.levels()

        try:
            chances = await self.forecast(position)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # A worker that died, a pool closing: the game goes on without these chances, and
            # its next position is judged as any other.
            log.warning("no win probability for game %s: %r", live.id, exc)
            chances = None
        finally:
            self._judging.pop(live.id, None)
        if self._closing:
            return
        if not taken:  # nothing to judge any more
            self._pump()
            return
        seq = taken[0]
        if live.seq != seq:
            self.look(live)  # it moved on while judged: its new position waits its turn
        elif chances is not None and len(chances) == len(live.state.players):
            live.chances = (seq, tuple(chances))
            try:
                await self.master.broadcaster.chances(live)
            except Exception as exc:  # its subscribers read them in their next sync
                log.warning("could not tell the chances of game %s: %r", live.id, exc)
        self._pump()


def _wanted(live: LiveGame) -> bool:
    """Whether the position the game is at should be judged here."""
    state = live.state
    if len(state.players) < 2 or state.finished or live.judged_elsewhere:
        return False
    if live.status == seating.ABANDONED:
        return False
    return live.chances is None or live.chances[0] != live.seq
