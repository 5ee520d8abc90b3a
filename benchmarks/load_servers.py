"""The server processes of a load run (benchmarks/load.py, benchmarks/memory.py): started, read
from /proc (memory, CPU, their workers), and what their logs said."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from dicepoker.server.runtime.lifeline import die_with_parent
from dicepoker.server.storage.store import drop_database

DICEPOKER = str(Path(sys.executable).with_name("dicepoker"))
PROBLEMS = ("WARNING", "ERROR", "CRITICAL")  # the log levels `log_problems` counts


@dataclass
class Server:
    """One `dicepoker serve` process."""

    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def peak_memory_mb(self) -> list[float]:
        """Peak resident memory (VmHWM) of the server and of each of its child processes (its
        `dp-work` workers), the server's first, in MiB."""
        peaks = []
        for pid in _family(self.process.pid):
            with contextlib.suppress(OSError):
                kib = Path(f"/proc/{pid}/status").read_text().split("VmHWM:")[1].split()[0]
                peaks.append(int(kib) / 1024)
        return peaks

    def cpu_seconds(self) -> float:
        return _cpu_seconds(self.process.pid)

    def wait_seconds(self) -> float:
        """Seconds the server's event loop (its main thread) has waited for a CPU so far."""
        return wait_seconds(self.process.pid)

    def workers_cpu_seconds(self) -> dict[int, float]:
        """CPU seconds of each child process of the server now (its `dp-work` workers)."""
        out = {}
        for pid in _family(self.process.pid)[1:]:
            try:
                out[pid] = _cpu_seconds(pid)
            except OSError:
                continue  # ended meanwhile
        return out

    def workers_cpu_by_name(self, before: dict[int, float]) -> dict[str, float]:
        """CPU seconds each kind of child process ran since `before` (`workers_cpu_seconds`
        then; one started since counts from its start), by process name (the server's work queue
        names its workers dp-work)."""
        spent: dict[str, float] = {}
        for pid, now in self.workers_cpu_seconds().items():
            try:
                name = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                continue  # ended meanwhile
            spent[name] = spent.get(name, 0.0) + max(0.0, now - before.get(pid, 0.0))
        return spent


def _cpu_seconds(pid: int) -> float:
    return stat_cpu_seconds(Path(f"/proc/{pid}/stat").read_text())


def stat_cpu_seconds(stat: str) -> float:
    """The CPU seconds (user and system) a process has run, from its `/proc/PID/stat` text
    (after the name in brackets, which may hold spaces: utime and stime, in clock ticks)."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_seconds(pid: int) -> float:
    """Seconds the main thread of process `pid` has been ready to run and waited for a CPU
    (the kernel's run-queue wait, `/proc/PID/schedstat`): a loop that has work and no core."""
    return schedstat_wait_seconds(Path(f"/proc/{pid}/schedstat").read_text())


def loop_waits(servers: Sequence[Server]) -> list[float]:
    """The run-queue waits so far (s) of each server's event loop, then of this process's main
    thread (the driver's loop)."""
    return [server.wait_seconds() for server in servers] + [wait_seconds(os.getpid())]


def wait_shares(servers: Sequence[Server], before: list[float], seconds: float) -> list[float]:
    """The share of the last `seconds` that each server's event loop, then the driver's, waited
    for a CPU (`before`: `loop_waits` at their start)."""
    after = loop_waits(servers)
    return [round((a - b) / seconds, 2) for a, b in zip(after, before, strict=True)]


def schedstat_wait_seconds(schedstat: str) -> float:
    """The run-queue wait in a `/proc/PID/schedstat` text (time on a CPU, time waiting on a
    run queue, time slices run; nanoseconds), in seconds."""
    return int(schedstat.split()[1]) / 1e9


def _family(pid: int) -> list[int]:
    """`pid` and all its descendants."""
    out = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in task.read_text().split():
            out += _family(int(child))
    return out


def start_server(
    port: int,
    database: str,
    redis: str | None,
    bot_delay: float,
    chances: bool = True,
    metrics: bool = False,
    launcher: list[str] | None = None,
    log: Path | None = None,
    wait: float = 60.0,
    log_json: bool = False,
) -> Server:
    """`dicepoker serve` on `port`, ready to answer; `launcher`: what runs it instead of the
    `dicepoker` command (benchmarks/memory.py's traced server); `log`: where its output goes
    (else nowhere); `wait`: the longest wait for it to answer, in seconds; `log_json`: its
    log in JSON (`--log-json`)."""
    command = [
        *(launcher or [DICEPOKER]),
        "serve",
        "--port",
        str(port),
        "--db",
        database,
        "--bot-delay",
        str(bot_delay),
        # All the load comes from one address: no per-address or per-connection limits.
        "--ws-rate",
        "0",
        "--http-rate",
        "0",
        "--ws-connections",
        "0",
    ]
    if redis:
        command += ["--redis-url", redis]
    if not chances:
        command.append("--no-win-probability")
    if metrics:
        command.append("--metrics")
    if log_json:  # the report counts its warnings and errors (`log_problems`)
        command.append("--log-json")
    # The server stops (SIGTERM, and its workers with it) when the driver dies, however it dies.
    bound = functools.partial(die_with_parent, os.getpid(), signal.SIGTERM)
    with contextlib.ExitStack() as files:
        out: Any = files.enter_context(log.open("ab")) if log else subprocess.DEVNULL
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=bound)
    server = Server(port, process)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {process.returncode}")
        try:
            if httpx.get(server.url + "/api/variants", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.1)  # readiness poll
    process.kill()
    raise SystemExit("server did not start")


def stop_servers(servers: Sequence[Server], database: tuple[str, str] | None = None) -> None:
    """Stop every server (SIGTERM, as a supervisor does) and wait for each; then drop the run's
    PostgreSQL database (`database`: the PostgreSQL's URL and the database's name), if any."""
    for server in servers:
        server.process.terminate()
    for server in servers:
        server.process.wait(timeout=30)
    if database is not None:
        asyncio.run(drop_database(*database))


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def log_problems(paths: list[Path], samples: int = 5) -> dict[str, Any]:
    """The servers' warnings and errors (their JSON logs, `--log-json`, to the end of the run):
    how many, how many of them errors (a line that is not JSON, a crash's own words, is one), the
    games a server caught up after missing another process's move, and the most frequent lines
    with their counts (a message, and the last line of its exception)."""
    found: collections.Counter[str] = collections.Counter()
    errors = caught_up = 0
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                if line.strip():
                    found[line[:200]] += 1
                    errors += 1
                continue
            if not isinstance(entry, dict) or entry.get("level") not in PROBLEMS:
                continue
            message = str(entry.get("message"))
            errors += entry["level"] != "WARNING"
            caught_up += "missed a move" in message
            said = f"{entry['level']} {entry.get('logger')}: {message}"
            exception = str(entry.get("exception") or "").strip().splitlines()
            found[(said + (f" ({exception[-1]})" if exception else ""))[:300]] += 1
    return {
        "count": sum(found.values()),
        "errors": errors,
        "games_caught_up": caught_up,
        "samples": found.most_common(samples),
    }
