"""What the routes of one web app share: its store, its game master and the master's helpers
(bot driver, turn clock), its rate limiters (shared through Redis when there is one:
server/runtime/limits.py) and its analysis cache.

`Services.build` wires the master to the SQL store, the Redis bus (or the local one), its
watchers (bots, clock, chances, results, puzzles) and the work queue over the worker processes;
the routes reach them through the dependencies below.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fastapi import Depends, Request, WebSocket

from dicepoker.daily import par
from dicepoker.engine import Action, GameState
from dicepoker.master import (
    BotDriver,
    GameMaster,
    InThread,
    LiveGame,
    Refusal,
    Thinker,
    TurnClock,
)
from dicepoker.master.chances import ChancesWatcher, Forecast, Position
from dicepoker.master.live import utcnow
from dicepoker.server.community.accounts import Accounts
from dicepoker.server.community.analysis import (
    Advising,
    AnalysisCache,
    Runner,
    advise,
    advise_in_thread,
    in_thread,
)
from dicepoker.server.community.daily import DailyService, ParRunner, par_in_thread
from dicepoker.server.community.devices import Devices
from dicepoker.server.community.puzzles import Puzzles
from dicepoker.server.community.ratings import RatingBook
from dicepoker.server.community.results import Results
from dicepoker.server.runtime.bus import make_bus
from dicepoker.server.runtime.limits import RateLimited, RateLimiter, SharedRedis, SocketCap
from dicepoker.server.runtime.metrics import Metrics, MovesCounted, TimedThinker
from dicepoker.server.runtime.work import WorkQueue
from dicepoker.server.settings import Settings
from dicepoker.server.storage.store import Store


class PoolThinker:
    """Bots think in the worker processes of the `WorkQueue`, by level (a worker keeps one bot
    per game seat, so a bot's plan for its turn survives between decisions)."""

    def __init__(self, pool: WorkQueue) -> None:
        self.pool = pool

    async def choose(self, live: LiveGame, seat: int, state: GameState) -> Action:
        level = live.seats[seat]["level"]
        return await self.pool.choose(live.id, seat, level, state)

    def close(self) -> None:
        self.pool.close()


async def chances_in_thread(position: Position) -> tuple[float, ...] | None:
    """Each seat's chance of winning, judged in a thread of the server's process (no workers)."""
    from dicepoker.winprob import forecast

    found = position()
    if found is None:
        return None
    return await asyncio.to_thread(forecast, *found)


def advising_in(pool: WorkQueue) -> Advising:
    """The advisor's values computed in the work queue, ahead of the bots and the chances."""

    async def advising(state: GameState) -> dict[str, Any]:
        return await pool.on_state(advise, state)

    return advising


def pool_par(pool: WorkQueue) -> ParRunner:
    """The daily par computed in a bot worker process (a second or two, once a day per preset:
    the worker has the expert's tables already, and the server's interpreter stays free)."""

    async def run(variant: str, options: dict[str, Any], seed: str) -> int:
        return await pool.run(par, variant, options, seed)

    return run


@dataclass
class Services:
    settings: Settings
    store: Store
    master: GameMaster
    driver: BotDriver
    clock: TurnClock
    # Per-address limits: what creates games, seats and records; what costs the server CPU (the
    # advisor and the analyses).
    creating: RateLimiter
    analysing: RateLimiter
    # Quick reactions per game seat (a table is not a chat: a few, then one every few seconds).
    reacting: RateLimiter
    daily: DailyService
    # Accounts, and their limits: sign-ups and logins per address; wrong passwords per name,
    # which spares the account's known devices (community/devices.py).
    accounts: Accounts
    logging_in: RateLimiter
    devices: Devices
    # What finished games leave their accounts: results, ratings, accuracy.
    ratings: RatingBook
    results: Results
    # Puzzles made from the finished games' worst decisions of people.
    puzzles: Puzzles
    # This process's figures (served at /metrics when the settings say so).
    metrics: Metrics
    # Open game WebSockets per address; the limits' Redis connection (None: one process).
    sockets: SocketCap = field(default_factory=lambda: SocketCap(0, None))
    shared: SharedRedis | None = None
    analyses: AnalysisCache = field(default_factory=AnalysisCache)
    # Where a hint is computed (a worker process, at a person's priority, where there are).
    advising: Advising = advise_in_thread
    # The work queue over the worker processes (None: threads of this process).
    work: WorkQueue | None = None

    @classmethod
    def build(cls, settings: Settings, now: Callable[[], datetime] = utcnow) -> Services:
        """The services of one app; `now` is the clock of the daily challenge's days and of
        withheld seeds (tests move it)."""
        metrics = Metrics()
        store = Store(settings.database, on_commit=metrics.commit_seconds.observe)
        pool = WorkQueue(settings.bot_workers) if settings.bot_workers > 0 else None
        broadcaster = MovesCounted(make_bus(settings.redis_url), metrics.moves)
        master = GameMaster(
            store, broadcaster, now=now, abandon_after=settings.abandon_after * 3600
        )
        if settings.win_probability:
            judge: Forecast = pool.chances if pool is not None else chances_in_thread
            ChancesWatcher(master, judge)
        metrics.count_games(lambda: master.games.values())
        thinker: Thinker = PoolThinker(pool) if pool is not None else InThread()
        thinker = TimedThinker(thinker, metrics.bot_seconds)
        runner = pool_par(pool) if pool is not None else par_in_thread
        # The analyses and a puzzle guess's judgement in the work queue.
        analyses = AnalysisCache(runner=pool.analyse) if pool is not None else AnalysisCache()
        answering: Runner = pool.answer if pool is not None else in_thread
        ratings = RatingBook(store)
        shared = SharedRedis(settings.redis_url) if settings.redis_url else None

        def limiter(name: str, rate: float, burst: int) -> RateLimiter:
            return RateLimiter(name, rate, burst, shared)

        puzzles = Puzzles(store, master, analyses, answering)
        metrics.count_harvests(lambda: puzzles.waiting, lambda: puzzles.skipped)
        results = Results(store, master, ratings, analyses)
        metrics.count_accuracies(lambda: results.waiting, lambda: results.left)
        return cls(
            settings=settings,
            analyses=analyses,
            advising=advising_in(pool) if pool is not None else advise_in_thread,
            work=pool,
            ratings=ratings,
            results=results,
            puzzles=puzzles,
            metrics=metrics,
            store=store,
            master=master,
            driver=BotDriver(master, thinker, delay=settings.bot_delay),
            clock=TurnClock(master),
            creating=limiter("creating", settings.http_rate, settings.http_burst),
            analysing=limiter("analysing", settings.analysis_rate, settings.analysis_burst),
            reacting=limiter("reacting", settings.reaction_rate, settings.reaction_burst),
            daily=DailyService(store, master, par_runner=runner, now=now),
            accounts=Accounts(store),
            logging_in=limiter("logging_in", settings.login_rate, settings.login_burst),
            devices=Devices(
                store,
                limiter("failed_logins", settings.login_name_rate, settings.login_name_burst),
            ),
            sockets=SocketCap(settings.ws_connections, shared),
            shared=shared,
        )

    async def start(self) -> None:
        await self.store.migrate()
        self.metrics.watch_loop()
        await self.master.start()
        await self.results.sweep()
        await self.puzzles.sweep()

    async def close(self) -> None:
        await self.metrics.close()
        await self.daily.close()
        await self.master.close()
        await self.store.close()
        await self.sockets.stop()
        if self.shared is not None:
            await self.shared.close()


def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found


def socket_services(websocket: WebSocket) -> Services:
    found: Services = websocket.app.state.services
    return found


async def live_game(game_id: str, request: Request) -> LiveGame:
    """The game of the route's `game_id` (404 `not_found` when there is none)."""
    live = await services(request).master.load(game_id)
    if live is None:
        raise Refusal("not_found", "no such game")
    return live


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _creating(request: Request) -> None:
    wait = await services(request).creating.check(_client(request))
    if wait is not None:
        raise RateLimited(wait)


async def _analysing(request: Request) -> None:
    wait = await services(request).analysing.check(_client(request))
    if wait is not None:
        raise RateLimited(wait)


async def _logging_in(request: Request) -> None:
    wait = await services(request).logging_in.check(_client(request))
    if wait is not None:
        raise RateLimited(wait)


#: Route dependencies: a token of the client address's bucket, or 429.
CREATING = [Depends(_creating)]
ANALYSING = [Depends(_analysing)]
LOGGING_IN = [Depends(_logging_in)]
