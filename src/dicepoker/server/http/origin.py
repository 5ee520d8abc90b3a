"""Cross-site request forgery defence for the session cookie.

A browser sends the session cookie with a request from any site that posts to ours (SameSite=Lax
stops most, not all: a top-level form POST from a sibling subdomain, an old browser). So every
state-changing request (POST, PUT, PATCH, DELETE) that carries the session cookie must say that
it comes from a page of ours: its `Origin` (or, when a browser sends none, its `Referer`) must
name this host, over the scheme the request came by (an `http://` page is not the `https://`
site: whoever can alter plain http traffic could post from it). Requests without the cookie are
not affected: anonymous play and seat tokens (sent as bearer tokens, which no other site can make
a browser send) work as before.

The request's scheme is the ASGI scope's: uvicorn sets it to https for a TLS connection, or from
a trusted proxy's `X-Forwarded-Proto` (`--forwarded-allow-ips`). The game WebSocket's Origin check
(routes/socket.py) uses `origin_matches` too, its `ws`/`wss` read as `http`/`https`.
"""

from __future__ import annotations

import json
from http.cookies import CookieError, SimpleCookie
from urllib.parse import urlsplit

from dicepoker.server.community.accounts import COOKIE
from dicepoker.server.http.security import ASGIApp, Receive, Scope, Send

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _has_session_cookie(raw: str) -> bool:
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(raw)
    except CookieError:
        return COOKIE in raw
    return COOKIE in cookie


#: A WebSocket's scheme as the scheme of the pages that open it.
PAGE_SCHEME = {"ws": "http", "wss": "https"}


def origin_matches(origin: str, host: str, scheme: str) -> bool:
    """Whether `origin` (an Origin or Referer) names this `host` over this request's `scheme`."""
    if origin == "null" or not host:
        return False
    parts = urlsplit(origin)
    return parts.netloc == host and parts.scheme == PAGE_SCHEME.get(scheme, scheme)


def same_origin(headers: dict[bytes, bytes], scheme: str = "http") -> bool:
    """Whether the request's Origin (else Referer) is this host over `scheme`; False when
    neither is sent."""
    host = headers.get(b"host", b"").decode("latin-1")
    for name in (b"origin", b"referer"):
        value = headers.get(name)
        if value is not None:
            return origin_matches(value.decode("latin-1"), host, scheme)
    return False


class CookieOrigin:
    """Refuses (403 `bad_origin`) a state-changing request with the session cookie from a
    page that is not ours."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") in UNSAFE_METHODS:
            headers = {bytes(k).lower(): bytes(v) for k, v in scope.get("headers") or []}
            cookie = headers.get(b"cookie")
            if (
                cookie
                and _has_session_cookie(cookie.decode("latin-1"))
                and not same_origin(headers, str(scope.get("scheme", "http")))
            ):
                await _refuse(send)
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send) -> None:
    body = {
        "error": {
            "code": "bad_origin",
            "message": "a request with a session cookie must come from this site's pages",
        }
    }
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", b"application/json")],
        }
    )
    await send({"type": "http.response.body", "body": json.dumps(body).encode()})
