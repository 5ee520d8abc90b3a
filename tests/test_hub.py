"""The hub in-process: a broken bot never stalls a game."""

from __future__ import annotations

import asyncio
import contextlib
from concurrent.futures.process import BrokenProcessPool
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


async def _pool_scenario() -> None:
    from dicepoker.dice import SeededDice
    from dicepoker.engine import apply, legal_actions, new_game
    from dicepoker.rules import get_rules
    from dicepoker.server.botpool import BotPool

    pool = BotPool(1)
    try:
        state = new_game(get_rules("school", {"columns": 2}), ["a", "b"])
        dice = SeededDice(7)
        for _ in range(12):  # whole turns: the worker keeps each seat's bot between decisions
            action = await pool.choose("g", state.seat, "expert", state)
            assert action in legal_actions(state)
            state = apply(state, action, dice)
        # A worker that dies is replaced at the next decision; the failed one is reported.
        executor = pool._pool()
        for process in list(executor._processes.values()):
            process.kill()
            process.join()
        # The first decision may still meet the broken pool (the hub then plays greedy).
        with contextlib.suppress(BrokenProcessPool):
            await pool.choose("g", state.seat, "greedy", state)
        action = await pool.choose("g", state.seat, "greedy", state)
        assert action in legal_actions(state)
    finally:
        pool.close()


def test_bots_think_in_a_worker_process_that_is_replaced_when_it_dies() -> None:
    asyncio.run(_pool_scenario())
