"""`benchmarks/load.py`'s CPU probe: how fast this machine ran Python while the load was measured.

A shared virtual machine can run the same code at different speeds from one stretch to the next,
idle or loaded, with its kernel counting none of it as stolen (docs/capacity.md, "What the probe
says of the machine"). A load run's latency means little without knowing which speed it ran at,
so a small process beside the load times a fixed piece of pure Python (`UNIT_LOOPS` rounds of an
integer loop, about a millisecond) every `INTERVAL` seconds in CPU time (`time.thread_time_ns`:
its wait for a CPU is not counted, its slower instructions are) and writes each figure to a file.
The report gives their median, p10 and p90 over the measured period (`probe_summary`), with
`--timeline` each second's median (`probe_by_second`), and the printed report the p99s of the
faster and the slower half of the seconds (`speed_halves`).

The probe is kept small (a unit four times a second), so that it takes next to nothing from the
load it times. It ends when the load does (`SpeedProbe.stop`), and by itself once its parent is
gone (it would be reparented), so that a killed load leaves nothing running.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Rounds of the probe's loop a unit: about a millisecond of CPU, long enough to time well and
#: short enough to leave the load alone.
UNIT_LOOPS = 20_000
#: Seconds between two units.
INTERVAL = 0.25

# The probe process: `python -c PROBE_CODE FILE PARENT LOOPS INTERVAL`. Its clock is the driver's
# (`time.perf_counter`, the system's monotonic clock on Linux).
PROBE_CODE = """
import os, sys, time

def unit(loops):
    began = time.thread_time_ns()
    total = 0
    for i in range(loops):
        total += i * i % 7
    return time.thread_time_ns() - began

path, parent, loops, interval = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
with open(path, "w", buffering=1) as out:
    while os.getppid() == parent:
        out.write(f"{time.perf_counter()} {unit(loops) / 1000}\\n")
        time.sleep(interval)
"""


def read_samples(text: str) -> list[tuple[float, float]]:
    """The probe's lines (`when microseconds`) as pairs. What follows the last newline is left
    out: a line being written (read while the probe runs) could read as a smaller number."""
    samples: list[tuple[float, float]] = []
    for line in text.split("\n")[:-1]:
        parts = line.split()
        if len(parts) == 2:
            try:
                samples.append((float(parts[0]), float(parts[1])))
            except ValueError:
                continue
    return samples


def probe_summary(samples: list[tuple[float, float]], since: float, until: float) -> dict[str, Any]:
    """The units timed between `since` and `until`: how many, and the median, p10 and p90 of
    their CPU time (µs; None without any)."""
    spent = sorted(us for at, us in samples if since <= at < until)
    if not spent:
        return {"units": 0, "median_us": None, "p10_us": None, "p90_us": None}
    return {
        "units": len(spent),
        "median_us": round(statistics.median(spent)),
        "p10_us": round(spent[int(0.1 * (len(spent) - 1))]),
        "p90_us": round(spent[int(0.9 * (len(spent) - 1))]),
    }


def probe_by_second(samples: list[tuple[float, float]], start: float) -> dict[int, float]:
    """Each second's median unit (µs), seconds counted from `start`."""
    seconds: dict[int, list[float]] = {}
    for at, us in samples:
        if at >= start:
            seconds.setdefault(int(at - start), []).append(us)
    return {second: round(statistics.median(spent)) for second, spent in seconds.items()}


def speed_halves(timeline: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The timeline's seconds (`load_timeline.by_second` rows with deliveries and a probe unit)
    split at the median unit: for the faster and the slower half, how many seconds, their units
    (µs, the slowest of the half), the median of their p99s (ms) and how many had a p99 over
    100 ms. Whether a run's slow seconds are the machine's."""
    timed = sorted(
        (row for row in timeline if row["deliveries"] and "probe_us" in row),
        key=lambda row: row["probe_us"],
    )
    half = (len(timed) + 1) // 2
    out: dict[str, dict[str, Any]] = {}
    for name, rows in (("faster", timed[:half]), ("slower", timed[half:])):
        out[name] = {
            "seconds": len(rows),
            "probe_us_up_to": rows[-1]["probe_us"] if rows else None,
            "p99_median_ms": round(statistics.median(row["p99"] for row in rows), 1)
            if rows
            else None,
            "over_100_ms": sum(1 for row in rows if row["p99"] > 100),
        }
    return out


@dataclass
class SpeedProbe:
    """The probe process while it runs (`start` to `stop`), its figures in `path`."""

    path: Path
    loops: int = UNIT_LOOPS
    interval: float = INTERVAL
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def start(self) -> None:
        args = [str(self.path), str(os.getpid()), str(self.loops), str(self.interval)]
        self.process = subprocess.Popen([sys.executable, "-c", PROBE_CODE, *args])

    def stop(self) -> list[tuple[float, float]]:
        """End the probe (if it runs) and return what it timed: (when, µs) pairs."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
        return self.samples()

    def samples(self) -> list[tuple[float, float]]:
        """What the probe has timed so far."""
        return read_samples(self.path.read_text()) if self.path.exists() else []


__all__ = [
    "INTERVAL",
    "PROBE_CODE",
    "UNIT_LOOPS",
    "SpeedProbe",
    "probe_by_second",
    "probe_summary",
    "read_samples",
    "speed_halves",
]
