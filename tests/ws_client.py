"""A small synchronous WebSocket player for the tests, speaking the protocol of docs/api.md."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from websockets.sync.client import ClientConnection, connect
from websockets.typing import Subprotocol

from dicepoker.protocol import SUBPROTOCOL, apply_changes, socket_protocols

Message = dict[str, Any]


class Player:
    """One connection to a game: a seat (with its token) or a spectator (without)."""

    def __init__(
        self,
        ws_url: str,
        game_id: str,
        token: str | None = None,
        *,
        ping_interval: float | None = None,
        in_header: bool = False,
        subprotocol: str | None = SUBPROTOCOL,
        **connect_options: Any,
    ) -> None:
        """`in_header`: send the token as the web client does, in the Sec-WebSocket-Protocol
        header; else in the URL's query. `subprotocol`: the one offered (None: none, as a
        simple client, which is spoken `dicepoker.v1`). An event's `changes` (`dicepoker.v2`)
        are applied to the view of the event before; a connection that missed that one asks
        for a sync.

        A test reads a connection when it wants to, perhaps only at the end of a game: the
        connection keeps every message it receives (no limit on its queue, so it never stops
        reading the socket) and sends no keepalive pings unless asked (a ping's answer waits
        behind unread messages, and a slow machine's pause would close the connection).
        `connect_options` go to websockets' `connect` (ssl, origin, source_address)."""
        url = f"{ws_url}/ws/games/{game_id}"
        protocols = [Subprotocol(subprotocol)] if subprotocol else None
        if in_header:
            assert subprotocol is not None, "the token travels beside a subprotocol"
            protocols = [Subprotocol(p) for p in socket_protocols(token, subprotocol)]
        elif token:
            url += f"?token={token}"
        self._stack = ExitStack()
        self.connection: ClientConnection = self._stack.enter_context(
            connect(
                url,
                open_timeout=30,  # a bound for a loaded machine (nginx, several servers)
                ping_interval=ping_interval,
                max_queue=None,
                subprotocols=protocols,
                **connect_options,
            )
        )
        self.seq = 0
        self.state: Message = {}
        self.seat: int | None = None
        self.seen: list[Message] = []
        self.changed = 0  # the events taken as changes (dicepoker.v2)
        self.sync_asked = -1
        welcome = self.until(lambda m: m["type"] == "welcome")
        self.seat = welcome["seat"]

    def recv(self, timeout: float = 15.0) -> Message:
        message: Message = json.loads(self.connection.recv(timeout=timeout))
        self.seen.append(message)
        if "changes" in message:
            if message["seq"] == self.seq + 1:
                self.seq = message["seq"]
                self.state = apply_changes(self.state, message["changes"])
                self.changed += 1
            elif message["seq"] > self.seq and self.sync_asked != self.seq:
                self.sync_asked = self.seq  # once: the sync's answer brings the whole view
                self.send({"type": "sync", "last_seq": self.seq})
        elif "state" in message and "seq" in message:
            self.seq = message["seq"]
            self.state = message["state"]
        return message

    def until(self, predicate: Callable[[Message], bool], timeout: float = 15.0) -> Message:
        while True:
            message = self.recv(timeout)
            if predicate(message):
                return message

    def send(self, message: Message | str) -> None:
        self.connection.send(message if isinstance(message, str) else json.dumps(message))

    def act(self, action: str, seq: int | None = None, ref: str | None = None) -> Message:
        """Send an intent and return the answer: the event it caused, or the error."""
        body: Message = {"type": "act", "action": action}
        if seq is not None:
            body["seq"] = seq
        if ref is not None:
            body["ref"] = ref
        self.send(body)
        return self.until(
            lambda m: (
                m["type"] == "error"
                or (m["type"] == "event" and m["seat"] == self.seat and m["action"] == action)
            )
        )

    def my_turn(self) -> bool:
        turn = self.state.get("turn")
        if not turn or self.state["finished"]:
            return False
        return bool(turn["seat"] == self.seat)

    def play_turn(self) -> None:
        """Roll once, then take the legal cell move with the best immediate gain."""
        if self.state["turn"]["rolls"] == 0:
            answer = self.act("roll", self.seq)
            assert answer["type"] == "event", answer
        legal = self.state["turn"]["legal"]
        best = max(legal, key=lambda option: option["gain"])
        answer = self.act(best["action"], self.seq)
        assert answer["type"] == "event", answer

    def close(self) -> None:
        self._stack.close()
