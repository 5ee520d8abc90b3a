"""Cross-site request forgery defence for the session cookie.

A browser sends the session cookie with a request from any site that posts to ours (SameSite=Lax
stops most, not all: a top-level form POST from a sibling subdomain, an old browser). So every
state-changing request (POST, PUT, PATCH, DELETE) that carries the session cookie must say that
it comes from a page of ours: its `Origin` (or, when a browser sends none, its `Referer`) must
name this host, over the scheme the request came by (an `http://` page is not the `https://`
site: whoever can alter plain http traffic could post from it). Requests without the cookie are
not affected: anonymous play and seat tokens (sent as bearer tokens, which no other site can make
a browser send) work as before, from scripts and other sites alike.

Whether a request carries the session cookie is decided by the session lookup itself
(community/accounts.py's `session_token`, Starlette's cookie parser over the request's Cookie
header), never by a parser of our own: a request this check lets through as cookie-less is then
one that no route can act on for a session. A stricter parser here (Python's `SimpleCookie`
stops at the first chunk it cannot read, a quote in another cookie's value, a JSON consent
cookie) once let such a request through while the lookup still found the session behind the
chunk. Checking the Origin of every unsafe request, cookies or not, would hold too, but would
refuse the API's scripts and other sites' pages that play anonymously, which the API promises.

The request's scheme is the ASGI scope's: uvicorn sets it to https for a TLS connection, or from
a trusted proxy's `X-Forwarded-Proto` (`--forwarded-allow-ips`). The game WebSocket's Origin check
(routes/socket.py) uses `origin_matches` too, its `ws`/`wss` read as `http`/`https`.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.requests import Request

from dicepoker.server.community.accounts import session_token
from dicepoker.server.http.security import ASGIApp, Receive, Scope, Send

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def acts_for_a_session(scope: Scope) -> bool:
    """Whether the request carries a session cookie, read as the session lookup reads it (an
    empty one counts too: refusing it costs nothing)."""
    return session_token(Request(scope)) is not None


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
            if acts_for_a_session(scope) and not same_origin(
                headers, str(scope.get("scheme", "http"))
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
