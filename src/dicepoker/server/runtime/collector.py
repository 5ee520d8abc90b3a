"""The cyclic garbage collector, paced by the clock instead of by counts of allocations.

CPython collects its youngest generation when its allocations less its deallocations pass a
threshold. A server's moves free old objects as they make new ones, so that count grows slowly
while the young generation fills with every object made since its last collection: on a busy
server each such collection is a pause for every game of the process, long enough to set its
tail latency (`dicepoker_gc_pause_seconds` shows them). Collected every `YOUNG_SECONDS` instead,
it holds only what the last tick made: short pauses, for about the same time in all. The older
generations are collected on the clock too, as rarely as before, since each of their pauses walks
every object that has lived a while (`MIDDLE_SECONDS`, `FULL_SECONDS`), except that a middle tick
collects everything once the oldest generation has grown by a quarter since the last full collection
(`OLD_GROWTH`, CPython's own rule): what lived past a middle collection and then became cyclic
garbage is only found by a full one, and a closed socket leaves such garbage (websockets' protocol,
its reader and buffers), so that without the rule a server with sockets coming and going would grow
for hours. The collector's own counting stays on, at a threshold the ticks keep it from reaching
(`app.GC_YOUNG`), as a net for a burst of allocations.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable

#: Seconds between two collections of the youngest generation.
YOUNG_SECONDS = 0.05
#: Seconds between two collections of the middle generation. Each walks what survived a young
#: collection since the last one and still lives, a pause that grows with the games held, so the
#: fewer the better: as rare as CPython's own counts made them on a busy server.
MIDDLE_SECONDS = 600.0
#: Seconds between two full collections, which walk every object made since the start: as rare
#: as before too (20 middle ones, and then only when a quarter more objects had lived that long).
FULL_SECONDS = 4 * 3600.0
#: A middle tick collects everything instead once the oldest generation holds this share more
#: objects than the last full collection left there (CPython's rule for its own full collections).
OLD_GROWTH = 0.25


def old_generation_size() -> int:
    """How many objects the oldest generation holds (a list of them, made and dropped: about
    10 ms at a million objects, once a middle period)."""
    return len(gc.get_objects(2))


class Pacer:
    """Collects the generations on the clock while its task runs (`start` to `close`)."""

    def __init__(
        self,
        young: float = YOUNG_SECONDS,
        middle: float = MIDDLE_SECONDS,
        full: float = FULL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        old_size: Callable[[], int] = old_generation_size,
    ) -> None:
        self.young, self.middle, self.full = young, middle, full
        self.clock = clock
        self.old_size = old_size
        # What the last full collection left in the oldest generation (at the start, what is
        # there: nothing, in a server that froze what it had).
        self.old_after_full = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="gc-pacer")

    def due(self, now: float, last_middle: float, last_full: float) -> int:
        """The oldest generation to collect at `now`, given when the older ones last were."""
        if now - last_full >= self.full:
            return 2
        if now - last_middle >= self.middle:
            return 1
        return 0

    def grown(self, old: int) -> bool:
        """Whether an oldest generation of `old` objects has grown enough since the last full
        collection that a middle tick should collect everything."""
        return old - self.old_after_full > self.old_after_full * OLD_GROWTH

    async def _run(self) -> None:
        last_middle = last_full = self.clock()
        self.old_after_full = self.old_size()
        while True:
            await asyncio.sleep(self.young)
            now = self.clock()
            generation = self.due(now, last_middle, last_full)
            if generation == 1 and self.grown(self.old_size()):
                generation = 2
            gc.collect(generation)
            if generation >= 1:
                last_middle = now
            if generation == 2:
                last_full = now
                self.old_after_full = self.old_size()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


__all__ = [
    "FULL_SECONDS",
    "MIDDLE_SECONDS",
    "OLD_GROWTH",
    "YOUNG_SECONDS",
    "Pacer",
    "old_generation_size",
]
