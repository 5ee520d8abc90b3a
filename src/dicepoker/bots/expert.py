"""`expert`: the strongest level of every variant.

- Single-sheet variants (`yahtzee`, `yahtzee15`, `poker-dice`): alone, the exact solver's best
  action (`dicepoker.solver.Solver`), which maximises the expected final score of the player's
  own sheet; against rivals, the action with the best chance of finishing first
  (`dicepoker.bots.winseeker`, on the solver's distributions). The `points` level is the solver
  everywhere.
- `school`: the within-turn expectimax of `dicepoker.bots.planner` over the value of the sheet
  after each move, a network fitted by approximate value iteration (`dicepoker.bots.school_value`),
  which knows the opponents' sheets in the race for the first-player stars; the cell move that
  ends a turn is chosen among the network's `REFINE` best by a two-turn search (the exact
  expectimax of the player's next turn on each sheet). In a game with rivals, the network's value
  is corrected by a fit made on the expert's 2-player games, and the expert takes a margin for
  risk (`school_value.DuelFit`, `RISK`); in its last turns it plays for its chance of winning
  (`school_value.ENDGAME_TURNS`). The `points` level plays the same network for its expected
  score alone (no margin for risk, no race).

Rules the solver does not cover and that have no fitted School network (a School width that was
not trained, a custom game) fall back to the planner with no after-value, the `basic` level's
play, so the bot always plays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dicepoker.bots.base import Bot
from dicepoker.bots.planner import AfterValue, Planner, ZeroAfter
from dicepoker.bots.school_value import SchoolValue, duel_fit_for, model_for, spread_for
from dicepoker.engine import Action, GameState
from dicepoker.rules import Rules

if TYPE_CHECKING:
    from dicepoker.bots.winseeker import WinSeeker
    from dicepoker.solver import Solver


def solver_for(rules: Rules) -> Solver | None:
    """The exact solver of `rules` (its table loaded or built once per process), or None where
    the solver does not apply. numba is loaded only when a solver is used (`dicepoker.solver`
    imports its numba parts on first use)."""
    from dicepoker import solver

    return solver.Solver.for_rules(rules) if solver.supports(rules) else None


# The School expert's two-turn search at the end of each turn: how many candidate moves it values
# again (measured: docs/bots.md, "The two-turn search at the end of a turn").
REFINE = 3


def planner_for(rules: Rules, seek_win: bool = True) -> Planner:
    """The expert's planner where the solver does not apply (`seek_win`: see
    `after_value_for`)."""
    after = after_value_for(rules, seek_win)
    return Planner(after, refine=REFINE if isinstance(after, SchoolValue) else 0)


def after_value_for(rules: Rules, seek_win: bool = True) -> AfterValue:
    """The School value where a network was fitted for this sheet, else no after-value. Without
    `seek_win` (the `points` level) it is the expected score alone: no margin for risk before
    the race and no chance of winning in it."""
    if rules.reserve is not None:
        model = model_for(rules)
        if model is not None:
            duel = duel_fit_for(rules)
            if not seek_win:
                return SchoolValue(model, spread_for(rules), win_points=0.0, duel=duel, risk=0.0)
            return SchoolValue(model, spread_for(rules), duel=duel)
    return ZeroAfter()


def seeks_win(state: GameState) -> bool:
    """Whether the mover has a rival still in the race (a game of one, or a tie-break game,
    is played for points)."""
    if state.stage > 0:
        return False
    return any(
        seat != state.seat and seat not in state.forfeited for seat in range(len(state.players))
    )


class ExpertBot(Bot):
    """The strongest level. With `seek_win` (the `expert`), in a game with rivals it plays for
    its chance of finishing first (single-sheet: `winseeker.WinSeeker`; School: its margin for
    risk and the race of its last turns); without (`points`), it maximises its expected final
    score everywhere."""

    level = "expert"

    def __init__(self, seek_win: bool = True) -> None:
        self.seek_win = seek_win
        if not seek_win:
            self.level = "points"
        self._rules: Rules | None = None
        self._solver: Solver | None = None
        self._planner: Planner | None = None
        self._seeker: WinSeeker | None = None

    def _setup(self, rules: Rules) -> None:
        self._rules = rules
        self._solver = solver_for(rules)
        self._seeker = None
        if self._solver is not None and self.seek_win:
            from dicepoker.bots.winseeker import WinSeeker

            self._seeker = WinSeeker(self._solver)
        self._planner = None if self._solver is not None else planner_for(rules, self.seek_win)

    @property
    def method(self) -> str:
        """`solver`, `school-value` or `planner` (the fallback) for the rules last played."""
        if self._solver is not None:
            return "solver"
        if self._planner is not None and isinstance(self._planner.after, SchoolValue):
            return "school-value"
        return "planner"

    def choose(self, state: GameState) -> Action:
        if state.rules != self._rules:
            self._setup(state.rules)
        if self._solver is not None:
            if self._seeker is not None and seeks_win(state):
                return self._seeker.choose(state)
            return self._solver.best_action(state)
        assert self._planner is not None
        return self._planner.choose(state)
