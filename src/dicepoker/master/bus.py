"""How a process hears of other processes' moves, and who drives a game's bots and clock.

One process needs neither (`LocalBus`). Several processes serving the same games tell each
other over a shared bus (the web app's Redis bus, dicepoker.server.runtime.bus): every committed
event of a game another process holds too is published on the game's channel, and every process that
holds the game applies it and tells its own clients (who holds what: `Broadcaster.heard`).
Messages are the typed ones of `dicepoker.master.events`, each with its sender's `origin` (its
`process_id`). The bus only *tells*; the store
decides: an event exists once it is committed with the game's next `seq`, so a lost or late bus
message can only delay a process, which then catches up from the store.

Bots and turn clocks must act once, not once per process: a process drives a game's bots and
clock only while it holds the game's lease (`claim`, renewed as it acts); when its holder
dies the lease runs out and another process takes over. A process forgets a running game that
nobody watches there while another process holds its lease (or that only people move); so that
such a game still goes on when its holder dies, each process says it is alive on the bus, and
when one stops saying so the others load the games that move alone (`peers_gone`).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Awaitable, Callable
from typing import Protocol

from dicepoker.master.events import BusMessage

# How long a lease lasts unless renewed (milliseconds); another process takes over after it.
LEASE_MS = int(os.environ.get("DICEPOKER_LEASE_MS", "10000"))
LEASE_SECONDS = LEASE_MS / 1000

Handler = Callable[[str, BusMessage], Awaitable[None]]


class Bus(Protocol):
    """What the broadcaster needs from a bus."""

    process_id: str
    shared: bool  # other processes may act on the same games

    async def start(self, handler: Handler, on_reconnect: Callable[[], Awaitable[None]]) -> None:
        """Deliver other processes' messages to `handler(game_id, message)` from now on."""

    async def close(self) -> None: ...

    async def publish(self, game_id: str, message: BusMessage) -> None: ...

    async def claim(self, game_id: str) -> bool:
        """Whether this process may drive the game's bots and clock now (taking or renewing)."""
        ...

    def held_elsewhere(self, game_id: str) -> bool:
        """Whether another process surely holds the game's lease now, known without asking."""
        ...

    async def peers_gone(self) -> frozenset[str]:
        """The processes (their `process_id`) that served these games and stopped since the last
        call; empty: none. Their games that move alone need a driver (the ones this process does
        not hold must be loaded), and the games they held here need not tell them news."""
        ...


class LocalBus:
    """One process: nobody to tell, and every game's bots and clocks are this process's."""

    shared = False

    def __init__(self) -> None:
        self.process_id = f"{os.getpid()}-{secrets.token_hex(4)}"

    async def start(self, handler: Handler, on_reconnect: Callable[[], Awaitable[None]]) -> None:
        return None

    async def close(self) -> None:
        return None

    async def publish(self, game_id: str, message: BusMessage) -> None:
        return None

    async def claim(self, game_id: str) -> bool:
        return True

    def held_elsewhere(self, game_id: str) -> bool:
        return False

    async def peers_gone(self) -> frozenset[str]:
        return frozenset()
