"""The cyclic garbage collector, paced by the clock instead of by counts of allocations.

CPython collects its youngest generation when its allocations less its deallocations pass a
threshold. A server's moves free old objects as they make new ones, so that count grows slowly
while the young generation fills with every object made since its last collection: at 4,000 games
each server collected it about five times in 40 s, each a pause of about 115 ms for every game of
the process, and those pauses made most of the p99 (docs/deploy.md, "The collector's pauses").
Collected every `YOUNG_SECONDS` instead, it holds only what the last tick made: pauses of about a
millisecond, for about the same time in all. The older generations are collected on the clock
too, as rarely as before, since each of their pauses walks every object that has lived a while
(`MIDDLE_SECONDS`, `FULL_SECONDS`). The collector's own counting stays on, at a threshold the
ticks keep it from reaching (`app.GC_YOUNG`), as a net for a burst of allocations.
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
#: collection since the last one and still lives: at 4,000 games a pause of 0.42-0.45 s a minute
#: apart and 1.1 s ten minutes apart (docs/deploy.md), so the fewer the better. They are as rare
#: as the collector's counts made them before (80 young collections about 8 s apart at 4,000
#: games: about every 11 minutes).
MIDDLE_SECONDS = 600.0
#: Seconds between two full collections, which walk every object made since the start: as rare
#: as before too (20 middle ones, and then only when a quarter more objects had lived that long).
FULL_SECONDS = 4 * 3600.0


class Pacer:
    """Collects the generations on the clock while its task runs (`start` to `close`)."""

    def __init__(
        self,
        young: float = YOUNG_SECONDS,
        middle: float = MIDDLE_SECONDS,
        full: float = FULL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.young, self.middle, self.full = young, middle, full
        self.clock = clock
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

    async def _run(self) -> None:
        last_middle = last_full = self.clock()
        while True:
            await asyncio.sleep(self.young)
            now = self.clock()
            generation = self.due(now, last_middle, last_full)
            gc.collect(generation)
            if generation >= 1:
                last_middle = now
            if generation == 2:
                last_full = now

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


__all__ = ["FULL_SECONDS", "MIDDLE_SECONDS", "YOUNG_SECONDS", "Pacer"]
