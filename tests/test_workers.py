"""The worker processes the event loop talks to itself (dicepoker.server.workers): answers and
errors come back to their calls, calls wait for a free worker in order, a worker that dies
fails the call it held and is replaced, a closed pool leaves no process behind."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time

import pytest
import uvloop

from dicepoker.server.workers import ProcessPool, WorkerDied
from processes import Proc, descendants, running


def _slow_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _fail(message: str) -> None:
    raise ValueError(message)


def worker(pid: int) -> Proc:
    """The worker process `pid`, a child of this one (as `processes` names it)."""
    return next(proc for proc in descendants(os.getpid()) if proc.pid == pid)


def killed(pool: ProcessPool, pid: int) -> None:
    """SIGKILL the worker `pid` of `pool` and wait until it has ended, every thread of it (a
    leader that is a zombie may still have threads holding its pipe open): reaped."""
    (process,) = [held.process for held in pool._workers if held.pid == pid]
    os.kill(pid, signal.SIGKILL)
    process.join(10.0)
    assert process.exitcode == -signal.SIGKILL


def test_calls_answer_in_workers_and_wait_their_turn() -> None:
    async def scenario() -> None:
        pool = ProcessPool(2)
        try:
            assert await pool.run(divmod, 17, 5) == (3, 2)
            # Six calls on two workers: each answered, by a worker process, not this one.
            pids = await asyncio.gather(*(pool.run(_slow_pid, 0.05) for _ in range(6)))
            assert set(pids) == set(pool.pids) and len(pool.pids) == 2
            assert os.getpid() not in pids
            with pytest.raises(ValueError, match="no such move"):
                await pool.run(_fail, "no such move")
            assert await pool.run(abs, -3) == 3  # the worker that raised still answers
            with pytest.raises(Exception):  # noqa: B017 - a lambda cannot travel
                await pool.run(lambda: 1)
            assert await pool.run(abs, -4) == 4
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_worker_that_dies_fails_its_call_and_is_replaced() -> None:
    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            first = await pool.run(os.getpid)
            call = asyncio.ensure_future(pool.run(_slow_pid, 30))
            waiting = asyncio.ensure_future(pool.run(os.getpid))  # queued behind it
            await asyncio.sleep(0)  # both handed to the pool: the first one to the worker
            killed(pool, first)
            with pytest.raises(WorkerDied):
                await asyncio.wait_for(call, 10)
            second = await asyncio.wait_for(waiting, 30)  # a new worker took the queued call
            assert second != first and pool.pids == [second]
            replacement = worker(second)
        finally:
            pool.close()
        assert not running(replacement)

    asyncio.run(scenario())


def test_closing_ends_busy_workers_and_cancels_calls() -> None:
    async def scenario() -> None:
        pool = ProcessPool(1, nice=5)
        pid = await pool.run(os.getpid)
        proc = worker(pid)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(
            os.getpriority(os.PRIO_PROCESS, 0) + 5, 19
        )
        busy = asyncio.ensure_future(pool.run(_slow_pid, 30))
        queued = asyncio.ensure_future(pool.run(abs, -1))
        await asyncio.sleep(0.1)
        pool.close()
        ended = await asyncio.gather(busy, queued, return_exceptions=True)
        assert all(isinstance(end, asyncio.CancelledError) for end in ended)
        assert not running(proc)
        with pytest.raises(RuntimeError, match="closed"):
            await pool.run(abs, -1)

    asyncio.run(scenario())


def test_a_worker_that_cannot_start_fails_the_call_not_the_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> None:
        pool = ProcessPool(1)
        start = multiprocessing.get_context("spawn").Process.start

        def refused(self: object) -> None:
            raise OSError("out of processes")

        monkeypatch.setattr(multiprocessing.get_context("spawn").Process, "start", refused)
        with pytest.raises(OSError, match="out of processes"):
            await pool.run(abs, -1)
        monkeypatch.setattr(multiprocessing.get_context("spawn").Process, "start", start)
        try:
            assert await pool.run(abs, -2) == 2
        finally:
            pool.close()

    asyncio.run(scenario())


def _stamped(label: str) -> tuple[str, int]:
    return label, time.monotonic_ns()


def test_a_call_asked_first_goes_ahead_of_the_waiting_ones() -> None:
    """`first`: a call a person waits for goes ahead of the background calls already waiting
    (behind the one a worker runs)."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            await pool.run(os.getpid)  # the worker is up
            running_call = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            background = [asyncio.ensure_future(pool.run(_stamped, f"b{i}")) for i in range(3)]
            urgent = asyncio.ensure_future(pool.run(_stamped, "urgent", first=True))
            await running_call
            stamps = dict(await asyncio.gather(urgent, *background))
            assert min(stamps, key=lambda label: stamps[label]) == "urgent"
            assert stamps["b0"] < stamps["b1"] < stamps["b2"]  # the others in their order
        finally:
            pool.close()

    asyncio.run(scenario())


def _bulk(size: int) -> bytes:
    return bytes(range(256)) * (size // 256)


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_an_answer_bigger_than_the_pipe_comes_whole(loop: str) -> None:
    """An answer of megabytes (an analysis is hundreds of kilobytes) comes in several reads of
    the pipe; uvloop makes the fds it watches non-blocking, where reading it all at once failed
    as a dead worker. It comes whole, and the next call's answer after it."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            for size in (4 << 20, 256, 3 << 20):
                assert await pool.run(_bulk, size) == _bulk(size)
            assert await pool.run(abs, -5) == 5
        finally:
            pool.close()

    if loop == "uvloop":
        uvloop.run(scenario())
    else:
        asyncio.run(scenario())
