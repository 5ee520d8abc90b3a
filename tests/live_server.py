"""Real servers for the tests: `dicepoker serve` in a subprocess on a free loopback port."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from dicepoker.server.store import create_database

DICEPOKER = str(Path(sys.executable).with_name("dicepoker"))
#: Tests play far faster than people: their servers run without rate limits unless a test
#: (tests/test_security.py) asks for them.
NO_LIMITS = ("--ws-rate", "0", "--http-rate", "0", "--analysis-rate", "0")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def redis_url() -> str:
    """The test Redis that `scripts/services` starts."""
    url = os.environ.get("DICEPOKER_TEST_REDIS")
    if not url:
        raise RuntimeError("DICEPOKER_TEST_REDIS is not set: run the tests with ./scripts/test")
    return url


def fresh_postgres_database() -> str:
    """The URL of a new, empty PostgreSQL database (so tests and runs never collide). Made on a
    thread of its own: the caller's thread may be running an event loop (the browser tests')."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, create_database(postgres_url(), name)).result()


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
        command += self.limits
        env = dict(os.environ)
        if self.lease_ms is not None:
            env["DICEPOKER_LEASE_MS"] = str(self.lease_ms)
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"server exited with {self.process.returncode}: {err}")
            try:
                if httpx.get(self.url + "/api/presets", timeout=1.0).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.05)  # readiness poll, not a timing assumption
        raise RuntimeError("server did not start in time")

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        self.process.wait(timeout=15)
        if self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def restart(self, *, kill: bool = False, bot_delay: float | None = None) -> None:
        self.stop(kill=kill)
        if bot_delay is not None:
            self.bot_delay = bot_delay
        self.start()

    def get(self, path: str) -> Any:
        response = httpx.get(self.url + path, timeout=10.0)
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
