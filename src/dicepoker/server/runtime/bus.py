"""The Redis bus: several server processes on one PostgreSQL database tell each other of moves.

Every committed event of a game another process holds too is published on the game's channel
(`redis.asyncio` pub/sub), and every process that holds the game applies it and tells its own
WebSocket clients. A process's messages go out through one writer, in order, what came
meanwhile in one pipeline (a group commit ends the moves of many games at once: one write and
one wake-up of Redis instead of one each); each process also hears its own messages back, and
drops them by their first bytes unread. Leases
(who drives a game's bots and clock) are Redis keys with an expiry, renewed at an action once
half a lease has passed since the last renewal; a lease another process holds is not asked for
again before Redis said it would run out, unless its holder says it gave it back. The claims
asked for meanwhile go out together in one pipeline, like the messages: a late loop or a lease
sweep asks for hundreds at once, which would otherwise each take a connection of the pool (and
past its hundred, fail). What a bus is for and why a lost message only delays a process:
dicepoker.master.bus. One process needs no Redis (`LocalBus`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from dicepoker.master import events
from dicepoker.master.bus import LEASE_MS, Bus, Handler, LocalBus
from dicepoker.master.events import BusMessage

__all__ = [
    "ALIVE",
    "CHANNEL",
    "LEASE",
    "LEASE_MS",
    "OUTBOX_LIMIT",
    "Bus",
    "LocalBus",
    "RedisBus",
    "make_bus",
]

log = logging.getLogger("dicepoker.server")

CHANNEL = "dicepoker:game:"
LEASE = "dicepoker:lease:"
#: A key per live process (`RedisBus.peers_gone`), set again at every lease sweep.
ALIVE = "dicepoker:alive:"
#: The most messages waiting to be published; past it (Redis away or too slow) new ones are
#: dropped: the moves are committed, and the other processes catch up from the database.
OUTBOX_LIMIT = 10_000

# Take the lease when it is free, extend it when it is ours (1); never take it from a live
# holder: then the milliseconds its lease has left, negated (0 or less).
_CLAIM = """
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return -math.max(redis.call('PTTL', KEYS[1]), 0)
"""

# Give the lease back when it is ours (a graceful stop), so another process takes over at once.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisBus:
    """Redis pub/sub between processes (`redis.asyncio`), and leases as expiring keys."""

    shared = True

    def __init__(
        self, url: str, lease_ms: int = LEASE_MS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        import redis.asyncio as redis

        self.url = url
        self.lease_ms = lease_ms
        self.clock = clock
        self.process_id = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.client = redis.Redis.from_url(url, socket_connect_timeout=5)
        self._claim = self.client.register_script(_CLAIM)
        # The claims asked for since the last pipeline went out, each game once; and the task
        # that sends them (`_ask`).
        self._asking: dict[str, asyncio.Future[int | None]] = {}
        self._claimer: asyncio.Task[None] | None = None
        self._release = self.client.register_script(_RELEASE)
        # The games whose lease this process took, each with the time (`clock`) until which it
        # is surely still ours: half the lease after we last asked for it. A bot acts every
        # second or two and would otherwise ask Redis each time; the lease is renewed at least
        # every half lease.
        self._held: dict[str, float] = {}
        # The games whose lease another process holds, each with the time (`clock`) its lease
        # runs out at the earliest, as Redis said. With two processes, the one that does not
        # drive a game's bots hears of each of its moves, and would ask Redis at every one.
        self._elsewhere: dict[str, float] = {}
        self._kept = 0  # entries of both after the last pruning
        self._peers: set[str] = set()  # the other processes alive at the last `peers_gone`
        # Every message starts with its origin, so that our own, heard back, is dropped unread.
        self._own = orjson.dumps({"origin": self.process_id})[:-1]
        self._outbox: list[tuple[str, bytes]] = []
        self._queued = asyncio.Event()
        self._closing = False
        self._dropping = False
        self._writer: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._handling: set[asyncio.Task[None]] = set()

    async def start(self, handler: Handler, on_reconnect: Callable[[], Awaitable[None]]) -> None:
        await self.client.ping()  # a wrong URL fails the start, not the first move
        self._reader = asyncio.create_task(self._read(handler, on_reconnect), name="redis-bus")
        await self._ready.wait()

    async def close(self) -> None:
        tasks = [
            task for task in (self._reader, self._claimer, *self._handling) if task is not None
        ]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        asking, self._asking = self._asking, {}
        for future in asking.values():  # not sent: not ours
            if not future.done():
                future.set_result(None)
        with contextlib.suppress(Exception):  # the others take our games over at their next sweep
            await self.client.delete(ALIVE + self.process_id)
        await self.release_all()
        self._closing = True  # the writer sends what is queued, then ends
        self._queued.set()
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
        await self.client.aclose()

    async def ping(self) -> None:
        """Redis answers PING (the readiness probe); raises when it does not."""
        await self.client.ping()

    async def release_all(self) -> None:
        """Give back every lease this process holds and say so on each game's channel: on a
        graceful stop the other processes take its games' bots over at once (and clocks at their
        next look), not when the leases expire."""
        held, self._held = self._held, {}
        for game_id in held:
            try:
                if await self._release(keys=[LEASE + game_id], args=[self.process_id]):
                    await self.publish(game_id, events.Released())
            except Exception as exc:  # the lease then simply expires
                log.warning("redis lease release for game %s failed: %s", game_id, exc)

    async def publish(self, game_id: str, message: BusMessage) -> None:
        """Queue `message` for the game's channel (sent by the writer, in order)."""
        if len(self._outbox) >= OUTBOX_LIMIT:
            if not self._dropping:  # said once, not for every message dropped
                log.warning("redis bus: %d messages wait to be sent; dropping more", OUTBOX_LIMIT)
            self._dropping = True
            return  # the move is committed; the others catch up from the database
        self._dropping = False
        self._outbox.append((CHANNEL + game_id, events.dump(message, self.process_id)))
        self._queued.set()
        if (self._writer is None or self._writer.done()) and not self._closing:
            self._writer = asyncio.create_task(self._write(), name="redis-bus-writer")

    async def _write(self) -> None:
        """Send what is queued, oldest first: one message as it is, several in one pipeline."""
        while True:
            await self._queued.wait()
            self._queued.clear()
            while self._outbox:
                batch, self._outbox = self._outbox, []
                try:
                    if len(batch) == 1:
                        await self.client.publish(*batch[0])
                    else:
                        async with self.client.pipeline(transaction=False) as pipe:
                            for channel, payload in batch:
                                pipe.publish(channel, payload)
                            await pipe.execute()
                except Exception as exc:  # the moves are committed; others catch up from the store
                    log.warning("redis publish of %d message(s) failed: %s", len(batch), exc)
            if self._closing:
                return

    async def claim(self, game_id: str) -> bool:
        asked = self.clock()
        if self._held.get(game_id, 0.0) > asked:
            return True  # Redis set it to expire a whole lease after `asked` at the earliest
        if self._elsewhere.get(game_id, 0.0) > asked:
            return False  # its holder's lease has not run out yet
        answer = await asyncio.shield(self._ask(game_id))  # (one caller's cancel is its own)
        if answer is None:
            return False  # Redis failed (said once for the pipeline): asked again next time
        self._prune(asked)
        if answer == 1:
            self._held[game_id] = asked + self.lease_ms / 2000
            self._elsewhere.pop(game_id, None)
            return True
        self._held.pop(game_id, None)
        # Its lease was measured after `asked`: it runs out no earlier than this.
        self._elsewhere[game_id] = asked - answer / 1000
        return False

    def _ask(self, game_id: str) -> asyncio.Future[int | None]:
        """Redis's answer to the claim of `game_id` (`_CLAIM`; None when Redis failed), asked
        for with the others not yet sent. It goes out after the caller's `asked` was read, so
        the beliefs `claim` draws from it hold."""
        future = self._asking.get(game_id)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._asking[game_id] = future
            if self._claimer is None or self._claimer.done():
                self._claimer = asyncio.create_task(self._send_claims(), name="redis-claims")
        return future

    async def _send_claims(self) -> None:
        """Send the claims asked for, all at once, until none waits."""
        while self._asking:
            batch, self._asking = self._asking, {}
            answers: list[int | None] = [None] * len(batch)
            try:
                answers = await self._claims(list(batch))
            except Exception as exc:  # each caller says no; it asks again at its next step
                log.warning("redis lease for %d game(s) failed: %s", len(batch), exc)
            finally:  # (also when closing cancels this task: no caller waits for ever)
                for future, answer in zip(batch.values(), answers, strict=True):
                    if not future.done():
                        future.set_result(answer)

    async def _claims(self, games: list[str]) -> list[int | None]:
        """Redis's answers to the claims of `games`, in one pipeline (the script loaded once
        more if Redis has forgotten it: a restart, a SCRIPT FLUSH)."""
        from redis.exceptions import NoScriptError

        for _ in range(2):
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id in games:
                    pipe.evalsha(
                        self._claim.sha, 1, LEASE + game_id, self.process_id, self.lease_ms
                    )
                answers = await pipe.execute(raise_on_error=False)
            if not any(isinstance(answer, NoScriptError) for answer in answers):
                break
            await self.client.script_load(_CLAIM)
        failed = [answer for answer in answers if isinstance(answer, Exception)]
        if failed:
            log.warning("redis lease for %d game(s) failed: %s", len(failed), failed[0])
        return [None if isinstance(answer, Exception) else int(answer) for answer in answers]

    async def peers_gone(self) -> frozenset[str]:
        """Say this process is alive (a key that lasts two leases; the lease sweep sets it again
        every half lease) and name the processes that said so at the last call and no longer do
        (they stopped: deleted their key, or it ran out)."""
        try:
            await self.client.set(ALIVE + self.process_id, b"1", px=2 * self.lease_ms)
            alive = {
                (key.decode() if isinstance(key, bytes) else str(key)).removeprefix(ALIVE)
                async for key in self.client.scan_iter(match=ALIVE + "*", count=1000)
            }
        except Exception as exc:  # Redis away: nobody is known gone (asked again next sweep)
            log.warning("redis: could not tell which processes are alive: %s", exc)
            return frozenset()
        alive.discard(self.process_id)
        gone = frozenset(self._peers - alive)
        self._peers = alive
        return gone

    def held_elsewhere(self, game_id: str) -> bool:
        """Whether another process surely holds the game's lease now (Redis said so at our last
        claim, and it has not run out or been given back since): no need to ask."""
        return self._elsewhere.get(game_id, 0.0) > self.clock()

    def _prune(self, now: float) -> None:
        """Forget the leases that have run out once the beliefs have doubled since the last
        pruning (the games of a long-running process come and go)."""
        if len(self._held) + len(self._elsewhere) <= max(2 * self._kept, 1024):
            return
        # Ours until half a lease after the last ask; Redis keeps it a whole lease.
        half = self.lease_ms / 2000
        self._held = {game: until for game, until in self._held.items() if until + half > now}
        self._elsewhere = {game: until for game, until in self._elsewhere.items() if until > now}
        self._kept = len(self._held) + len(self._elsewhere)

    async def _read(self, handler: Handler, on_reconnect: Callable[[], Awaitable[None]]) -> None:
        """Listen to every game's channel; after a lost connection, resubscribe and catch up."""
        first = True
        delay = 0.1
        while True:
            pubsub = self.client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(CHANNEL + "*")
                self._ready.set()
                if not first:
                    await on_reconnect()  # messages may have been missed meanwhile
                first = False
                delay = 0.1
                async for message in pubsub.listen():
                    if message.get("type") != "pmessage":
                        continue
                    await self._deliver(handler, message)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("redis bus connection lost (%s); reconnecting", exc)
                await asyncio.sleep(delay)  # back off before reconnecting
                delay = min(delay * 2, 5.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _deliver(self, handler: Handler, message: dict[str, Any]) -> None:
        payload = message["data"]
        if isinstance(payload, bytes) and payload.startswith(self._own):
            return  # our own, heard back
        channel = message["channel"]
        if isinstance(channel, bytes):
            channel = channel.decode()
        try:
            data = events.parse(payload)
        except ValueError as exc:
            log.warning("ignored a bus message on %s: %s", channel, exc)
            return
        if data.origin == self.process_id:
            return
        if isinstance(data, events.Released):  # its holder gave the lease back: ask at once
            self._elsewhere.pop(str(channel).removeprefix(CHANNEL), None)
        # Each message in a task of its own, so that one game waiting for its lock does not hold
        # up the others; a game's messages still apply in order (tasks start in order, and the
        # game's lock serves its waiters first come, first served).
        task = asyncio.create_task(self._handle(handler, str(channel), data))
        self._handling.add(task)
        task.add_done_callback(self._handling.discard)

    async def _handle(self, handler: Handler, channel: str, data: BusMessage) -> None:
        try:
            await handler(channel.removeprefix(CHANNEL), data)
        except Exception:
            log.exception("handling a bus message for %s failed", channel)


def make_bus(redis_url: str | None) -> Bus:
    return RedisBus(redis_url) if redis_url else LocalBus()
