"""Defences of the web app that are not game rules: rate limits and security headers.

- `SocketLimiter`: one per WebSocket connection; over the limit a message is refused, and a
  connection that keeps flooding is closed.
- `SecurityHeaders`: Content-Security-Policy, X-Frame-Options and friends on every HTTP response,
  and Strict-Transport-Security on those served over https.
- `BodyLimit`: request bodies over a size are refused (413) before the app reads them, however
  they are sent (with a Content-Length, or chunked).

The limits per address (and per account name), shared by several processes through Redis when
there is one, are in server/runtime/limits.py with their token buckets.

A rate of 0 (or less) switches a limit off (tests, load benchmarks).
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, MutableMapping
from enum import Enum
from typing import Any, Final

from dicepoker.server.runtime.limits import TokenBucket

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: WebSocket close code for a connection closed for flooding (after HTTP's 429).
CLOSE_RATE_LIMITED: Final = 4429
#: WebSocket close code (the standard "try again later") for a connection over its address's cap.
CLOSE_TRY_AGAIN_LATER: Final = 1013

#: The pages load only their own scripts, styles, images and sockets: no inline script or style,
#: no plug-ins, no framing by other sites.
CSP: Final = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
#: FastAPI's interactive API docs (/api/docs) load Swagger UI from its CDN with an inline script.
DOCS_CSP: Final = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
DOCS_PREFIX: Final = "/api/docs"

#: Sent with every HTTP response (a response that already has one of them keeps its own).
SECURITY_HEADERS: Final[dict[str, str]] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
}
#: Sent only with a response to a request that came over https (its scope's scheme, which uvicorn
#: takes from X-Forwarded-Proto when the proxy is trusted): over plain http a browser ignores it,
#: and a site reached by http alone must never be pinned to https.
HSTS: Final = ("strict-transport-security", "max-age=63072000; includeSubDomains")


class Verdict(Enum):
    ACCEPT = "accept"
    REFUSE = "refuse"  # answer `rate_limited`, do not process
    CLOSE = "close"  # the connection kept flooding: close it


class SocketLimiter:
    """The rate limit of one WebSocket connection.

    Messages take tokens from a bucket (`rate` a second, `burst` at once). A message with no
    token left is refused; every refusal takes a token from a second bucket (`burst` at once,
    one a second back), and when that one is empty too the connection is closed: a client that
    briefly sends too much is told so, a client that keeps flooding is cut off.
    """

    def __init__(self, rate: float, burst: int) -> None:
        self.messages = TokenBucket(rate, burst)
        self.refusals = TokenBucket(1.0 if rate > 0 else 0.0, burst)

    def check(self, now: float | None = None) -> Verdict:
        now = time.monotonic() if now is None else now
        if self.messages.take(now):
            return Verdict.ACCEPT
        if self.refusals.take(now):
            return Verdict.REFUSE
        return Verdict.CLOSE


class SecurityHeaders:
    """Adds `SECURITY_HEADERS` to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        docs = str(scope.get("path", "")).startswith(DOCS_PREFIX)
        https = scope.get("scheme") == "https"

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {bytes(name).lower() for name, _ in headers}
                for name, value in SECURITY_HEADERS.items():
                    if name == "Content-Security-Policy" and docs:
                        value = DOCS_CSP
                    if name.lower().encode() not in present:
                        headers.append((name.lower().encode(), value.encode()))
                if https and HSTS[0].encode() not in present:
                    headers.append((HSTS[0].encode(), HSTS[1].encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Refuses request bodies over `limit` bytes with 413 before the app reads them.

    A declared Content-Length over the limit is refused at once. A body without one (chunked) is
    read here first, up to the limit, and handed to the app only when it fits: the app's own body
    parsing would turn an error raised while it reads into its 400.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            if declared.isdigit() and int(declared) > self.limit:
                await _too_large(send)
                return
            await self.app(scope, receive, send)  # the server reads no more than it declared
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: nobody to answer
                return
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > self.limit:
                await _too_large(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # what follows the body (a disconnect)
            replayed = True
            return {"type": "http.request", "body": b"".join(chunks), "more_body": False}

        await self.app(scope, replay, send)


async def _too_large(send: Send) -> None:
    body = json.dumps({"error": {"code": "too_large", "message": "request body too large"}})
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})
