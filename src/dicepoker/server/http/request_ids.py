"""Request ids: every HTTP request and WebSocket connection is handled under an id, echoed in
the `X-Request-ID` response header and written in each log line logged while handling it.

The id is the request's own `X-Request-ID` when that is a sane short token (what a reverse
proxy in front sets, nginx's `$request_id`, so one id follows a request through both logs),
else a new random one: a client cannot put spaces, quotes or line breaks into the logs. Each
request ends with one log line (`dicepoker.request`, at INFO: shown by `--log-json`, else
silent) saying what was asked, by which client address (a trusted proxy's X-Forwarded-For,
`--forwarded-allow-ips`), how it was answered and how long it took; the path only, never the
query (a simple client's WebSocket URL may carry its seat token there).
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dicepoker.server.runtime.logs import REQUEST_ID

HEADER: Final = b"x-request-id"
#: An incoming id taken as it is: up to 128 letters, digits and `._:+/=@-` (hex, UUIDs, base64).
SANE: Final = re.compile(r"[A-Za-z0-9._:+/=@-]{1,128}")

log = logging.getLogger("dicepoker.request")


def incoming_id(scope: Scope) -> str | None:
    """The request's own `X-Request-ID`, when it is sane (else None)."""
    for name, value in scope.get("headers") or ():
        if bytes(name).lower() == HEADER:
            text = bytes(value).decode("latin-1")
            return text if SANE.fullmatch(text) else None
    return None


class RequestIds:
    """Handles each HTTP request and WebSocket connection under its id (the outermost
    middleware, so that every answer carries it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = incoming_id(scope) or secrets.token_hex(16)
        reset = REQUEST_ID.set(request_id)
        started = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            kind = message["type"]
            if kind in ("http.response.start", "websocket.accept", "websocket.http.response.start"):
                status = int(message.get("status", 101))
                headers = list(message.get("headers") or [])
                headers.append((HEADER, request_id.encode()))
                message = {**message, "headers": headers}
            elif kind == "websocket.close" and not status:
                status = 403  # closed before it was accepted: the server answers 403
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except BaseException:
            # The id stays set: the app's crash handler, outside this middleware, logs the
            # failure and answers 500 with the id (each request runs in a task of its own, whose
            # context ends with it).
            _log_request(scope, status or 500, started)
            raise
        _log_request(scope, status, started)
        REQUEST_ID.reset(reset)


def _log_request(scope: Scope, status: int, started: float) -> None:
    if not log.isEnabledFor(logging.INFO):
        return  # (the usual case without --log-json: nothing to build)
    method = str(scope.get("method", "WS"))
    path = str(scope.get("path", ""))
    seconds = round(time.perf_counter() - started, 6)
    client = scope.get("client")  # a trusted proxy's X-Forwarded-For when there is one
    extra = {
        "method": method,
        "path": path,
        "status": status,
        "seconds": seconds,
        "client": str(client[0]) if client else None,
    }
    log.info("%s %s %s", method, path, status, extra=extra)
