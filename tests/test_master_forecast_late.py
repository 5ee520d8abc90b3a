"""Forecasts that come late, or not at all: a position is judged once at a time (counted as
judged until its answer is read), and one given up for time is asked once more while the game
rests there (dicepoker.master.forecast)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import ROLL, GameState, apply
from dicepoker.master import GameMaster, MemoryStore
from dicepoker.master import forecast as master_module
from dicepoker.master.live import LiveGame

TWO = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def test_a_forecast_that_comes_while_another_is_read_is_not_asked_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two forecasts finishing together (two threads on a busy machine): the start's, late, is
    read while the roll's has come but is not read yet. The roll's position counts as judged
    until its answer is read: it is not asked for a second time (a flaky test showed it was)."""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    gates: list[asyncio.Event] = []
    done: list[int] = []

    async def gated(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        gate = asyncio.Event()
        gates.append(gate)
        await gate.wait()
        done.append(state.rolls)
        return (0.5, 0.5) if state.rolls == 0 else (0.3, 0.7)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        tell = master.broadcaster.chances
        await master_module.judge(gated, live, tell)  # the start: late, read in the background
        after = apply(live.state, ROLL, SeededDice(3))  # (any throw: judged alike here)
        foresight = master_module.foresee(gated, live, after)
        await _settle()
        assert foresight is not None and len(gates) == 2
        gates[1].set()  # the roll's forecast comes before the roll is even committed
        await _settle()
        assert done == [1]
        await master.act(live, 0, "roll", 0)  # (no forecast: its own is `foresight`)
        gates[0].set()  # the start's answer is read now: the game moved on
        await _settle()
        assert done == [1, 0] and len(gates) == 2  # the roll's position: not asked again
        await master_module.judge(gated, live, tell, foresight)
        assert live.win_probability() == [0.3, 0.7] and len(gates) == 2
        assert json.loads(queue.get_nowait())["seq"] == 1
        await master.close()

    asyncio.run(scenario())


def test_a_position_given_up_for_time_is_asked_once_more_while_the_game_rests_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A forecast given up after FORECAST_SECONDS (a moment the machine was overloaded) left a
    game resting at its position without chances for good (a flaky test on a loaded CI). It is
    asked once more; a position whose second try is given up too is not asked a third time."""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    monkeypatch.setattr(master_module, "FORECAST_SECONDS", 0.05)
    gates: list[asyncio.Event] = []

    async def gated(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        gate = asyncio.Event()
        gates.append(gate)
        await gate.wait()
        return (0.25, 0.75)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        live, _ = await master.create("poker-dice", {}, TWO, None)
        queue = master.broadcaster.subscribe(live)
        await master_module.judge(gated, live, master.broadcaster.chances)
        await _until(lambda: len(gates) == 2)  # the first given up (never comes): asked again
        gates[1].set()
        told = json.loads(await asyncio.wait_for(queue.get(), 10))
        assert told == {"type": "chances", "seq": 0, "win_probability": [0.25, 0.75]}
        # The roll's forecast never comes, nor its second try: no third.
        await master.act(live, 0, "roll", 0)
        assert json.loads(queue.get_nowait())["seq"] == 1
        master.forecast = gated
        await master_module.judge(gated, live, master.broadcaster.chances)
        await _until(lambda: len(gates) == 4)
        await _until(lambda: (live.id, 1) not in master_module._in_flight)  # given up again
        await _settle()
        assert len(gates) == 4 and live.win_probability() is None and queue.empty()
        for gate in gates:
            gate.set()
        await master.close()
        master_module.forget(live.id)

    asyncio.run(scenario())


def test_a_forecast_already_here_or_not_waited_for_costs_no_turn_of_the_loop() -> None:
    """A move whose forecast came while it was committed, or that does not wait for its forecast
    (they come late), is told in the same step of the event loop: `judge` gives the loop no
    turn, which on a busy server would put every other game's ready work before the event."""
    gate = asyncio.Event()

    async def instant(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        return (0.5, 0.5)

    async def slow(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        await gate.wait()
        return (0.4, 0.6)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))  # (no forecast of its own)
        told: list[list[float] | None] = []

        async def late(game: LiveGame) -> None:
            told.append(game.win_probability())

        live, _ = await master.create("poker-dice", {}, TWO, None)
        foresight = master_module.foresee(instant, live, apply(live.state, ROLL, SeededDice(3)))
        await _settle()
        assert foresight is not None and foresight.judging.done()
        await master.act(live, 0, "roll", 0)
        timely = master_module.Timeliness()
        _in_one_step(master_module.judge(instant, live, late, foresight, timely))
        assert live.win_probability() == [0.5, 0.5]
        # Forecasts that came late: a move is told at once, its chances when they come.
        for _ in range(master_module.TIMELY_WINDOW):
            timely._note(False)
        other, _ = await master.create("poker-dice", {}, TWO, None)
        _in_one_step(master_module.judge(slow, other, late, None, timely))
        assert other.win_probability() is None and not told
        gate.set()
        await _until(lambda: bool(told))
        assert told == [[0.4, 0.6]] and other.win_probability() == [0.4, 0.6]
        await master.close()
        master_module.forget(live.id)
        master_module.forget(other.id)

    asyncio.run(scenario())


def _in_one_step(judging: Coroutine[Any, Any, None]) -> None:
    """Run `judging` one step by hand, as the event loop would: it must end in that step."""
    with pytest.raises(StopIteration):
        judging.send(None)


async def _settle() -> None:
    """Let every task that can go on do so (a hundred turns of the loop: no timing)."""
    for _ in range(100):
        await asyncio.sleep(0)


async def _until(condition: Callable[[], bool]) -> None:
    """Wait until `condition` holds (what the forecasts given up start), ten seconds at most."""
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("it never came to pass")
