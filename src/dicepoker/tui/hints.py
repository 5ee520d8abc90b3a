"""The hint panel's advice: a value for every option of the player to move.

An `Advisor` turns a position into `Hint`s, best first. The app's advisor is
`ExpectedScoreAdvisor`, which gives the advice the web table's hint gives: every roll, hold and
cell move with the mover's expected final score, ranked by what the expert ranks by (`worth`, the
chance-minded measure where there are rivals, else that score), so the first is the web's best.
In a local game it asks `dicepoker.advisor.advise`, the advisor the web app's server runs; in a
game of the web app the game screen asks the server (`GET /api/games/{id}/advice`, with the
seat's token) and hands the answer over with `take_advice`, so a joined terminal shows the very
advice the browser shows. Without either (a spectator, a server that does not answer) it falls
back to `ImmediateAdvisor`, which reads the view alone: each cell move the view lists in
`turn.legal` with what it would change in the player's total now. Another advisor plugs in with
`set_advisor` (or the `advisor=` argument of the app).
"""

from __future__ import annotations

from collections.abc import Mapping
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
    the same faces listed once) and every cell move, ranked as the expert (and the web's hint)
    ranks them. In a local game it asks the advisor; in a game of the web app it reads the
    server's advice given to `take_advice` for the view's position, and lists nothing while that
    is on its way; without either it gives `fallback`'s hints. `title` names what the last
    call's values mean (the panel reads it after asking for the hints, and `signed`: whether to
    write them as gains, +12)."""

    TITLE = "expected final score"

    def __init__(self, fallback: Advisor | None = None) -> None:
        self.fallback: Advisor = fallback or ImmediateAdvisor()
        self.title = self.fallback.title
        self.signed = True  # the fallback's gains are signed (+12), scores are not (247.1)
        self._last: tuple[GameState, list[Hint]] | None = None
        #: The server's advice: the position it answers, and the answer (None: none came).
        self._served: tuple[Position, Mapping[str, Any] | None] | None = None
        #: The position whose advice the server was asked for and has not answered yet.
        self._asked: Position | None = None

    def asking(self, view: Mapping[str, Any]) -> None:
        """The server is being asked for the advice of `view`'s position."""
        self._asked = position_of(view)

    def take_advice(self, view: Mapping[str, Any], advice: Mapping[str, Any] | None) -> None:
        """The server's advice for `view`'s position (None: it gave none; the fallback's hints)."""
        self._served = (position_of(view), advice)
        self._asked = None

    def awaits_advice(self, view: Mapping[str, Any]) -> bool:
        """Whether the server's advice for this view's position is still to be asked for."""
        position = position_of(view)
        served = self._served
        return self._asked != position and (served is None or served[0] != position)

    def __call__(self, view: dict[str, Any], state: GameState | None) -> list[Hint]:
        served = self._served
        if state is None and not view.get("finished"):
            position = position_of(view)
            if self._asked == position:
                self.title, self.signed = self.TITLE, False
                return []  # the server's advice is on its way
            if served is not None and served[0] == position and served[1] is not None:
                self.title, self.signed = self.TITLE, False
                return advice_hints(view, served[1])
        if state is None or state.finished:
            hints = self.fallback(view, state)
            self.title = self.fallback.title
            self.signed = bool(getattr(self.fallback, "signed", True))
            return hints
        self.title = self.TITLE
        self.signed = False
        last = self._last
        if last is None or last[0] is not state:
            from dicepoker.advisor import advise  # the value tables load on the first hint only

            last = (state, advice_hints(view, advise(state).as_json()))
            self._last = last
        return list(last[1])


#: A position as a view tells it: the round, the seat to move, its rolls and its dice.
Position = tuple[Any, Any, Any, tuple[int, ...]]


def position_of(view: Mapping[str, Any]) -> Position:
    """What tells one position of a game from the next (an advice answers one of them)."""
    turn = view.get("turn")
    turn = turn if isinstance(turn, Mapping) else {}
    dice = tuple(int(die) for die in turn.get("dice") or ())
    return (view.get("turn_number"), turn.get("seat"), turn.get("rolls"), dice)


def advice_hints(view: Mapping[str, Any], advice: Mapping[str, Any]) -> list[Hint]:
    """The hints of an advice (`Advice.as_json`, the server's `/advice` answer) for `view`'s
    position: best first by what the expert ranks by (`worth`, else the value), on a tie a cell
    before a roll as `Advice.best` has it, so the first is the option the web marks best."""
    from dicepoker.engine import Roll, parse_action

    turn = view.get("turn")
    legal = turn.get("legal", []) if isinstance(turn, dict) else []
    dice = list(turn.get("dice") or []) if isinstance(turn, dict) else []
    cells = {str(option.get("action")): option for option in legal if isinstance(option, dict)}
    seen: set[tuple[int, ...]] = set()
    ranked: list[tuple[float, bool, int, Hint]] = []
    for index, option in enumerate(advice.get("options", [])):
        action = str(option["action"])
        value = float(option["value"])
        worth = float(option.get("worth", value))
        cell = cells.get(action)
        if cell is None:
            roll = parse_action(action)
            if not isinstance(roll, Roll):
                continue  # a cell move the view does not offer: nothing to draw it with
            faces = tuple(sorted(int(dice[p]) for p in roll.keep if p < len(dice)))
            if faces in seen:
                continue  # the same faces kept: the same option
            seen.add(faces)
            hint = Hint(action, value)
        else:
            hint = Hint(
                action,
                value,
                points=int(cell.get("points", 0) or 0),
                doubled=bool(cell.get("doubled")),
            )
        ranked.append((-worth, cell is None, index, hint))
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
