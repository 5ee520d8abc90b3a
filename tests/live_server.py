"""Real servers for the tests: `dicepoker serve` in a subprocess on a free loopback port.

Each server runs in a session (and process group) of its own, which its children (the bot
worker, the resource tracker, the server processes of `--workers N`) share; stopping a server
waits for the whole group to end, and kills what is left, so that no test leaves a process
behind even where the server's own mechanism (dicepoker.server.runtime.lifeline) failed. That
mechanism is proved on its own by tests/test_children.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from dicepoker.server.storage.store import create_database, drop_database
from processes import end_group

DICEPOKER = str(Path(sys.executable).with_name("dicepoker"))
#: Tests play far faster than people: their servers run without rate limits unless a test
#: (tests/test_security.py) asks for them.
NO_LIMITS = (
    *("--ws-rate", "0", "--http-rate", "0", "--analysis-rate", "0"),
    *("--login-rate", "0", "--login-name-rate", "0", "--ws-connections", "0"),
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def nowhere_port() -> Iterator[int]:
    """A port where nothing listens, for as long as the block runs: bound and not listening, so
    a connection is refused, and no other test's server can take it meanwhile (a port that
    `free_port` found free was once taken by a parallel test's server before the test used it,
    and the test reached that server instead of nothing)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        yield port


def redis_url() -> str:
    """The test Redis that `scripts/services` starts."""
    url = os.environ.get("DICEPOKER_TEST_REDIS")
    if not url:
        raise RuntimeError("DICEPOKER_TEST_REDIS is not set: run the tests with ./scripts/test")
    return url


#: The databases this test process made (`fresh_postgres_database`), dropped when its session
#: ends (tests/conftest.py): the test PostgreSQL lives on between runs, and a run makes a few
#: hundred of them.
MADE_DATABASES: list[str] = []


def fresh_postgres_database() -> str:
    """The URL of a new, empty PostgreSQL database (so tests and runs never collide). Made on a
    thread of its own: the caller's thread may be running an event loop (the browser tests')."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with ThreadPoolExecutor(1) as pool:
        url = pool.submit(asyncio.run, create_database(postgres_url(), name)).result()
    MADE_DATABASES.append(name)
    return url


def drop_made_databases() -> None:
    """Drop every database this process made (with any connection still open to it)."""
    with ThreadPoolExecutor(1) as pool:
        while MADE_DATABASES:
            name = MADE_DATABASES.pop()
            pool.submit(asyncio.run, drop_database(postgres_url(), name)).result()


def postgres_url() -> str:
    """The test PostgreSQL that `scripts/services` starts (the test command always does)."""
    url = os.environ.get("DICEPOKER_TEST_POSTGRES")
    if not url:
        raise RuntimeError(
            "DICEPOKER_TEST_POSTGRES is not set: run the tests with ./scripts/test, which starts "
            'PostgreSQL (or eval "$(bash scripts/services)" first)'
        )
    return url


@dataclass
class LiveServer:
    """A `dicepoker serve` process; `restart()` starts it again on the same database."""

    database: str
    bot_delay: float = 0.0
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    redis: str | None = None  # several processes share games through this Redis
    lease_ms: int | None = None  # how soon another process takes over bots and clocks
    limits: tuple[str, ...] = NO_LIMITS  # `dicepoker serve` options of the limits
    workers: int = 1  # server processes (more than one needs PostgreSQL and Redis)
    options: tuple[str, ...] = ()  # other `dicepoker serve` options (--metrics, --log-json)
    #: The server's stderr: a file it appends to, not a pipe nobody reads (a server writing much
    #: would block on a full pipe), read back when something goes wrong.
    log: Any = field(default_factory=lambda: tempfile.TemporaryFile("a+b"))  # noqa: SIM115

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> LiveServer:
        command = [
            DICEPOKER,
            "serve",
            "--port",
            str(self.port),
            "--db",
            self.database,
            "--bot-delay",
            str(self.bot_delay),
        ]
        if self.redis:
            command += ["--redis-url", self.redis]
        if self.workers != 1:
            command += ["--workers", str(self.workers)]
        command += (*self.limits, *self.options)
        env = dict(os.environ)
        if self.lease_ms is not None:
            env["DICEPOKER_LEASE_MS"] = str(self.lease_ms)
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
            env=env,
            start_new_session=True,  # its own process group: see the module's docstring
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                end_group(self.process.pid)  # its children write to its stderr too
                err = self.log_tail()
                code = self.process.returncode
                self.stop()
                raise RuntimeError(f"server exited with {code}: {err}")
            try:
                if httpx.get(self.url + "/api/variants", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)  # readiness poll, not a timing assumption
        self.stop(kill=True)
        raise RuntimeError("server did not start in time")

    def stop(self, kill: bool = False) -> None:
        """Stop the server (SIGTERM, or SIGKILL with `kill`), then end its process group: what
        the server started gets a grace to end by itself, and is killed after it."""
        process, self.process = self.process, None
        if process is None:
            return
        try:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()  # then the group below, and the test fails on the timeout
                process.wait(timeout=15)
                raise
        finally:
            killed = end_group(process.pid)
            if killed:
                warnings.warn(
                    f"killed what the server left running: {[str(proc) for proc in killed]}",
                    RuntimeWarning,
                    stacklevel=2,
                )

    def restart(self, *, kill: bool = False, bot_delay: float | None = None) -> None:
        self.stop(kill=kill)
        if bot_delay is not None:
            self.bot_delay = bot_delay
        self.start()

    def log_tail(self, size: int = 6000) -> str:
        """The end of what the server wrote on stderr (its tracebacks)."""
        self.log.seek(0, os.SEEK_END)
        end = self.log.tell()
        self.log.seek(max(0, end - size))
        text: str = self.log.read().decode(errors="replace")
        return text

    def get(self, path: str, timeout: float = 10.0) -> Any:
        """GET `path`'s JSON (`timeout`: a bound for a loaded machine, not a timing assumption;
        a game's first analysis in a fresh server loads the solver's and the win probability's
        tables and compiled kernels, seconds on a busy machine)."""
        response = httpx.get(self.url + path, timeout=timeout)
        if response.status_code >= 500:
            raise AssertionError(f"{path} answered {response.status_code}:\n{self.log_tail()}")
        response.raise_for_status()
        return response.json()

    def post(self, path: str, body: Any) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=10.0)

    def wait_for(self, path: str, predicate: Any, timeout: float = 30.0) -> Any:
        """Poll `path` until `predicate(json)` holds (a condition wait, not a sleep)."""
        deadline = time.monotonic() + timeout
        while True:
            data = self.get(path)
            if predicate(data):
                return data
            if time.monotonic() > deadline:
                raise AssertionError(f"condition on {path} not met in {timeout}s: {data}")
            time.sleep(0.02)
