"""The Redis bus (dicepoker.server.runtime.bus): messages reach the other processes in order, what
is queued meanwhile in one pipeline, never their sender, and all of them on a graceful stop; leases
have one holder at a time, renewed by asking Redis at least every half lease, not asked for while
another process surely holds them, given back on a graceful stop. Two buses on the test Redis
stand for two processes; a clock of the test's own says when half a lease has passed."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from dicepoker.master import events
from dicepoker.server.runtime import bus
from dicepoker.server.runtime.bus import ALIVE, LEASE, RedisBus
from live_server import redis_url

LEASE_MS = 10_000


def said(n: int | str) -> events.BusMessage:
    """A bus message that carries `n` (a rematch's game id is any string)."""
    return events.Rematch(game=str(n))


def n_of(message: events.BusMessage) -> int | str:
    assert isinstance(message, events.Rematch)
    return int(message.game) if message.game.isdigit() else message.game


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def counted(bus: RedisBus, pipelines: list[int] | None = None) -> list[int]:
    """Count the leases `bus` asks Redis for (and, into `pipelines`, the pipelines it sends)."""
    asked = [0]
    ask: Callable[[list[str]], Awaitable[list[int | None]]] = bus._claims

    async def claims(games: list[str]) -> list[int | None]:
        asked[0] += len(games)
        if pipelines is not None:
            pipelines[0] += 1
        return await ask(games)

    bus._claims = claims  # type: ignore[method-assign]
    return asked


async def _nothing() -> None:
    return None


def test_messages_reach_the_other_process_in_order_and_not_their_sender() -> None:
    async def work() -> None:
        game = f"bus-{uuid.uuid4().hex[:8]}"
        a, b = RedisBus(redis_url()), RedisBus(redis_url())
        heard_a: list[Any] = []
        heard_b: list[Any] = []
        everything, sentinel = asyncio.Event(), asyncio.Event()

        async def on_a(game_id: str, message: events.BusMessage) -> None:
            if game_id == game:
                heard_a.append(n_of(message))
                if n_of(message) == "sentinel":
                    sentinel.set()

        async def on_b(game_id: str, message: events.BusMessage) -> None:
            if game_id == game:
                heard_b.append(n_of(message))
                if len(heard_b) == 205:
                    everything.set()

        pipelines = [0]
        make_pipeline = a.client.pipeline

        def counting(*args: Any, **kwargs: Any) -> Any:
            pipelines[0] += 1
            return make_pipeline(*args, **kwargs)

        a.client.pipeline = counting  # type: ignore[method-assign]
        await a.start(on_a, _nothing)
        await b.start(on_b, _nothing)
        c = RedisBus(redis_url())
        try:
            for n in range(200):  # queued at once: sent together, in order
                await a.publish(game, said(n))
            for n in range(200, 205):  # a stopping process sends what it queued
                await c.publish(game, said(n))
            await c.close()
            await asyncio.wait_for(everything.wait(), 10)
            assert [n for n in heard_b if n < 200] == list(range(200))
            assert [n for n in heard_b if n >= 200] == list(range(200, 205))
            assert pipelines[0] == 1
            # a heard b's sentinel, sent after a's 200 reached b, so after a's own: none kept.
            await b.publish(game, said("sentinel"))
            await asyncio.wait_for(sentinel.wait(), 10)
            assert heard_a == [*range(200, 205), "sentinel"]
        finally:
            await a.close()
            await b.close()

    asyncio.run(work())


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
            # (Its time left cut to 1 s first: renewed, it is a whole lease again.)
            await a.client.pexpire(LEASE + game, 1000)
            assert await a.claim(game) is True
            assert asked[0] == 2
            assert await a.client.pttl(LEASE + game) > LEASE_MS / 2
            assert await b.claim(game) is False
            # A lease another process took (ours expired, say) is never believed held; it is not
            # asked for again before Redis said it runs out (by our clock), then it is.
            heard: asyncio.Queue[events.BusMessage] = asyncio.Queue()

            async def hear(game_id: str, message: events.BusMessage) -> None:
                if game_id == game:  # (other tests' processes share the test Redis)
                    heard.put_nowait(message)

            await a.start(hear, _nothing)
            await a.client.delete(LEASE + game)
            assert await b.claim(game) is False  # b believes a holds it: a's lease has time left
            clock_b.now += LEASE_MS / 1000  # it has run out, by b's clock: b asks and takes it
            assert await b.claim(game) is True
            clock_a.now += LEASE_MS / 1000
            assert not a.held_elsewhere(game)  # not known before asking
            assert await a.claim(game) is False
            assert a.held_elsewhere(game)
            assert await a.claim(game) is False
            assert asked[0] == 3
            clock_a.now += LEASE_MS / 1000 - 0.1  # b's lease has (by a's clock) nearly run out
            assert await a.claim(game) is False and asked[0] == 3
            clock_a.now += 0.2
            assert not a.held_elsewhere(game)
            assert await a.claim(game) is False  # b still holds it in Redis: asked, refused
            assert asked[0] == 4 and a.held_elsewhere(game)
            # A graceful stop gives the lease back and says so: the other takes it at once.
            await b.release_all()
            assert isinstance(await asyncio.wait_for(heard.get(), 5), events.Released)
            assert not a.held_elsewhere(game)
            assert await a.claim(game) is True
            assert asked[0] == 5
        finally:
            await a.client.delete(LEASE + game)
            await a.close()
            await b.close()

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
            await a.close()

    asyncio.run(work())


def test_past_the_outbox_limit_messages_are_dropped_and_said_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Redis away or too slow: the queue stops growing (the moves are committed, the others
    catch up from the database), with one warning, and sends again once it drains."""
    monkeypatch.setattr(bus, "OUTBOX_LIMIT", 5)

    async def work() -> None:
        game = f"bus-{uuid.uuid4().hex[:8]}"
        a, b = RedisBus(redis_url()), RedisBus(redis_url())
        heard: list[Any] = []
        last = asyncio.Event()

        async def on_b(game_id: str, message: events.BusMessage) -> None:
            if game_id == game:
                heard.append(n_of(message))
                if n_of(message) == "after":
                    last.set()

        await b.start(on_b, _nothing)
        try:
            for n in range(8):  # no await lets the writer run: the queue holds five
                await a.publish(game, said(n))
            await a.publish(game, said("after"))  # dropped too: still full
            await asyncio.sleep(0)  # the writer takes the five
            await a.publish(game, said("after"))
            await asyncio.wait_for(last.wait(), 10)
            assert heard == [0, 1, 2, 3, 4, "after"]
        finally:
            await a.close()
            await b.close()

    with caplog.at_level(logging.WARNING, logger="dicepoker.server"):
        asyncio.run(work())
    assert sum("messages wait to be sent" in r.getMessage() for r in caplog.records) == 1


def test_beliefs_about_leases_that_ran_out_are_forgotten() -> None:
    """A long-running process forgets the leases it no longer needs to know of: once its
    beliefs have doubled (and number over 1,024), those that ran out go. Its own stay a whole
    lease after it last asked (Redis keeps them that long: a graceful stop gives them back)."""

    async def work() -> None:
        clock = Clock()
        a = RedisBus(redis_url(), LEASE_MS, clock)
        game = f"bus-{uuid.uuid4().hex[:8]}"
        try:
            half = LEASE_MS / 2000
            a._elsewhere = {f"gone-{n}": clock.now - 1 for n in range(1500)}
            a._elsewhere["still"] = clock.now + 5
            a._held = {"mine-lately": clock.now - half + 1, "mine-long-ago": clock.now - half - 1}
            assert await a.claim(game) is True
            assert set(a._elsewhere) == {"still"}
            assert set(a._held) == {"mine-lately", game}
            assert a.held_elsewhere("still") and not a.held_elsewhere("gone-0")
        finally:
            await a.client.delete(LEASE + game)
            await a.close()

    asyncio.run(work())


def test_a_process_that_stops_is_known_gone_by_the_others() -> None:
    """Each process says it is alive at its lease sweeps; one that stops (gracefully: it deletes
    its key; or killed: its key runs out, here deleted by the test) is named gone at the
    others' next sweep, once. (Other tests' processes share the test Redis and may come and go
    meanwhile, so only what these buses must see is asserted.)"""

    async def work() -> None:
        a, b, c = (RedisBus(redis_url()) for _ in range(3))
        try:
            await a.peers_gone()
            await b.peers_gone()
            await c.peers_gone()
            assert await a.client.pttl(ALIVE + a.process_id) > LEASE_MS  # two leases
            await a.peers_gone()
            assert {b.process_id, c.process_id} <= a._peers and a.process_id not in a._peers
            await b.close()  # a graceful stop
            assert b.process_id in await a.peers_gone()
            assert b.process_id not in a._peers and c.process_id in a._peers
            await a.client.delete(ALIVE + c.process_id)  # killed: its key has run out
            gone = await a.peers_gone()
            assert c.process_id in gone and b.process_id not in gone  # told once
            assert c.process_id not in a._peers
        finally:
            await a.close()
            await c.close()

    asyncio.run(work())


def test_claims_asked_at_once_go_out_together_whatever_the_pool() -> None:
    """A late loop or a lease sweep asks for hundreds of leases at once. They go to Redis in one
    pipeline, each game once, so a pool of two connections answers them all (one claim a
    connection would run out of connections and leave games undriven); a game asked for twice
    meanwhile is asked once. Redis forgetting the script (a restart) costs nothing."""
    import redis.asyncio as redis

    async def work() -> None:
        a = RedisBus(redis_url(), LEASE_MS, Clock())
        await a.client.aclose()
        a.client = redis.Redis(
            connection_pool=redis.ConnectionPool.from_url(redis_url(), max_connections=2)
        )
        pipelines = [0]
        asked = counted(a, pipelines)
        games = [f"bus-{uuid.uuid4().hex[:8]}" for _ in range(300)]
        try:
            await a.client.script_flush()  # as after a restart of Redis
            answers = await asyncio.gather(*(a.claim(game) for game in games + games[:5]))
            assert answers == [True] * 305
            assert (asked[0], pipelines[0]) == (300, 1)
            assert all(await a.client.mget([LEASE + game for game in games]))
        finally:
            await a.client.delete(*(LEASE + game for game in games))
            await a.close()

    asyncio.run(work())


def test_a_claim_redis_cannot_answer_is_no_and_is_asked_again() -> None:
    """Redis away when a claim goes out: every caller hears no (the bots wait, nothing
    breaks), once said in the log, and the next claim asks again."""

    async def work() -> None:
        game = f"bus-{uuid.uuid4().hex[:8]}"
        a = RedisBus(redis_url(), LEASE_MS, Clock())
        asked = counted(a)
        real = a._claims
        failing = [True]

        async def claims(games: list[str]) -> list[int | None]:
            if failing[0]:
                raise ConnectionError("Redis is away")
            return await real(games)

        a._claims = claims  # type: ignore[method-assign]
        try:
            assert list(await asyncio.gather(a.claim(game), a.claim(game))) == [False, False]
            failing[0] = False
            assert await a.claim(game) is True
            assert asked[0] == 1  # (the failed pipeline was never counted: it raised first)
        finally:
            await a.client.delete(LEASE + game)
            await a.close()

    asyncio.run(work())
