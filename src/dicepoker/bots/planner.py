"""Exact within-turn expectimax over dice multisets, for any variant, driven by the `Rules` data.

A turn is a small game against the dice. Its decision points are `(hand, rolls left, doubled)`:
the hand as a multiset (252 for five six-sided dice), the rolls still allowed, and whether the
last roll threw every die (School combinations then double). At each point the player either
stops, filling the cell that is worth most, or keeps a sub-multiset of the hand (462 keeps in all)
and throws the rest. Stopping is worth

    stop[move, hand, doubled] = gain (what the engine's `preview` would report) + after-value

where the after-value is a pluggable estimate of the sheet's future after the move (0 for the
`basic` level, a fitted value function for the School `expert`). Keeping `k` with `j` rolls left
is worth the average over the throws of the other dice of the best value with `j - 1` rolls left;
keeping nothing throws all five dice again, so the hand it leads to is a doubled one.

`MoveTable.build` (`move_table.py`) computes the gain of every legal cell move for every hand and
both doubling flags at once, from the engine's rule primitives. The dice are the project's one
dice space (`dicepoker.solver.dice`, numpy only). `Planner` runs the expectimax once per turn and
answers every decision of that turn from the cached tables; the engine's `positions_of` turns the
best keep multiset back into a `Roll`.

With `refine = k`, the cell move that ends a turn is chosen by a two-turn search: the `k` moves
worth most by the after-value are valued again by the exact expectimax of the player's next turn
on the sheet each leaves (`next_turn_value`), whose own after-values are one turn further away and
so weigh less on the choice. The other players' turns in between are not searched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from dicepoker.bots.move_table import (
    BoolArray,
    FloatArray,
    IntArray,
    MoveTable,
    RuleTables,
    rule_tables,
)
from dicepoker.dice import FixedDice
from dicepoker.engine import ROLL, Action, GameState, Move, Roll, apply, positions_of
from dicepoker.solver.dice import DiceSpace, dice_space

# A roll must beat stopping by more than this (a tie stops): the plan and the bot agree on ties.
TIE = 1e-9


# --- the value of the sheet after a move -------------------------------------------------------


class AfterValue(Protocol):
    """Estimates what the rest of the game is worth after each move (the `stop` bonus)."""

    def after_values(self, table: MoveTable) -> FloatArray:
        """`(moves, hands, 2)` values of the sheet after each move of `table` (or broadcastable
        to that shape)."""
        ...


@runtime_checkable
class ObjectiveAfter(AfterValue, Protocol):
    """An after-value that plays for more than the expected score (the School expert's chance of
    winning at the end of a game with rivals): `after_values` is the objective it maximises, and
    `after_parts` gives it with the expected points alone (what the rest of the game brings), so
    that a plan can say what its own play is expected to score."""

    def after_parts(self, table: MoveTable) -> tuple[FloatArray, FloatArray | None]:
        """The objective's after-values and the expected points after each move (both
        `(moves, hands, 2)` or broadcastable); None for the points where the objective is the
        expected score itself."""
        ...


class ZeroAfter:
    """The `basic` level's after-value: nothing (the immediate score alone)."""

    def after_values(self, table: MoveTable) -> FloatArray:
        return np.zeros((len(table.moves), 1, 1))


# --- the expectimax ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class TurnPlan:
    """The solved turn of one sheet: `stop[o, d]`, `best_move[o, d]` and `keep_value[j, k]`,
    the value of keeping `k` with `j` rolls left (row 0 unused)."""

    table: MoveTable
    stop: FloatArray  # (hands, 2)
    best_move: IntArray  # (hands, 2)
    keep_value: FloatArray  # (rerolls + 1, keeps)
    space: DiceSpace
    after: FloatArray | None = None  # the after-values the plan was solved with
    # Where the objective is not the expected score (`ObjectiveAfter`): the expected points of
    # the same play, `score_after` after each move, `score_keep[j, k]` of keeping `k` with `j`
    # rolls left, `score_start[o, d]` of holding hand `o` with every re-roll still ahead. None:
    # the values are the expected points themselves.
    score_after: FloatArray | None = None
    score_keep: FloatArray | None = None
    score_start: FloatArray | None = None

    def keep_score(self, left: int, keep: int) -> float:
        """Expected points of keeping `keep` with `left` rolls left, playing the plan."""
        table = self.score_keep if self.score_keep is not None else self.keep_value
        return float(table[left][keep])

    def move_scores(self, hand: int, doubled: int) -> FloatArray:
        """Per move: gain + expected points after it (the objective's `move_values` where the
        objective is the expected score)."""
        if self.score_after is None:
            return self.move_values(hand, doubled)
        return self._stopping(self.score_after, hand, doubled)

    def turn_score(self) -> float:
        """Expected points of the turn before its first roll, playing the plan."""
        if self.score_start is None:
            return self.turn_value()
        return float(self.space.trans[self.space.empty_keep] @ self.score_start[:, 1])

    def move_values(self, hand: int, doubled: int) -> FloatArray:
        """Per move of `table`: gain + after-value of stopping with `hand` (-inf: illegal)."""
        return self._stopping(self.after, hand, doubled)

    def _stopping(self, after: FloatArray | None, hand: int, doubled: int) -> FloatArray:
        gain = self.table.gain[:, hand, doubled]
        if after is None:
            return gain
        out: FloatArray = gain + np.broadcast_to(after, self.table.gain.shape)[:, hand, doubled]
        return out

    def turn_value(self) -> float:
        """Expected value of the turn before its first roll."""
        rerolls = len(self.keep_value) - 1
        space = self.space
        values = self.stop[:, 1]
        if rerolls > 0:
            values = np.maximum(values, self.keep_value[rerolls][space.subkeeps].max(axis=1))
        return float(space.trans[space.empty_keep] @ values)


def kept_values(space: DiceSpace, best: FloatArray) -> FloatArray:
    """Per keep: the average over the throws of the other dice of `best[hand, doubled]`, the
    value of the hand they give; keeping nothing throws all five, so its hand is a doubled one."""
    expect = space.trans @ best  # (keeps, 2)
    kept: FloatArray = expect[:, 0].copy()
    kept[space.empty_keep] = expect[space.empty_keep, 1]
    return kept


def solve_turn(
    table: MoveTable, after: FloatArray, rerolls: int, score_after: FloatArray | None = None
) -> TurnPlan:
    """Expectimax of one turn given the after-values of every move (see the module doc). With
    `score_after` (the expected points after each move, where `after` is another objective), the
    plan also carries the expected points of its own play."""
    space = rule_tables(table.state.rules).space
    total = table.gain + after
    best_move = np.argmax(total, axis=0)
    stop = np.take_along_axis(total, best_move[None], axis=0)[0]
    keep_value = np.zeros((rerolls + 1, len(space.keeps)), dtype=np.float64)
    best = stop
    hands = np.arange(len(space.subkeeps))
    picks: list[IntArray] = [hands]  # per rolls left: the keep the plan would choose (unused at 0)
    rolls: list[BoolArray] = [np.zeros(len(hands), dtype=np.bool_)]  # ... and whether it rolls
    for left in range(1, rerolls + 1):
        values = kept_values(space, best)
        keep_value[left] = values
        options = values[space.subkeeps]
        pick = options.argmax(axis=1)
        roll_best = options[hands, pick]
        picks.append(space.subkeeps[hands, pick])
        rolls.append(roll_best[:, None] > stop + TIE)
        best = np.maximum(stop, roll_best[:, None])
    if score_after is None:
        return TurnPlan(table, stop, best_move, keep_value, space, after)
    # The same play's expected points: what the objective's choices score.
    points = np.broadcast_to(table.gain + score_after, total.shape)
    score_stop = np.take_along_axis(points, best_move[None], axis=0)[0]
    score_keep = np.zeros_like(keep_value)
    score_best = score_stop
    for left in range(1, rerolls + 1):
        kept = kept_values(space, score_best)
        score_keep[left] = kept
        score_best = np.where(rolls[left], kept[picks[left]][:, None], score_stop)
    return TurnPlan(
        table, stop, best_move, keep_value, space, after, score_after, score_keep, score_best
    )


def turn_value(table: MoveTable, after: FloatArray, rerolls: int) -> float:
    """`solve_turn(table, after, rerolls).turn_value()`, the same float operations without the
    plan's tables: the value of the turn before its first roll, for the two-turn search, which
    asks it of three sheets at the end of every turn and reads nothing else of their plans."""
    space = rule_tables(table.state.rules).space
    stop = (table.gain + after).max(axis=0)  # (hands, 2)
    values = stop[:, 1]
    best = stop
    for left in range(1, rerolls + 1):
        roll_best = kept_values(space, best)[space.subkeeps].max(axis=1)
        if left == rerolls:
            values = np.maximum(values, roll_best)
        else:
            best = np.maximum(stop, roll_best[:, None])
    return float(space.trans[space.empty_keep] @ values)


class Planner:
    """Plays a turn by the expectimax, with `after` valuing the sheet after each move.

    The plan of a turn is built at its first decision, reused for the rest of the turn, and let
    go when the turn's cell move is chosen.
    """

    def __init__(self, after: AfterValue | None = None, refine: int = 0) -> None:
        self.after = after if after is not None else ZeroAfter()
        self.refine = refine  # the turn's last move: a two-turn search over this many moves
        self._key: tuple[object, ...] | None = None
        self._plan: TurnPlan | None = None

    def plan(self, state: GameState) -> TurnPlan:
        key = (state.rules, state.sheets, state.seat, state.turn, state.stage)
        if self._plan is not None and self._key == key:
            return self._plan
        table = MoveTable.build(state)
        after, points = self.after_parts(table)
        plan = solve_turn(table, after, state.rules.rolls_per_turn - 1, points)
        self._key, self._plan = key, plan
        return plan

    def after_values(self, table: MoveTable) -> FloatArray:
        return self.after.after_values(table)

    def after_parts(self, table: MoveTable) -> tuple[FloatArray, FloatArray | None]:
        """The objective's after-values and, where they are not the expected points, the
        expected points after each move."""
        if isinstance(self.after, ObjectiveAfter):
            return self.after.after_parts(table)
        return self.after.after_values(table), None

    def next_turn_value(self, state: GameState, move: Move) -> float:
        """What the mover's next turn is worth after `move` (with the dice of `state`): the exact
        expectimax of that turn over the after-values, as if the mover were to play it now.
        0 when the move ends the player's game (a full sheet, the end of the game or its stage)."""
        after = apply(state, move, FixedDice(()))
        me = state.seat
        if (
            after.finished
            or after.stage != state.stage
            or after.sheets[me].filled >= state.rules.cells
        ):
            return 0.0
        mine = after._replace(seat=me, dice=(), rolls=0, thrown_all=False)
        table = MoveTable.build(mine)
        return turn_value(table, self.after_values(table), state.rules.rolls_per_turn - 1)

    def cell_values(self, state: GameState) -> FloatArray:
        """Per move of the plan's table, the value of ending the turn with the dice of `state` by
        that move (-inf: illegal): gain + after-value, the `refine` best of them re-ranked by the
        two-turn search.

        The search's value of a candidate (gain + `next_turn_value`) is a different estimate from
        the one-turn plan's, which values every keep: mixing the two scales would make stopping
        look better or worse than rolling on the estimator's bias alone (the search's values run
        higher: docs/bots.md). So the search only orders the candidates: the best of them is worth
        the plan's value of stopping and each other one its distance below the best in the search.
        Both the expert and the advisor read these values, so the advisor's best is the expert's
        choice."""
        plan = self.plan(state)
        hand = plan.space.hand_index[tuple(sorted(state.dice))]
        doubled = 1 if state.thrown_all else 0
        values = plan.move_values(hand, doubled)
        if self.refine <= 1 or state.rules.cells - state.sheet.filled <= 1:
            return values
        order = [int(m) for m in np.argsort(-values, kind="stable")[: self.refine]]
        order = [m for m in order if np.isfinite(values[m])]
        if not order:
            return values
        gain = plan.table.gain[:, hand, doubled]
        searched = {
            m: float(gain[m]) + self.next_turn_value(state, plan.table.moves[m]) for m in order
        }
        top = max(searched.values())
        stop = float(values[order[0]])
        out: FloatArray = values.copy()
        for m, value in searched.items():
            out[m] = stop + (value - top)
        return out

    def choose(self, state: GameState) -> Action:
        if state.rolls == 0:
            return ROLL
        plan = self.plan(state)
        space = plan.space
        hand = space.hand_index[tuple(sorted(state.dice))]
        doubled = 1 if state.thrown_all else 0
        left = state.rules.rolls_per_turn - state.rolls
        stop = float(plan.stop[hand, doubled])
        if left > 0:
            subs = space.subkeeps[hand]
            values = plan.keep_value[left][subs]
            pick = int(np.argmax(values))
            if float(values[pick]) > stop + TIE:
                keep = space.keeps[int(subs[pick])]
                return Roll(positions_of(state.dice, keep))
        if self.refine > 1:
            move = plan.table.moves[int(np.argmax(self.cell_values(state)))]
        else:
            move = plan.table.moves[int(plan.best_move[hand, doubled])]
        # The turn ends: its plan (about 0.4 MiB for a School sheet) is never asked for again. A
        # server's worker keeps a bot per game, and would otherwise keep every last plan.
        self._key = self._plan = None
        return move


__all__ = [
    "TIE",
    "AfterValue",
    "BoolArray",
    "DiceSpace",
    "FloatArray",
    "IntArray",
    "MoveTable",
    "ObjectiveAfter",
    "Planner",
    "RuleTables",
    "TurnPlan",
    "ZeroAfter",
    "dice_space",
    "kept_values",
    "rule_tables",
    "solve_turn",
    "turn_value",
]
