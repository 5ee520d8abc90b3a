"""Processes as the tests see them, from /proc: a process's descendants, a process group's
members, waiting for processes to end, ending a process group for good, and whether a child ends
when its parent is killed.

A process is named by its pid and its start time together, so that a pid the kernel hands to a
new process is never taken for the old one. Zombies count as ended: they run no more and hold no
memory, only their exit status until their parent (or PID 1, for orphans) collects it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Proc:
    pid: int
    started: int  # clock ticks after boot (field 22 of /proc/PID/stat)
    ppid: int
    pgid: int
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.pid} ({' '.join(self.args)[:120]})"


def _read(pid: int) -> tuple[Proc, str] | None:
    """The process `pid` and its state letter, or None when there is none."""
    base = Path("/proc", str(pid))
    try:
        stat = (base / "stat").read_text()
        args = (base / "cmdline").read_bytes().decode(errors="replace").split("\0")
    except (FileNotFoundError, ProcessLookupError):
        return None
    fields = stat.rsplit(")", 1)[1].split()  # from the state on: "pid (name)" may hold spaces
    proc = Proc(pid, int(fields[19]), int(fields[1]), int(fields[2]), tuple(a for a in args if a))
    return proc, fields[0]


def _all() -> list[Proc]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (seen := _read(int(entry.name))) and seen[1] != "Z":
            found.append(seen[0])
    return found


def running(proc: Proc) -> bool:
    """Whether `proc` (this very process, not a later one with its pid) still runs."""
    seen = _read(proc.pid)
    return seen is not None and seen[1] != "Z" and seen[0].started == proc.started


def descendants(pid: int) -> list[Proc]:
    """The running processes that `pid` started, and theirs, and so on."""
    every = _all()
    found: list[Proc] = []
    parents = {pid}
    while True:
        new = [p for p in every if p.ppid in parents and p not in found]
        if not new:
            return found
        found += new
        parents = {p.pid for p in new}


def group(pgid: int) -> list[Proc]:
    """The running processes of process group `pgid`."""
    return [proc for proc in _all() if proc.pgid == pgid]


def wait_ended(procs: Iterable[Proc], timeout: float) -> list[Proc]:
    """Wait until every one of `procs` has ended (a condition wait, polled); those still running
    at the timeout."""
    left = list(procs)
    deadline = time.monotonic() + timeout
    while True:
        left = [proc for proc in left if running(proc)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def end_group(pgid: int, grace: float = 10.0) -> list[Proc]:
    """End process group `pgid` for good: its members get `grace` seconds to end by themselves,
    then those left are killed (SIGKILL, by pid). The processes that had to be killed."""
    killed: list[Proc] = []
    left = wait_ended(group(pgid), grace)
    while left:
        for proc in left:
            if running(proc):
                os.kill(proc.pid, signal.SIGKILL)
        killed += left
        wait_ended(left, 10.0)
        left = group(pgid)  # a member may have started another before it was killed
    return killed


def run(command: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(command)` with its output captured, in a session of its own whose every
    process is ended afterwards, also when the command runs out of time or leaves children
    behind."""
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            process.communicate()
        end_group(process.pid, grace=5.0)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def ends_with_its_parent(child: str, timeout: float) -> bool:
    """Whether a Python child ends by itself within `timeout` seconds of its parent's SIGKILL.

    A parent starts `child` (Python source that prints its own pid before anything else) and
    waits to be killed; the test kills the parent alone, so that what ends the child is the
    child's own binding to its parent. Every process of theirs is ended afterwards."""
    parent = (
        "import signal, subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', {child!r}], stdout=subprocess.PIPE,"
        " text=True)\n"
        "print(child.stdout.readline().strip(), flush=True)\n"
        "signal.pause()  # until the test kills this process\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert process.stdout is not None
        child_pid = int(process.stdout.readline())
        [orphan] = [proc for proc in descendants(process.pid) if proc.pid == child_pid]
        process.kill()
        process.wait(timeout=15)
        return not wait_ended([orphan], timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=15)
        if process.stdout is not None:
            process.stdout.close()
        end_group(process.pid, grace=0.0)
