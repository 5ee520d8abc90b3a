"""Worker processes the event loop talks to itself, with no thread in between.

`concurrent.futures.ProcessPoolExecutor` hands every call to threads of its own (a manager and
a queue feeder) that wake each other through pipes and take the interpreter lock from the event
loop: 194-261 microseconds of the server's CPU a call, against 49-65 here (a call with a
state's worth of arguments, `benchmarks/workers.py`), and a server asks its workers once or
twice for every move (a bot's decision, a position's forecast). Here each worker has one
pipe: the loop writes a call to an idle worker and reads the answer when the pipe is readable
(`loop.add_reader`). Calls wait in the loop, first come first served, for a free worker. A free
worker is handed the calls waiting, up to `BATCH` (its share when there are several workers; a
pool of calls of seconds takes one at a time), in one write: the worker reads and answers them
one by one as before, but a write that wakes another process costs the writer tens of
microseconds on a loaded virtual machine, and a server's bot worker has a queue exactly when the
machine is loaded. A batch is a few KiB, far under a pipe's buffer, so a write never waits. A
worker that dies fails the calls it held with `WorkerDied` and is replaced by the next call's
worker. Each worker is bound to die with the process that started it (lifeline.py: a worker
holds nothing worth saving), and may run `nice`r than it.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, TypeVar

from dicepoker.server.lifeline import die_with_parent

T = TypeVar("T")

_Call = tuple[Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


class WorkerDied(RuntimeError):
    """The worker process running a call ended before answering (killed, crashed)."""


#: The most waiting calls handed to a worker in one write.
BATCH = 8


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    pipe: Connection
    # The calls handed to it and not answered yet, in the order it answers them.
    calls: deque[asyncio.Future[Any]] = field(default_factory=deque)
    # What has come of the answer so far: an answer bigger than the pipe's buffer (an
    # analysis) comes in several reads, and the loop reads only what is there.
    received: bytearray = field(default_factory=bytearray)

    @property
    def pid(self) -> int | None:
        return self.process.pid


#: The most bytes one read of a worker's pipe takes: a pipe's buffer (64 KiB on Linux), so one
#: read takes what is there. `os.read` allocates this much before it reads: at 1 MiB, every
#: answer cost an mmap and munmap (17 us against 1 for a 60-byte answer, measured), and the
#: reads were a tenth of a loaded server's samples.
READ_SIZE = 1 << 16


def _frame(payload: bytes) -> bytes:
    """`payload` framed as `multiprocessing.connection.Connection.send_bytes` frames it (what
    the worker's `recv_bytes` reads): a 4-byte big-endian length, or -1 and an 8-byte one."""
    if len(payload) > 0x7FFFFFFF:
        return struct.pack("!iQ", -1, len(payload)) + payload
    return struct.pack("!i", len(payload)) + payload


def _write_all(fd: int, data: bytes) -> None:
    """Write all of `data` (a batch of calls: a few KiB, which a pipe's buffer holds)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


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
    """Up to `size` spawned worker processes (nothing of the server is inherited), `nice` nicer
    than this one, started as calls need them. The kernel signals the death of the *thread*
    that started a worker, so a pool is used from the event loop's thread only."""

    def __init__(self, size: int, nice: int = 0, batch: int = BATCH, name: str = "") -> None:
        self.size = max(1, size)
        self.nice = nice
        # Its workers' process name (`top`, `ps -o comm`, /proc/PID/comm; at most 15 bytes), so
        # that a self-hoster, and benchmarks/load.py, tell the bots' CPU from the analyses'.
        self.name = name
        # The most calls handed over in one write: 1 for calls of seconds (an analysis), where a
        # wake-up is nothing and a call asked `first` should wait behind one call only.
        self.batch = max(1, batch)
        self._workers: list[_Worker] = []
        self._idle: list[_Worker] = []
        self._waiting: deque[_Call] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids."""
        return [worker.pid for worker in self._workers if worker.pid]

    async def run(self, function: Callable[..., T], *args: Any, first: bool = False) -> T:
        """`function(*args)` in a worker (both travel by pickling: a module's function, plain
        values); raises what it raised, or `WorkerDied`. `first`: ahead of the calls waiting
        (a person waits for it, the others are background work)."""
        if self._closed:
            raise RuntimeError("the worker pool is closed")
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # workers answer on the loop that started them
            for worker in list(self._workers):
                self._end(worker)
            self._loop = loop
        future: asyncio.Future[T] = loop.create_future()
        if first:
            self._waiting.appendleft((function, args, future))
        else:
            self._waiting.append((function, args, future))
        self._dispatch()
        return await future

    def close(self) -> None:
        """End every worker (a worker holds nothing worth saving) and cancel the calls."""
        self._closed = True
        while self._waiting:
            self._waiting.popleft()[2].cancel()
        for worker in list(self._workers):
            self._end(worker)
            for call in worker.calls:
                call.cancel()

    def _dispatch(self) -> None:
        """Hand waiting calls to free workers, starting workers up to `size`."""
        while self._waiting and not self._closed:
            try:
                worker = self._free()
            except Exception as exc:  # no worker could start (out of processes, say)
                failed = self._waiting.popleft()[2]
                if not failed.done():
                    failed.set_exception(exc)
                continue
            if worker is None:
                return
            self._hand(worker)

    def _hand(self, worker: _Worker) -> None:
        """Write the first waiting calls to `worker` (a free one) in one write: up to BATCH, and
        no more than its share when there are several workers (of the calls waiting and those
        the others hold, so that none is left idle while one holds a queue)."""
        held = sum(len(other.calls) for other in self._workers)
        share = -(-(len(self._waiting) + held) // self.size)  # (rounded up)
        framed: list[bytes] = []
        futures: list[asyncio.Future[Any]] = []
        calls: list[_Call] = []
        while self._waiting and len(calls) < min(self.batch, share):
            call = self._waiting.popleft()
            function, args, future = call
            if future.done():
                continue  # given up while it waited
            try:
                payload = pickle.dumps((function, args), pickle.HIGHEST_PROTOCOL)
            except Exception as exc:
                future.set_exception(exc)
                continue
            framed.append(_frame(payload))
            futures.append(future)
            calls.append(call)
        if not calls:
            self._idle.append(worker)
            return
        try:
            _write_all(worker.pipe.fileno(), b"".join(framed))
        except OSError:  # it died while idle: the calls go to another
            self._end(worker)
            self._waiting.extendleft(reversed(calls))
            return
        worker.calls.extend(futures)

    def _free(self) -> _Worker | None:
        while self._idle:
            worker = self._idle.pop()
            if worker.process.is_alive():
                return worker
            self._end(worker)  # it died while idle, before the loop read its pipe's end
        if len(self._workers) >= self.size:
            return None
        assert self._loop is not None
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
        worker = _Worker(process, mine)
        self._workers.append(worker)
        self._loop.add_reader(mine.fileno(), self._answered, worker)
        return worker

    def _answered(self, worker: _Worker) -> None:
        """The worker's pipe is readable: a part of its answers, or its end. Only what is there
        is read (the pipe may be non-blocking: uvloop makes the fds it watches so), and each
        answer is taken once it has come whole."""
        try:
            chunk = os.read(worker.pipe.fileno(), READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return  # nothing there after all
        except OSError:
            chunk = b""
        if not chunk:
            held = list(worker.calls)
            self._end(worker)
            for failed in held:
                if not failed.done():
                    failed.set_exception(WorkerDied("a worker process ended before answering"))
            self._dispatch()
            return
        worker.received += chunk
        while (data := _message(worker.received)) is not None:
            call = worker.calls.popleft() if worker.calls else None
            if call is not None and not call.done():
                try:
                    done, value = pickle.loads(data)
                except Exception as exc:
                    call.set_exception(exc)
                else:
                    if done:
                        call.set_result(value)
                    else:
                        call.set_exception(value)
        if worker.calls:
            return  # more answers are coming
        self._idle.append(worker)
        self._dispatch()

    def _end(self, worker: _Worker) -> None:
        if worker in self._workers:
            self._workers.remove(worker)
        if worker in self._idle:
            self._idle.remove(worker)
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(worker.pipe.fileno())
        worker.pipe.close()
        worker.process.kill()
        worker.process.join(1)


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


__all__ = ["ProcessPool", "WorkerDied", "name_process"]
