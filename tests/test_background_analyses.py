"""Background analyses (a puzzles' harvest, an account game's accuracy) run at the work
queue's lowest priority (dicepoker.server.runtime.work), one at a time per process. The accuracies
waiting hold their game's id only, in a bounded queue; what is left undone (a full queue, a stopped
process) the next start-up's sweep computes."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from daily_support import call, services_of
from dicepoker.master.watcher import settled
from dicepoker.server.community import analysis as analysis_module
from dicepoker.server.settings import Settings
from dicepoker.server.storage.models import GameResultRow
from dicepoker.site import create_app
from puzzle_support import PEOPLE, blunder_game, store_game

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


class Held(Started):
    """The real analysis, held back until the test lets it go (`release`): a process whose one
    background analysis is under way."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def __call__(self, record: dict[str, Any], levels: Any = None) -> dict[str, Any]:
        self.gate.wait(60)
        return super().__call__(record, levels)

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[Held]:
    found = Held()
    monkeypatch.setattr(analysis_module, "analyse", found)
    try:
        yield found
    finally:
        found.release()  # (its thread ends with the test)


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


def test_a_waiting_accuracy_holds_its_game_id_only(tmp_path: Path, held: Held) -> None:
    """While another game's accuracy is computed (its game held: it is loaded for the analysis)
    the next one waits, with its results written, and the master may forget its game: nothing
    of it is held but its id."""
    with finished_game(tmp_path, "first", account="Ana") as client:
        services = services_of(client)
        results = services.results
        seats = [dict(seat) for seat in PEOPLE]
        seats[0]["account"] = call(client, services.accounts.create, "Bea", PASSWORD).id
        record: dict[str, Any] = blunder_game().to_record()
        call(client, lambda: store_game(services.store, "held", record, seats))

        async def computing_first() -> None:
            live = await services.master.load("first")
            assert live is not None
            assert await results.write(live)
            results.queue(["first"])  # its accuracy's analysis starts, and is held

        async def end(game_id: str) -> bool:
            live = await services.master.load(game_id)
            assert live is not None
            results.look(live)
            await settled([results], game_id)
            return services.master.busy(live)

        call(client, computing_first)
        assert results.holds("first")
        assert call(client, end, "held") is False
        assert results.waiting == 2 and results.holds("first") and not results.holds("held")
        assert accuracies(client, "held") == [(None, None)]
        assert held.times == []
        exposition = services_of(client).metrics.exposition().decode()
        assert "dicepoker_accuracies_waiting 2.0" in exposition
        held.release()


def test_accuracies_past_the_bound_are_left_to_the_database(tmp_path: Path, held: Held) -> None:
    with finished_game(tmp_path, "first", account="Ana") as client:
        results = services_of(client).results
        results.most_waiting = 2

        async def queue() -> None:
            results.queue(["first", "second", "first", "third"])

        call(client, queue)
        assert (results.waiting, results.left) == (2, 1)  # "first" once; "third" left
        exposition = services_of(client).metrics.exposition().decode()
        assert "dicepoker_accuracies_waiting 2.0" in exposition
        assert "dicepoker_accuracies_left_total 1.0" in exposition
        assert held.times == []


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
        # The sweep looks for the accuracies left undone in the background: a condition polled
        # until it has found this one and written it, then nothing of the game is under way.
        deadline = time.monotonic() + 60
        while accuracies(client, "undone") == [(None, None)]:
            assert time.monotonic() < deadline, "the sweep did not compute the accuracy"
            time.sleep(0.05)
        call(client, settled, [results], "undone")
        assert accuracies(client, "undone") == analysed(client, "undone")
        assert len(started.times) == 1
        call(client, results.accuracy, "undone")  # known: nothing to compute
        assert len(started.times) == 1
