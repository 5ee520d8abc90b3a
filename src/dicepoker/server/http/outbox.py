"""A game WebSocket's outgoing messages, sent at once when nothing waits before them.

Each connection has one writer, so that its messages go out in order. Were every message
queued for a writer task, each delivery would wait until the event loop came round to that task:
on a loaded server, behind everything else that became ready meanwhile (a turn of the loop takes
milliseconds there), once per event and socket. An `Outbox` sends a message on the spot, in the
broadcaster's or the reader's own step, when nothing is queued, held by the writer or half sent
before it, which is nearly always (a socket's buffer is rarely full); otherwise it queues it for
the writer (`pump`), which sends in order. A send that has to wait for the socket (its buffer
full) is finished by a task of its own (`_finish`), and the writer sends nothing until it has.

The send is a coroutine (Starlette's, through the middleware, to uvicorn's), run here one step
by hand, as a task runs it: it ends in that step unless the socket's buffer is full. (Python
3.12's eager tasks would do the same; this server runs on 3.11 too.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from dicepoker.master.broadcast import QUEUE_SIZE

log = logging.getLogger("dicepoker.server")

#: What a send raises once the connection is closed (Starlette: a disconnect, or a send after
#: the close).
GONE = (WebSocketDisconnect, RuntimeError)


class Outbox(asyncio.Queue[str]):
    """A connection's queue of messages (the broadcaster's subscriber) that sends each at once
    when it can; `pump` is its writer for the others."""

    def __init__(self, websocket: WebSocket, maxsize: int = QUEUE_SIZE) -> None:
        super().__init__(maxsize)
        self.websocket = websocket
        self.sent_at_once = 0  # messages sent without the writer (the tests read it)
        self._held = False  # the writer has taken a message and not sent it all yet
        self._finishing: asyncio.Task[None] | None = None  # a send waiting for the socket
        self._gone = False  # the connection is closed: what comes now is dropped

    def put_nowait(self, item: str) -> None:
        """Send `item` now if nothing waits before it, else queue it (asyncio.QueueFull when
        `maxsize` wait: the broadcaster then tells the client to resync)."""
        if self._gone:
            return
        if self._held or self._finishing is not None or not self.empty():
            super().put_nowait(item)
            return
        self._send_now(item)

    def _send_now(self, text: str) -> None:
        sending = self.websocket.send_text(text)
        try:
            waiting = sending.send(None)
        except StopIteration:
            self.sent_at_once += 1
            return
        except GONE:
            self._gone = True
            return
        except Exception:  # not the broadcaster's to handle: this connection alone ends
            log.exception("a send on a game socket failed")
            self._gone = True
            return
        self._finishing = asyncio.ensure_future(self._finish(sending, waiting))

    async def _finish(self, sending: Coroutine[Any, Any, None], waiting: Any) -> None:
        """Run a send that waits for the socket to its end (what a task's steps would do)."""
        try:
            while True:
                if waiting is None:  # a bare yield (asyncio.sleep(0)): go on at the next turn
                    await asyncio.sleep(0)
                else:
                    await asyncio.wait((waiting,))
                waiting = sending.send(None)
        except StopIteration:
            pass
        except GONE:
            self._gone = True
        except Exception:
            log.exception("a send on a game socket failed")
            self._gone = True
        finally:
            sending.close()  # (cancelled midway: the connection closes)
            self._finishing = None

    async def pump(self) -> None:
        """The connection's writer: sends what was queued, in order, until it closes."""
        with contextlib.suppress(*GONE):
            while not self._gone and self.websocket.application_state == WebSocketState.CONNECTED:
                text = await self.get()
                self._held = True
                try:
                    if self._finishing is not None:
                        await self._finishing
                    await self.websocket.send_text(text)
                finally:
                    self._held = False
        self._gone = True

    def stop(self) -> None:
        """The connection closes: nothing more is sent (a send waiting for the socket is
        cancelled)."""
        self._gone = True
        if self._finishing is not None:
            self._finishing.cancel()


__all__ = ["GONE", "Outbox"]
