"""A child process of the server ends when its parent does, however the parent ends.

The server starts processes of its own: the bot pool's worker (botpool.py) and, under
`dicepoker serve --workers N`, uvicorn's server processes (each with a bot worker of its own). A
parent that stops normally ends them itself; one that is killed (SIGKILL, the out-of-memory killer,
a crash) cannot, and its children would live on, adopted by PID 1, holding their memory and, for a
server process, the listening socket. So each child binds itself to its parent as it starts:

- on Linux the kernel sends it a signal when its parent dies (`prctl(PR_SET_PDEATHSIG)`). The
  signal comes when the parent *thread* that started the child ends, so a parent starts its
  children from a thread that lives as long as it does: the bot pool from the event loop's thread
  (the one that asks for decisions), uvicorn from its main thread;
- elsewhere a daemon thread of the child watches its parent's pid and sends the signal itself.

A parent that died before the child could bind itself is noticed too: the child's parent is then
no longer the process that started it. multiprocessing's resource tracker needs neither: it ends
when the last process holding its pipe is gone, that is when its parent and the workers are.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI

#: The supervisor's pid, for the server processes of `dicepoker serve --workers N`.
PARENT_ENV = "DICEPOKER_PARENT_PID"
#: How often the portable watch looks at the parent's pid, in seconds.
WATCH_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent: int, signum: int = signal.SIGKILL) -> None:
    """Bind this process to `parent`, the pid of the process that started it: when that process
    dies, `signum` is sent to this one."""
    if not _parent_death_signal(signum):
        watch = threading.Thread(
            target=watch_parent, args=(parent, signum), name="lifeline", daemon=True
        )
        watch.start()
    if os.getppid() != parent:  # the parent died before the binding: no signal will come
        os.kill(os.getpid(), signum)


def watch_parent(parent: int, signum: int, interval: float = WATCH_SECONDS) -> None:
    """Send `signum` to this process once its parent is no longer `parent` (the portable way,
    where the kernel has no parent-death signal; it runs in a thread of its own)."""
    while os.getppid() == parent:
        time.sleep(interval)
    os.kill(os.getpid(), signum)


def _parent_death_signal(signum: int) -> bool:
    """Ask Linux for `signum` when the parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def worker_app() -> FastAPI:
    """uvicorn's app factory in each server process of `dicepoker serve --workers N`: the
    process binds itself to the supervisor (whose death stops it with SIGTERM, as a normal stop
    does: sockets closed, bots and clocks handed back), then builds its app from the settings in
    the environment."""
    from dicepoker.server.app import app_from_environment

    die_with_parent(int(os.environ[PARENT_ENV]), signal.SIGTERM)
    return app_from_environment()
