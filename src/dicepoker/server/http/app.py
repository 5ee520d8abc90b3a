"""The server's application: the REST API and the WebSocket protocol (see docs/api.md).

`create_api` composes the routers (server/http/routes/), the error handlers
(server/http/errors.py) and the middleware around the services one app shares
(server/services.py: the store, the game master and its watchers). The pages for people are
added on top of it by the site (dicepoker.site): the server never imports the web pages.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator, Callable
from datetime import datetime

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware

from dicepoker.master.live import utcnow
from dicepoker.server.http.caching import StaticCache
from dicepoker.server.http.errors import describe_errors, install_error_handlers
from dicepoker.server.http.origin import CookieOrigin
from dicepoker.server.http.request_ids import RequestIds
from dicepoker.server.http.routes import (
    accounts,
    daily,
    games,
    health,
    players,
    puzzles,
    records,
    schema,
    socket,
    variants,
)
from dicepoker.server.http.security import BodyLimit, SecurityHeaders
from dicepoker.server.runtime.collector import Pacer
from dicepoker.server.services import Services
from dicepoker.server.settings import Settings, default_database

__all__ = ["MACHINE_PATHS", "create_api", "tune_garbage_collector"]

MAX_BODY_BYTES = 1024 * 1024
GZIP_MIN_BYTES = 500  # smaller answers gain too little to be worth compressing
#: Paths answered by machines' rules (the API's error shape), not with a page for people.
MACHINE_PATHS = ("/api/", "/static/", "/i18n/", "/livez", "/readyz", "/metrics")
# The collector's thresholds (CPython's defaults: 700, 10, 10). The youngest generation's count
# is allocations less deallocations, and a move frees the old state and views (old objects) as it
# makes new ones, so the young generation holds far more objects than its count says, and each
# collection that the count starts is a long pause for every game. So the generations are
# collected on the clock (`collector.Pacer`: the young one often, each pause short), and these
# counts are only a net for a burst of allocations that the ticks would not keep up with.
GC_YOUNG = 100_000
GC_MIDDLE = 80
GC_OLD = 20


def tune_garbage_collector() -> None:
    """Keep the cyclic garbage collector's pauses short for a server holding many live games.

    A full collection walks every tracked object, and with a thousand games and their sockets
    that is a pause of most of a second for everyone. What exists at start-up (modules, tables,
    loaded games) is moved out of its reach (`gc.freeze`). From then on the generations are
    collected on the clock (`collector.Pacer`, started beside this), the young one often enough
    that each of its collections is short; the collector's own counts (`GC_YOUNG`) are a net.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, GC_MIDDLE, GC_OLD)


def create_api(
    settings: Settings | None = None, *, now: Callable[[], datetime] = utcnow
) -> FastAPI:
    """The API's app; `now` is its clock for the daily challenge's days (tests move it)."""
    settings = settings or Settings(database=default_database())
    services = Services.build(settings, now)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await services.start()
        tune_garbage_collector()
        pacer = Pacer()
        pacer.start()
        yield
        await pacer.close()
        await services.close()

    app = FastAPI(title="dicepoker", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.services = services
    app.add_middleware(StaticCache)
    # Text answers (pages, scripts, catalogs, JSON) are sent compressed to those that take gzip.
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES)
    app.add_middleware(CookieOrigin)  # a session cookie on a POST from another site: 403
    app.add_middleware(BodyLimit, limit=max(MAX_BODY_BYTES, settings.max_record_bytes))
    app.add_middleware(SecurityHeaders)  # on every response, 413s included
    app.add_middleware(RequestIds)  # outermost: every answer and log line has its request's id
    install_error_handlers(app)
    describe_errors(app)
    for module in (games, records, variants, schema, socket, accounts, players, daily, puzzles):
        app.include_router(module.router)
    app.include_router(health.router)
    if settings.metrics:  # else /metrics is not found: not public unless asked for
        app.include_router(health.metrics_router)
    return app
