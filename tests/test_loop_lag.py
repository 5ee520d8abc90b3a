"""The event loop's lag as the server reads it to decide whether it is busy (`Metrics.lag_lately`:
the forecasts of the chance bars wait while it is)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from dicepoker.engine import GameState, new_game
from dicepoker.rules import get_rules
from dicepoker.server import services as services_module
from dicepoker.server.metrics import LAG_TICK, LAG_WINDOW, Metrics
from dicepoker.server.settings import Settings


def test_the_lag_lately_is_the_longest_of_the_last_second() -> None:
    metrics = Metrics()
    assert metrics.lag_lately() == 0.0
    for _ in range(LAG_WINDOW):
        metrics.observe_lag(0.001)
    assert metrics.lag_lately() == 0.001
    metrics.observe_lag(0.030)  # one late wake-up
    for _ in range(LAG_WINDOW - 1):
        metrics.observe_lag(0.002)
    assert metrics.lag_lately() == 0.030  # still within the window
    metrics.observe_lag(0.002)
    assert metrics.lag_lately() == 0.002  # gone from it


def test_a_blocked_loop_shows_in_the_lag_lately() -> None:
    """The watcher measures the loop it runs on: a callback that holds the loop 3 ticks long
    makes the next look late by most of that."""

    async def scenario() -> float:
        metrics = Metrics()
        metrics.watch_loop()
        try:
            while _looks(metrics) == 0:  # the watcher's first look
                await asyncio.sleep(LAG_TICK / 5)
            time.sleep(3 * LAG_TICK)  # hold the loop (no await): every task waits
            deadline = time.monotonic() + 60
            while metrics.lag_lately() < 1.5 * LAG_TICK and time.monotonic() < deadline:
                await asyncio.sleep(LAG_TICK / 5)
            return metrics.lag_lately()
        finally:
            await metrics.close()

    assert asyncio.run(scenario()) >= 1.5 * LAG_TICK


def _looks(metrics: Metrics) -> float:
    """How many looks the watcher has taken (the lag histogram's count)."""
    (family,) = metrics.loop_lag.collect()
    return float(next(s.value for s in family.samples if s.name.endswith("_count")))


def test_a_busy_server_asks_for_no_forecast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's master asks for the chances only while its loop has not been late lately
    (`FORECAST_BUSY_LAG`); once the late look is out of the window, it asks again."""
    asked: list[GameState] = []

    async def judged(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...]:
        asked.append(state)
        return (0.5, 0.5)

    monkeypatch.setattr(services_module, "forecast_in_thread", judged)
    settings = Settings(database=str(tmp_path / "busy.db"), bot_workers=0)
    app = services_module.Services.build(settings)
    forecast = app.master.forecast
    assert forecast is not None
    state = new_game(get_rules("school", {}), ["A", "B"])

    async def scenario() -> list[tuple[float, ...] | None]:
        answers = []
        app.metrics.observe_lag(2 * services_module.FORECAST_BUSY_LAG)
        answers.append(await forecast(state, (None, None)))
        for _ in range(LAG_WINDOW):
            app.metrics.observe_lag(0.0)
        answers.append(await forecast(state, (None, None)))
        return answers

    assert asyncio.run(scenario()) == [None, (0.5, 0.5)]
    assert asked == [state]
