"""The web application: REST API, WebSocket protocol and pages (see docs/api.md).

`create_app` composes the routers (server/routes/), the error handlers (server/errors.py) and
the middleware around the services one app shares (server/services.py: the store, the game
master, its bot driver and turn clock).
"""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import AsyncIterator, Callable
from datetime import datetime
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import Response

from dicepoker.master.live import utcnow
from dicepoker.server.caching import StaticCache
from dicepoker.server.collector import Pacer
from dicepoker.server.errors import describe_errors, http_error, install_error_handlers
from dicepoker.server.origin import CookieOrigin
from dicepoker.server.request_ids import RequestIds
from dicepoker.server.routes import (
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
from dicepoker.server.security import BodyLimit, SecurityHeaders
from dicepoker.server.services import Services
from dicepoker.server.settings import SETTINGS_ENV, Settings, default_database

__all__ = ["SETTINGS_ENV", "Settings", "app_from_environment", "create_app", "default_database"]

MAX_BODY_BYTES = 1024 * 1024
GZIP_MIN_BYTES = 500  # smaller answers gain too little to be worth compressing
#: Paths answered by machines' rules (the API's error shape), not with a page for people.
MACHINE_PATHS = ("/api/", "/static/", "/i18n/", "/livez", "/readyz", "/metrics")
# The collector's thresholds (CPython's defaults: 700, 10, 10). The youngest generation's count
# is allocations less deallocations, and a move frees the old state and views (old objects) as it
# makes new ones, so the young generation holds far more objects than its count says: with 20,000
# it held 120,000-150,000 objects at 2,000 games, and each collection of it paused the loop for
# 0.1-0.4 s; with 5,000, about 115 ms at 4,000 games. So the generations are collected on the
# clock (`collector.Pacer`: the young one every 50 ms, pauses of about a millisecond), and these
# counts are only a net for a burst of allocations that the ticks would not keep up with.
GC_YOUNG = 100_000
GC_MIDDLE = 80
GC_OLD = 20


def app_from_environment() -> FastAPI:
    """The app of one worker process of `dicepoker serve --workers N` (settings in the env)."""
    return create_app(Settings.from_json(os.environ[SETTINGS_ENV]))


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


def create_app(
    settings: Settings | None = None, *, now: Callable[[], datetime] = utcnow
) -> FastAPI:
    """The app; `now` is its clock for the daily challenge's days (tests move it)."""
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
    static = _web_static()
    if static is not None:
        from dicepoker.web.pages import router as pages
        from dicepoker.web.player_pages import router as player_pages
        from dicepoker.web.puzzle_pages import router as puzzle_pages

        app.include_router(pages)
        app.include_router(player_pages)
        app.include_router(puzzle_pages)
        app.mount("/static", StaticFiles(directory=static), name="static")
        _pages_answer_not_found(app)
    return app


def _pages_answer_not_found(app: FastAPI) -> None:
    """An unknown page answers an HTML page in the visitor's language; the API (and the other
    paths for machines) keeps its JSON error shape."""
    from dicepoker.web.pages import not_found_page

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        if exc.status_code == 404 and not request.url.path.startswith(MACHINE_PATHS):
            return await not_found_page(request)
        return await http_error(request, exc)

    app.add_exception_handler(StarletteHTTPException, on_http_error)


def _web_static() -> Path | None:
    try:
        from dicepoker.web.pages import STATIC_DIR
    except ImportError:
        return None
    return Path(STATIC_DIR)
