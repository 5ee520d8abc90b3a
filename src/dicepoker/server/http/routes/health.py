"""Routes for machines (docs/deploy.md, "Health and metrics"): `/livez`, `/readyz`, `/metrics`.

`/livez` says the process answers, and touches nothing else: a restart would not mend a
database that is down, so liveness never depends on one. `/readyz` says whether this process
can serve now: the database answers a trivial query and, when Redis is configured, Redis
answers PING; the checks run together, each within `READY_TIMEOUT`, so that a hung dependency
is reported as failing instead of hanging the probe. `/metrics` (Prometheus's text format) is
a router of its own, included only when the settings ask for it (`metrics_router`). None of
these is part of the API's OpenAPI document.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Awaitable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from dicepoker.server.runtime.bus import RedisBus
from dicepoker.server.runtime.metrics import CONTENT_TYPE
from dicepoker.server.services import Services, services

log = logging.getLogger("dicepoker.server")

READY_TIMEOUT = 2.0  # seconds each readiness check may take
NO_STORE = {"Cache-Control": "no-store"}

router = APIRouter(include_in_schema=False)
metrics_router = APIRouter(include_in_schema=False)


@router.get("/livez")
async def livez() -> JSONResponse:
    """The process answers."""
    return JSONResponse({"live": True}, headers=NO_STORE)


@router.get("/readyz")
async def readyz(request: Request) -> JSONResponse:
    """200 `{"ready": true, "failing": []}` when every dependency answers in time, else 503
    naming the parts that failed (`database`, `redis`)."""
    checks = _checks(services(request))
    answered = await asyncio.gather(*(_answers(name, check) for name, check in checks.items()))
    failing = [name for name, ok in zip(checks, answered, strict=True) if not ok]
    return JSONResponse(
        {"ready": not failing, "failing": failing},
        status_code=503 if failing else 200,
        headers=NO_STORE,
    )


def _checks(app: Services) -> dict[str, Awaitable[None]]:
    checks: dict[str, Awaitable[None]] = {"database": app.store.ping()}
    bus = app.master.broadcaster.bus
    if app.settings.redis_url and isinstance(bus, RedisBus):
        checks["redis"] = bus.ping()
    return checks


async def _answers(name: str, check: Awaitable[None]) -> bool:
    """Whether `check` answered within `READY_TIMEOUT` (a failure is logged, with its cause)."""
    try:
        await asyncio.wait_for(check, READY_TIMEOUT)
    except TimeoutError:
        log.warning("readiness: %s did not answer in %s s", name, READY_TIMEOUT)
        return False
    except Exception as exc:
        log.warning("readiness: %s failed: %s", name, str(exc) or type(exc).__name__)
        return False
    return True


@metrics_router.get("/metrics")
async def metrics(request: Request) -> Response:
    """This process's figures (docs/deploy.md); with `Settings.metrics_token`, only for a
    request that sends it (`Authorization: Bearer TOKEN`; else 401)."""
    app = services(request)
    token = app.settings.metrics_token
    if token and not _bearer_is(request.headers.get("authorization"), token):
        raise StarletteHTTPException(
            401,
            "the metrics need this server's metrics token (Authorization: Bearer TOKEN)",
            headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    return Response(app.metrics.exposition(), media_type=CONTENT_TYPE, headers=NO_STORE)


def _bearer_is(header: str | None, token: str) -> bool:
    """Whether an Authorization header carries `token` as its bearer token (compared in
    constant time)."""
    scheme, _, given = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())
