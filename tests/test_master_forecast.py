"""The master judges who is winning after every event (dicepoker.winprob), before it tells
anyone: every message about a position of a game with rivals carries `win_probability`; a
forecast that fails or is late never holds up or loses the move."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState
from dicepoker.master import GameMaster, MemoryStore
from dicepoker.master import forecast as master_module
from dicepoker.master.messages import welcome
from dicepoker.rules import get_rules
from dicepoker.server.services import forecast_in_thread
from dicepoker.winprob import forecast, prepare, ready, win_probability

TWO = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def test_a_forecast_is_none_until_the_tables_are_ready_then_judged() -> None:
    rules = get_rules("poker-dice", {"turn_seconds": 45})  # rules of their own: not ready yet
    from dicepoker.engine import new_game

    state = new_game(rules, ["A", "B"])
    if not ready(rules):
        assert forecast(state) is None
    prepare(rules)
    assert ready(rules) and forecast(state) == win_probability(state)


def test_every_event_carries_each_seat_s_chance_of_winning() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast_in_thread)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        prepare(live.rules)  # the tables, built once (a server gets them ready itself)
        queue = master.broadcaster.subscribe(live)
        seen: list[list[float]] = []
        for _step in range(12):  # four turns: roll, keep three dice and reroll, fill a row
            state = live.game.state
            if state.rolls == 0:
                action = "roll"
            elif state.rolls == 1:
                action = "keep 0 1 2"
            else:
                action = _first_move(state)
            seq = await master.act(live, state.seat, action, live.seq)
            message = json.loads(queue.get_nowait())
            assert message["type"] == "event" and message["seq"] == seq
            chances = message["win_probability"]
            assert len(chances) == 2 and sum(chances) == pytest.approx(1.0)
            assert tuple(chances) == win_probability(live.game.state)
            seen.append(chances)
        assert len({tuple(c) for c in seen}) > 1  # it moves with the game
        hello = json.loads(welcome(live, None).to_json())
        assert hello["win_probability"] == seen[-1]
        await master.close()

    asyncio.run(scenario())


def _first_move(state: GameState) -> str:
    from dicepoker.engine import cell_moves

    return str(cell_moves(state)[0])


def test_a_solitaire_game_has_no_win_probability() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast_in_thread)
        await master.start()
        live, _ = await master.create("yahtzee", {}, TWO[:1], None)
        queue = master.broadcaster.subscribe(live)
        await master.act(live, 0, "roll", 0)
        assert "win_probability" not in json.loads(queue.get_nowait())
        await master.close()

    asyncio.run(scenario())


def test_a_failing_or_late_forecast_leaves_it_out_and_the_move_stands(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def failing(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        raise RuntimeError("no tables here")

    never = asyncio.Event()

    async def late(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        await never.wait()
        return (0.5, 0.5)

    async def scenario(forecast: Any) -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast)
        await master.start()
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        assert await master.act(live, 0, "roll", 0) == 1
        message = json.loads(queue.get_nowait())
        assert message["seq"] == 1 and "win_probability" not in message
        assert [e.seq for e in await master.store.events(live.id)] == [1]
        await master.close()

    asyncio.run(scenario(failing))
    monkeypatch.setattr(master_module, "FORECAST_SECONDS", 0.01)
    asyncio.run(scenario(late))


def test_bot_seats_are_judged_at_their_level() -> None:
    async def scenario() -> None:
        asked: list[tuple[str | None, ...]] = []

        async def forecast(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
            asked.append(levels)
            found = await forecast_in_thread(state, levels)
            assert found is not None
            return found

        master = GameMaster(MemoryStore(), dice=SeededDice(3), forecast=forecast)
        await master.start()
        seats = [TWO[0], {"kind": "bot", "level": "greedy"}]
        live, _ = await master.create("poker-dice", {}, seats, None)
        prepare(live.rules)
        await master.act(live, 0, "roll", 0)
        # Judged when made (the start) and after the roll, each time with the seats' levels.
        assert asked == [(None, "greedy")] * 2
        await master.close()

    asyncio.run(scenario())
