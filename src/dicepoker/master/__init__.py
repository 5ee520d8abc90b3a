"""The game master, apart from any transport: intents become events here.

- `GameMaster` (master.py): refuses what may not be done (a stale seq, the wrong seat, what the
  engine refuses) with a `Refusal` code, commits each event through a `Store`, then moves the
  live game on and hands the event to the `Broadcaster`.
- `Broadcaster` (broadcast.py): this process's subscribers, and other processes over a `Bus`.
- `events` (events.py): the typed messages between processes, parsed in one place.
- Watchers of committed events: `bot_loop` (botloop.py), the one bot loop, a synchronous core,
  that `BotDriver` (driver.py) runs through the master; `TurnClock` (clock.py): turns that run
  out; `ChancesWatcher` (chances.py): the live win probability.
- `seats` (seats.py): seat tokens and the seat check.
- `MemoryStore`, `LocalBus` and `LocalMaster`: the master of one process's own games.

The web app (dicepoker.server) plugs in its SQL store, its Redis bus and its bot worker pool;
the terminal client's local games (dicepoker.tui.session) run on `LocalMaster`.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dicepoker.master.botloop import bot_loop
    from dicepoker.master.broadcast import Broadcaster
    from dicepoker.master.bus import LEASE_MS, LEASE_SECONDS, Bus, LocalBus
    from dicepoker.master.chances import ChancesWatcher
    from dicepoker.master.clock import TurnClock
    from dicepoker.master.driver import BotDriver, Inline, InThread, Thinker
    from dicepoker.master.live import LiveGame
    from dicepoker.master.local import LocalMaster
    from dicepoker.master.master import GameMaster
    from dicepoker.master.memory import MemoryStore
    from dicepoker.master.refusal import Refusal
    from dicepoker.master.store import ConflictError, Store, StoredEvent, StoredGame
    from dicepoker.master.watcher import Watcher

# Where each name lives: imported when first asked for, so that a light part (the bot loop, a
# refusal) does not bring the whole master (asyncio, the protocol's models) with it; the
# simulations and the bot worker processes, which import the command line, need only those.
_HOMES = {
    "bot_loop": "botloop",
    "Broadcaster": "broadcast",
    "LEASE_MS": "bus",
    "LEASE_SECONDS": "bus",
    "Bus": "bus",
    "LocalBus": "bus",
    "ChancesWatcher": "chances",
    "TurnClock": "clock",
    "BotDriver": "driver",
    "Inline": "driver",
    "InThread": "driver",
    "Thinker": "driver",
    "LiveGame": "live",
    "LocalMaster": "local",
    "GameMaster": "master",
    "Watcher": "watcher",
    "MemoryStore": "memory",
    "Refusal": "refusal",
    "ConflictError": "store",
    "Store": "store",
    "StoredEvent": "store",
    "StoredGame": "store",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)


__all__ = [
    "LEASE_MS",
    "LEASE_SECONDS",
    "BotDriver",
    "Broadcaster",
    "Bus",
    "ChancesWatcher",
    "ConflictError",
    "GameMaster",
    "InThread",
    "Inline",
    "LiveGame",
    "LocalBus",
    "LocalMaster",
    "MemoryStore",
    "Refusal",
    "Store",
    "StoredEvent",
    "StoredGame",
    "Thinker",
    "TurnClock",
    "Watcher",
    "bot_loop",
]
