"""The analysis of a game still being played is computed once per position (issue 17): asking
again at the same position answers what was computed, a move makes a new analysis, and the
cache keeps a bounded number of analyses, least recently used out first."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicepoker.record import replay
from dicepoker.server.community import analysis as analysis_module
from dicepoker.server.community.analysis import AnalysisCache
from dicepoker.server.settings import Settings
from dicepoker.site import create_app
from security_support import GOLDEN

SEATS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


class Counted:
    """The real analysis, counting its calls (by key: the record's number of turns)."""

    def __init__(self) -> None:
        self.real = analysis_module.analyse
        self.calls: list[int] = []
        self.started = threading.Event()
        self.release = threading.Event()
        self.release.set()

    def __call__(
        self, record: dict[str, Any], levels: Sequence[str | None] | None = None
    ) -> dict[str, Any]:
        self.calls.append(len(record.get("turns") or []))
        self.started.set()
        assert self.release.wait(30), "the test never let the analysis finish"
        return self.real(record, levels)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    counter = Counted()
    monkeypatch.setattr(analysis_module, "analyse", counter)
    return counter


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("analysis")
    settings = Settings(
        database=str(folder / "analysis.db"), bot_delay=0, bot_workers=0, analysis_rate=0
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _play_turn(client: TestClient, game_id: str) -> None:
    """One turn of the player to move, played on the app's own loop (as auto-play plays it)."""
    app: Any = client.app
    master = app.state.services.master

    async def play() -> None:
        live = await master.load(game_id)
        await master.auto(live, live.game.state.seat)

    assert client.portal is not None
    client.portal.call(play)


def test_the_same_position_is_analysed_once_and_a_move_analysed_anew(
    client: TestClient, counted: Counted
) -> None:
    created = client.post(
        "/api/games", json={"variant": "yahtzee", "seats": SEATS, "assisted": True}
    )
    game_id = created.json()["id"]
    _play_turn(client, game_id)
    first = client.get(f"/api/games/{game_id}/analysis")
    assert first.status_code == 200, first.text[:300]
    again = client.get(f"/api/games/{game_id}/analysis")
    assert again.json() == first.json()
    assert counted.calls == [1]  # one turn played, analysed once for two requests

    _play_turn(client, game_id)
    after = client.get(f"/api/games/{game_id}/analysis")
    assert counted.calls == [1, 2]
    assert len(after.json()["decisions"]) > len(first.json()["decisions"])
    assert client.get(f"/api/games/{game_id}/analysis").json() == after.json()
    assert counted.calls == [1, 2]


def test_requests_at_once_share_one_computation(counted: Counted) -> None:
    record = json_record()
    cache = AnalysisCache()

    async def both() -> list[dict[str, Any]]:
        counted.release.clear()
        asked = [asyncio.ensure_future(cache.analysis("game:x", record, at=3)) for _ in range(2)]
        # Both requests are asked before the first computation (held back) can end.
        assert await asyncio.to_thread(counted.started.wait, 30)
        counted.release.set()
        return list(await asyncio.gather(*asked))

    first, second = asyncio.run(both())
    assert first is second and counted.calls == [len(record["turns"])]


def test_the_cache_is_bounded_least_recently_used_out(counted: Counted) -> None:
    record = json_record()
    cache = AnalysisCache(size=2)

    async def ask(*keys: str) -> None:
        for key in keys:
            await cache.analysis(key, record, at=1)

    asyncio.run(ask("a", "b", "a", "c"))  # "b" is the least recently used when "c" comes
    assert len(counted.calls) == 3
    asyncio.run(ask("a", "c"))
    assert len(counted.calls) == 3
    asyncio.run(ask("b"))
    assert len(counted.calls) == 4
    asyncio.run(ask("b"))
    assert len(counted.calls) == 4
    asyncio.run(cache.analysis("b", record, at=2))  # a new position of "b" replaces the old
    asyncio.run(cache.analysis("b", record, at=1))
    assert len(counted.calls) == 6


def json_record() -> dict[str, Any]:
    """A short yahtzee game: the golden example's first four turns."""
    record: dict[str, Any] = json.loads((GOLDEN / "yahtzee-2p.json").read_text())
    return {**record, "turns": record["turns"][:4]}


WORKER_SCRIPT = """
import asyncio, json, os, sys

from dicepoker.master import Refusal
from dicepoker.server.community.analysis import AnalysisCache
from dicepoker.server.runtime.work import WorkQueue


async def main(record):
    pool = WorkQueue(1)
    try:
        cache = AnalysisCache(runner=pool.analyse)
        found = await cache.analysis("game:x", record)
        assert "numba" not in sys.modules, "numba was loaded in the server's process"
        workers = pool.pool.pids
        assert workers and os.getpid() not in workers
        try:
            await cache.analysis(None, {"variant": "nope", "players": ["a"], "turns": []})
        except Refusal as refusal:
            assert refusal.code == "bad_record", refusal
        else:
            raise AssertionError("a bad record was analysed")
        print(json.dumps(found))
    finally:
        pool.close()
"""


#: Each script's start: its `main` on the record in the file named by its argument.
SCRIPT_MAIN = """

if __name__ == "__main__":
    with open(sys.argv[1]) as file:
        asyncio.run(main(json.load(file)))
"""


def run_server_script(tmp_path: Path, script: str, record: dict[str, Any]) -> Any:
    """What a server-like script (its own process, with a real `WorkQueue`) printed as JSON for
    `record`; it must succeed."""
    path = tmp_path / "server.py"
    path.write_text(script + SCRIPT_MAIN)
    source = tmp_path / "record.json"
    source.write_text(json.dumps(record))
    result = subprocess.run(
        [sys.executable, str(path), str(source)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_server_with_workers_analyses_in_a_worker(tmp_path: Path) -> None:
    """With worker processes (a real server's), an analysis runs in a worker process: the
    server's process never loads numba (the win probability's kernels, about 115 MiB) nor lends
    the analysis its interpreter lock. The answer is the one a thread gives, and a refusal comes
    back as itself."""
    record = json.loads((GOLDEN / "school-3c-2p.json").read_text())
    found = run_server_script(tmp_path, WORKER_SCRIPT, record)
    assert found == json.loads(json.dumps(analysis_module.analyse(record)))


ADVICE_SCRIPT = """
import asyncio, json, os, sys

from dicepoker.record import replay
from dicepoker.server.community.analysis import advise
from dicepoker.server.runtime.work import WorkQueue


async def main(record):
    seen = []
    replay(record, lambda state, action: seen.append(state))
    pool = WorkQueue(1)
    try:
        answers = [await pool.on_state(advise, state) for state in (seen[-1], seen[-2])]
        assert "numba" not in sys.modules, "numba was loaded in the server's process"
        workers = pool.pool.pids
        assert workers and os.getpid() not in workers
        print(json.dumps(answers))
    finally:
        pool.close()
"""


def test_a_server_with_workers_advises_in_a_worker(tmp_path: Path) -> None:
    """With worker processes, a hint (`GET /api/games/{id}/advice`) is computed in a worker
    process: the server's process never loads numba for a yahtzee hint. The answers are the
    ones a thread gives, in the two last positions of a record (a re-roll to choose, then a
    cell to score)."""
    record = json_record()
    states: list[Any] = []
    replay(record, lambda state, action: states.append(state))
    answers = run_server_script(tmp_path, ADVICE_SCRIPT, record)
    expected = [analysis_module.advise(state) for state in (states[-1], states[-2])]
    assert answers == json.loads(json.dumps(expected))
    kinds = {option["action"][0] for answer in expected for option in answer["options"]}
    assert {"r", "k", "s"} <= kinds  # rolls, keeps and cells: not one trivial answer


def test_a_record_too_large_for_the_workers_is_refused_not_an_error() -> None:
    """A server whose import limit is above what the work queue hands a worker (`JobTooLarge`)
    refuses that record's analysis with `too_large` (413), and keeps nothing of it."""
    from dicepoker.master import Refusal
    from dicepoker.server.http.errors import status_of
    from dicepoker.server.runtime.workers import JobTooLarge

    async def refusing(*_: Any) -> Any:
        raise JobTooLarge("a call of 9 MiB")

    async def scenario() -> None:
        cache = AnalysisCache(runner=refusing)
        for key in (None, "record:big"):
            with pytest.raises(Refusal) as refused:
                await cache.analysis(key, {"variant": "yahtzee"})
            assert refused.value.code == "too_large" and status_of("too_large") == 413
        assert cache._kept == {}

    asyncio.run(scenario())
