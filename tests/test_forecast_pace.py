"""The forecasts' worker rests while the machine does not leave it the CPU it asks for
(dicepoker.master.forecast `Pace`): each forecast says how much of its time the worker ran; while
the median of the last PACE_WINDOW is under STARVED_BELOW, the worker rests PACE_REST times each
forecast's time before the next starts, positions asked for meanwhile are left out, and the one
a game rests at is judged after the rest. The times here are the test's own (`note`), except in
the last test, where a real worker reports them."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState
from dicepoker.master import GameMaster, MemoryStore
from dicepoker.master import forecast as master_module
from dicepoker.master.forecast import PACE_REST, PACE_WINDOW, Pace, shedding

TWO = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def test_the_worker_rests_only_while_most_of_its_last_forecasts_ran_little() -> None:
    async def scenario() -> None:
        pace = Pace()
        half = PACE_WINDOW // 2
        for _ in range(half):  # half of them ran a tenth of their time: not yet
            pace.note(0.001, 0.01)
        assert not pace.starved() and not pace.resting()
        pace.note(0.001, 0.5)  # more than half: it rests three times this one's time
        assert pace.starved() and pace.resting()
        assert pace._rests_until - time.perf_counter() > (PACE_REST - 0.5) * 0.5
        for _ in range(half + 1):  # the worker gets the CPU again
            pace.note(0.01, 0.01)
        assert not pace.starved()
        pace._rests_until = 0.0
        assert not pace.resting()  # no rest begins while it is not starved
        pace.note(0.01, 0.01)
        assert not pace.resting()
        if pace._wake is not None:
            pace._wake.cancel()

    asyncio.run(scenario())


def test_a_starved_verdict_lapses_when_no_forecast_comes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server whose last forecasts were starved (a busy moment) and whose games then ask for
    none (solitaire games) kept that verdict for good, and its puzzles' harvests waited for room
    for ever (a test's puzzle never came on a loaded CI). The verdict lapses PACE_STALE after
    the last forecast."""
    clock = [1000.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])  # (the clock `Pace` reads)
    pace = Pace()
    for _ in range(PACE_WINDOW):
        pace.note(0.001, 0.01)
    assert pace.starved()
    clock[0] += master_module.PACE_STALE
    assert pace.starved()
    clock[0] += 0.5
    assert not pace.starved()
    pace.note(0.001, 0.01)  # a new forecast, starved too: the verdict holds again
    assert pace.starved()


def test_a_position_left_out_while_the_worker_rests_is_judged_after_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While it rests, a move's forecast is not even asked for (the worker idles): the move is
    told without chances, and once the rest is over the position the game rests at is judged
    and its chances told, with no other forecast finishing to start it."""
    monkeypatch.setattr(master_module, "TELL_WITHIN", 0.001)
    asked: list[int] = []

    async def judged(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        asked.append(state.rolls)
        return (0.4, 0.6)

    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(3))
        live, _ = await master.create("poker-dice", {}, TWO, None)
        pace = Pace()
        for _ in range(PACE_WINDOW):  # starved: each forecast ran a tenth of its 20 ms
            pace.note(0.002, 0.02)
        assert pace._rests_until > time.perf_counter()  # (a 60 ms rest)
        master.forecast = shedding(judged, pace=pace)
        queue = master.broadcaster.subscribe(live)
        assert await master.act(live, 0, "roll", 0) == 1
        event = json.loads(queue.get_nowait())
        assert event["seq"] == 1 and "win_probability" not in event
        assert asked == []  # left out: the worker rests
        told = json.loads(await asyncio.wait_for(queue.get(), 10))
        assert told == {"type": "chances", "seq": 1, "win_probability": [0.4, 0.6]}
        assert asked == [1]
        await master.close()
        master_module.forget(live.id)

    asyncio.run(scenario())


def test_the_forecast_worker_says_how_much_of_each_forecast_it_ran(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real worker process times each forecast (CPU and all) and the pool notes it."""
    noted: list[tuple[float, float]] = []
    monkeypatch.setattr(Pace, "note", lambda self, cpu, wall: noted.append((cpu, wall)))

    async def scenario() -> None:
        from dicepoker.engine import new_game
        from dicepoker.rules import get_rules
        from dicepoker.server.botpool import BotPool

        pool = BotPool(1)
        try:
            state = new_game(get_rules("school", {"columns": 1}), ["a", "b"])
            chances = await pool.forecast(state, (None, None))
            assert chances is not None and abs(sum(chances) - 1) < 1e-9
        finally:
            pool.close()

    asyncio.run(scenario())
    assert len(noted) == 1
    cpu, wall = noted[0]
    assert cpu > 0 and 0 < wall < 60
