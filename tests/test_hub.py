"""The hub in-process: a broken bot never stalls a game."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dicepoker.bots.base import Bot
from dicepoker.engine import Action, GameState
from dicepoker.server.hub import Hub
from dicepoker.server.store import Store


class BrokenBot(Bot):
    def choose(self, state: GameState) -> Action:
        raise RuntimeError("this bot is broken")


async def _scenario(database: str) -> int:
    store = Store(database)
    await store.migrate()
    hub = Hub(store, bot_delay=0)
    try:
        seats = [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "greedy"}]
        live, _tokens = await hub.create("school", {"columns": 1}, seats, None)
        live.bots = {0: BrokenBot(), 1: live.bots[1]}
        queue = hub.subscribe(live)
        while not live.game.state.finished:
            await asyncio.wait_for(queue.get(), timeout=30)
        return live.seq
    finally:
        await hub.close()
        await store.close()


def test_a_failing_bot_is_replaced_by_greedy_for_the_action(tmp_path: Path) -> None:
    seq = asyncio.run(_scenario(str(tmp_path / "hub.db")))
    assert seq > 0
