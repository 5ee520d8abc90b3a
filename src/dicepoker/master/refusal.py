"""Refusals: an intent or request that changes nothing, with a stable `code` and a reason.

A refusal never carries an HTTP status: the master knows no transport. The web app maps codes
to statuses in one table (`dicepoker.server.http.errors`); the WebSocket sends the code as it is.
"""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """Refused: `code` is stable (docs/api.md lists them), `message` says why, for people.

    `extra` holds further fields of the error (a record's `turn`), sent beside code and message.
    """

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra

    def __repr__(self) -> str:
        return f"Refusal({self.code!r}, {self.message!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Refused in a worker process (an analysis of a bad record): it travels back whole.
        return (_refusal, (self.code, self.message, self.extra))


def _refusal(code: str, message: str, extra: dict[str, Any]) -> Refusal:
    return Refusal(code, message, **extra)


def waiting() -> Refusal:
    """A game's seats are not all taken yet: nobody moves before it starts."""
    return Refusal("waiting", "the game starts when every seat is taken")


def abandoned_refusal() -> Refusal:
    return Refusal("abandoned", "nobody played this game for too long: it was closed")
