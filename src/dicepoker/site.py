"""The whole site: the server's API (dicepoker.server) with the pages for people
(dicepoker.web) on top. The imports run one way: the pages use the server's services, the
server knows nothing of the pages, and this module, which `dicepoker serve` runs, puts them
together.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from dicepoker.master.live import utcnow
from dicepoker.server.http.app import MACHINE_PATHS, create_api
from dicepoker.server.http.errors import http_error
from dicepoker.server.runtime.lifeline import (
    KILL_AFTER_SECONDS,
    PARENT_ENV,
    die_with_parent,
    stop_within,
)
from dicepoker.server.settings import SETTINGS_ENV, Settings, default_database

__all__ = [
    "SETTINGS_ENV",
    "Settings",
    "app_from_environment",
    "create_app",
    "default_database",
    "worker_app",
]


def create_app(
    settings: Settings | None = None, *, now: Callable[[], datetime] = utcnow
) -> FastAPI:
    """The site's app: the API and, where the web pages are installed, the pages and their
    static files; `now` is its clock for the daily challenge's days (tests move it)."""
    app = create_api(settings, now=now)
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


def app_from_environment() -> FastAPI:
    """The app of one server process of `dicepoker serve --workers N` (settings in the env)."""
    return create_app(Settings.from_json(os.environ[SETTINGS_ENV]))


def worker_app() -> FastAPI:
    """uvicorn's app factory in each server process of `dicepoker serve --workers N`: the
    process binds itself to the supervisor (whose death stops it with SIGTERM, as a normal stop
    does: sockets closed, bots and clocks handed back), is killed KILL_AFTER_SECONDS after a
    SIGTERM or its supervisor's death if its stop hangs, then builds its app from the settings
    in the environment."""
    die_with_parent(int(os.environ[PARENT_ENV]), signal.SIGTERM, kill_after=KILL_AFTER_SECONDS)
    # uvicorn has put its SIGTERM handler in place by now (this factory runs inside its
    # `capture_signals`): a stop it starts is bounded too.
    stop_within(KILL_AFTER_SECONDS)
    return app_from_environment()


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
