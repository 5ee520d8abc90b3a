"""A deadline for a request's headers, which uvicorn does not have.

uvicorn's `timeout_keep_alive` runs only between requests on a connection that has answered one,
and stops at the first byte the client sends; a connection that sends nothing, or half a request
line and a few headers, is held open for ever (200 such sockets were all still open after 15 s).
`HeaderDeadline` is uvicorn's httptools protocol with a timer that runs from the connection's
start, and again after each answer, until a request's headers are complete: a connection that
has not sent them within `header_timeout` seconds, however it trickles them, is closed. Headers
larger than `MAX_HEADER_BYTES` are answered 431, in the API's error shape (httptools sets no
bound of its own).

`dicepoker serve` hands uvicorn `header_deadline(seconds)` as its `http` protocol, in the one
process and in each process of `--workers N` (a `functools.partial` of a module-level class, so
it travels to the spawned processes).
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any, Final

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: The most bytes a request line and its headers may take.
MAX_HEADER_BYTES: Final = 64 * 1024

_TOO_LARGE_BODY: Final = json.dumps(
    {
        "error": {
            "code": "headers_too_large",
            "message": f"request headers larger than {MAX_HEADER_BYTES // 1024} KiB",
        }
    }
).encode()
#: The answer to headers over `MAX_HEADER_BYTES`, in the shape of every error of the API.
HEADERS_TOO_LARGE: Final = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: application/json\r\nconnection: close\r\n"
    b"content-length: " + str(len(_TOO_LARGE_BODY)).encode() + b"\r\n\r\n" + _TOO_LARGE_BODY
)


class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose headers do not come in time."""

    def __init__(self, *args: Any, header_timeout: float = 10.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout
        self.header_timer: asyncio.TimerHandle | None = None
        self.header_bytes = 0
        # A request's body is still coming in (an answer may go out before it is all read, a
        # 413 say): its bytes are not the next request's headers.
        self.in_body = False

    def _arm(self) -> None:
        self._disarm()
        if self.transport.is_closing():
            return
        self.header_bytes = 0
        if self.header_timeout > 0:
            self.header_timer = self.loop.call_later(self.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _expired(self) -> None:
        self.header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        waiting = self.header_timer is not None
        super().data_received(data)
        if waiting and self.header_timer is not None:  # still in the headers
            self.header_bytes += len(data)
            if self.header_bytes > MAX_HEADER_BYTES and not self.transport.is_closing():
                self._disarm()
                self.transport.write(HEADERS_TOO_LARGE)
                self.transport.close()

    def on_headers_complete(self) -> None:
        self._disarm()
        self.in_body = True
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.in_body = False
        self._await_next()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_next()

    def _await_next(self) -> None:
        """Wait for the next request's headers once this request is read and answered (unless
        the next is already in, or the connection closes); the keep-alive timeout also closes
        it when nothing at all comes."""
        cycle = self.cycle
        if self.in_body or cycle is None or not cycle.response_complete or self.pipeline:
            return
        self._arm()


def header_deadline(seconds: float) -> type[asyncio.Protocol]:
    """The protocol to hand uvicorn (`http=`): headers within `seconds` (0: no deadline)."""
    made: Any = functools.partial(HeaderDeadline, header_timeout=seconds)
    return made  # type: ignore[no-any-return]
