"""Background analyses (a puzzles' harvest, an account game's accuracy) wait while the machine is
full (issue 17): `BotPool.analysis_rest` says how long, from the forecasts' worker's pace and from
the last analysis's own share of a CPU, and the harvest and the accuracy wait it out before their
analysis starts, asking again until it says none. The accuracies waiting hold their game's id
only, in a bounded queue; what is left undone (a full queue, a stopped process) the next
start-up's sweep computes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from daily_support import call, services_of
from dicepoker.master.forecast import PACE_REST, PACE_WINDOW, STARVED_BELOW
from dicepoker.server import analysis as analysis_module
from dicepoker.server.app import create_app
from dicepoker.server.botpool import BUSY_RECHECK, BotPool, rest_for
from dicepoker.server.models import GameResultRow
from dicepoker.server.settings import Settings
from puzzle_support import PEOPLE, blunder_game, store_game

REST = 0.3  # seconds the tests' machine is said to be full
PASSWORD = "correct horse"


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


def full_for_long() -> float:
    """A machine that stays full for as long as a test looks."""
    return 60.0


def settings_in(tmp_path: Path) -> Settings:
    """No worker processes: the analyses run in a thread."""
    return Settings(
        database=str(tmp_path / "background.db"), bot_delay=0, bot_workers=0, analysis_rate=0
    )


@contextmanager
def finished_game(tmp_path: Path, game_id: str, account: str | None = None) -> Iterator[TestClient]:
    """An app whose store holds a finished game `game_id` (its first seat an account's, of
    that name, when `account` is given)."""
    with TestClient(create_app(settings_in(tmp_path))) as client:
        services = services_of(client)
        seats = [dict(seat) for seat in PEOPLE]
        if account is not None:
            seats[0]["account"] = call(client, services.accounts.create, account, PASSWORD).id
        record: dict[str, Any] = blunder_game().to_record()
        call(client, lambda: store_game(services.store, game_id, record, seats))
        yield client


def accuracies(client: TestClient, game_id: str) -> list[tuple[float | None, int | None]]:
    """The (points lost, decisions) of each account result of the game."""

    async def read() -> list[tuple[float | None, int | None]]:
        async with services_of(client).store.sessions() as session:
            rows = await session.scalars(
                select(GameResultRow).where(GameResultRow.game_id == game_id)
            )
            return [(row.lost, row.decisions) for row in rows]

    found: list[tuple[float | None, int | None]] = call(client, read)
    return found


def analysed(client: TestClient, game_id: str) -> list[tuple[Any, Any]]:
    """What the accuracy of the game's account seat (Ana's, the first) is, from the analysis
    the server gives anyone (kept: asking computes nothing again)."""
    analysis = client.get(f"/api/games/{game_id}/analysis")
    assert analysis.status_code == 200, analysis.text
    ana = analysis.json()["players"][0]
    assert ana["expected_loss"] > 0  # the blunder
    return [(pytest.approx(ana["expected_loss"]), ana["decisions"])]


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
    with finished_game(tmp_path, "counted", account="Ana") as client:
        services = services_of(client)
        resting = services.results.resting = FullFor(REST)

        async def end() -> None:
            live = await services.master.load("counted")
            assert live is not None and live.game.state.finished
            services.results.look(live)
            await services.results.settled("counted")

        call(client, end)
        waited_out(started, resting)
        assert accuracies(client, "counted") == analysed(client, "counted")
        assert len(started.times) == 1


def test_a_waiting_accuracy_holds_its_game_id_only(tmp_path: Path, started: Started) -> None:
    """While the machine stays full the accuracy waits, with its results written, and the
    master may forget the game: nothing of it is held but its id."""
    with finished_game(tmp_path, "held", account="Ana") as client:
        services = services_of(client)
        services.results.resting = full_for_long

        async def end() -> bool:
            live = await services.master.load("held")
            assert live is not None
            services.results.look(live)
            await services.results.written("held")
            return services.master.busy(live)

        assert call(client, end) is False
        assert services.results.waiting == 1 and not services.results.holds("held")
        assert accuracies(client, "held") == [(None, None)]
        assert started.times == []
        exposition = services_of(client).metrics.exposition().decode()
        assert "dicepoker_accuracies_waiting 1.0" in exposition


def test_accuracies_past_the_bound_are_left_to_the_database(
    tmp_path: Path, started: Started
) -> None:
    with finished_game(tmp_path, "first", account="Ana") as client:
        results = services_of(client).results
        results.resting = full_for_long
        results.most_waiting = 2

        async def queue() -> None:
            results.queue(["first", "second", "first", "third"])

        call(client, queue)
        assert (results.waiting, results.left) == (2, 1)  # "first" once; "third" left
        exposition = services_of(client).metrics.exposition().decode()
        assert "dicepoker_accuracies_waiting 2.0" in exposition
        assert "dicepoker_accuracies_left_total 1.0" in exposition
        assert started.times == []


def test_the_start_up_sweep_computes_the_accuracies_left_undone(
    tmp_path: Path, started: Started
) -> None:
    """A process stopped between a game's results and its accuracy: the next one computes it,
    once."""
    with finished_game(tmp_path, "undone", account="Ana") as client:
        services = services_of(client)

        async def results_only() -> bool:
            live = await services.master.load("undone")
            assert live is not None
            return await services.results.write(live)

        assert call(client, results_only)
        assert accuracies(client, "undone") == [(None, None)]
    with TestClient(create_app(settings_in(tmp_path))) as client:
        results = services_of(client).results
        call(client, results.settled)
        assert accuracies(client, "undone") == analysed(client, "undone")
        assert len(started.times) == 1
        call(client, results.accuracy, "undone")  # known: nothing to compute
        assert len(started.times) == 1


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
