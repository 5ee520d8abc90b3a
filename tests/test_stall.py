"""A big job never stalls a server (dicepoker.server.runtime.workers), and a server always stops.

An adversarial review imported a record of about 300 KB (a one-turn yahtzee record with a long
extra key) and asked for its analysis: the whole pickled call was written at once to the analysis
worker's non-blocking pipe, the write failed as if the worker had died, and the event loop retried
for ever. The request never answered, `/livez` stopped answering, SIGTERM went unheard, and after a
SIGKILL of `dicepoker serve --workers 2`'s supervisor the frozen server processes lived on, holding
the port. Here the same record is analysed on one process and on two, while `/livez` keeps
answering; then the server stops on SIGTERM within a bound, or its supervisor is killed, and no
process of it is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from dicepoker.server.runtime.lifeline import GRACEFUL_STOP_SECONDS
from live_server import LiveServer, fresh_postgres_database, redis_url
from processes import Proc, descendants, group, wait_ended

#: The review's record: one yahtzee turn, and an extra key of 300,000 characters (the import
#: limit is 1 MiB; a worker's pipe takes 64 KiB to 200-odd KiB before it is read).
BIG_RECORD = {
    "variant": "yahtzee",
    "players": ["Ana"],
    "turns": [{"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score ones"}],
    "padding": "x" * 300_000,
}
GOLDEN = Path(__file__).parent / "golden" / "spec_examples"
#: How long a stopped server may take to end: uvicorn's bounded graceful shutdown
#: (dicepoker.server.runtime.lifeline.GRACEFUL_STOP_SECONDS) and the app's own shutdown, with room
#: for a loaded machine.
STOP_BOUND = 30.0
#: How long `/livez` may take to answer on a loaded machine while analyses run.
LIVE_BOUND = 10.0


def _import(server: LiveServer, record: dict[str, Any] = BIG_RECORD) -> str:
    response = httpx.post(
        server.url + "/api/records",
        content=json.dumps(record).encode(),
        headers={"content-type": "application/json"},
        timeout=60.0,
    )
    assert response.status_code == 201, response.text
    record_id: str = response.json()["id"]
    return record_id


def _while_live(server: LiveServer, work: Callable[[], Any], timeout: float = 120.0) -> Any:
    """`work()` in a thread, `/livez` asked over and over meanwhile (on new connections, so
    that every server process of several is asked): each answer must come within LIVE_BOUND.
    What `work` returned."""
    done: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed to the test's thread
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    asked = 0
    while thread.is_alive():
        assert time.monotonic() < deadline, f"no answer in {timeout} s:\n{server.log_tail()}"
        live = httpx.get(server.url + "/livez", timeout=LIVE_BOUND)
        assert live.status_code == 200 and live.json() == {"live": True}
        asked += 1
        thread.join(0.05)  # the next question once this one is answered (a poll, not a timing)
    assert asked, "the work ended before /livez was asked"  # pragma: no cover - timing
    if failed:
        raise failed[0]
    return done[0]


def _analysed(server: LiveServer, record_id: str) -> None:
    """Ask for the record's analysis: it is analysed, or refused with a clear 4xx."""
    response = httpx.get(f"{server.url}/api/records/{record_id}/analysis", timeout=90.0)
    if response.status_code == 200:
        analysis = response.json()
        assert analysis["players"][0]["name"] == "Ana", analysis
    else:
        assert 400 <= response.status_code < 500, response.text
        assert response.json()["error"]["message"]


def _sigterm_ends_everything(server: LiveServer, bound: float = STOP_BOUND) -> None:
    """SIGTERM the server: it, and every process it started, ends within `bound` seconds."""
    assert server.process is not None
    family = [*descendants(server.process.pid)]
    server.process.send_signal(signal.SIGTERM)
    began = time.monotonic()
    server.process.wait(timeout=bound)
    left = wait_ended(family, timeout=max(1.0, bound - (time.monotonic() - began)))
    assert not left, f"still running after SIGTERM: {[str(proc) for proc in left]}"


def _port_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_a_big_record_is_analysed_while_the_server_answers_then_it_stops(tmp_path: Path) -> None:
    server = LiveServer(str(tmp_path / "games.db")).start()
    try:
        record_id = _import(server)
        _while_live(server, lambda: _analysed(server, record_id))
        # Asked again at once: the cached answer, and the worker still serves.
        _while_live(server, lambda: _analysed(server, record_id))
        _sigterm_ends_everything(server)
        assert _port_free(server.port)
    finally:
        server.stop()


def _cpu_seconds(pid: int) -> float:
    """The CPU seconds process `pid` has used (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_sigterm_ends_a_server_while_long_analyses_run(tmp_path: Path) -> None:
    """Eight School games' analyses asked at once (seconds of CPU each, far more in all than the
    bound on this machine's cores): SIGTERM while they run still ends the server, and its
    workers, within the graceful stop's bound and the app's own stop."""
    record = json.loads((GOLDEN / "school-3c-2p.json").read_text())
    server = LiveServer(str(tmp_path / "games.db")).start()
    asking: list[threading.Thread] = []
    try:
        assert server.process is not None
        _analysed_school(server, _import(server, record))  # the workers are up and warm
        workers = [proc for proc in descendants(server.process.pid) if _is_worker(proc)]
        assert workers
        used = sum(_cpu_seconds(proc.pid) for proc in workers)
        asking = [
            threading.Thread(
                target=_ask_quietly, args=(server, _import(server, record)), daemon=True
            )
            for _ in range(8)
        ]
        for thread in asking:
            thread.start()
        deadline = time.monotonic() + 60
        while sum(_cpu_seconds(proc.pid) for proc in workers) < used + 0.5:
            assert time.monotonic() < deadline, "no analysis began"
            time.sleep(0.02)  # a condition poll: the workers are analysing
        _sigterm_ends_everything(server, bound=GRACEFUL_STOP_SECONDS + 10.0)
    finally:
        server.stop()
        for thread in asking:
            thread.join(STOP_BOUND)


def _analysed_school(server: LiveServer, record_id: str) -> None:
    response = httpx.get(f"{server.url}/api/records/{record_id}/analysis", timeout=120.0)
    assert response.status_code == 200, response.text


def test_two_processes_analyse_big_records_and_stop_on_sigterm() -> None:
    server = LiveServer(fresh_postgres_database(), redis=redis_url(), workers=2)
    server.start(timeout=120)  # two processes import everything at once: slow on a busy machine
    try:
        # Each import is a new record, and each request a new connection, which the kernel hands
        # to either server process: whichever analyses a big record, /livez keeps answering.
        records = [_import(server) for _ in range(4)]

        def analyse_all() -> None:
            for record_id in records:
                _analysed(server, record_id)

        _while_live(server, analyse_all, timeout=240.0)
        _sigterm_ends_everything(server)
        assert _port_free(server.port)
    finally:
        server.stop()


def test_a_killed_supervisor_leaves_nothing_while_big_analyses_run() -> None:
    """SIGKILL of `--workers 2`'s supervisor while its server processes analyse big records:
    every server process and every worker process of each ends, and the port is free."""
    server = LiveServer(fresh_postgres_database(), redis=redis_url(), workers=2)
    server.start(timeout=120)
    try:
        assert server.process is not None
        supervisor = server.process.pid

        # Analysed once each first, so that the server processes have started their workers.
        def analyse_new() -> None:
            for _ in range(4):
                _analysed(server, _import(server))

        _while_live(server, analyse_new, 240.0)
        asking = [
            threading.Thread(target=_ask_quietly, args=(server, _import(server)), daemon=True)
            for _ in range(4)
        ]
        for thread in asking:
            thread.start()
        assert any(_is_worker(proc) for proc in descendants(supervisor))
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=15)
        # The server's session is its process group, which every process it started shares
        # (those started after any snapshot of them too): it must empty by itself.
        deadline = time.monotonic() + STOP_BOUND
        while left := group(supervisor):
            assert time.monotonic() < deadline, f"still running: {[str(p) for p in left]}"
            time.sleep(0.05)  # a condition poll
        assert _port_free(server.port)
        for thread in asking:
            thread.join(STOP_BOUND)
    finally:
        server.stop()


def _is_worker(proc: Proc) -> bool:
    return any("spawn_main" in arg for arg in proc.args)  # multiprocessing's spawned child


def _ask_quietly(server: LiveServer, record_id: str) -> None:
    """Ask for an analysis whose server may die meanwhile."""
    with contextlib.suppress(httpx.HTTPError):
        httpx.get(f"{server.url}/api/records/{record_id}/analysis", timeout=STOP_BOUND)
