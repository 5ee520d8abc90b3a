"""The move advisor, built on the expert's own evaluation.

`advise(state)` gives the expected final score of the player to move for every legal action (each
roll or hold, each cell move) and the best one: from the exact solver where it applies
(`yahtzee`, `yahtzee15`, `poker-dice`), else from the within-turn expectimax over the School
value network (the `expert` bot's method). The post-game analysis (`dicepoker.review`) judges
every decision of a game by these values.

In a School game with rivals the expert does not rank options by expected points alone: before
its last turns it takes a margin for risk (`school_value.RISK`), and in its last turns
(`school_value.ENDGAME_TURNS`) it plays for its chance of winning, which every option then also
carries (`win`). There the best option is the one worth most by the expert's own measure
(`Option.worth`: the expert's choice), and a decision's loss is counted on that same scale.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dicepoker.bots.expert import planner_for, solver_for
from dicepoker.bots.planner import Planner
from dicepoker.bots.school_value import SchoolValue
from dicepoker.engine import (
    ROLL,
    Action,
    GameState,
    IllegalActionError,
    Move,
    Roll,
    legal_actions,
    sheet_breakdown,
)
from dicepoker.rules import Rules

# Losses under this many points are rounding noise between equally good options.
NOISE = 1e-6
_LOCK = threading.RLock()


@dataclass(frozen=True, slots=True)
class Option:
    action: Action
    value: float  # the mover's expected final score after choosing `action`
    win: float | None = None  # its chance of winning, where the expert plays for it
    merit: float | None = None  # what the expert maximises, where it is not `value`

    @property
    def worth(self) -> float:
        """The expert's measure of the option: the expected final score; against rivals, less a
        margin for risk before the race and plus the chance of winning at `WIN_POINTS` points in
        it."""
        return self.value if self.merit is None else self.merit


@dataclass(frozen=True, slots=True)
class Advice:
    seat: int
    method: str  # "solver" (exact) or "expectimax" (School value tables)
    options: tuple[Option, ...]  # in `legal_actions` order

    @property
    def best(self) -> Option:
        """The best option (on a tie: a cell move before a roll, then the first listed)."""
        return max(self.options, key=lambda o: (o.worth, isinstance(o.action, Move)))

    def option(self, action: Action) -> Option:
        for option in self.options:
            if option.action == action:
                return option
        raise KeyError(str(action))

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "method": self.method,
            "best": _option_json(self.best),
            "options": [_option_json(o) for o in self.options],
        }


def _option_json(option: Option) -> dict[str, Any]:
    out: dict[str, Any] = {"action": str(option.action), "value": round(option.value, 4)}
    if option.win is not None:
        out["win"] = round(option.win, 4)
    if option.merit is not None:
        out["worth"] = round(option.merit, 4)
    return out


@lru_cache(maxsize=16)
def _planner(rules: Rules) -> Planner:
    return planner_for(rules)


def _expectimax_options(state: GameState) -> tuple[Option, ...]:
    rules = state.rules
    planner = _planner(rules)
    plan = planner.plan(state)
    space = plan.space
    current = float(sheet_breakdown(rules, state.sheet).total)
    # Where the expert's objective is not its expected points (against rivals: a margin for risk,
    # or in the race the chance of winning at `points` points), the plan also carries the
    # expected points of the same play.
    points = float(getattr(planner.after, "win_points", 0.0))
    racing = isinstance(planner.after, SchoolValue) and planner.after.racing(state) and points > 0

    def option(action: Action, merit: float, score: float, chance: float) -> Option:
        """`merit`: the expert's value of the option; `score` its expected points; `chance`
        what the objective adds to them (all from the turn's start)."""
        if plan.score_after is None:
            return Option(action, current + merit)
        if not racing:
            return Option(action, current + score, None, current + merit)
        win = min(1.0, max(0.0, chance / points))
        return Option(action, current + score, win, current + merit)

    if state.rolls == 0:
        merit, score = plan.turn_value(), plan.turn_score()
        return (option(ROLL, merit, score, merit - score),)
    table = plan.table
    left = rules.rolls_per_turn - state.rolls
    hand = space.hand_index[tuple(sorted(state.dice))]
    doubled = 1 if state.thrown_all else 0
    # The expert's own values of ending the turn (the plan's kept after-values, the best cell
    # moves ordered by its two-turn search): the advisor's best is the expert's choice. The
    # search may move a candidate's value; its expected points and chance stay the plan's.
    merits = planner.cell_values(state)
    scores = plan.move_scores(hand, doubled)
    finite = np.isfinite(scores)  # illegal moves are -inf in both
    chances = np.where(finite, plan.move_values(hand, doubled) - np.where(finite, scores, 0.0), 0.0)
    move_index = {move: i for i, move in enumerate(table.moves)}
    options = []
    for action in legal_actions(state):
        if isinstance(action, Roll):
            keep = space.keep_index[tuple(sorted(state.dice[p] for p in action.keep))]
            merit = float(plan.keep_value[left][keep])
            score = plan.keep_score(left, keep)
            options.append(option(action, merit, score, merit - score))
        elif isinstance(action, Move):
            m = move_index[action]
            options.append(option(action, float(merits[m]), float(scores[m]), float(chances[m])))
    return tuple(options)


def advise(state: GameState) -> Advice:
    """Every legal option of the player to move with its expected final score."""
    if state.finished:
        raise IllegalActionError("the game is over: there is nothing to advise")
    with _LOCK:  # the cached planners keep their last plan: one caller at a time
        solver = solver_for(state.rules)
        if solver is not None:
            options = tuple(Option(a, v) for a, v in solver.action_values(state))
            return Advice(state.seat, "solver", options)
        return Advice(state.seat, "expectimax", _expectimax_options(state))
