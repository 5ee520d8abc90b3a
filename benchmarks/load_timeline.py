"""`benchmarks/load.py --timeline`: the measured period second by second, the latency beside what
the machine, the driver and each server did in the same second, to tell what a stall is made of.

A stall (every delivery of a second late, its p50 up with its p99) has a few possible causes: the
driver itself (its loop late: the latency it measures is its own), a server (its loop late, a
full collection, slow commits), or the machine (busy to the last tick, or its CPU stolen by the
host). Each second's row puts them side by side:

- from the driver: the deliveries whose events came in that second (p50, p99, max) and the
  driver's own loop lag (the most it woke up late);
- from `/proc/stat`: the machine's busy and stolen share of the second;
- per server, from `/proc` and, with `--metrics`, from a scrape of its `/metrics` at each tick:
  its CPU and its workers' (cores), the share of the second its event loop was ready to run and
  waited for a CPU (`cpu_wait`, the kernel's run-queue wait: `/proc/PID/schedstat`), its event
  loop's lag and collector's pauses (ms summed over the second), and its commits (count and
  mean ms);
- the driver's own wait for a CPU (`driver_wait`): its loop stamps each delivery as it reads
  it, so its wait adds to every delivery it reads late;
- how fast the machine ran Python in that second (`probe_us`: the CPU time of a fixed piece of
  Python, `load_speed.py`), which on the shared development machine changes every few seconds
  to minutes;
- the CPU of the machine's other busy processes (`others`, cores, from `/proc`): the driver,
  Redis, and PostgreSQL by role (its backends, autovacuum, checkpointer, WAL writer, ...), each
  of which the kernel schedules as a group of its own (autogroup: each calls `setsid`), so a
  second that a vacuum or a checkpoint takes a core from the servers shows. A process that ends
  within a second (an autovacuum worker) leaves its last part of a second uncounted.

A tick reads `/proc` first, then scrapes the servers (a few ms of each server's and the driver's
time a second); a scrape that a stalled server answers late delays the next tick, and each row
covers the time from its tick to the next.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from load_metrics import histograms
from load_servers import stat_cpu_seconds, wait_seconds

#: A server's `/metrics` scraped: each histogram series' cumulative buckets, its total at `SUM`.
Scrape = dict[str, dict[float, float]]


class Watched(Protocol):
    """What the timeline reads of a server process (load_servers.Server)."""

    def cpu_seconds(self) -> float: ...

    def workers_cpu_seconds(self) -> dict[int, float]: ...

    def wait_seconds(self) -> float: ...


@dataclass
class Tick:
    """What was read at one tick: when, the machine's CPU counters, and each server's."""

    at: float
    machine: list[int]
    cpu: list[float]
    workers_cpu: list[float]
    scrapes: list[Scrape] | None
    others: dict[int, tuple[str, float]] = field(default_factory=dict)  # pid: (group, CPU s)
    # Run-queue waits so far (s): each server's event loop's, the driver's loop's.
    waits: list[float] = field(default_factory=list)
    driver_wait: float = 0.0


@dataclass
class Timeline:
    """The ticks of the measured period and the driver's loop lags (when, how late)."""

    start: float
    ticks: list[Tick] = field(default_factory=list)
    lags: list[tuple[float, float]] = field(default_factory=list)
    # Each second's median unit of the CPU probe, µs (load_speed.py: how fast the machine ran).
    probe: dict[int, float] = field(default_factory=dict)


def machine_cpu() -> list[int]:
    """The machine's CPU counters now (`/proc/stat`'s first line: user, nice, system, idle,
    iowait, irq, softirq, steal, ...), in clock ticks."""
    return [int(n) for n in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]


# The processes read once and found to be none of the others' (not read again each second).
_NONE_OF_THEM: set[int] = set()


def others_cpu() -> dict[int, tuple[str, float]]:
    """The CPU seconds so far of the driver (this process), Redis and each PostgreSQL process,
    by pid, each with its group: `driver`, `redis`, or `pg ` and the role PostgreSQL names in
    its title (`backend` for a client's connection)."""
    found: dict[int, tuple[str, float]] = {}
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in _NONE_OF_THEM:
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            comm = stat[stat.index("(") + 1 : stat.rindex(")")]
            if int(entry.name) == me:
                group = "driver"
            elif comm.startswith("redis-server"):
                group = "redis"
            elif comm.startswith("postgres"):
                title = Path(entry.path, "cmdline").read_bytes().split(b"\0")[0].decode()
                group = "pg " + postgres_role(title)
            else:
                _NONE_OF_THEM.add(int(entry.name))
                continue
        except (OSError, ValueError, UnicodeDecodeError):  # gone meanwhile
            continue
        found[int(entry.name)] = (group, stat_cpu_seconds(stat))
    return found


#: The roles of PostgreSQL's own processes, as its process titles name them.
PG_ROLES = (
    "autovacuum",
    "checkpointer",
    "background writer",
    "walwriter",
    "logical replication",
    "io worker",
    "archiver",
    "startup",
)


def postgres_role(title: str) -> str:
    """A PostgreSQL process's role from its title (`postgres: checkpointer`, `postgres:
    autovacuum worker`, `postgres: user db 127.0.0.1(5432) idle`: a backend); the postmaster
    (`postgres -D ...`, `/usr/lib/postgresql/.../postgres`) is `postmaster`."""
    if not title.startswith("postgres:"):
        return "postmaster"
    rest = title[len("postgres:") :].strip()
    return next((role for role in PG_ROLES if rest.startswith(role)), "backend")


async def tick(
    servers: Sequence[Watched], scrape: Callable[[int], Awaitable[Scrape]] | None
) -> Tick:
    """Read the machine and the servers now (`scrape(n)`: server n's `/metrics`, if given)."""
    at = time.perf_counter()
    machine = machine_cpu()
    cpu = [server.cpu_seconds() for server in servers]
    workers = [sum(server.workers_cpu_seconds().values()) for server in servers]
    others = others_cpu()
    waits = [server.wait_seconds() for server in servers]
    driver_wait = wait_seconds(os.getpid())
    scrapes = None
    if scrape is not None:
        scrapes = list(await asyncio.gather(*(scrape(n) for n in range(len(servers)))))
    return Tick(at, machine, cpu, workers, scrapes, others, waits, driver_wait)


def others_second(before: Tick, after: Tick) -> dict[str, float]:
    """Each group's CPU (cores) between two ticks: a process seen at both counts what it ran
    between them, one started meanwhile all it ran."""
    span = after.at - before.at
    spent: dict[str, float] = {}
    for pid, (group, seconds) in after.others.items():
        old = before.others.get(pid)
        ran = seconds - old[1] if old is not None and old[0] == group else seconds
        spent[group] = spent.get(group, 0.0) + max(0.0, ran)
    return {group: round(spent[group] / span, 2) for group in sorted(spent)}


async def watch(
    timeline: Timeline,
    servers: Sequence[Watched],
    scrape: Callable[[int], Awaitable[Scrape]] | None,
    running: Callable[[], bool],
) -> None:
    """A tick at the start of the period and at each whole second after it, while `running()`."""
    timeline.ticks.append(await tick(servers, scrape))
    second = 1
    while running():
        await asyncio.sleep(max(0.0, timeline.start + second - time.perf_counter()))
        if not running():
            break
        timeline.ticks.append(await tick(servers, scrape))
        second = max(second + 1, int(time.perf_counter() - timeline.start) + 1)


def _spent(figures: dict[str, dict[str, float | None]], prefix: str) -> tuple[float, float]:
    """The count and the total (ms) that the histogram series whose short names start with
    `prefix` recorded between two scrapes (`load_metrics.histograms`; all their labels)."""
    chosen = [f for name, f in figures.items() if name.startswith(prefix)]
    return sum(f["count"] or 0.0 for f in chosen), sum(f["sum_ms"] or 0.0 for f in chosen)


def _server_second(before: Tick, after: Tick, n: int) -> dict[str, float]:
    span = after.at - before.at
    row = {
        "cpu": round((after.cpu[n] - before.cpu[n]) / span, 2),
        # (a worker started or replaced within the second counts from its start)
        "workers_cpu": round(max(0.0, after.workers_cpu[n] - before.workers_cpu[n]) / span, 2),
        # the share of the second its event loop was ready to run and had no CPU
        "cpu_wait": round((after.waits[n] - before.waits[n]) / span, 2),
    }
    if before.scrapes is not None and after.scrapes is not None:
        figures = histograms(before.scrapes[n], after.scrapes[n])
        commits, committing = _spent(figures, "db_commit")
        row |= {
            "loop_lag_ms": round(_spent(figures, "event_loop_lag")[1], 1),
            "gc_ms": round(_spent(figures, "gc_pause")[1], 1),
            "commits": commits,
            "commit_ms": round(committing / commits, 1) if commits else 0.0,
        }
    return row


def by_second(
    timeline: Timeline, received: list[float], latencies: list[float]
) -> list[dict[str, Any]]:
    """The measured period second by second, by when each event arrived: its deliveries (count,
    p50, p99, max ms), the driver's worst lag in it and the CPU probe's median unit (`probe_us`,
    µs, where one was timed); and, for the tick that began in that second to the next, the
    machine's busy and stolen shares, each server's figures, the other processes' CPU (`others`)
    and the driver's wait for a CPU (`driver_wait`)."""
    start = timeline.start
    seconds: dict[int, list[float]] = {}
    for at, latency in zip(received, latencies, strict=True):
        seconds.setdefault(int(at - start), []).append(latency * 1000)
    lag: dict[int, float] = {}
    for at, late in timeline.lags:
        second = int(at - start)
        lag[second] = max(lag.get(second, 0.0), late * 1000)
    spans: dict[int, dict[str, Any]] = {}
    for before, after in zip(timeline.ticks, timeline.ticks[1:], strict=False):
        # (the kernel's iowait count may go back a little: proc(5); no counter counts < 0)
        counters = [max(0, a - b) for a, b in zip(after.machine, before.machine, strict=True)]
        all_ticks = sum(counters) or 1
        idle = counters[3] + counters[4]
        spans[int(before.at - start)] = {
            "busy": round(1 - idle / all_ticks, 2),
            "steal": round(counters[7] / all_ticks, 2) if len(counters) > 7 else 0.0,
            "servers": [_server_second(before, after, n) for n in range(len(after.cpu))],
            "others": others_second(before, after),
            "driver_wait": round(
                (after.driver_wait - before.driver_wait) / (after.at - before.at), 2
            ),
        }
    out: list[dict[str, Any]] = []
    for second in sorted(seconds.keys() | spans.keys()):
        got = sorted(seconds.get(second, []))
        row: dict[str, Any] = {"second": second, "deliveries": len(got)}
        if got:
            row |= {
                "p50": round(got[len(got) // 2], 1),
                "p99": round(got[min(len(got) - 1, int(0.99 * len(got)))], 1),
                "max": round(got[-1], 1),
            }
        row["driver_lag_ms"] = round(lag.get(second, 0.0), 1)
        if second in timeline.probe:
            row["probe_us"] = timeline.probe[second]
        out.append(row | spans.get(second, {}))
    return out


__all__ = [
    "Tick",
    "Timeline",
    "by_second",
    "machine_cpu",
    "others_cpu",
    "others_second",
    "postgres_role",
    "tick",
    "watch",
]
