"""The hint panel's advice: a value for every option of the player to move.

An `Advisor` turns a position into `Hint`s, best first. Until the solver-backed advisor lands,
`ImmediateAdvisor` reads the view alone: each cell move the view lists in `turn.legal` with what
it would change in the player's total now. A better advisor plugs in with `set_advisor` (or the
`advisor=` argument of the app): it gets the view and, in local games, the engine state, and may
value the rolls and holds as well.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from dicepoker.engine import GameState


@dataclass(frozen=True, slots=True)
class Hint:
    """One option (`action` in the engine's notation) and its value; `points` is what a cell move
    writes on the sheet (None for rolls and holds)."""

    action: str
    value: float
    points: int | None = None
    doubled: bool = False


class Advisor(Protocol):
    """Values every option of the position; `title` is a msgid saying what the values mean."""

    title: str

    def __call__(self, view: dict[str, Any], state: GameState | None) -> list[Hint]: ...


class ImmediateAdvisor:
    """The change in the mover's total that each cell move would make now (no look-ahead)."""

    title = "gain now"

    def __call__(self, view: dict[str, Any], state: GameState | None) -> list[Hint]:
        turn = view.get("turn")
        if view.get("finished") or not isinstance(turn, dict):
            return []
        hints = [
            Hint(
                action=str(option["action"]),
                value=float(option.get("gain", option.get("points", 0)) or 0),
                points=int(option.get("points", 0) or 0),
                doubled=bool(option.get("doubled")),
            )
            for option in turn.get("legal", [])
        ]
        hints.sort(key=lambda hint: -hint.value)
        return hints


_advisor: Advisor = ImmediateAdvisor()


def set_advisor(advisor: Advisor) -> None:
    """Use `advisor` for the hint panel of the apps started from now on."""
    global _advisor
    _advisor = advisor


def current_advisor() -> Advisor:
    return _advisor
