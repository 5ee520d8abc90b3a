"""The figures of one server process for Prometheus (`GET /metrics`, docs/deploy.md "Health and
metrics").

Each app has a registry of its own, never the library's global default: several apps in one
process (the tests) keep their own counts, and a server process exposes exactly what it did
itself (with `--workers N`, each process its own figures). Each figure is fed where its thing
happens, without the game master knowing of any of this: the socket route counts its refusals
and connections and times intents, the store times its commits (`Store(on_commit=...)`), the
broadcaster below counts the events committed, the thinker below times the bots, a task of its
own times the event loop's lag, and the games by status are counted from the master's games when
scraped, and the cyclic garbage collector's pauses are timed from its own callbacks
(`gc.callbacks`) while the loop is watched. Counting costs a lock and an add, so it is always on;
only serving the figures is a setting (`Settings.metrics`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import time
from collections.abc import Callable, Iterable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from dicepoker.engine import Action, GameState
from dicepoker.master import Broadcaster, Bus, LiveGame, Thinker
from dicepoker.master.store import StoredEvent

__all__ = ["CONTENT_TYPE", "Metrics", "MovesCounted", "TimedThinker"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
#: A game's statuses (`dicepoker.master.seats.status_of`): each is exposed, at 0 when none.
STATUSES = ("open", "running", "finished", "abandoned")
# Seconds: a move's commit and broadcast take milliseconds; an expert bot's decision may take
# seconds.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
#: Seconds between two looks at the event loop's lag (`Metrics.watch_loop`).
LAG_TICK = 0.05
# Seconds: a young generation's collection takes well under a millisecond, a full one of a
# loaded server's objects a good part of a second.
GC_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Metrics:
    """The figures of one app (one server process)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        ProcessCollector(registry=self.registry)  # memory, CPU, start time (on Linux)
        self.moves = Counter(
            "dicepoker_moves_accepted",
            "Intents accepted and committed by this process (rolls, moves and forfeits, of "
            "people, bots and turn clocks).",
            registry=self.registry,
        )
        self.refusals = Counter(
            "dicepoker_refusals",
            "Messages refused on the games' WebSockets, by refusal code (docs/api.md).",
            ["code"],
            registry=self.registry,
        )
        self.sockets = Gauge(
            "dicepoker_websocket_connections",
            "Game WebSocket connections open on this process.",
            registry=self.registry,
        )
        self.intent_seconds = Histogram(
            "dicepoker_intent_broadcast_seconds",
            "From a client's intent arriving on its WebSocket to its event committed and handed "
            "to the broadcaster (every local connection's queue and the Redis bus).",
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.bot_seconds = Histogram(
            "dicepoker_bot_decision_seconds",
            "A bot's decision, from asking to its action (in the bot worker, or a thread); the "
            "bots' delay is not in it.",
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.commit_seconds = Histogram(
            "dicepoker_db_commit_seconds",
            "One commit of moves to the database (a group commit: one transaction for the "
            "moves of every game that arrived together).",
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.loop_lag = Histogram(
            "dicepoker_event_loop_lag_seconds",
            "How late the event loop wakes a task that asked to sleep: a busy loop delays every "
            "socket and commit of the process by about this much.",
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.gc_seconds = Histogram(
            "dicepoker_gc_pause_seconds",
            "The cyclic garbage collector's pauses, by generation (0 the youngest, 2 a full "
            "collection): each stops the whole process, every game and socket of it.",
            ["generation"],
            buckets=GC_BUCKETS,
            registry=self.registry,
        )
        self._gc_by_generation = [self.gc_seconds.labels(str(g)) for g in range(3)]
        self._gc_started = 0.0
        self._lag_watch: asyncio.Task[None] | None = None

    def watch_loop(self) -> None:
        """Start timing the running event loop's lag (`loop_lag`) and the collector's pauses
        (`gc_seconds`), until `close`."""
        if self._lag_watch is None:
            self._lag_watch = asyncio.create_task(self._watch_lag())
            gc.callbacks.append(self._collected)

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        """The collector's callback (`gc.callbacks`): times each collection, start to stop."""
        if phase == "start":
            self._gc_started = time.perf_counter()
        elif 0 <= info["generation"] < len(self._gc_by_generation):
            self._gc_by_generation[info["generation"]].observe(
                time.perf_counter() - self._gc_started
            )

    async def _watch_lag(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            await asyncio.sleep(LAG_TICK)
            self.loop_lag.observe(max(0.0, loop.time() - asked - LAG_TICK))

    async def close(self) -> None:
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        if self._lag_watch is not None:
            self._lag_watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lag_watch
            self._lag_watch = None

    def count_games(self, games: Callable[[], Iterable[LiveGame]]) -> None:
        """Expose `dicepoker_games{status}`, counted from `games()` at each scrape."""
        self.registry.register(_GamesByStatus(games))

    def count_harvests(self, waiting: Callable[[], int], skipped: Callable[[], int]) -> None:
        """Expose the puzzles' harvests waiting in this process and the games not harvested
        because too many waited (`dicepoker.server.community.puzzles.HARVESTS_WAITING`), read at
        each scrape: a count that keeps growing says the analysis worker cannot keep up with the
        games that end."""
        self.registry.register(
            _Background(
                ("dicepoker_puzzle_harvests_waiting", _HARVESTS_WAITING),
                ("dicepoker_puzzle_harvests_skipped", _HARVESTS_SKIPPED),
                waiting,
                skipped,
            )
        )

    def count_accuracies(self, waiting: Callable[[], int], left: Callable[[], int]) -> None:
        """Expose the account games whose accuracy waits in this process and those left to the
        next start-up's sweep because too many waited (`dicepoker.server.community.results
        .ACCURACIES_WAITING`), read at each scrape."""
        self.registry.register(
            _Background(
                ("dicepoker_accuracies_waiting", _ACCURACIES_WAITING),
                ("dicepoker_accuracies_left", _ACCURACIES_LEFT),
                waiting,
                left,
            )
        )

    def exposition(self) -> bytes:
        """Every figure, in Prometheus's text format."""
        return generate_latest(self.registry)


class _GamesByStatus(Collector):
    """The games this process holds in memory, by status, counted when scraped (the master's
    dictionary of live games: no query)."""

    def __init__(self, games: Callable[[], Iterable[LiveGame]]) -> None:
        self.games = games

    def collect(self) -> Iterator[Metric]:
        counts = collections.Counter(live.status for live in self.games())
        family = GaugeMetricFamily(
            "dicepoker_games",
            "Games this process holds in memory (being played or watched here), by status.",
            labels=["status"],
        )
        for status in sorted({*STATUSES, *counts}):
            family.add_metric([status], counts[status])
        yield family


_HARVESTS_WAITING = (
    "Finished games whose puzzles' harvest (an analysis) waits or runs in this process."
)
_HARVESTS_SKIPPED = (
    "Games that ended while the most harvests a process keeps waited: not harvested."
)
_ACCURACIES_WAITING = (
    "Finished account games whose accuracy (an analysis) waits or is computed in this process."
)
_ACCURACIES_LEFT = (
    "Account games that ended while the most accuracies a process keeps waited: left to the "
    "next start-up's sweep."
)


class _Background(Collector):
    """A kind of background analysis, read from its owner when scraped: how many wait (a
    gauge), and how many were not queued because too many waited (a counter)."""

    def __init__(
        self,
        waiting_metric: tuple[str, str],
        dropped_metric: tuple[str, str],
        waiting: Callable[[], int],
        dropped: Callable[[], int],
    ) -> None:
        self.waiting_metric = waiting_metric
        self.dropped_metric = dropped_metric
        self.waiting = waiting
        self.dropped = dropped

    def collect(self) -> Iterator[Metric]:
        name, documentation = self.waiting_metric
        yield GaugeMetricFamily(name, documentation, value=self.waiting())
        name, documentation = self.dropped_metric
        yield CounterMetricFamily(name, documentation, value=self.dropped())


class MovesCounted(Broadcaster):
    """The broadcaster, counting each event this process committed (the master hands every
    committed event to `committed`, once)."""

    def __init__(self, bus: Bus, moves: Counter) -> None:
        super().__init__(bus)
        self.moves = moves

    async def committed(self, live: LiveGame, stored: StoredEvent) -> None:
        self.moves.inc()
        await super().committed(live, stored)


class TimedThinker:
    """A bot thinker whose every decision is timed."""

    def __init__(self, thinker: Thinker, seconds: Histogram) -> None:
        self.thinker = thinker
        self.seconds = seconds

    async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
        with self.seconds.time():
            return await self.thinker.choose(live, seat, state)

    def close(self) -> None:
        self.thinker.close()
