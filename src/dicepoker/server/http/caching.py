"""How long browsers keep the static files: versioned URLs for ever, the others briefly.

A page names its static files under `/static/v/{version}/…` (`dicepoker.web.pages.STATIC_VERSION`,
a hash of their contents), so the page scripts' relative imports (`./common.js`) carry the version
too. Such a URL never changes what it answers, so it is answered `immutable` for a year; this
middleware serves it from `/static/…` (any version: the files of this server). A plain `/static/…`
URL gets a short max-age, so a new release is seen within minutes.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

VERSIONED: Final = "/static/v/"
IMMUTABLE: Final = "public, max-age=31536000, immutable"
SHORT: Final = "public, max-age=300"


class StaticCache:
    """Serves `/static/v/{version}/path` as `/static/path`, with the Cache-Control of each kind."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or not path.startswith("/static/"):
            await self.app(scope, receive, send)
            return
        cache = SHORT
        if path.startswith(VERSIONED):
            _version, _, rest = path[len(VERSIONED) :].partition("/")
            path = f"/static/{rest}"
            scope = {**scope, "path": path, "raw_path": path.encode()}
            cache = IMMUTABLE

        async def send_with_cache(message: Message) -> None:
            if message["type"] == "http.response.start" and message.get("status") == 200:
                headers = [
                    (name, value)
                    for name, value in message.get("headers") or []
                    if bytes(name).lower() != b"cache-control"
                ]
                headers.append((b"cache-control", cache.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_cache)
