"""`settled(watchers, game_id)` (dicepoker.master.watcher): the one wait for what the master's
watchers do in the background, asked of any watcher through `holds`."""

from __future__ import annotations

import asyncio

from dicepoker.master.live import LiveGame
from dicepoker.master.tasks import GameTasks
from dicepoker.master.watcher import Watcher, settled


class Relay:
    """A watcher whose work of a game is two steps, each a task of its own (as a game's results
    and then its accuracy are): the first starts the second as it ends. Each step waits until
    the test lets it go."""

    def __init__(self) -> None:
        self.first = GameTasks()
        self.second = GameTasks()
        self.go_first = asyncio.Event()
        self.go_second = asyncio.Event()
        self.done: list[str] = []

    def start(self, game_id: str) -> None:
        self.first.start(game_id, self._first(game_id), name=f"first-{game_id}")

    async def _first(self, game_id: str) -> None:
        await self.go_first.wait()
        self.second.start(game_id, self._second(game_id), name=f"second-{game_id}")

    async def _second(self, game_id: str) -> None:
        await self.go_second.wait()
        self.done.append(game_id)

    def look(self, live: LiveGame) -> None:
        self.start(live.id)

    def holds(self, game_id: str) -> bool:
        return self.first.running(game_id) or self.second.running(game_id)

    async def close(self) -> None:
        await self.first.close()
        await self.second.close()


def test_settled_waits_for_work_handed_on_until_none_holds_the_game() -> None:
    async def scenario() -> None:
        relay = Relay()
        watchers: list[Watcher] = [relay]
        try:
            relay.start("g")
            waiting = asyncio.create_task(settled(watchers, "g"))
            relay.go_first.set()  # the first step ends, and hands the game on to the second
            done, _ = await asyncio.wait((waiting,), timeout=0.2)
            assert not done and relay.done == []
            assert not relay.first.running("g") and relay.second.running("g")
            relay.go_second.set()
            await asyncio.wait_for(waiting, 30)
            assert relay.done == ["g"] and not relay.holds("g")
        finally:
            await relay.close()

    asyncio.run(scenario())


def test_settled_returns_at_once_for_a_game_no_watcher_holds() -> None:
    async def scenario() -> None:
        relay = Relay()
        try:
            relay.start("busy")
            await asyncio.wait_for(settled([relay], "idle"), 30)
            assert relay.holds("busy")
        finally:
            await relay.close()

    asyncio.run(scenario())
