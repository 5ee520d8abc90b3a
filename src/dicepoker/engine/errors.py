"""Typed refusals. Every refusal says why; the state it was asked about is left unchanged."""

from __future__ import annotations

from collections.abc import Mapping

#: A value of a reason's parameters: a row id, a face, a number.
Param = str | int


class Reason(str):
    """Why something was refused, in English, that also says it as data: `key` names the
    catalog message `reason.{key}` that says it in the player's language, and `params` fills its
    placeholders (row ids stay ids there: the interface shows each row's translated name). It is
    a `str`, so the English text is what is logged, compared and sent as `message`."""

    key: str
    params: Mapping[str, Param]

    def __new__(cls, key: str, text: str, **params: Param) -> Reason:
        reason = super().__new__(cls, text)
        reason.key = key
        reason.params = params
        return reason


def reason_key(reason: str) -> tuple[str, Mapping[str, Param]] | None:
    """The key and parameters of a refusal's reason, or None for a reason with only words."""
    if isinstance(reason, Reason):
        return reason.key, reason.params
    return None


class IllegalActionError(ValueError):
    """An action the rules do not allow here. `code` is stable; `reason` is for people (a
    `Reason` where the interfaces can say it in the player's language)."""

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
