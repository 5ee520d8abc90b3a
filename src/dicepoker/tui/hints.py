"""The hint panel's advice: a value for every option of the player to move.

An `Advisor` turns a position into `Hint`s, best first. The app's advisor is
`ExpectedScoreAdvisor`: in a local game (where the app has the engine state) it lists every roll,
hold and cell move with the mover's expected final score from `dicepoker.advisor.advise` (the
exact solver where it applies, else the expert's School expectimax). In a game of the web app the
terminal has only the view, so it falls back to `ImmediateAdvisor`, which reads the view alone:
each cell move the view lists in `turn.legal` with what it would change in the player's total now.
Another advisor plugs in with `set_advisor` (or the `advisor=` argument of the app).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from dicepoker.engine import GameState

if TYPE_CHECKING:
    from dicepoker.tui.i18n import Words


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


class ExpectedScoreAdvisor:
    """The mover's expected final score after each option: every roll and hold (holds that keep
    the same faces listed once) and every cell move, ranked by that value (a cell before a roll on
    a tie, as `Advice.best` does). Without the engine state (a game of the web app) it gives
    `fallback`'s hints; `title` names what the last call's values mean (the panel reads it after
    asking for the hints, and `signed`: whether to write them as gains, +12)."""

    TITLE = "expected final score"

    def __init__(self, fallback: Advisor | None = None) -> None:
        self.fallback: Advisor = fallback or ImmediateAdvisor()
        self.title = self.fallback.title
        self.signed = True  # the fallback's gains are signed (+12), scores are not (247.1)
        self._last: tuple[GameState, list[Hint]] | None = None

    def __call__(self, view: dict[str, Any], state: GameState | None) -> list[Hint]:
        if state is None or state.finished:
            hints = self.fallback(view, state)
            self.title = self.fallback.title
            self.signed = bool(getattr(self.fallback, "signed", True))
            return hints
        self.title = self.TITLE
        self.signed = False
        last = self._last
        if last is None or last[0] is not state:
            last = (state, self._hints(view, state))
            self._last = last
        return list(last[1])

    @staticmethod
    def _hints(view: dict[str, Any], state: GameState) -> list[Hint]:
        from dicepoker.advisor import advise  # the value tables load on the first hint only
        from dicepoker.engine import Move, Roll

        turn = view.get("turn")
        legal = turn.get("legal", []) if isinstance(turn, dict) else []
        cells = {str(option.get("action")): option for option in legal if isinstance(option, dict)}
        seen: set[tuple[int, ...]] = set()
        ranked: list[tuple[float, bool, int, Hint]] = []
        for index, option in enumerate(advise(state).options):
            action = option.action
            if isinstance(action, Roll):
                faces = tuple(sorted(state.dice[p] for p in action.keep))
                if faces in seen:
                    continue  # the same faces kept: the same option
                seen.add(faces)
                hint = Hint(str(action), option.value)
            elif isinstance(action, Move):
                cell = cells.get(str(action), {})
                hint = Hint(
                    str(action),
                    option.value,
                    points=int(cell.get("points", 0) or 0),
                    doubled=bool(cell.get("doubled")),
                )
            else:  # pragma: no cover - the advisor lists rolls and moves only
                continue
            # Ranked by the value shown beside it (the expected final score), so that the list
            # reads in order; on a tie a cell comes first, as `Advice.best` has it.
            ranked.append((-option.value, not isinstance(action, Move), index, hint))
        ranked.sort(key=lambda item: item[:3])
        return [item[3] for item in ranked]


_advisor: Advisor = ExpectedScoreAdvisor()


def set_advisor(advisor: Advisor) -> None:
    """Use `advisor` for the hint panel of the apps started from now on."""
    global _advisor
    _advisor = advisor


def current_advisor() -> Advisor:
    return _advisor


def hints_off_words(words: Words, competition: str) -> str:
    """Why a server game shows no hints (the web table's words): rated, a daily challenge, or made
    without them. The server refuses the expert's help there, and the terminal follows it."""
    if competition == "rated":
        return words("Hints are off in this game: it is rated.")
    if competition == "daily":
        return words("Hints are off in this game: it is a daily challenge.")
    return words("Hints are off in this game: it was made without them.")


def badge_words(words: Words, competition: str) -> str:
    """The badge of a game without hints, as the web table shows it by the title."""
    if competition == "rated":
        return words("Rated")
    if competition == "daily":
        return words("Daily challenge")
    return words("No hints")
