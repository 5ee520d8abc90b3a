"""The server's one work queue (dicepoker.server.runtime.workers): answers and errors come back to
their calls, calls wait for a free worker by priority, first come first served within one, under
each priority's limit, and go to it in batches of one write, to their affinity's worker when it is
free; a call of megabytes, or its answer, never stops the event loop; a call that kills its
worker fails alone, one that cannot travel or is too big fails at once; a closed pool leaves no
process behind."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
import uvloop

from dicepoker.server.runtime import workers as workers_module
from dicepoker.server.runtime.workers import (
    BATCH,
    MAX_JOB_BYTES,
    JobTooLarge,
    Priority,
    ProcessPool,
    WorkerDied,
)
from processes import Proc, descendants, running

LOOPS = ["asyncio", "uvloop"]


def _slow_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _fail(message: str) -> None:
    raise ValueError(message)


def _die() -> None:
    os._exit(3)


def _stamped(label: str) -> tuple[str, int]:
    return label, time.monotonic_ns()


def _spell(label: str, seconds: float) -> tuple[str, int, int]:
    """`label`, and when this call began and ended in its worker."""
    began = time.monotonic_ns()
    time.sleep(seconds)
    return label, began, time.monotonic_ns()


def _bulk(size: int) -> bytes:
    return bytes(range(256)) * (size // 256)


def _length(data: bytes) -> int:
    return len(data)


def _gate(path: str, timeout: float) -> str:
    """Wait in the worker until `path` exists (a condition poll, bounded): 'opened', or 'timed
    out' when it never came."""
    deadline = time.monotonic() + timeout
    while not Path(path).exists():
        if time.monotonic() > deadline:
            return "timed out"
        time.sleep(0.01)
    return "opened"


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


def on(loop: str, scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run `scenario` on asyncio's own event loop or on uvloop's (the server's, which makes the
    fds it watches non-blocking)."""
    if loop == "uvloop":
        uvloop.run(scenario())
    else:
        asyncio.run(scenario())


class Ticker:
    """A task that counts the event loop's turns: it ticks only while the loop is free."""

    def __init__(self) -> None:
        self.ticks = 0
        self.task = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0)
            self.ticks += 1

    async def turns(self, count: int) -> None:
        """Wait until the loop has turned `count` more times."""
        until = self.ticks + count
        while self.ticks < until:
            await asyncio.sleep(0)

    def stop(self) -> None:
        self.task.cancel()


async def ticking_while(ticker: Ticker, call: Awaitable[Any]) -> tuple[Any, int]:
    """`call`'s answer, and how many times the loop turned while it was awaited."""
    before = ticker.ticks
    answer = await asyncio.wait_for(call, 120)
    return answer, ticker.ticks - before


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
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_call_that_cannot_travel_fails_alone_at_once() -> None:
    """A call whose function or arguments cannot be pickled fails when it is asked for, with
    pickling's error; the calls waiting around it are answered."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.2))
            before = asyncio.ensure_future(pool.run(abs, -1))
            await asyncio.sleep(0)  # both asked: the first runs, the second waits
            with pytest.raises(Exception, match=r"pickle|lambda"):
                await pool.run(lambda: 1)
            with pytest.raises(Exception, match=r"pickle|generator"):
                await pool.run(abs, (n for n in range(3)))
            assert pool.waiting() == 1  # only `before`: the others never waited
            after = asyncio.ensure_future(pool.run(abs, -2))
            await busy
            assert list(await asyncio.gather(before, after)) == [1, 2]
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_call_over_the_maximum_is_refused_before_it_waits() -> None:
    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            with pytest.raises(JobTooLarge, match=f"over the {MAX_JOB_BYTES}"):
                await pool.run(_length, bytes(MAX_JOB_BYTES))
            assert pool.waiting() == 0 and pool.pids == []  # no worker was even started
            assert await pool.run(_length, bytes(MAX_JOB_BYTES // 2)) == MAX_JOB_BYTES // 2
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


def test_a_call_that_kills_its_worker_fails_alone() -> None:
    """A batch whose worker a call kills midway (`os._exit`): the calls answered before stay
    answered, the killer fails with `WorkerDied`, the calls behind it are handed to a new worker
    and answered, and the next call has that worker."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            first = await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            batch = [
                asyncio.ensure_future(pool.run(abs, -1)),
                asyncio.ensure_future(pool.run(_die)),
                asyncio.ensure_future(pool.run(abs, -2)),
                asyncio.ensure_future(pool.run(os.getpid)),
            ]
            await asyncio.sleep(0)
            await busy
            done = await asyncio.wait_for(asyncio.gather(*batch, return_exceptions=True), 60)
            assert done[0] == 1
            assert isinstance(done[1], WorkerDied)
            assert done[2] == 2
            assert done[3] != first and pool.pids == [done[3]]
        finally:
            pool.close()

    asyncio.run(scenario())


class Writes:
    """The real `_write`, noting how many calls each write carried (small calls, which a
    pipe's buffer takes whole)."""

    def __init__(self) -> None:
        self.real = workers_module._write
        self.calls: list[int] = []

    def __call__(self, fd: int, data: memoryview) -> int:
        received = bytearray(data)
        count = 0
        while workers_module._message(received) is not None:
            count += 1
        assert not received  # whole frames only
        self.calls.append(count)
        written: int = self.real(fd, data)
        assert written == len(data)
        return written


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Writes:
    found = Writes()
    monkeypatch.setattr(workers_module, "_write", found)
    return found


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
    """`batch=1` (calls of seconds): a call a person waits for waits behind the one call its
    worker runs, never behind a batch of them."""

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


def test_calls_go_by_priority_first_come_first_served_within_one() -> None:
    """Calls asked while the worker is busy, the least urgent first: they run the most urgent
    first, and those of one priority in the order they were asked."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            asked = [
                (priority, f"{priority.name}{n}")
                for priority in reversed(Priority)
                for n in range(2)
            ]
            calls = [
                asyncio.ensure_future(pool.run(_stamped, label, priority=priority))
                for priority, label in asked
            ]
            await asyncio.sleep(0)  # all asked
            assert [pool.waiting(priority) for priority in Priority] == [2, 2, 2, 2]
            assert pool.waiting() == 8
            await busy
            stamps = dict(await asyncio.gather(*calls))
            order = sorted(stamps, key=lambda label: stamps[label])
            assert order == [f"{p.name}{n}" for p in Priority for n in range(2)]
            assert pool.waiting() == 0
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_person_s_call_goes_ahead_of_the_waiting_ones() -> None:
    """`Priority.PERSON`: ahead of the calls already waiting, behind the one a worker runs; the
    queue says how many calls of a priority wait, a call given up no longer counting."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            await pool.run(os.getpid)  # the worker is up
            running_call = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            background = [asyncio.ensure_future(pool.run(_stamped, f"b{i}")) for i in range(3)]
            await asyncio.sleep(0)  # (the calls are asked for)
            assert pool.waiting(Priority.BOT) == 3 and pool.waiting(Priority.PERSON) == 0
            dropped = asyncio.ensure_future(
                pool.run(_stamped, "dropped", priority=Priority.CHANCES)
            )
            await asyncio.sleep(0)  # (queued)
            assert pool.waiting(Priority.CHANCES) == 1
            dropped.cancel()
            await asyncio.gather(dropped, return_exceptions=True)
            assert pool.waiting(Priority.CHANCES) == 0
            urgent = asyncio.ensure_future(pool.run(_stamped, "urgent", priority=Priority.PERSON))
            await running_call
            stamps = dict(await asyncio.gather(urgent, *background))
            assert min(stamps, key=lambda label: stamps[label]) == "urgent"
            assert stamps["b0"] < stamps["b1"] < stamps["b2"]  # the others in their order
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_limited_priority_never_takes_more_workers_than_its_limit() -> None:
    """Background calls limited to one worker of two: while one worker holds one, the others
    wait though the other worker is free, a bot's call asked after them takes that worker at
    once, and no two background calls ever overlap."""

    async def scenario() -> None:
        pool = ProcessPool(2, limits={Priority.BACKGROUND: 1})
        try:
            await asyncio.gather(pool.run(_slow_pid, 0.2), pool.run(_slow_pid, 0.2))
            assert len(pool.pids) == 2  # both workers are up and free
            background = [
                asyncio.ensure_future(pool.run(_spell, f"bg{n}", 0.2, priority=Priority.BACKGROUND))
                for n in range(3)
            ]
            await asyncio.sleep(0)
            # The first, alone when asked, goes; two wait though a worker is free.
            assert pool.waiting(Priority.BACKGROUND) == 2
            bot = asyncio.ensure_future(pool.run(_spell, "bot", 0.0, priority=Priority.BOT))
            await asyncio.sleep(0)
            assert pool.waiting(Priority.BOT) == 0  # handed to the free worker at once
            spells = await asyncio.gather(*background)
            await bot
            for (_, _, ended), (_, began, _) in itertools.pairwise(spells):
                assert ended <= began  # one at a time, in order
            await pool.drained()
        finally:
            pool.close()

    asyncio.run(scenario())


def test_a_call_goes_to_its_affinity_s_worker_when_it_is_free() -> None:
    """Calls of two keys on two free workers, one after another: each key's calls keep to the
    worker that ran its first (left to itself, the pool hands a call to the worker that came
    free last, the same for both keys). With its worker busy, a call never waits for it."""

    async def scenario() -> None:
        pool = ProcessPool(2)
        try:
            homes = await asyncio.gather(
                pool.run(_slow_pid, 0.2, affinity="a"), pool.run(_slow_pid, 0.2, affinity="b")
            )
            assert len(set(homes)) == 2
            for _ in range(4):
                assert await pool.run(os.getpid, affinity="a") == homes[0]
                assert await pool.run(os.getpid, affinity="b") == homes[1]
            long = asyncio.ensure_future(pool.run(_slow_pid, 30, affinity="a"))
            await asyncio.sleep(0)
            assert await asyncio.wait_for(pool.run(os.getpid, affinity="a"), 10) == homes[1]
            assert not long.done()
            long.cancel()
        finally:
            pool.close()

    asyncio.run(scenario())


def test_drained_returns_once_nothing_waits_or_runs() -> None:
    async def scenario() -> None:
        pool = ProcessPool(2, limits={Priority.BACKGROUND: 1})
        try:
            await asyncio.wait_for(pool.drained(), 1)  # an empty pool is drained at once
            calls = [
                asyncio.ensure_future(pool.run(_slow_pid, 0.05, priority=priority))
                for priority in Priority
                for _ in range(3)
            ]
            given_up = asyncio.ensure_future(pool.run(_slow_pid, 0.05))
            await asyncio.sleep(0)
            given_up.cancel()
            await asyncio.wait_for(pool.drained(), 60)
            assert all(call.done() for call in calls)
            assert pool.waiting() == 0 and not any(w.calls for w in pool._workers)
        finally:
            pool.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("loop", LOOPS)
def test_a_call_of_megabytes_is_handed_over_while_the_loop_runs(loop: str, tmp_path: Path) -> None:
    """A call of 6 MiB handed over behind a call that keeps its worker from reading: the pipe
    takes a part, the rest waits for room, and the loop keeps turning (the test opens the gate
    only after many turns). Written whole, in one go, it blocked the loop on asyncio's loop for
    as long as the worker did not read, and on uvloop's failed as a dead worker for ever."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        ticker = Ticker()
        gate = tmp_path / "gate"
        try:
            await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.2))
            held = asyncio.ensure_future(pool.run(_gate, str(gate), 120))
            big = asyncio.ensure_future(pool.run(_length, _bulk(6 << 20)))
            await busy  # then `held` and `big` go to the worker in one batch
            await ticker.turns(1000)
            assert not big.done() and pool._workers[0].writing  # the pipe is full
            gate.touch()
            assert await asyncio.wait_for(held, 60) == "opened"
            length, turns = await ticking_while(ticker, big)
            assert length == 6 << 20
            assert not pool._workers[0].writing
            # The answer of megabytes, read while the loop turns.
            answer, turns = await ticking_while(ticker, pool.run(_bulk, 6 << 20))
            assert answer == _bulk(6 << 20) and turns > 0
            assert await pool.run(abs, -5) == 5
        finally:
            ticker.stop()
            pool.close()

    on(loop, scenario)


@pytest.mark.parametrize("loop", LOOPS)
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

    on(loop, scenario)


@pytest.mark.parametrize("loop", LOOPS)
def test_a_worker_killed_while_a_big_call_is_written_fails_it_alone(loop: str) -> None:
    """The worker dies while the loop still writes a call of megabytes to it (its pipe full):
    that is a death, not a full pipe. The call it ran fails; the big call, which it never had
    whole, goes to a new worker and is answered."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        try:
            first = await pool.run(os.getpid)
            busy = asyncio.ensure_future(pool.run(_slow_pid, 0.2))
            long = asyncio.ensure_future(pool.run(_slow_pid, 60))
            big = asyncio.ensure_future(pool.run(_length, _bulk(6 << 20)))
            await busy  # `long` and `big` go to the worker in one batch; it runs `long`
            assert pool._workers[0].writing
            killed(pool, first)
            with pytest.raises(WorkerDied):
                await asyncio.wait_for(long, 30)
            assert await asyncio.wait_for(big, 60) == 6 << 20
            assert pool.pids != [first]
        finally:
            pool.close()

    on(loop, scenario)


def test_closing_ends_busy_workers_and_cancels_calls() -> None:
    async def scenario() -> None:
        pool = ProcessPool(1, 5)  # its workers 5 nicer than this process
        pid = await pool.run(os.getpid)
        proc = worker(pid)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(
            os.getpriority(os.PRIO_PROCESS, 0) + 5, 19
        )
        busy = asyncio.ensure_future(pool.run(_slow_pid, 30))
        queued = asyncio.ensure_future(pool.run(abs, -1))
        await asyncio.sleep(0)  # both asked: the first runs, the second waits
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


def test_a_pool_s_workers_carry_its_name() -> None:
    """`ps` and `top` show a pool's workers by its name (the server's workers told from the
    rest), cut to the 15 bytes Linux keeps; a pool without one leaves the name its workers start
    with."""

    async def scenario() -> None:
        named, plain = ProcessPool(1, name="dp-work"), ProcessPool(1)
        long = ProcessPool(1, name="dp-a-very-long-name")
        try:
            pids = [await pool.run(os.getpid) for pool in (named, plain, long)]
            comms = [Path(f"/proc/{pid}/comm").read_text().strip() for pid in pids]
            assert comms[0] == "dp-work" and comms[2] == "dp-a-very-long-"
            assert comms[1] == Path(sys.executable).name[:15]  # as spawned
        finally:
            for pool in (named, plain, long):
                pool.close()

    asyncio.run(scenario())


def _pair(a: int, b: int) -> tuple[int, int]:
    return a, b


def test_a_fresh_call_takes_its_arguments_when_a_worker_takes_it() -> None:
    """`run_fresh`: the arguments are asked for only when a worker takes the call, after the
    more urgent calls that waited before it; `None` answers the call at once, with no worker;
    arguments that fail or cannot travel fail that call alone."""

    async def scenario() -> None:
        pool = ProcessPool(1)
        asked: list[str] = []

        def arguments(label: str) -> Callable[[], tuple[Any, ...] | None]:
            def give() -> tuple[Any, ...] | None:
                asked.append(label)
                return None if label == "none" else (len(asked), 2)

            return give

        try:
            await pool.run(os.getpid)  # the worker is up
            running = asyncio.ensure_future(pool.run(_slow_pid, 0.3))
            fresh = asyncio.ensure_future(
                pool.run_fresh(_pair, arguments("fresh"), priority=Priority.CHANCES)
            )
            nothing = asyncio.ensure_future(
                pool.run_fresh(_pair, arguments("none"), priority=Priority.CHANCES)
            )
            bot = asyncio.ensure_future(pool.run(_stamped, "bot", priority=Priority.BOT))
            await asyncio.sleep(0)  # (all asked for)
            assert asked == []  # nothing taken while the worker is busy
            await running
            assert await bot
            assert await fresh == (1, 2) and await nothing is None
            assert asked == ["fresh", "none"]  # taken after the bot's call, in their order

            def failing() -> tuple[Any, ...]:
                raise RuntimeError("no position")

            with pytest.raises(RuntimeError, match="no position"):
                await pool.run_fresh(_pair, failing, priority=Priority.CHANCES)
            with pytest.raises((pickle.PicklingError, AttributeError)):  # (a lambda)
                await pool.run_fresh(_pair, lambda: (lambda: 1, 2), priority=Priority.CHANCES)
            assert await pool.run(_pair, 3, 4) == (3, 4)  # the pool goes on
        finally:
            pool.close()

    asyncio.run(scenario())


def test_calls_waiting_at_their_limit_hold_back_the_less_urgent_ones() -> None:
    """Bots limited to one worker of three: while a bot's call waits for its turn, a chances
    call waits too, though workers are free (the machine is behind); a person's call does not.
    Once no bot's call waits, the chances call goes."""

    async def scenario() -> None:
        pool = ProcessPool(3, limits={Priority.BOT: 1})
        try:
            await asyncio.gather(*(pool.run(_slow_pid, 0.1) for _ in range(3)))  # all up
            first = asyncio.ensure_future(pool.run(_slow_pid, 0.5, priority=Priority.BOT))
            second = asyncio.ensure_future(pool.run(_stamped, "bot", priority=Priority.BOT))
            chances = asyncio.ensure_future(
                pool.run(_stamped, "chances", priority=Priority.CHANCES)
            )
            person = asyncio.ensure_future(pool.run(_stamped, "person", priority=Priority.PERSON))
            stamps = dict([await person])
            assert not chances.done() and not second.done()  # held back behind the bot
            await first
            stamps.update(await asyncio.gather(second, chances))
            assert stamps["person"] < stamps["bot"] < stamps["chances"]
        finally:
            pool.close()

    asyncio.run(scenario())
