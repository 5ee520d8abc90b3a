"""The server's one work queue: worker processes the event loop talks to itself, with priorities.

`concurrent.futures.ProcessPoolExecutor` hands every call to threads of its own (a manager and
a queue feeder) that wake each other through pipes and take the interpreter lock from the event
loop: 194-261 microseconds of the server's CPU a call, against 49-65 here (a call with a
state's worth of arguments, `benchmarks/workers.py`), and a server asks its workers once or
twice for every move (a bot's decision, the chances of the position it leads to). Here each worker
has one pipe: the loop writes calls to an idle worker and reads the answers when the pipe is
readable (`loop.add_reader`).

Every kind of work shares the one pool, and the calls wait in the loop by `Priority`: a person who
waits for an answer first, then the bots, the live chances, and the analyses nobody waits for; first
come first served within a priority. A priority may be limited to a number of calls running at once
(`limits`): the background analyses take seconds each, and must never hold every worker while a
bot's decision waits. Calls that wait at their priority's limit hold back every less urgent call:
they say that the machine is behind, and what is less urgent then waits its turn. A free worker is
handed the calls waiting, up to `BATCH` (its share when there are several workers), in one write:
the worker reads and answers them one by one, but a write that wakes another process costs the
writer tens of microseconds on a loaded virtual machine, and a server's workers have a queue exactly
when the machine is loaded. A call may name an `affinity` (a bot's game seat): it goes to the worker
that last ran one of that key when that worker is free, where the bot's plan for its turn is kept,
and to any other free one when not.

Nothing here waits for a worker. A call is pickled when it is asked for, so that a call that
cannot travel fails alone, at once, and a call bigger than `MAX_JOB_BYTES` is refused before
it waits (`JobTooLarge`). The pipe is non-blocking (uvloop makes the fds it watches so anyway):
a batch bigger than the pipe's buffer (a record's analysis may be a megabyte) is written as far
as the pipe takes it, and the rest when the pipe is writable again (`loop.add_writer`); its
worker counts as busy meanwhile. A full pipe is not a dead worker: a write that would block
waits, a write that fails otherwise (EPIPE), an end of the pipe (EOF) or a process no longer
alive is a death. The call a worker was running when it died fails alone with `WorkerDied`,
and the calls handed to it behind that one wait again for another worker; a worker is started
again by the next call. Each worker is bound to die with the process that started it
(lifeline.py: a worker holds nothing worth saving).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import struct
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, TypeVar

from dicepoker.server.runtime.lifeline import die_with_parent

T = TypeVar("T")


class Priority(IntEnum):
    """Who waits for a call: the lower, the sooner it is handed to a worker."""

    PERSON = 0  # a person waits for it: a hint, a puzzle answer, an analysis asked for now
    BOT = 1  # a bot's decision (and the daily par)
    CHANCES = 2  # the newest win probability of a game's position
    BACKGROUND = 3  # analyses nobody waits for move by move (puzzle harvests, accuracies)


class WorkerDied(RuntimeError):
    """The worker process running a call ended before answering (killed, crashed)."""


class JobTooLarge(ValueError):
    """A call whose pickled function and arguments are over `MAX_JOB_BYTES`: refused before it
    waits for a worker."""


#: The most waiting calls handed to a worker in one write.
BATCH = 8
#: The largest call a worker is handed, pickled. The largest the server hands over is a record
#: to analyse, at most --max-record-bytes of JSON (1 MiB by default), whose pickled form may be
#: larger than its JSON: up to 2.25 times (a list of numbers written `1e5`: 4 bytes of JSON, 9
#: pickled). 8 MiB takes that with room for a self-hoster's limit up to 3.5 MiB, and still bounds
#: what one call costs the loop's memory while it waits. Anything larger is refused at once.
MAX_JOB_BYTES = 8 << 20
#: How many times a call is handed again after the worker it waited in died before it could have
#: started it, before it fails with `WorkerDied` (workers that die as they start would otherwise
#: be started again and again for the same call).
HANDOVERS = 3
#: The affinity keys remembered (a key is a game seat whose bot moved lately), the oldest
#: forgotten first: a forgotten key's call goes to any free worker, at the cost of the bot's plan.
AFFINITIES_KEPT = 8192
#: The most bytes one read of a worker's pipe takes: a pipe's buffer (64 KiB on Linux), so one
#: read takes what is there. `os.read` allocates this much before it reads: a larger size would
#: cost every small answer an mmap and a munmap.
READ_SIZE = 1 << 16
#: How long `close` waits, in all, for the killed workers to be reaped.
REAP_SECONDS = 1.0


#: A call whose arguments are taken when a worker takes it: its function, and what gives them.
_Fresh = tuple[Callable[..., Any], Callable[[], tuple[Any, ...] | None]]


@dataclass(eq=False)
class _Job:
    framed: bytes  # the pickled call, framed for the worker's `recv_bytes` (b"" until fresh)
    future: asyncio.Future[Any]
    priority: Priority
    affinity: Hashable | None
    # A call whose arguments are taken when a worker takes it (`run_fresh`): its function, and
    # what gives its arguments then (None: nothing to do any more).
    fresh: _Fresh | None = None
    handovers: int = 0  # times its worker died before it could have started it
    end: int = 0  # where its bytes end in its worker's stream (as `_Worker.sent` counts)


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    pipe: Connection
    # The calls handed to it and not answered yet, in the order it answers them.
    calls: deque[_Job] = field(default_factory=deque)
    # What has come of the answer so far: an answer bigger than the pipe's buffer (an
    # analysis) comes in several reads, and the loop reads only what is there.
    received: bytearray = field(default_factory=bytearray)
    # What is still to be written to it (the pipe was full), and how much was.
    outbox: deque[memoryview] = field(default_factory=deque)
    queued: int = 0
    sent: int = 0
    writing: bool = False  # the loop watches its pipe for room (`add_writer`)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    @property
    def fd(self) -> int:
        return self.pipe.fileno()


def _frame(payload: bytes) -> bytes:
    """`payload` framed as `multiprocessing.connection.Connection.send_bytes` frames it (what
    the worker's `recv_bytes` reads): a 4-byte big-endian length, or -1 and an 8-byte one."""
    if len(payload) > 0x7FFFFFFF:
        return struct.pack("!iQ", -1, len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


def _write(fd: int, data: memoryview) -> int:
    """Write what the non-blocking pipe `fd` takes of `data`: how much it took (BlockingIOError
    when it took nothing)."""
    return os.write(fd, data)


def _message(received: bytearray) -> bytes | None:
    """The message `received` holds once it is whole, taken out of it (the framing of
    `multiprocessing.connection.Connection.send_bytes`: a 4-byte big-endian length, or -1 and
    an 8-byte one, then the bytes); None while it is not."""
    if len(received) < 4:
        return None
    (size,) = struct.unpack("!i", received[:4])
    start = 4
    if size == -1:
        if len(received) < 12:
            return None
        (size,) = struct.unpack("!Q", received[4:12])
        start = 12
    if len(received) < start + size:
        return None
    data = bytes(received[start : start + size])
    del received[: start + size]
    return data


class ProcessPool:
    """Up to `size` spawned worker processes (nothing of the server is inherited), started as
    calls need them, that run calls by `Priority`. `limits`: the most workers holding calls of
    a priority at once. The kernel signals the death of the *thread* that started a worker, so a
    pool is used from the event loop's thread only.

    `nice` (positional, second): its workers run that much nicer than this process, so that the
    server's own loop (every move's broadcast) comes before any worker's call on a full machine;
    the order among the calls is the queue's, not the scheduler's.
    """

    def __init__(
        self,
        size: int,
        nice: int = 0,
        /,
        *,
        batch: int = BATCH,
        name: str = "",
        limits: Mapping[Priority, int] | None = None,
    ) -> None:
        self.size = max(1, size)
        self.nice = nice
        # Its workers' process name (`top`, `ps -o comm`, /proc/PID/comm; at most 15 bytes), so
        # that a self-hoster, and benchmarks/load.py, tell the server's workers from the rest.
        self.name = name
        # The most calls handed over in one write: 1 for calls of seconds (an analysis), where a
        # wake-up is nothing and a call a person waits for should wait behind one call only.
        self.batch = max(1, batch)
        self.limits = {
            Priority(priority): max(1, most) for priority, most in (limits or {}).items()
        }
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        self._queues: dict[Priority, deque[_Job]] = {priority: deque() for priority in Priority}
        self._homes: OrderedDict[Hashable, _Worker] = OrderedDict()
        self._drains: list[asyncio.Future[None]] = []
        self._reaping: list[BaseProcess] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dispatching = False
        self._closed = False

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids."""
        return [worker.pid for worker in self._workers if worker.pid]

    def waiting(self, priority: Priority | None = None) -> int:
        """How many calls wait for a worker (of `priority`, or of all): the pool's load."""
        queues = self._queues.values() if priority is None else [self._queues[priority]]
        return sum(1 for queue in queues for job in queue if not job.future.done())

    async def run(
        self,
        function: Callable[..., T],
        *args: Any,
        priority: Priority = Priority.BOT,
        affinity: Hashable | None = None,
    ) -> T:
        """`function(*args)` in a worker (both travel by pickling: a module's function, plain
        values); raises what it raised, `WorkerDied`, what pickling them raised, or
        `JobTooLarge`. `priority`: who waits for it. `affinity`: a key whose last call's worker
        it prefers when that one is free (never waiting for it)."""
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        framed = _framed_call(function, args)
        answer: T = await self._queued(framed, priority, affinity)
        return answer

    async def run_fresh(
        self,
        function: Callable[..., T],
        arguments: Callable[[], tuple[Any, ...] | None],
        *,
        priority: Priority,
        affinity: Hashable | None = None,
    ) -> T | None:
        """`function(*arguments())` in a worker, the arguments taken only when a worker takes the
        call: a call that waited behind more urgent ones works on what is true then (the
        position a game rests at now, not the one it left while the call waited). None, with no
        worker, when `arguments` says there is nothing to do any more (None)."""
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        answer: T | None = await self._queued(b"", priority, affinity, (function, arguments))
        return answer

    async def _queued(
        self,
        framed: bytes,
        priority: Priority,
        affinity: Hashable | None,
        fresh: _Fresh | None = None,
    ) -> Any:
        """Queue a call (`framed`, or `fresh` to be framed when a worker takes it) and wait for
        its answer."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # workers answer on the loop that started them
            self._forget_loop()
            self._loop = loop
        future: asyncio.Future[Any] = loop.create_future()
        job = _Job(framed, future, Priority(priority), affinity, fresh=fresh)
        self._queues[job.priority].append(job)
        self._dispatch()
        try:
            return await future
        finally:
            if future.cancelled():  # given up: perhaps the last thing `drained` waited for
                self._wake_drains()

    async def drained(self) -> None:
        """Return once no call waits or runs (calls given up while they ran count until their
        worker answers them)."""
        while self._busy():
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._drains.append(waiter)
            await waiter

    def close(self) -> None:
        """End every worker (a worker holds nothing worth saving) and cancel the calls."""
        self._closed = True
        for queue in self._queues.values():
            while queue:
                _cancel(queue.popleft().future)
        for worker in list(self._workers):
            held = list(worker.calls)
            self._end(worker)
            for job in held:
                _cancel(job.future)
        deadline = time.monotonic() + REAP_SECONDS
        for process in self._reaping:  # killed: they end at once
            process.join(max(0.0, deadline - time.monotonic()))
        self._reaping = [process for process in self._reaping if process.exitcode is None]
        for waiter in self._drains:
            _cancel(waiter)
        self._drains.clear()

    def _busy(self) -> bool:
        return self.waiting() > 0 or any(worker.calls for worker in self._workers)

    def _wake_drains(self) -> None:
        if self._drains and not self._busy():
            drains, self._drains = self._drains, []
            for waiter in drains:
                if not waiter.done():
                    waiter.set_result(None)

    def _forget_loop(self) -> None:
        """A new event loop: the workers, and the calls of the old one, are dropped."""
        for worker in list(self._workers):
            self._end(worker)
        for queue in self._queues.values():
            queue.clear()
        self._homes.clear()

    def _next(self, taken: Counter[Priority]) -> _Job | None:
        """The first call to hand over to a free worker, `taken` more being handed to it now:
        the highest priority's oldest. A priority's limit counts the workers that hold its calls
        (a worker handed several in one write is one), so that a limited kind still goes in
        batches. A priority whose calls wait at their limit holds back the less urgent ones too:
        calls that wait are the sign of a machine that is behind, and what is less urgent then
        waits, rather than take the CPU from what falls behind."""
        for priority, queue in self._queues.items():  # in Priority's order
            while queue and queue[0].future.done():
                queue.popleft()  # given up while it waited
            if not queue:
                continue
            limit = self.limits.get(priority)
            if limit is None or taken[priority] or self._holders(priority) < limit:
                return queue[0]
            return None
        return None

    def _holders(self, priority: Priority) -> int:
        """How many workers hold calls of `priority` now."""
        return sum(
            1 for worker in self._workers if any(job.priority is priority for job in worker.calls)
        )

    def _dispatch(self) -> None:
        """Hand waiting calls to free workers, starting workers up to `size`."""
        if self._dispatching:  # a worker died while calls were handed: the loop below goes on
            return
        self._dispatching = True
        try:
            while not self._closed and (job := self._next(Counter())) is not None:
                try:
                    worker = self._worker_for(job)
                except Exception as exc:  # no worker could start (out of processes, say)
                    self._queues[job.priority].popleft()
                    job.future.set_exception(exc)
                    continue
                if worker is None:
                    break
                self._hand(worker)
        finally:
            self._dispatching = False
        self._wake_drains()

    def _worker_for(self, job: _Job) -> _Worker | None:
        """The worker for `job`: its affinity's, if that one is free; else a free one, or a new
        one; None while every worker is busy."""
        home = self._homes.get(job.affinity) if job.affinity is not None else None
        if home is not None and home in self._idle and home.process.is_alive():
            self._idle.remove(home)
            return home
        return self._free()

    def _hand(self, worker: _Worker) -> None:
        """Hand the first waiting calls to `worker` (a free one) in one write: up to `batch`,
        no call over its priority's limit, and no more than its share when there are several
        workers (of the calls waiting and those the others hold, so that none is left idle
        while one holds a queue)."""
        held = sum(len(other.calls) for other in self._workers)
        queued = sum(len(queue) for queue in self._queues.values())  # (given up ones too: cheap)
        share = -(-(queued + held) // self.size)  # (rounded up)
        taken: Counter[Priority] = Counter()
        jobs: list[_Job] = []
        while len(jobs) < min(self.batch, share) and (job := self._next(taken)) is not None:
            self._queues[job.priority].popleft()
            if job.fresh is not None and not _made_fresh(job):
                continue  # answered without a worker
            taken[job.priority] += 1
            jobs.append(job)
        if not jobs:
            self._idle.append(worker)
            return
        for job in jobs:
            worker.queued += len(job.framed)
            job.end = worker.queued
            worker.calls.append(job)
            if job.affinity is not None:
                self._homes[job.affinity] = worker
                self._homes.move_to_end(job.affinity)
                while len(self._homes) > AFFINITIES_KEPT:
                    self._homes.popitem(last=False)
        worker.outbox.append(memoryview(b"".join(job.framed for job in jobs)))
        self._send(worker)

    def _send(self, worker: _Worker) -> None:
        """Write to `worker` what its pipe takes of what is to go to it; the rest when the pipe
        has room again (the loop calls this again then)."""
        while worker.outbox:
            data = worker.outbox[0]
            try:
                written = _write(worker.fd, data)
            except (BlockingIOError, InterruptedError):
                break  # the pipe is full: the worker reads it while it runs
            except OSError:  # EPIPE, ECONNRESET: the worker is gone
                self._died(worker)
                return
            worker.sent += written
            if written == len(data):
                worker.outbox.popleft()
            else:
                worker.outbox[0] = data[written:]
        more = bool(worker.outbox)
        assert self._loop is not None
        if more and not worker.writing:
            self._loop.add_writer(worker.fd, self._send, worker)
        elif worker.writing and not more:
            self._loop.remove_writer(worker.fd)
        worker.writing = more

    def _free(self) -> _Worker | None:
        while self._idle:
            worker = self._idle.pop()
            if worker.process.is_alive():
                return worker
            self._died(worker)  # it died while idle, before the loop read its pipe's end
        if len(self._workers) >= self.size:
            return None
        assert self._loop is not None
        self._reaping = [process for process in self._reaping if process.exitcode is None]
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe(duplex=True)
        process = context.Process(
            target=_serve, args=(theirs, os.getpid(), self.nice, self.name), daemon=True
        )
        try:
            process.start()
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()  # the worker has its own copy
        os.set_blocking(mine.fileno(), False)  # a full pipe must never stop the loop
        worker = _Worker(process, mine)
        self._workers.append(worker)
        self._loop.add_reader(mine.fileno(), self._answered, worker)
        return worker

    def _answered(self, worker: _Worker) -> None:
        """The worker's pipe is readable: a part of its answers, or its end. Only what is there
        is read, and each answer is taken once it has come whole."""
        try:
            chunk = os.read(worker.fd, READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return  # nothing there after all
        except OSError:
            chunk = b""
        if not chunk:
            self._died(worker)
            return
        worker.received += chunk
        while worker.calls and (data := _message(worker.received)) is not None:
            job = worker.calls.popleft()
            if job.future.done():
                continue  # given up while it ran
            try:
                done, value = pickle.loads(data)
            except Exception as exc:
                job.future.set_exception(exc)
            else:
                if done:
                    job.future.set_result(value)
                else:
                    job.future.set_exception(value)
        if worker.calls:
            # More answers are coming; meanwhile a call its priority's limit held back may go.
            self._dispatch()
            return
        self._idle.append(worker)
        self._dispatch()

    def _died(self, worker: _Worker) -> None:
        """`worker` ended: the call it was running fails alone (it may be what killed it); the
        calls behind it wait again for another worker."""
        if worker not in self._workers:
            return
        held = list(worker.calls)
        sent = worker.sent
        self._end(worker)
        again = held
        if held and held[0].end <= sent:  # the worker had all of it: it may have been running
            again = held[1:]
            if not held[0].future.done():
                held[0].future.set_exception(
                    WorkerDied("a worker process ended while it ran this call")
                )
        for job in reversed(again):
            if job.future.done():
                continue
            job.handovers += 1
            if job.handovers > HANDOVERS:
                job.future.set_exception(
                    WorkerDied(f"{HANDOVERS + 1} worker processes ended before running this call")
                )
            else:
                self._queues[job.priority].appendleft(job)
        self._dispatch()

    def _end(self, worker: _Worker) -> None:
        """Forget `worker` and kill its process (reaped later: nothing here waits for it)."""
        if worker in self._workers:
            self._workers.remove(worker)
        if worker in self._idle:
            self._idle.remove(worker)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(worker.fd)
            if worker.writing:
                self._loop.remove_writer(worker.fd)
        worker.writing = False
        worker.outbox.clear()
        worker.calls.clear()
        worker.pipe.close()
        worker.process.kill()
        if worker.process.exitcode is None:  # (asks without waiting)
            self._reaping.append(worker.process)


def _made_fresh(job: _Job) -> bool:
    """Take a `run_fresh` call's arguments now and pickle it; False when it is answered without
    a worker instead (nothing to do any more, or a call that cannot travel)."""
    assert job.fresh is not None
    function, arguments = job.fresh
    job.fresh = None
    try:
        args = arguments()
        if args is None:
            job.future.set_result(None)
            return False
        job.framed = _framed_call(function, args)
    except Exception as exc:
        job.future.set_exception(exc)
        return False
    return True


def _framed_call(function: Callable[..., Any], args: tuple[Any, ...]) -> bytes:
    """The call pickled and framed for its worker; `JobTooLarge` over `MAX_JOB_BYTES`."""
    payload = pickle.dumps((function, args), pickle.HIGHEST_PROTOCOL)
    if len(payload) > MAX_JOB_BYTES:
        raise JobTooLarge(
            f"a call of {len(payload)} bytes ({getattr(function, '__name__', function)}) is "
            f"over the {MAX_JOB_BYTES} a worker is handed"
        )
    return _frame(payload)


def _cancel(future: asyncio.Future[Any]) -> None:
    """Cancel `future`, also one of an event loop that is closed already."""
    with contextlib.suppress(RuntimeError):
        future.cancel()


def _serve(pipe: Connection, parent: int, nice: int, name: str = "") -> None:
    """A worker's life: bound to `parent`, `nice`r than it, named `name` (if any), it answers
    calls until the pipe closes."""
    die_with_parent(parent, signal.SIGKILL)
    if nice:
        os.nice(nice)
    if name:
        name_process(name)
    while True:
        try:
            data = pipe.recv_bytes()
        except (EOFError, OSError):
            return
        answer: tuple[bool, Any]
        try:
            function, args = pickle.loads(data)
            answer = (True, function(*args))
        except Exception as exc:
            answer = (False, exc)
        try:
            payload = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            payload = pickle.dumps((False, RuntimeError(f"an answer that cannot travel: {exc!r}")))
        pipe.send_bytes(payload)


def name_process(name: str) -> None:
    """Name this process `name` (its first 15 bytes) where `ps` and `top` show it: Linux's
    /proc/self/comm; elsewhere nothing (the name only helps to tell the processes apart)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_bytes(name.encode()[:15])


__all__ = [
    "BATCH",
    "MAX_JOB_BYTES",
    "JobTooLarge",
    "Priority",
    "ProcessPool",
    "WorkerDied",
    "name_process",
]
