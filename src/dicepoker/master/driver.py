"""The bot driver: the asynchronous runner of the bot loop (botloop.py), through the master.

It is how bots play in the web app and in the terminal client's local games. While a bot is to
move in a running game, the driver lets the bot think (unless the engine leaves it a single
action: a turn's first throw) while it waits the bot's delay (bots that answer at once are hard
to follow), takes the game's lease (with several processes, one drives a game's bots), and sends
the action as an intent with the seq it was chosen at, through the master like anybody's; what
to do then is the loop's.

How a bot thinks is injected (`Thinker`): in a worker thread (`InThread`: a long decision never
stalls the event loop), inline (`Inline`), or in the web app's worker processes
(dicepoker.server).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from dicepoker.engine import Action, GameState, forced_action
from dicepoker.master.botloop import Act, Answer, Think, bot_loop
from dicepoker.master.live import LiveGame
from dicepoker.master.master import GameMaster
from dicepoker.master.refusal import Refusal
from dicepoker.master.tasks import GameTasks

log = logging.getLogger("dicepoker.master")

OnRefused = Callable[[LiveGame, int, Refusal], None]


class Thinker(Protocol):
    """How a seat's bot chooses its action."""

    async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action: ...

    def close(self) -> None: ...


class InThread:
    """The game's own bot objects (`live.bots`), each decision in a worker thread."""

    async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
        return await asyncio.to_thread(live.bots[seat].choose, state)

    def close(self) -> None:
        return None


class Inline:
    """The game's own bot objects, deciding on the event loop itself."""

    async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
        return live.bots[seat].choose(state)

    def close(self) -> None:
        return None


class BotDriver:
    """Plays the bot seats of a master's games (a watcher of the master)."""

    def __init__(
        self,
        master: GameMaster,
        thinker: Thinker | None = None,
        *,
        delay: float = 0.6,
        on_refused: OnRefused | None = None,
    ) -> None:
        self.master = master
        self.thinker: Thinker = thinker or InThread()
        self.delay = delay
        self.on_refused = on_refused
        self._tasks = GameTasks()
        self._driving: set[str] = set()  # games whose loop runs now
        self._closing = False
        master.watch(self)

    def look(self, live: LiveGame) -> None:
        """Start the game's bot loop when a bot is to move (one loop per game at a time) and
        no other process surely drives it (it would wait its delay only to be refused the
        lease; the master looks again at each event and lease sweep)."""
        if self._closing or live.id in self._driving or live.bot_to_move() is None:
            return
        if self.master.broadcaster.held_elsewhere(live.id):
            return
        if not self._tasks.running(live.id):
            self._tasks.start(live.id, self.drive(live), name=f"bots-{live.id}")

    def holds(self, game_id: str) -> bool:
        return game_id in self._driving or self._tasks.running(game_id)

    async def close(self) -> None:
        self._closing = True
        await self._tasks.close()
        self.thinker.close()

    async def drive(self, live: LiveGame) -> None:
        """Play while a bot is to move: run as a task by `look`, or awaited; one at a time per
        game."""
        if live.id in self._driving:
            return
        self._driving.add(live.id)
        try:
            await self._run(live)
        finally:
            self._driving.discard(live.id)

    async def _run(self, live: LiveGame) -> None:
        loop = bot_loop(live, live.id)
        seat = None
        try:
            step = next(loop)
            while not self._closing:
                answer: Answer
                if isinstance(step, Think):
                    answer = await self._think(live, step.seat, step.state)
                else:
                    seat = step.seat
                    answer = await self._act(live, step)
                step = loop.send(answer)
        except StopIteration as stop:
            refused: Refusal | None = stop.value
            if refused is not None and seat is not None and self.on_refused is not None:
                self.on_refused(live, seat, refused)

    async def _think(
        self, live: LiveGame, seat: int, state: GameState
    ) -> Action | Exception | None:
        """The bot's action (or what it failed with: the loop plays greedily instead) once
        both its delay and its thinking are over, and once it holds the lease (None: another
        process drives the game's bots).

        The bot thinks while its delay runs, not after it: a bot moves after its delay as long
        as it thinks for less (before, after its delay and its thinking: 20-30 ms more a
        decision on a loaded server)."""
        forced = forced_action(state)
        # Nothing to think about (a turn's first throw: a quarter of a bot's actions): no
        # worker's round trip, which costs the server more than the choice.
        thinking = (
            None if forced is not None else asyncio.ensure_future(self._choose(live, seat, state))
        )
        try:
            if self.delay > 0:
                await asyncio.sleep(self.delay)
            broadcaster = self.master.broadcaster
            if broadcaster.shared and not await broadcaster.claim(live.id):
                return None
            return forced if thinking is None else await thinking
        finally:
            if thinking is not None and not thinking.done():
                thinking.cancel()  # the lease is another's, or the driver closes

    async def _choose(self, live: LiveGame, seat: int, state: GameState) -> Action | Exception:
        try:
            return await self.thinker.choose(live, seat, state)
        except Exception as exc:
            return exc

    async def _act(self, live: LiveGame, step: Act) -> Refusal | None:
        try:
            await self.master.act(live, step.seat, step.action, step.seq)
        except Refusal as refused:
            return refused
        return None
