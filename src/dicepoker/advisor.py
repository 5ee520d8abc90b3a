"""The move advisor and post-game analysis, built on the expert's own evaluation.

`advise(state)` gives the expected final score of the player to move for every legal action (each
roll or hold, each cell move) and the best one: from the exact solver where it applies
(`yahtzee`, `yahtzee15`, `poker-dice`), else from the within-turn expectimax over the School
value tables (the `expert` bot's method). `analyse(record)` replays a record and, for every
decision, compares the action taken with the best one: the expected points it lost.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from dicepoker.bots.expert import planner_for, solver_for
from dicepoker.bots.planner import Planner
from dicepoker.engine import (
    ROLL,
    Action,
    Forfeit,
    GameState,
    IllegalActionError,
    Move,
    Roll,
    legal_actions,
    sheet_breakdown,
)
from dicepoker.record import replay, rules_of
from dicepoker.rules import Rules

# Losses under this many points are rounding noise between equally good options.
NOISE = 1e-6
_LOCK = threading.RLock()


@dataclass(frozen=True, slots=True)
class Option:
    action: Action
    value: float  # the mover's expected final score after choosing `action`


@dataclass(frozen=True, slots=True)
class Advice:
    seat: int
    method: str  # "solver" (exact) or "expectimax" (School value tables)
    options: tuple[Option, ...]  # in `legal_actions` order

    @property
    def best(self) -> Option:
        """The best option (on a tie: a cell move before a roll, then the first listed)."""
        return max(self.options, key=lambda o: (o.value, isinstance(o.action, Move)))

    def value_of(self, action: Action) -> float:
        for option in self.options:
            if option.action == action:
                return option.value
        raise KeyError(str(action))

    def as_json(self) -> dict[str, Any]:
        best = self.best
        return {
            "seat": self.seat,
            "method": self.method,
            "best": {"action": str(best.action), "value": round(best.value, 4)},
            "options": [
                {"action": str(o.action), "value": round(o.value, 4)} for o in self.options
            ],
        }


@lru_cache(maxsize=16)
def _planner(rules: Rules) -> Planner:
    return planner_for(rules)


def _expectimax_options(state: GameState) -> tuple[Option, ...]:
    rules = state.rules
    planner = _planner(rules)
    plan = planner.plan(state)
    space = plan.space
    current = float(sheet_breakdown(rules, state.sheet).total)
    actions = legal_actions(state)
    if state.rolls == 0:
        return (Option(ROLL, current + plan.turn_value()),)
    table = plan.table
    left = rules.rolls_per_turn - state.rolls
    # The expert's own values of ending the turn (the plan's kept after-values, the best cell
    # moves ordered by its two-turn search): the advisor's best is the expert's choice.
    totals = planner.cell_values(state)
    move_index = {move: i for i, move in enumerate(table.moves)}
    options = []
    for action in actions:
        if isinstance(action, Roll):
            keep = tuple(sorted(state.dice[p] for p in action.keep))
            value = float(plan.keep_value[left][space.keep_index[keep]])
        elif isinstance(action, Move):
            index = move_index[action]
            value = float(totals[index])
        else:  # pragma: no cover - legal_actions lists rolls and moves only
            continue
        options.append(Option(action, current + value))
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


# --- analysis ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Decision:
    turn: int  # 1-based record turn
    seat: int
    action: Action
    best: Action
    value: float  # expected final score of the action taken
    best_value: float

    @property
    def loss(self) -> float:
        loss = self.best_value - self.value
        return loss if loss > NOISE else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "seat": self.seat,
            "action": str(self.action),
            "best": str(self.best),
            "value": round(self.value, 4),
            "best_value": round(self.best_value, 4),
            "loss": round(self.loss, 4),
        }


@dataclass
class PlayerSummary:
    seat: int
    name: str
    decisions: int = 0
    mistakes: int = 0  # decisions that lost more than a point
    loss: float = 0.0
    worst: list[Decision] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "mistakes": self.mistakes,
            "expected_loss": round(self.loss, 3),
            "mean_loss": round(self.loss / self.decisions, 4) if self.decisions else 0.0,
            "worst": [d.as_json() for d in self.worst],
        }


@dataclass
class Analysis:
    variant: str
    method: str
    decisions: list[Decision]
    players: list[PlayerSummary]

    def as_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "method": self.method,
            "players": [p.as_json() for p in self.players],
            "decisions": [d.as_json() for d in self.decisions],
        }


def analyse(record: Mapping[str, Any]) -> Analysis:
    """Replay `record` and value every decision against the best option at that moment.

    The first roll of a turn is forced and is not counted, nor is a clock forfeit. A bad record
    raises the record's own errors (`RecordFormatError`, `RecordTurnError`).
    """
    decisions: list[Decision] = []

    def judge(state: GameState, action: Action) -> None:
        if state.finished or isinstance(action, Forfeit):
            return
        if isinstance(action, Roll) and state.rolls == 0:
            return
        advice = advise(state)
        try:
            value = advice.value_of(action)
        except KeyError:
            return  # not a legal option: the replay refuses it with its turn and reason
        best = advice.best
        decisions.append(
            Decision(state.turn + 1, state.seat, action, best.action, value, best.value)
        )

    rules, players = rules_of(record)
    replay(record, observer=judge)
    summaries = [PlayerSummary(seat, name) for seat, name in enumerate(players)]
    for decision in decisions:
        summary = summaries[decision.seat]
        summary.decisions += 1
        summary.loss += decision.loss
        if decision.loss > 1.0:
            summary.mistakes += 1
    for summary in summaries:
        mine = [d for d in decisions if d.seat == summary.seat and d.loss > 0]
        summary.worst = sorted(mine, key=lambda d: -d.loss)[:5]
    method = "solver" if solver_for(rules) is not None else "expectimax"
    return Analysis(rules.preset, method, decisions, summaries)
