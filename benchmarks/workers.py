"""What a call to a worker process costs the server's process: `dicepoker.server.runtime.workers`
against `concurrent.futures.ProcessPoolExecutor`, measured in the same run.

    python benchmarks/workers.py [--calls 3000]

Each way runs the same trivial function in one spawned worker with a state's worth of arguments
(600 small integers, about what a game state's fields pickle to), one call at a time and eight
at a time, on uvloop as the server runs. It prints, per call, the CPU time of this process (all
its threads: the executor's manager and feeder threads count), the wall time and the worker's
CPU, and the executor's CPU over the pool's.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import uvloop

from dicepoker.server.runtime.workers import ProcessPool
from load_servers import stat_cpu_seconds

ARGUMENT = tuple(range(600))


def _size(values: tuple[int, ...]) -> int:
    return len(values)


def _workers_cpu(pids: list[int]) -> float:
    """The CPU seconds the processes `pids` have run (`/proc/PID/stat`)."""
    return sum(stat_cpu_seconds(Path(f"/proc/{pid}/stat").read_text()) for pid in pids)


async def _timed(
    call: Callable[[], Awaitable[Any]], calls: int, together: int, pids: Callable[[], list[int]]
) -> tuple[float, float, float]:
    """CPU and wall microseconds per call, `together` callers at a time, and the CPU
    microseconds per call of the worker (`pids()`)."""
    await call()  # the worker is started
    cpu, wall = time.process_time(), time.perf_counter()
    worker = _workers_cpu(pids())

    async def caller() -> None:
        for _ in range(calls // together):
            await call()

    await asyncio.gather(*(caller() for _ in range(together)))
    done = calls // together * together
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return cpu / done * 1e6, wall / done * 1e6, (_workers_cpu(pids()) - worker) / done * 1e6


async def executor(calls: int, together: int) -> tuple[float, float, float]:
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    loop = asyncio.get_running_loop()
    try:
        return await _timed(
            lambda: loop.run_in_executor(pool, _size, ARGUMENT),
            calls,
            together,
            lambda: list(pool._processes or {}),
        )
    finally:
        pool.shutdown()


async def process_pool(calls: int, together: int) -> tuple[float, float, float]:
    pool = ProcessPool(1)
    try:
        return await _timed(lambda: pool.run(_size, ARGUMENT), calls, together, lambda: pool.pids)
    finally:
        pool.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=3000)
    args = parser.parse_args(argv)
    for together in (1, 8):
        theirs = uvloop.run(executor(args.calls, together))
        ours = uvloop.run(process_pool(args.calls, together))
        print(
            f"{together} at a time: ProcessPool {ours[0]:.0f} us CPU, {ours[1]:.0f} us wall "
            f"a call (its worker {ours[2]:.0f} us CPU); "
            f"ProcessPoolExecutor {theirs[0]:.0f} us CPU, {theirs[1]:.0f} us wall (its worker "
            f"{theirs[2]:.0f}); CPU ratio {theirs[0] / ours[0]:.1f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
