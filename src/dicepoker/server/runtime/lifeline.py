"""A child process of the server ends when its parent does, however the parent ends.

The server starts processes of its own: the work queue's workers (work.py, workers.py) and, under
`dicepoker serve --workers N`, uvicorn's server processes (each with workers of its own). A
parent that stops normally ends them itself; one that is killed (SIGKILL, the out-of-memory killer,
a crash) cannot, and its children would live on, adopted by PID 1, holding their memory and, for a
server process, the listening socket. So each child binds itself to its parent as it starts:

- on Linux the kernel sends it a signal when its parent dies (`prctl(PR_SET_PDEATHSIG)`). The
  signal comes when the parent *thread* that started the child ends, so a parent starts its
  children from a thread that lives as long as it does: the work queue from the event loop's
  thread (the one that hands it jobs), uvicorn from its main thread;
- elsewhere a daemon thread of the child watches its parent's pid and sends the signal itself.

A parent that died before the child could bind itself is noticed too: the child's parent is then
no longer the process that started it. multiprocessing's resource tracker needs neither: it ends
when the last process holding its pipe is gone, that is when its parent and the workers are.

A server process is sent SIGTERM, so that it stops as on a normal stop (sockets closed, bots and
clocks handed back). But a signal is only handled when the process's event loop runs it, and a
loop that is stuck (a bug) would never stop, holding the port for ever with nobody left to kill
it. So a server process is also killed outright (SIGKILL) `KILL_AFTER_SECONDS` after its parent
died, by a thread of its own that needs nothing of the loop, and as long after a SIGTERM (from
its supervisor: a stop) that has not ended it; a healthy one has ended by then (its graceful
stop waits at most `GRACEFUL_STOP_SECONDS` for the requests running).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass

#: The supervisor's pid, for the server processes of `dicepoker serve --workers N`.
PARENT_ENV = "DICEPOKER_PARENT_PID"
#: How often the portable watch looks at the parent's pid, in seconds.
WATCH_SECONDS = 0.5
#: How long a server's graceful stop waits for the requests running (uvicorn's
#: `timeout_graceful_shutdown`; unbounded, a stop waited for the longest analysis, tens of seconds
#: for a School game, and for a request that never ended, for ever). A request cut here is a
#: read (an analysis, a hint) that its client asks again of the next server; the moves are
#: WebSocket messages, which a stop closes at once anyway.
GRACEFUL_STOP_SECONDS = 5.0
#: How long after its parent's death a server process is killed if it has not stopped by then:
#: its graceful stop, the app's own (the database and Redis closed, bots handed back), and room
#: for a loaded machine.
KILL_AFTER_SECONDS = GRACEFUL_STOP_SECONDS + 10.0
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(
    parent: int, signum: int = signal.SIGKILL, *, kill_after: float | None = None
) -> None:
    """Bind this process to `parent`, the pid of the process that started it: when that process
    dies, `signum` is sent to this one. `kill_after`: for a `signum` the process handles itself
    (SIGTERM), the seconds after the parent's death at which SIGKILL follows, should the process
    not have ended by then."""
    bound = _parent_death_signal(signum)
    if not bound or kill_after is not None:
        watch = threading.Thread(
            target=watch_parent,
            args=(parent, 0 if bound else signum),  # (0: the kernel sends it)
            kwargs={"kill_after": kill_after},
            name="lifeline",
            daemon=True,
        )
        watch.start()
    if os.getppid() != parent:  # the parent died before the binding: no signal will come
        os.kill(os.getpid(), signum)


def watch_parent(
    parent: int, signum: int, interval: float = WATCH_SECONDS, *, kill_after: float | None = None
) -> None:
    """Send `signum` to this process once its parent is no longer `parent` (the portable way,
    where the kernel has no parent-death signal; 0: none), then SIGKILL `kill_after` seconds
    later if it is given and the process still runs. It runs in a thread of its own, which a
    stuck event loop does not stop."""
    while os.getppid() == parent:
        time.sleep(interval)
    if signum:
        os.kill(os.getpid(), signum)
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(os.getpid(), signal.SIGKILL)


def stop_within(seconds: float) -> None:
    """Bound this process's stop on SIGTERM: the handler in place (uvicorn's, which starts a
    graceful stop) runs as before, and SIGKILL follows `seconds` later if the process still runs
    (a stop that hangs would otherwise hold uvicorn's supervisor, which waits for its server
    processes without a bound). From the main thread only, where Python runs signal handlers."""
    handler = signal.getsignal(signal.SIGTERM)
    armed: list[threading.Timer] = []

    def stopping(signum: int, frame: FrameType | None) -> None:
        if not armed:
            timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGKILL))
            timer.daemon = True
            timer.start()
            armed.append(timer)
        if callable(handler):
            handler(signum, frame)
        elif handler != signal.SIG_IGN:  # the default: end now
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.raise_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stopping)


def _parent_death_signal(signum: int) -> bool:
    """Ask Linux for `signum` when the parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
