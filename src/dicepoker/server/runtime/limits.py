"""Per-address limits that hold across server processes: shared through Redis when the server has
one (`--redis-url`), else kept in the process (`ClientLimiter`).

- `TokenBucket`: `rate` tokens a second up to `burst`; each request takes one.
- `ClientLimiter`: one bucket per key (a client address, an account's name), bounded in memory
  however many keys call: one process's buckets.
- `RateLimiter`: the token buckets of one limit (games created, analyses, logins, ...). With
  Redis, a bucket is a hash `dicepoker:rate:<limit>:<key>` that one Lua script refills and takes
  from (or gives back to) atomically, on Redis's own clock (`TIME`), so `--workers N` or N
  machines share one budget per address with the same rate, burst and Retry-After as one
  process. The hash expires once it would be full again. A limit of failures (wrong passwords)
  takes its token *before* the attempt and gives it back when the attempt succeeds: taking is
  the one atomic step, so concurrent attempts can never all pass a look at the budget before any
  of them spends it.
- `SocketCap`: open WebSocket connections per address. With Redis, a sorted set
  `dicepoker:sockets:<address>` holds one member per open connection, scored with the time it
  expires; the process holding the connection pushes that time on every `REFRESH_MS / 3`, so the
  connections of a process that crashed stop counting after `REFRESH_MS` at most.

Redis out of reach (refused, or no answer within `TIMEOUT_S`) never fails a request: the process
falls back to its own buckets and counts (each limit then holds per process, as with one process)
and tries Redis again after `RETRY_S`. The fallback is logged once per outage.

A request over its limit raises `RateLimited` (the HTTP app answers it 429 with Retry-After). The
limits live here, with what runs the server, rather than in `http/`: the services that wire them
and the route dependencies that spend them sit above the routes, and imports run one way.

A rate of 0 (or less) switches a limit off (tests, load benchmarks).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import os
import secrets
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from redis.asyncio import Redis

log = logging.getLogger("dicepoker.server")

RATE: Final = "dicepoker:rate:"
SOCKETS: Final = "dicepoker:sockets:"
#: A Redis call that takes longer than this falls back to the local limiter.
TIMEOUT_S: Final = 0.5
#: After a failed Redis call, the local limiters serve for this long before Redis is tried again.
RETRY_S: Final = 5.0
#: A connection a live process holds is re-announced every third of this; a crashed process's
#: connections stop counting after it.
REFRESH_MS: Final = int(os.environ.get("DICEPOKER_SOCKET_TTL_MS", "30000"))

# Refill the bucket on Redis's clock, then take a token (ARGV[3] == 'take') when there is one and
# say how long to wait when there is none, or give one back (ARGV[3] == 'give'). A bucket that
# does not exist is full: giving back to it creates nothing.
_BUCKET = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local take = ARGV[3] == 'take'
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(state[1])
local stamp = tonumber(state[2])
if tokens == nil or stamp == nil then
  if not take then return '0' end
  tokens = burst
  stamp = now
end
if now > stamp then
  tokens = math.min(burst, tokens + (now - stamp) * rate)
  stamp = now
end
local wait = 0
if not take then
  tokens = math.min(burst, tokens + 1)
elseif tokens >= 1 then
  tokens = tokens - 1
else
  wait = (1 - tokens) / rate
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(stamp))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return tostring(wait)
"""

# Forget the address's connections whose holder stopped announcing them, then add this one if
# the address is under its cap (1), else refuse it (0).
_OPEN = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""

# The holder of these connections is alive: push their expiry on.
_REFRESH = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""


class TokenBucket:
    """`burst` tokens to start with, refilled at `rate` a second; `rate <= 0` never runs out."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, now: float | None = None) -> None:
        self.rate = rate
        self.burst = max(1, burst)
        self.tokens = float(self.burst)
        self.stamp = time.monotonic() if now is None else now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float | None = None) -> bool:
        """Take one token if there is one."""
        if self.rate <= 0:
            return True
        self._refill(time.monotonic() if now is None else now)
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait(self, now: float | None = None) -> float:
        """Seconds until the next token (0 when there is one now)."""
        if self.rate <= 0:
            return 0.0
        self._refill(time.monotonic() if now is None else now)
        return max(0.0, (1 - self.tokens) / self.rate)

    def give_back(self, now: float | None = None) -> None:
        """Return a token taken for an attempt that turned out not to count."""
        self._refill(time.monotonic() if now is None else now)
        self.tokens = min(self.burst, self.tokens + 1)

    def full(self, now: float) -> bool:
        return self.rate <= 0 or self.tokens + (now - self.stamp) * self.rate >= self.burst


class ClientLimiter:
    """One token bucket per client key (its address), at most `max_clients` buckets kept.

    Buckets are kept in least-recently-used order; past `max_clients` the least recently used
    are dropped (an address that has not called for a while has a full bucket anyway).
    """

    def __init__(self, rate: float, burst: int, max_clients: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_clients = max_clients
        self.buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, key: str, now: float | None = None) -> float | None:
        """None when `key` may go ahead (a token is taken), else the seconds it should wait."""
        if self.rate <= 0:
            return None
        now = time.monotonic() if now is None else now
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst, now)
            while len(self.buckets) > self.max_clients:
                self.buckets.popitem(last=False)
        else:
            self.buckets.move_to_end(key)
        if bucket.take(now):
            return None
        return bucket.wait(now)

    def give_back(self, key: str, now: float | None = None) -> None:
        """Return the token `check` took for `key` (a bucket no longer kept is full anyway)."""
        bucket = self.buckets.get(key)
        if self.rate > 0 and bucket is not None:
            bucket.give_back(now)


class RateLimited(Exception):
    """An HTTP request over its client's limit: answered 429 with Retry-After."""

    def __init__(self, retry_after: float) -> None:
        super().__init__("rate limited")
        self.retry_after = max(1, math.ceil(retry_after))


class SharedRedis:
    """The Redis connection of the limits, and whether it is usable now (see the module)."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as redis

        self.client: Redis = redis.Redis.from_url(
            url, socket_connect_timeout=TIMEOUT_S, socket_timeout=TIMEOUT_S
        )
        self.bucket = self.client.register_script(_BUCKET)
        self.open = self.client.register_script(_OPEN)
        self.refresh = self.client.register_script(_REFRESH)
        self.down_until = 0.0

    def usable(self) -> bool:
        return time.monotonic() >= self.down_until

    def failed(self, exc: BaseException) -> None:
        """A call failed: the local limits serve for `RETRY_S` (said once per outage)."""
        if self.usable():
            log.warning(
                "redis unreachable for the shared limits (%s): each process limits on its own "
                "for now",
                type(exc).__name__,
            )
        self.down_until = time.monotonic() + RETRY_S

    async def call(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run `script`, bounded by `TIMEOUT_S` even when Redis accepts and never answers."""
        return await asyncio.wait_for(script(keys=keys, args=args), TIMEOUT_S * 2)

    async def close(self) -> None:
        await self.client.aclose()


class RateLimiter:
    """One limit's token buckets, a bucket per key: `rate` tokens a second up to `burst`.

    In Redis when `shared` is given (and reachable), else `local` (one process's buckets).
    """

    def __init__(self, name: str, rate: float, burst: int, shared: SharedRedis | None) -> None:
        self.name = name
        self.rate = rate
        self.burst = max(1, burst)
        self.shared = shared
        self.local = ClientLimiter(rate, burst)

    async def _redis(self, key: str, take: bool) -> float | None:
        """The wait from the shared bucket (after taking a token, or giving one back); None when
        Redis cannot answer now."""
        shared = self.shared
        if shared is None or not shared.usable():
            return None
        try:
            answer = await shared.call(
                shared.bucket,
                [f"{RATE}{self.name}:{key}"],
                [self.rate, self.burst, "take" if take else "give"],
            )
            return float(answer)
        except Exception as exc:  # a Redis error, a timeout: fall back, never a 500
            shared.failed(exc)
            return None

    async def check(self, key: str) -> float | None:
        """None when `key` may go ahead (a token is taken), else the seconds it should wait."""
        if self.rate <= 0:
            return None
        wait = await self._redis(key, take=True)
        if wait is None:
            return self.local.check(key)
        return wait if wait > 0 else None

    async def give_back(self, key: str) -> None:
        """Return the token `check` took for `key`: the attempt it was taken for does not count
        (a right password against a limit of wrong ones)."""
        if self.rate <= 0:
            return
        if await self._redis(key, take=False) is None:
            self.local.give_back(key)


@dataclass(frozen=True)
class Slot:
    """One open connection counted against its address; `member` when counted in Redis."""

    address: str
    member: str | None


class SocketCap:
    """At most `cap` open WebSocket connections per client address (0: no cap)."""

    def __init__(self, cap: int, shared: SharedRedis | None, ttl_ms: int = REFRESH_MS) -> None:
        self.cap = cap
        self.shared = shared
        self.ttl_ms = ttl_ms
        self.process = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._ids = itertools.count()
        self.local: Counter[str] = Counter()  # this process's open connections per address
        self.held: dict[str, set[str]] = {}  # this process's members in Redis, per address
        self._refresher: asyncio.Task[None] | None = None

    async def open(self, address: str) -> Slot | None:
        """A slot for a new connection from `address`, or None when it is at its cap."""
        if self.cap <= 0:
            return Slot(address, None)
        member = await self._open_shared(address)
        if member is None and self.local[address] >= self.cap:
            return None
        if member == "":
            return None
        self.local[address] += 1
        if member:
            self.held.setdefault(address, set()).add(member)
            self._start_refresher()
        return Slot(address, member)

    async def _open_shared(self, address: str) -> str | None:
        """The connection's member once Redis took it; "" when Redis refused it (the cap);
        None when Redis cannot answer now (the local count decides)."""
        shared = self.shared
        if shared is None or not shared.usable():
            return None
        member = f"{self.process}:{next(self._ids)}"
        try:
            taken = await shared.call(
                shared.open, [SOCKETS + address], [self.cap, self.ttl_ms, member]
            )
        except Exception as exc:
            shared.failed(exc)
            return None
        return member if taken else ""

    async def close(self, slot: Slot) -> None:
        """The connection of `slot` closed: it no longer counts."""
        if self.cap <= 0:
            return
        self.local[slot.address] -= 1
        if self.local[slot.address] <= 0:
            del self.local[slot.address]
        if slot.member is None or self.shared is None:
            return
        members = self.held.get(slot.address, set())
        members.discard(slot.member)
        if not members:
            self.held.pop(slot.address, None)
        with contextlib.suppress(Exception):  # else it expires after `ttl_ms`
            await asyncio.wait_for(
                self.shared.client.zrem(SOCKETS + slot.address, slot.member), TIMEOUT_S * 2
            )

    def _start_refresher(self) -> None:
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.create_task(self._refresh(), name="socket-cap-refresh")

    async def _refresh(self) -> None:
        """Re-announce this process's connections every third of their expiry while any are
        open (a pass that fails is simply tried again at the next one)."""
        assert self.shared is not None
        while self.held:
            await asyncio.sleep(self.ttl_ms / 3000)
            for address, members in list(self.held.items()):
                if not members:
                    continue
                try:
                    await self.shared.call(
                        self.shared.refresh, [SOCKETS + address], [self.ttl_ms, *members]
                    )
                except Exception as exc:
                    self.shared.failed(exc)
                    break

    async def stop(self) -> None:
        """Stop re-announcing (the server stops; its connections are closed anyway)."""
        if self._refresher is not None:
            self._refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._refresher
