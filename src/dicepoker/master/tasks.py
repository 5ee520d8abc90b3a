"""One background task per game (a game's bot loop, its turn clock), forgotten when it ends;
and the games a watcher has seen end, the latest only."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any

#: Game ids a `Recent` keeps.
RECENT_KEPT = 4096


class GameTasks:
    """At most one task per game id; `close` cancels them all and waits for them."""

    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[None]] = {}

    def running(self, game_id: str) -> bool:
        task = self._tasks.get(game_id)
        return task is not None and not task.done()

    def start(self, game_id: str, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run `work` as the game's task (after `stop`ping the one before, if any)."""
        self.stop(game_id)
        task = asyncio.create_task(work, name=name)
        self._tasks[game_id] = task
        task.add_done_callback(lambda done: self._forget(game_id, done))

    def stop(self, game_id: str) -> None:
        """Cancel the game's task, unless it is the one asking (it is ending by itself)."""
        task = self._tasks.pop(game_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def detach(self, game_id: str) -> None:
        """The game's task goes on, but is no longer the game's: a new one may start."""
        self._tasks.pop(game_id, None)

    async def close(self) -> None:
        tasks = [task for task in self._tasks.values() if not task.done()]
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def _forget(self, game_id: str, done: asyncio.Task[None]) -> None:
        if self._tasks.get(game_id) is done:
            del self._tasks[game_id]


class Recent:
    """The game ids a watcher has dealt with, the latest `size` only: a watcher that sees a
    finished game again (a seat's change, a rematch) does nothing twice, and a server that runs
    for months does not keep the id of every game it saw end. An id forgotten this way is of a
    game long over, and what the watcher wrote for it makes its second time a no-op anyway."""

    def __init__(self, size: int = RECENT_KEPT) -> None:
        self.size = size
        self._ids: OrderedDict[str, None] = OrderedDict()

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._ids

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, game_id: str) -> None:
        self._ids[game_id] = None
        self._ids.move_to_end(game_id)
        while len(self._ids) > self.size:
            self._ids.popitem(last=False)

    def discard(self, game_id: str) -> None:
        self._ids.pop(game_id, None)
