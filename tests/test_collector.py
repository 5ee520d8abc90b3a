"""The garbage collector paced by the clock (dicepoker.server.runtime.collector): the young
generation every tick, the older ones when their time has come, and nothing once closed."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Callable

from dicepoker.server.runtime.collector import (
    FULL_SECONDS,
    MIDDLE_SECONDS,
    OLD_GROWTH,
    YOUNG_SECONDS,
    Pacer,
    old_generation_size,
)


async def until(condition: Callable[[], bool]) -> None:
    """A condition wait on the pacer's own collections (the callers bound it with a timeout)."""
    while not condition():
        await asyncio.sleep(0.001)


def test_the_oldest_generation_whose_time_has_come_is_collected() -> None:
    pacer = Pacer()
    assert YOUNG_SECONDS < MIDDLE_SECONDS < FULL_SECONDS
    assert pacer.due(10.0, last_middle=0.0, last_full=0.0) == 0
    assert pacer.due(MIDDLE_SECONDS, last_middle=0.0, last_full=0.0) == 1
    assert pacer.due(MIDDLE_SECONDS + 1, last_middle=MIDDLE_SECONDS, last_full=0.0) == 0
    assert pacer.due(FULL_SECONDS, last_middle=FULL_SECONDS - 1, last_full=0.0) == 2


def test_a_running_pacer_collects_on_its_ticks_and_stops_when_closed() -> None:
    """With a clock that runs a middle period a tick, each tick collects the middle generation
    (and the full one when its period has passed too); closing ends the task."""
    collected: list[int] = []
    ticks = iter(range(0, 10_000, 5))

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collected.append(info["generation"])

    async def scenario() -> None:
        pacer = Pacer(
            young=0.001,
            middle=5.0,
            full=12.0,
            clock=lambda: float(next(ticks)),
            old_size=lambda: 1000,  # never grown: the clock alone decides
        )
        gc.callbacks.append(heard)
        try:
            pacer.start()
            await asyncio.wait_for(until(lambda: collected.count(2) >= 2), 10.0)
            await pacer.close()
        finally:
            gc.callbacks.remove(heard)
        assert pacer._task is None

    asyncio.run(scenario())
    # Clock 0 at the start, then 5, 10, 15, ...: the middle one every tick, the full one at 15
    # (15 - 0 >= 12) and again at 30. (The collector's own young collections may come between.)
    assert [generation for generation in collected if generation > 0] == [1, 1, 2, 1, 1, 2]


def test_a_pacer_collects_the_young_generation_every_tick() -> None:
    young: list[int] = []

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 0:
            young.append(0)

    async def scenario() -> None:
        pacer = Pacer(young=0.001)
        gc.callbacks.append(heard)
        try:
            pacer.start()
            await asyncio.wait_for(until(lambda: len(young) >= 5), 10.0)
        finally:
            await pacer.close()
            gc.callbacks.remove(heard)

    asyncio.run(scenario())
    assert len(young) >= 5


def test_a_middle_tick_collects_everything_once_the_oldest_generation_grew_a_quarter() -> None:
    pacer = Pacer()
    pacer.old_after_full = 1000
    assert OLD_GROWTH == 0.25
    assert not pacer.grown(900)
    assert not pacer.grown(1250)
    assert pacer.grown(1251)
    assert old_generation_size() == len(gc.get_objects(2))


class Node:
    """An object in a reference cycle: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


def test_garbage_that_lived_past_a_middle_collection_is_freed_once_the_old_generation_grew() -> (
    None
):
    """A cycle that was alive at a middle collection sits in the oldest generation once it is
    garbage (a closed socket's objects): middle ticks leave it, and the first middle tick after
    the oldest generation grew by more than a quarter frees it."""
    collected: list[int] = []
    size = [1000]

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collected.append(info["generation"])

    async def scenario() -> None:
        ticks = iter(range(0, 10_000, 5))
        pacer = Pacer(
            young=0.001,
            middle=5.0,
            full=1e9,
            clock=lambda: float(next(ticks)),
            old_size=lambda: size[0],
        )
        node = Node()
        ref = weakref.ref(node)
        gc.collect(1)  # alive: moved to the oldest generation
        assert any(o is node for o in gc.get_objects(2))
        del node
        gc.callbacks.append(heard)
        try:
            pacer.start()
            await asyncio.wait_for(until(lambda: collected.count(1) >= 2), 10.0)
            assert ref() is not None  # middle collections leave the oldest generation alone
            assert 2 not in collected
            size[0] = 1300
            await asyncio.wait_for(until(lambda: 2 in collected), 10.0)
            assert ref() is None
            assert pacer.old_after_full == 1300  # counted again after the full collection
        finally:
            await pacer.close()
            gc.callbacks.remove(heard)

    enabled = gc.isenabled()
    gc.disable()  # no collection of the collector's own between the ticks
    try:
        asyncio.run(scenario())
    finally:
        if enabled:
            gc.enable()
