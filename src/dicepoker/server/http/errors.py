"""Errors of the web API: one shape, and the one table from refusal codes to HTTP statuses.

Every error is `{"error": {"code": ..., "message": ...}}` (a record's error adds its `turn`).
The master's refusals carry a code, never a status: `STATUS` says which status each code is
answered with over HTTP (the WebSocket sends the code as it is). Unknown routes, invalid bodies,
rate limits and crashes answer in the same shape; a crash shows nothing of the server's insides.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from dicepoker.master import Refusal
from dicepoker.protocol import MAX_DIGITS
from dicepoker.server.http.security import SECURITY_HEADERS
from dicepoker.server.runtime.limits import RateLimited
from dicepoker.server.runtime.logs import REQUEST_ID

log = logging.getLogger("dicepoker.server")

#: The HTTP status of each refusal code the REST routes can answer (any other code: 400).
STATUS: dict[str, int] = {
    "bad_request": 400,
    "bad_name": 400,
    "bad_password": 400,
    "not_logged_in": 401,
    "bad_login": 401,
    "spectator": 403,
    "competitive": 403,
    "daily_private": 403,
    "log_in_for_daily": 401,
    "bad_token": 403,
    "bad_origin": 403,
    "account_disabled": 403,
    "not_found": 404,
    "no_puzzle": 404,
    "method_not_allowed": 405,
    "no_open_seat": 409,
    "seat_taken": 409,
    "game_over": 409,
    "abandoned": 409,
    "not_finished": 409,
    "daily_played": 409,
    "seed_withheld": 409,
    "name_taken": 409,
    "already_seated": 409,
    "too_large": 413,
    "headers_too_large": 431,
    "bad_options": 422,
    "bad_seats": 422,
    "bad_record": 422,
    "rate_limited": 429,
    "internal": 500,
}


def status_of(code: str) -> int:
    return STATUS.get(code, 400)


def error_response(code: str, message: str, **extra: Any) -> JSONResponse:
    """The API's error shape, with the status of `code`."""
    body = {"error": {"code": code, "message": message, **extra}}
    return JSONResponse(body, status_code=status_of(code))


async def _on_refusal(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refusal)
    return error_response(exc.code, exc.message, **exc.extra)


#: What a JSON body the framework cannot read is answered with: its reader's refusals that are
#: not syntax errors (bytes that are not UTF-8, nesting past the recursion limit, an integer past
#: Python's digit limit) reach us only as one 400 with no reason.
UNREADABLE_BODY = (
    "the body is not JSON that can be read: text that is not UTF-8, lists or objects nested "
    f"too deep, or a number of more than {MAX_DIGITS} digits"
)


async def http_error(_request: Request, exc: Exception) -> JSONResponse:
    """Unknown routes and methods answer in the API's error shape too."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError | RecursionError):
        return error_response("bad_request", UNREADABLE_BODY)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    message = {404: "no such page", 405: "method not allowed here"}.get(
        exc.status_code, str(exc.detail)
    )
    body = {"error": {"code": code, "message": message}}
    response = JSONResponse(body, status_code=exc.status_code)
    response.headers.update(exc.headers or {})
    return response


async def _on_invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = f"{where}: {first.get('msg', 'invalid')}" if where else "invalid request"
    return error_response("bad_request", message)


async def _on_rate_limited(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RateLimited)
    response = error_response(
        "rate_limited", f"too many requests: try again in {exc.retry_after} s"
    )
    response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def _on_crash(_request: Request, exc: Exception) -> JSONResponse:
    log.exception("internal error", exc_info=exc)
    response = error_response("internal", "something went wrong on the server")
    # This handler answers outside the middleware stack: add the headers here.
    response.headers.update(SECURITY_HEADERS)
    request_id = REQUEST_ID.get()
    if request_id is not None:
        response.headers["X-Request-ID"] = request_id
    return response


_VALIDATION = "#/components/schemas/HTTPValidationError"


def describe_errors(app: FastAPI) -> None:
    """Make the OpenAPI document say only what the API answers. An invalid request is answered
    400 `bad_request` in the API's shape, never with FastAPI's own 422 validation body, so that
    description is taken out of every route (a route that answers 422 itself, a record or options
    it refuses, documents its own 422 in the error shape)."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = generate()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                answers = operation.get("responses", {})
                if _VALIDATION in json.dumps(answers.get("422", {})):
                    del answers["422"]
        components = schema.get("components", {}).get("schemas", {})
        if _VALIDATION not in json.dumps(schema.get("paths", {})):
            components.pop("HTTPValidationError", None)
            components.pop("ValidationError", None)
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(Refusal, _on_refusal)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, _on_invalid)
    app.add_exception_handler(RateLimited, _on_rate_limited)
    app.add_exception_handler(Exception, _on_crash)
