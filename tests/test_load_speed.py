"""The load benchmark's CPU probe (benchmarks/load_speed.py): what it writes is read back, its
figures over the measured period and second by second, and the real probe process, which ends
when stopped and by itself when its parent is gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from processes import Proc, descendants, running, wait_ended

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from load_speed import SpeedProbe, probe_by_second, probe_summary, read_samples, speed_halves


def test_the_probe_s_lines_are_read_and_a_cut_one_is_left_out() -> None:
    text = "10.5 870.25\n11.0 1480\nnot a line\n11.25 x\n11.5 14"  # (11.5's unit being written)
    assert read_samples(text) == [(10.5, 870.25), (11.0, 1480.0)]
    assert read_samples(text + "80\n")[-1] == (11.5, 1480.0)


def test_the_measured_period_s_units_and_each_second_s_median() -> None:
    timed = enumerate(range(900, 2000, 100))
    samples = [(9.9, 5000.0)] + [(10.0 + n / 4, float(us)) for n, us in timed]
    # Eleven units from 10.0 to 12.5 (900 to 1900 µs); the one before the period is left out.
    assert probe_summary(samples, 10.0, 13.0) == {
        "units": 11,
        "median_us": 1400,
        "p10_us": 1000,
        "p90_us": 1800,
    }
    assert probe_summary(samples, 20.0, 30.0) == {
        "units": 0,
        "median_us": None,
        "p10_us": None,
        "p90_us": None,
    }
    # Second 0: 900-1200 (median 1050), 1: 1300-1600, 2: 1700-1900.
    assert probe_by_second(samples, 10.0) == {0: 1050, 1: 1450, 2: 1800}


def test_the_seconds_are_split_at_the_median_unit() -> None:
    def second(n: int, probe: float | None, p99: float) -> dict[str, Any]:
        row: dict[str, Any] = {"second": n, "deliveries": 900, "p99": p99}
        return row | ({"probe_us": probe} if probe is not None else {})

    timeline: list[dict[str, Any]] = [
        second(0, 850, 40.0),
        second(1, 1450, 120.0),
        second(2, 900, 60.0),
        second(3, 1500, 90.0),
        second(4, 870, 101.0),
        second(5, None, 500.0),  # no unit timed in it: left out
        {"second": 6, "deliveries": 0, "probe_us": 800, "driver_lag_ms": 0.0},  # no delivery
        second(7, 1400, 130.0),
    ]
    assert speed_halves(timeline) == {
        "faster": {"seconds": 3, "probe_us_up_to": 900, "p99_median_ms": 60.0, "over_100_ms": 1},
        "slower": {"seconds": 3, "probe_us_up_to": 1500, "p99_median_ms": 120.0, "over_100_ms": 2},
    }
    assert speed_halves([])["faster"] == {
        "seconds": 0,
        "probe_us_up_to": None,
        "p99_median_ms": None,
        "over_100_ms": 0,
    }


def _proc(pid: int) -> Proc:
    """The running process `pid`, one this test started (or one of its children started)."""
    return next(proc for proc in descendants(os.getpid()) if proc.pid == pid)


def test_the_probe_times_its_unit_until_it_is_stopped(tmp_path: Path) -> None:
    probe = SpeedProbe(tmp_path / "probe.txt", loops=2000, interval=0.01)
    probe.start()
    assert probe.process is not None
    proc = _proc(probe.process.pid)
    try:
        deadline = time.monotonic() + 30
        while len(probe.samples()) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)  # (a condition wait: until five units are written)
    finally:
        samples = probe.stop()
    assert not running(proc)
    assert len(samples) >= 5
    assert all(us > 0 for _, us in samples)
    times = [at for at, _ in samples]
    assert times == sorted(times) and time.perf_counter() > times[-1]  # the driver's own clock


def test_the_probe_ends_when_its_parent_is_gone(tmp_path: Path) -> None:
    # A parent that starts the probe and says its pid, then is killed without a word.
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
        "from load_speed import SpeedProbe; "
        "p = SpeedProbe(Path(sys.argv[2]), loops=1000, interval=0.01); p.start(); "
        "print(p.process.pid, flush=True); sys.stdin.read()"
    )
    benchmarks = str(Path(__file__).resolve().parents[1] / "benchmarks")
    parent = subprocess.Popen(
        [sys.executable, "-c", code, benchmarks, str(tmp_path / "probe.txt")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    probe = _proc(int(parent.stdout.readline()))
    try:
        assert running(probe)
        parent.kill()
        parent.wait()
        assert wait_ended([probe], 30) == []
    finally:
        if running(probe):
            os.kill(probe.pid, signal.SIGKILL)
        parent.kill()
        parent.wait()
