"""The load benchmark's second-by-second report (benchmarks/load_timeline.py) from made-up
ticks: each second's deliveries, the driver's lag, the machine's shares and each server's
figures come from the right counters and land in the right second. A small real run checks
the same report end to end (tests/test_load.py)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from load_metrics import SUM
from load_servers import schedstat_wait_seconds, wait_seconds
from load_timeline import (
    Tick,
    Timeline,
    by_second,
    machine_cpu,
    others_cpu,
    others_second,
    postgres_role,
    tick,
)

LAG = "dicepoker_event_loop_lag_seconds"
GC = "dicepoker_gc_pause_seconds"
COMMIT = "dicepoker_db_commit_seconds"


def _scrape(
    lag: float, lags: int, gc: float, commits: int, committing: float
) -> dict[str, dict[float, float]]:
    inf = float("inf")
    return {
        LAG: {0.01: lags, inf: lags, SUM: lag},
        f"{GC}[generation=0]": {0.01: 1, inf: 1, SUM: gc / 2},
        f"{GC}[generation=2]": {0.5: 1, inf: 1, SUM: gc / 2},
        COMMIT: {0.005: commits, inf: commits, SUM: committing},
    }


def _machine(busy: int, idle: int, steal: int) -> list[int]:
    # user, nice, system, idle, iowait, irq, softirq, steal
    return [busy - steal, 0, 0, idle, 0, 0, 0, steal]


def test_each_second_puts_the_deliveries_beside_the_machine_and_the_servers() -> None:
    timeline = Timeline(start=100.0)
    timeline.ticks = [
        Tick(
            100.0,
            _machine(0, 0, 0),
            [10.0],
            [4.0],
            [_scrape(1.0, 100, 0.2, 50, 0.1)],
            waits=[2.0],
            driver_wait=1.0,
        ),
        Tick(
            101.0,
            _machine(150, 50, 10),
            [10.5],
            [4.25],
            [_scrape(1.3, 200, 0.3, 150, 0.3)],
            waits=[2.25],
            driver_wait=1.125,
        ),
        # A late tick (a scrape answered late): its span is two seconds, named by its start.
        Tick(
            103.0,
            _machine(550, 50, 10),
            [12.5],
            [4.25],
            [_scrape(2.3, 260, 0.9, 150, 0.3)],
            waits=[3.25],
            driver_wait=1.125,
        ),
    ]
    timeline.lags = [(100.2, 0.001), (100.7, 0.004), (102.5, 0.3)]
    timeline.probe = {0: 870, 2: 1480}  # the CPU probe's median unit, µs (none in second 1)
    received = [100.1, 100.5, 100.9, 102.2]
    latencies = [0.010, 0.020, 0.030, 0.400]
    rows = by_second(timeline, received, latencies)
    assert [row["second"] for row in rows] == [0, 1, 2]
    first, second, third = rows
    assert first["deliveries"] == 3
    assert (first["p50"], first["p99"], first["max"]) == (20.0, 30.0, 30.0)
    assert first["driver_lag_ms"] == 4.0
    assert (first["busy"], first["steal"]) == (0.75, 0.05)
    assert first["driver_wait"] == 0.12  # the driver's loop waited an eighth of the second
    assert first["servers"] == [
        {
            "cpu": 0.5,
            "workers_cpu": 0.25,
            "cpu_wait": 0.25,  # its loop was ready and had no CPU for a quarter of the second
            "loop_lag_ms": 300.0,
            "gc_ms": 100.0,
            "commits": 100,
            "commit_ms": 2.0,
        }
    ]
    # No delivery came in second 1, but the late tick's span began in it.
    assert second["deliveries"] == 0 and "p50" not in second and second["driver_lag_ms"] == 0
    assert second["busy"] == 1.0 and second["steal"] == 0.0
    # Over two seconds: shares per second; no commit, so no mean.
    assert second["servers"][0]["cpu"] == 1.0 and second["servers"][0]["commit_ms"] == 0.0
    assert second["servers"][0]["loop_lag_ms"] == 1000.0
    assert second["servers"][0]["gc_ms"] == 600.0 and second["servers"][0]["workers_cpu"] == 0
    assert second["servers"][0]["cpu_wait"] == 0.5 and second["driver_wait"] == 0.0
    assert third["deliveries"] == 1 and third["max"] == 400.0
    assert (first["probe_us"], third["probe_us"]) == (870, 1480) and "probe_us" not in second
    assert third["driver_lag_ms"] == 300.0
    assert "busy" not in third  # the last tick begins no span
    assert first["others"] == {} and second["others"] == {}  # (no other process read)


def test_without_scrapes_a_second_has_the_cpu_only() -> None:
    timeline = Timeline(start=0.0)
    timeline.ticks = [
        Tick(0.0, _machine(0, 0, 0), [1.0, 2.0], [0.0, 0.0], None, waits=[0.0, 1.0]),
        Tick(1.0, _machine(100, 100, 0), [1.25, 2.5], [0.5, 0.0], None, waits=[0.0, 1.5]),
    ]
    (row,) = by_second(timeline, [], [])
    assert row["deliveries"] == 0 and row["busy"] == 0.5
    assert row["servers"] == [
        {"cpu": 0.25, "workers_cpu": 0.5, "cpu_wait": 0.0},
        {"cpu": 0.5, "workers_cpu": 0.0, "cpu_wait": 0.5},
    ]


class _Process:
    def __init__(self, cpu: float, workers: dict[int, float], wait: float = 0.0) -> None:
        self.cpu, self.workers, self.wait = cpu, workers, wait

    def cpu_seconds(self) -> float:
        return self.cpu

    def workers_cpu_seconds(self) -> dict[int, float]:
        return self.workers

    def wait_seconds(self) -> float:
        return self.wait


@pytest.mark.parametrize("scraped", [False, True])
def test_a_tick_reads_the_machine_and_each_server(scraped: bool) -> None:
    servers = [_Process(3.0, {1: 1.0, 2: 0.5}, 0.75), _Process(4.0, {}, 0.5)]
    asked: list[int] = []

    async def scrape(n: int) -> dict[str, dict[float, float]]:
        asked.append(n)
        return _scrape(0.0, n, 0.0, 0, 0.0)

    read = asyncio.run(tick(servers, scrape if scraped else None))
    assert read.cpu == [3.0, 4.0] and read.workers_cpu == [1.5, 0.0]
    assert read.waits == [0.75, 0.5]
    assert 0 <= read.driver_wait <= wait_seconds(os.getpid())  # this process's loop; it only grows
    assert len(read.machine) >= 8  # /proc/stat's counters, steal the eighth
    assert sum(read.machine) <= sum(machine_cpu())  # they only grow
    if scraped:
        assert sorted(asked) == [0, 1] and read.scrapes is not None
        assert [s[LAG][SUM] for s in read.scrapes] == [0.0, 0.0]
    else:
        assert asked == [] and read.scrapes is None


def test_a_counter_that_goes_back_counts_nothing() -> None:
    # /proc/stat's iowait may go back a little (proc(5)): the busy share stays within 0-1.
    timeline = Timeline(start=0.0)
    before = [100, 0, 0, 50, 10, 0, 0, 0]
    after = [300, 0, 0, 50, 7, 0, 0, 0]  # 200 ticks busy, iowait 3 lower
    timeline.ticks = [
        Tick(0.0, before, [0.0], [0.0], None, waits=[0.0]),
        Tick(1.0, after, [0.5], [0.0], None, waits=[0.0]),
    ]
    (row,) = by_second(timeline, [], [])
    assert row["busy"] == 1.0 and row["steal"] == 0.0


def test_the_other_processes_cpu_by_group() -> None:
    """PostgreSQL's processes by role, Redis and the driver: a process seen at both ticks counts
    what it ran between them, one started meanwhile all it ran, one gone nothing."""
    before = {
        10: ("pg backend", 5.0),
        11: ("pg backend", 1.0),
        12: ("pg autovacuum", 2.0),  # it ends within the second
        13: ("redis", 3.0),
        14: ("driver", 7.0),
    }
    after = {
        10: ("pg backend", 5.25),
        11: ("pg backend", 1.25),
        13: ("redis", 3.0),
        14: ("driver", 7.5),
        15: ("pg autovacuum", 0.5),  # started within the second
        16: ("pg checkpointer", 0.25),  # (as if new: a pid reused by another role)
    }
    timeline = Timeline(start=0.0)
    timeline.ticks = [
        Tick(0.0, _machine(0, 0, 0), [0.0], [0.0], None, before, waits=[0.0]),
        Tick(2.0, _machine(100, 100, 0), [0.0], [0.0], None, after, waits=[0.0]),
    ]
    (row,) = by_second(timeline, [], [])
    assert row["others"] == {
        "driver": 0.25,
        "pg autovacuum": 0.25,
        "pg backend": 0.25,
        "pg checkpointer": 0.12,
        "redis": 0.0,
    }
    assert others_second(Tick(0.0, [], [], [], None), Tick(1.0, [], [], [], None)) == {}


def test_a_postgresql_process_s_role_comes_from_its_title() -> None:
    assert postgres_role("postgres: checkpointer ") == "checkpointer"
    assert postgres_role("postgres: autovacuum worker mydb") == "autovacuum"
    assert postgres_role("postgres: autovacuum launcher") == "autovacuum"
    assert postgres_role("postgres: walwriter ") == "walwriter"
    assert postgres_role("postgres: background writer ") == "background writer"
    assert postgres_role("postgres: me db 127.0.0.1(40522) idle") == "backend"
    assert postgres_role("/usr/lib/postgresql/17/bin/postgres") == "postmaster"


def test_the_driver_is_read_among_the_other_processes() -> None:
    found = others_cpu()
    group, seconds = found[os.getpid()]
    assert group == "driver" and seconds > 0
    groups = {group for group, _ in found.values()}
    assert all(g in ("driver", "redis") or g.startswith("pg ") for g in groups)


def test_a_run_queue_wait_is_read_from_schedstat() -> None:
    """The second of `/proc/PID/schedstat`'s three figures (ns on a CPU, ns waiting on a run
    queue, slices), in seconds; and a process's own, read for real, only grows."""
    assert schedstat_wait_seconds("4006399176 879026983 4859\n") == 0.879026983
    assert schedstat_wait_seconds("0 0 0") == 0.0
    first = wait_seconds(os.getpid())
    assert 0 <= first <= wait_seconds(os.getpid())
