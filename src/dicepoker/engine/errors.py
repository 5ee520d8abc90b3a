"""Typed refusals. Every refusal says why; the state it was asked about is left unchanged."""

from __future__ import annotations


class IllegalActionError(ValueError):
    """An action the rules do not allow here. `code` is stable; `reason` is for people."""

    code = "illegal"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class GameOverError(IllegalActionError):
    code = "game_over"


class NotYourTurnError(IllegalActionError):
    code = "not_your_turn"


class RollError(IllegalActionError):
    """No rolls left, nothing rolled yet, or a bad set of dice to hold."""

    code = "bad_roll"


class MoveError(IllegalActionError):
    """A cell move the dice, the sheet or the rules do not allow now."""

    code = "bad_move"


class NotationError(ValueError):
    """Text that is not an action in our notation."""
