"""Cross-site request forgery defence for the session cookie.

A browser sends the session cookie with a request from any site that posts to ours (SameSite=Lax
stops most, not all: a top-level form POST from a sibling subdomain, an old browser). So every
state-changing request (POST, PUT, PATCH, DELETE) that carries the session cookie must say that
it comes from a page of ours: its `Origin` (or, when a browser sends none, its `Referer`) must
name this host. Requests without the cookie are not affected: anonymous play and seat tokens
(sent as bearer tokens, which no other site can make a browser send) work as before.
"""

from __future__ import annotations

import json
from http.cookies import CookieError, SimpleCookie
from urllib.parse import urlsplit

from dicepoker.server.accounts import COOKIE
from dicepoker.server.security import ASGIApp, Receive, Scope, Send

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def _has_session_cookie(raw: str) -> bool:
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(raw)
    except CookieError:
        return COOKIE in raw
    return COOKIE in cookie


def same_origin(headers: dict[bytes, bytes]) -> bool:
    """Whether the request's Origin (else Referer) is this host; False when neither is sent."""
    host = headers.get(b"host", b"").decode("latin-1")
    for name in (b"origin", b"referer"):
        value = headers.get(name)
        if value is not None:
            text = value.decode("latin-1")
            return text != "null" and bool(host) and urlsplit(text).netloc == host
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
                and not same_origin(headers)
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
