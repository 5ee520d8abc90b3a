"""One background task per game (a game's bot loop, its turn clock), forgotten when it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


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
