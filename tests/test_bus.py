"""The Redis bus's leases (dicepoker.server.bus): one holder at a time, renewed by asking Redis at
least every half lease, given back on a graceful stop. Two buses on the test Redis stand for two
processes; a clock of the test's own says when half a lease has passed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from dicepoker.server.bus import LEASE, RedisBus
from live_server import redis_url

LEASE_MS = 10_000


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def counted(bus: RedisBus) -> list[int]:
    """Count the times `bus` asks Redis for a lease."""
    asked = [0]
    ask: Callable[..., Awaitable[Any]] = bus._claim

    async def claim(**kwargs: Any) -> Any:
        asked[0] += 1
        return await ask(**kwargs)

    bus._claim = claim  # type: ignore[assignment]
    return asked


def test_a_lease_has_one_holder_and_is_asked_for_again_after_half_a_lease() -> None:
    async def work() -> None:
        game = f"bus-{uuid.uuid4().hex[:8]}"
        clock_a, clock_b = Clock(), Clock()
        a = RedisBus(redis_url(), LEASE_MS, clock_a)
        b = RedisBus(redis_url(), LEASE_MS, clock_b)
        asked = counted(a)
        try:
            assert await a.claim(game) is True
            assert await b.claim(game) is False  # held by a
            assert asked[0] == 1
            # Within half a lease, a knows the lease is its own without asking Redis, even if
            # Redis were asked by someone else meanwhile: it set the expiry a lease ahead.
            clock_a.now += LEASE_MS / 2000 - 0.01
            assert await a.claim(game) is True
            assert asked[0] == 1
            # Past half a lease it asks again, which renews the lease in Redis.
            clock_a.now += 0.02
            ttl_before = await a.client.pttl(LEASE + game)
            assert await a.claim(game) is True
            assert asked[0] == 2
            assert await a.client.pttl(LEASE + game) >= ttl_before
            assert await b.claim(game) is False
            # A lease that is not ours (it was taken from Redis: expired, say) is asked for
            # each time, and never believed held.
            await a.client.delete(LEASE + game)
            assert await b.claim(game) is True
            clock_a.now += LEASE_MS / 1000
            assert await a.claim(game) is False
            assert await a.claim(game) is False
            assert asked[0] == 4
            # A graceful stop gives the lease back: the other takes it at once.
            await b.release_all()
            assert await a.claim(game) is True
        finally:
            await a.client.delete(LEASE + game)
            await a.client.aclose()
            await b.client.aclose()

    asyncio.run(work())


def test_a_released_lease_is_asked_for_again() -> None:
    async def work() -> None:
        game = f"bus-{uuid.uuid4().hex[:8]}"
        a = RedisBus(redis_url(), LEASE_MS, Clock())
        asked = counted(a)
        try:
            assert await a.claim(game) is True
            await a.release_all()
            assert await a.client.exists(LEASE + game) == 0
            assert await a.claim(game) is True  # not believed held: asked again
            assert asked[0] == 2
        finally:
            await a.client.delete(LEASE + game)
            await a.client.aclose()

    asyncio.run(work())
