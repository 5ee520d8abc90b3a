"""The server's children end when the server dies, however it dies
(dicepoker.server.runtime.lifeline).

A real server is made to start its bot worker (a game with a bot seat), its children are read from
/proc, and the server alone is killed with SIGKILL: every child must then end by itself. The test
ends nothing but the server before it looks, so what it sees is the product's own mechanism; the
LiveServer's cleanup (which would end the leftovers) only runs afterwards.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from live_server import LiveServer, fresh_postgres_database, redis_url
from processes import Proc, descendants, ends_with_its_parent, wait_ended

BOT_FIRST = [{"kind": "bot", "level": "greedy"}, {"kind": "human", "name": "Ana"}]


def _bot_game(server: LiveServer) -> str:
    """A new game whose bot moves first (on a new connection, so that any server process of
    several may take it)."""
    body = {"variant": "school", "options": {"columns": 1}, "seats": BOT_FIRST}
    response = httpx.post(server.url + "/api/games", json=body, timeout=10.0)
    assert response.status_code == 201, response.text
    game_id: str = response.json()["id"]
    return game_id


def _is_worker(proc: Proc) -> bool:
    return any("spawn_main" in arg for arg in proc.args)  # multiprocessing's spawned child


def _is_tracker(proc: Proc) -> bool:
    return any("resource_tracker" in arg for arg in proc.args)


def _kill_alone(server: LiveServer) -> None:
    """SIGKILL the server process, and only it."""
    assert server.process is not None
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=15)


def test_a_killed_servers_bot_worker_and_resource_tracker_end(tmp_path: Path) -> None:
    server = LiveServer(str(tmp_path / "games.db")).start()
    try:
        assert server.process is not None
        game_id = _bot_game(server)
        server.wait_for(f"/api/games/{game_id}", lambda game: game["seq"] > 0)  # the bot moved
        children = descendants(server.process.pid)
        assert [proc for proc in children if _is_worker(proc)], children
        assert [proc for proc in children if _is_tracker(proc)], children
        _kill_alone(server)
        left = wait_ended(children, timeout=15.0)
        assert not left, f"still running after their server died: {[str(p) for p in left]}"
    finally:
        server.stop()


def test_a_killed_supervisors_server_processes_and_their_bot_workers_end() -> None:
    """`dicepoker serve --workers 2`: the supervisor dies; its server processes (stopping as on a
    normal stop), their bot workers and the resource tracker end by themselves."""
    server = LiveServer(fresh_postgres_database(), redis=redis_url(), workers=2)
    server.start(timeout=120)  # two processes import everything at once: slow on a busy machine
    try:
        assert server.process is not None
        supervisor = server.process.pid

        def bot_workers() -> dict[int, list[Proc]]:
            workers = [p for p in descendants(supervisor) if p.ppid == supervisor]
            return {
                worker.pid: [child for child in descendants(worker.pid) if _is_worker(child)]
                for worker in workers
                if _is_worker(worker)
            }

        # New games until each server process has started its bot worker (a condition wait).
        deadline = time.monotonic() + 120
        while not (len(bots := bot_workers()) == 2 and all(bots.values())):
            assert time.monotonic() < deadline, f"bot workers per server process: {bots}"
            try:
                game_id = _bot_game(server)
                server.wait_for(f"/api/games/{game_id}", lambda game: game["seq"] > 0)
            except httpx.TransportError:
                # uvicorn's supervisor restarts a server process that answers its health check
                # late (a busy machine at start-up): the next game goes to the new one.
                continue
        family = descendants(supervisor)
        assert len([proc for proc in family if _is_tracker(proc)]) == 1, family
        _kill_alone(server)
        left = wait_ended(family, timeout=30.0)
        assert not left, f"still running after the supervisor died: {[str(p) for p in left]}"
    finally:
        server.stop()


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_the_portable_watch_ends_a_child_whose_parent_died() -> None:
    """Where the kernel sends no parent-death signal, the child's own watch thread ends it."""
    child = (
        "import os, signal\n"
        "from dicepoker.server.runtime.lifeline import watch_parent\n"
        "parent = os.getppid()\n"
        "print(os.getpid(), flush=True)\n"
        "watch_parent(parent, signal.SIGKILL, interval=0.05)\n"
    )
    assert ends_with_its_parent(child, timeout=15.0)


def test_a_child_whose_parent_died_before_it_bound_itself_ends_at_once() -> None:
    """A child bound to a parent that is no longer its parent (the parent died between starting
    it and the binding) ends at once, with the signal it asked for."""
    code = (
        "import os, signal\n"
        "from dicepoker.server.runtime.lifeline import die_with_parent\n"
        "die_with_parent(os.getppid() + 1, signal.SIGTERM)\n"
        "print('still running', flush=True)\n"
    )
    done = subprocess.run(_python(code), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == -signal.SIGTERM, (done.returncode, done.stdout, done.stderr)
    assert "still running" not in done.stdout


def test_a_bound_child_whose_parent_lives_runs_on() -> None:
    code = (
        "import os, signal\n"
        "from dicepoker.server.runtime.lifeline import die_with_parent\n"
        "die_with_parent(os.getppid(), signal.SIGTERM)\n"
        "print('still running', flush=True)\n"
    )
    done = subprocess.run(_python(code), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "still running\n"
