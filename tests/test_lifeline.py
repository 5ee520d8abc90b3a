"""A server process whose parent died ends even when it does not handle the signal it is sent
(dicepoker.server.runtime.lifeline: a stuck event loop never runs SIGTERM's handler), and one that
does handle it is given the time to stop by itself first."""

from __future__ import annotations

import signal
import subprocess
import sys

from processes import end_group, ends_with_its_parent


def _bound_child(ignores_sigterm: bool, kill_after: float) -> str:
    """A child bound to its parent with SIGTERM and `kill_after`, that prints its pid and sleeps;
    it ignores SIGTERM (as a stuck server would) or not."""
    return (
        "import os, signal, time\n"
        "from dicepoker.server.runtime.lifeline import die_with_parent\n"
        f"die_with_parent(os.getppid(), signal.SIGTERM, kill_after={kill_after})\n"
        + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignores_sigterm else "")
        + "print(os.getpid(), flush=True)\n"
        "while True:\n"
        "    time.sleep(3600)\n"
    )


def test_a_child_that_ignores_sigterm_is_killed_after_its_parent_died() -> None:
    assert ends_with_its_parent(_bound_child(ignores_sigterm=True, kill_after=0.5), timeout=30.0)


def test_a_child_that_handles_sigterm_ends_by_it_before_the_kill() -> None:
    """With a kill hours away, the SIGTERM alone ends a child that handles it."""
    child = _bound_child(ignores_sigterm=False, kill_after=3600.0)
    assert ends_with_its_parent(child, timeout=30.0)


def test_a_stop_that_hangs_after_sigterm_is_ended_by_sigkill() -> None:
    """`stop_within`: the SIGTERM handler in place runs (here one that only notes the stop, as
    uvicorn's does, while the stop never comes), and SIGKILL ends the process after the bound."""
    child = (
        "import os, signal, time\n"
        "from dicepoker.server.runtime.lifeline import stop_within\n"
        "signal.signal(signal.SIGTERM, lambda signum, frame: print('stopping', flush=True))\n"
        "stop_within(0.5)\n"
        "print(os.getpid(), flush=True)\n"
        "while True:\n"
        "    time.sleep(3600)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", child], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert process.stdout is not None
        assert int(process.stdout.readline()) == process.pid
        process.send_signal(signal.SIGTERM)
        assert process.stdout.readline() == "stopping\n"  # the handler in place ran first
        assert process.wait(timeout=30) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=15)
        if process.stdout is not None:
            process.stdout.close()
        end_group(process.pid, grace=0.0)
