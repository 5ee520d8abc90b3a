"""The worker processes the event loop talks to itself (dicepoker.server.workers): answers and
errors come back to their calls, calls wait for a free worker in order and go to it in batches
of one write, a worker that dies fails the calls it held and is replaced, a closed pool leaves no
process behind."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest
import uvloop

from dicepoker.server import workers as workers_module
from dicepoker.server.workers import BATCH, ProcessPool, WorkerDied
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


class Writes:
    """The real `_write_all`, noting how many calls each write carried."""

    def __init__(self) -> None:
        self.real = workers_module._write_all
        self.calls: list[int] = []

    def __call__(self, fd: int, data: bytes) -> None:
        received = bytearray(data)
        count = 0
        while workers_module._message(received) is not None:
            count += 1
        assert not received  # whole frames only
        self.calls.append(count)
        self.real(fd, data)


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Writes:
    found = Writes()
    monkeypatch.setattr(workers_module, "_write_all", found)
    return found


def _die() -> None:
    os._exit(3)


def test_waiting_calls_go_to_a_free_worker_in_one_write(writes: Writes) -> None:
    """Calls that waited for the busy worker are handed to it together (up to BATCH), each
    answered with its own result, in order; those past BATCH go in the next write."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            queued = [asyncio.ensure_future(pool.run(_stamped, f"q{i}")) for i in range(BATCH + 2)]
            await asyncio.sleep(0)  # all handed to the pool, the first to the worker
            await busy
            answers = await asyncio.gather(*queued)
            assert [label for label, _ in answers] == [f"q{i}" for i in range(BATCH + 2)]
            assert [stamp for _, stamp in answers] == sorted(stamp for _, stamp in answers)
            assert writes.calls == [1, 1, BATCH, 2]
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_pool_of_long_calls_hands_them_over_one_at_a_time(writes: Writes) -> None:
    """`batch=1` (the analyses: seconds each): a call asked `first` waits behind the one call
    its worker runs, never behind a batch of them."""

    async def scenario() -> None:
        pool = ProcessPool(1, batch=1)
        try:
            await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            queued = [asyncio.ensure_future(pool.run(_stamped, f"q{i}")) for i in range(3)]
            await asyncio.sleep(0)
            await busy
            await asyncio.gather(*queued)
            assert writes.calls == [1] * 5
        finally:
            pool.close()

    asyncio.run(scenario())


def test_several_workers_share_the_waiting_calls(writes: Writes) -> None:
    """A worker that comes free takes its half of the calls, those waiting and those the other
    holds (here: 4 of the 6 while the other holds 1), not the whole queue; the rest go in the
    next write, to whichever worker comes free first."""

    async def scenario() -> None:
        pool = ProcessPool(2)
        try:
            await asyncio.gather(pool.run(_slow_pid, 0.2), pool.run(_slow_pid, 0.2))
            assert len(pool.pids) == 2
            first = [asyncio.ensure_future(pool.run(_slow_pid, 0.3)) for _ in range(2)]
            queued = [asyncio.ensure_future(pool.run(_slow_pid, 0.0)) for _ in range(6)]
            await asyncio.sleep(0)
            await asyncio.gather(*first)
            pids = await asyncio.gather(*queued)
            assert set(pids) <= set(pool.pids) and len(pool.pids) == 2
            assert writes.calls[-2:] == [4, 2]
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_worker_that_dies_fails_every_call_of_its_batch_left() -> None:
    """A batch whose worker dies midway: the calls answered before stay answered, the rest
    fail with `WorkerDied`, and the next call has a new worker."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            first = await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            batch = [
                asyncio.ensure_future(pool.run(abs, -1)),
                asyncio.ensure_future(pool.run(_die)),
                asyncio.ensure_future(pool.run(abs, -2)),
            ]
            await asyncio.sleep(0)
            await busy
            done = await asyncio.gather(*batch, return_exceptions=True)
            assert done[0] == 1
            assert isinstance(done[1], WorkerDied) and isinstance(done[2], WorkerDied)
            second = await asyncio.wait_for(pool.run(os.getpid), 30)
            assert second != first and pool.pids == [second]
        finally:
            pool.close()

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


def test_a_pool_s_workers_carry_its_name() -> None:
    """`ps` and `top` show a pool's workers by its name (the bots' CPU told from the analyses'),
    cut to the 15 bytes Linux keeps; a pool without one leaves the name its workers start with."""

    async def scenario() -> None:
        named, plain = ProcessPool(1, name="dp-bots"), ProcessPool(1)
        long = ProcessPool(1, name="dp-a-very-long-name")
        try:
            pids = [await pool.run(os.getpid) for pool in (named, plain, long)]
            comms = [Path(f"/proc/{pid}/comm").read_text().strip() for pid in pids]
            assert comms[0] == "dp-bots" and comms[2] == "dp-a-very-long-"
            assert comms[1] == Path(f"/proc/{os.getpid()}/comm").read_text().strip()
        finally:
            for pool in (named, plain, long):
                pool.close()

    asyncio.run(scenario())


def test_the_server_s_pools_are_named_by_their_work() -> None:
    from dicepoker.server.botpool import BotPool

    pool = BotPool()
    names = [pool._bots.name, pool._judging.name, pool._analysing.name]
    assert names == ["dp-bots", "dp-forecasts", "dp-analysis"]
    assert all(len(name.encode()) <= 15 for name in names)
