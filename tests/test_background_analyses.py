"""Background analyses (a puzzles' harvest, an account game's accuracy) wait while the machine is
full (issue 17): `BotPool.analysis_rest` says how long, from the forecasts' worker's pace and from
the last analysis's own share of a CPU, and the harvest and the accuracy wait it out before their
analysis starts, asking again until it says none."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from daily_support import call, services_of
from dicepoker.master.forecast import PACE_REST, PACE_WINDOW, STARVED_BELOW
from dicepoker.server import analysis as analysis_module
from dicepoker.server.app import create_app
from dicepoker.server.botpool import BUSY_RECHECK, BotPool, rest_for
from dicepoker.server.settings import Settings
from puzzle_support import blunder_game, store_game

REST = 0.3  # seconds the tests' machine is said to be full


class Started:
    """The real analysis, noting when each one started."""

    def __init__(self) -> None:
        self.real = analysis_module.analyse
        self.times: list[float] = []

    def __call__(self, record: dict[str, Any], levels: Any = None) -> dict[str, Any]:
        self.times.append(time.perf_counter())
        return self.real(record, levels)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> Started:
    found = Started()
    monkeypatch.setattr(analysis_module, "analyse", found)
    return found


class FullFor:
    """A `resting` that says the machine is full for `seconds` from its making, as
    `BotPool.analysis_rest` would: the time left, asked again until none is."""

    def __init__(self, seconds: float) -> None:
        self.until = time.perf_counter() + seconds
        self.asked: list[float] = []

    def __call__(self) -> float:
        left = max(0.0, self.until - time.perf_counter())
        self.asked.append(left)
        return left


def waited_out(started: Started, resting: FullFor) -> None:
    """The one analysis started once the machine had room, and `resting` was asked again until
    it said so."""
    assert len(started.times) == 1 and started.times[0] >= resting.until
    assert resting.asked[-1] == 0.0 and len(resting.asked) >= 2


@contextmanager
def finished_game(tmp_path: Path, game_id: str) -> Iterator[TestClient]:
    """An app (no worker processes) whose store holds a finished game `game_id`."""
    settings = Settings(
        database=str(tmp_path / "background.db"), bot_delay=0, bot_workers=0, analysis_rate=0
    )
    with TestClient(create_app(settings)) as client:
        record: dict[str, Any] = blunder_game().to_record()
        call(client, lambda: store_game(services_of(client).store, game_id, record))
        yield client


def test_a_harvest_waits_while_the_machine_is_full(tmp_path: Path, started: Started) -> None:
    with finished_game(tmp_path, "rested") as client:
        services = services_of(client)
        resting = services.puzzles.resting = FullFor(REST)

        async def end() -> None:
            live = await services.master.load("rested")
            assert live is not None and live.game.state.finished
            services.puzzles.look(live)
            await services.puzzles.wait("rested")

        call(client, end)
        waited_out(started, resting)
        assert call(client, services.puzzles.book.harvested, "rested")  # once it had room


def test_an_accuracy_waits_while_the_machine_is_full(tmp_path: Path, started: Started) -> None:
    with finished_game(tmp_path, "counted") as client:
        services = services_of(client)
        resting = services.results.resting = FullFor(REST)

        async def accuracy() -> None:
            live = await services.master.load("counted")
            assert live is not None and live.game.state.finished
            await services.results.accuracy(live)

        call(client, accuracy)
        waited_out(started, resting)


def test_no_background_analysis_starts_while_the_forecasts_worker_is_starved() -> None:
    """`BotPool.analysis_rest`: BUSY_RECHECK while the forecasts' pace is starved (the median
    of its last forecasts had a CPU for under STARVED_BELOW of their time), none once it is
    not; no worker process is started to say so."""
    pool = BotPool(1)
    try:
        assert pool.analysis_rest() == 0.0
        for _ in range(PACE_WINDOW):
            pool.pace.note(0.1, 1.0)  # a tenth of each forecast's time on a CPU
        assert pool.analysis_rest() == BUSY_RECHECK
        for _ in range(PACE_WINDOW):
            pool.pace.note(0.9, 1.0)
        assert pool.analysis_rest() == 0.0
        assert pool._analysing.pids == [] and pool._judging.pids == []
    finally:
        pool.close()


def test_after_a_starved_analysis_the_next_rests_pace_rest_times_its_time() -> None:
    """`rest_for`: PACE_REST times an analysis's time when it had a CPU for less than
    STARVED_BELOW of it (a full machine, and no forecasts to say so), else no rest."""
    assert rest_for(4.0, 4.2) == 0.0  # it had the CPU it asked for
    assert rest_for(STARVED_BELOW * 10.0, 10.0) == 0.0
    assert rest_for(1.0, 10.0) == PACE_REST * 10.0  # a tenth of its time: rest
    assert rest_for(0.0, 0.0) == 0.0
