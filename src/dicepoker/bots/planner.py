"""Exact within-turn expectimax over dice multisets, for any preset, driven by the `Rules` data.

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

`MoveTable.build` computes the gain of every legal cell move for every hand and both doubling
flags at once with numpy: combination values from `combo_value`, School closing with the reserve
and zeros, first-player stars (row and column), the upper bonus crossing, and the extra-Yahtzee
bonus with the forced Joker. The tests check it against the engine's `preview` on random positions
of every preset. `Planner` runs the expectimax once per turn and answers every decision of that
turn from the cached tables; `keep_positions` turns the best keep multiset back into a `Roll`.

With `refine = k`, the cell move that ends a turn is chosen by a two-turn search: the `k` moves
worth most by the after-value are valued again by the exact expectimax of the player's next turn
on the sheet each leaves (`next_turn_value`), whose own after-values are one turn further away and
so weigh less on the choice. The other players' turns in between are not searched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import factorial
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from dicepoker.dice import FixedDice
from dicepoker.engine import (
    ROLL,
    Action,
    GameState,
    Mark,
    Move,
    Roll,
    apply,
    claimed_stars,
    upper_total,
)
from dicepoker.rules import Rules
from dicepoker.rules.combos import combo_value

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

NEG = -np.inf
# A roll must beat stopping by more than this (a tie stops): the plan and the bot agree on ties.
TIE = 1e-9


# --- dice as multisets -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class DiceSpace:
    """Hands (multisets of `dice` dice) and keeps (multisets of 0..`dice` dice).

    `trans[k, o]` is the chance that keeping `k` and throwing the rest gives hand `o`;
    `subkeeps[o]` lists the keeps a player may hold from hand `o` (every sub-multiset smaller than
    the hand, once each; index 0 of every row is the empty keep).
    """

    dice: int
    faces: int
    hands: tuple[tuple[int, ...], ...]  # sorted faces
    hand_counts: IntArray  # (hands, faces + 1): dice showing each face (column 0 unused)
    keeps: tuple[tuple[int, ...], ...]
    keep_sizes: IntArray  # (keeps,)
    trans: FloatArray  # (keeps, hands)
    subkeeps: IntArray  # (hands, width), padded by repeating the empty keep
    hand_index: dict[tuple[int, ...], int]
    keep_index: dict[tuple[int, ...], int]
    empty_keep: int

    @property
    def n_hands(self) -> int:
        return len(self.hands)


def _multinomial(counts: Sequence[int]) -> int:
    out = factorial(sum(counts))
    for count in counts:
        out //= factorial(count)
    return out


@cache
def dice_space(dice: int, faces: int) -> DiceSpace:
    """The hands, keeps and transition probabilities of `dice` dice with `faces` faces."""
    hands = tuple(combinations_with_replacement(range(1, faces + 1), dice))
    hand_index = {hand: i for i, hand in enumerate(hands)}
    keeps = tuple(
        keep
        for size in range(dice + 1)
        for keep in combinations_with_replacement(range(1, faces + 1), size)
    )
    keep_index = {keep: i for i, keep in enumerate(keeps)}
    counts = np.zeros((len(hands), faces + 1), dtype=np.int64)
    for i, hand in enumerate(hands):
        for face in hand:
            counts[i, face] += 1
    trans = np.zeros((len(keeps), len(hands)), dtype=np.float64)
    for k, keep in enumerate(keeps):
        free = dice - len(keep)
        total = float(faces**free)
        for thrown in combinations_with_replacement(range(1, faces + 1), free):
            hand = tuple(sorted(keep + thrown))
            ways = _multinomial([thrown.count(f) for f in set(thrown)])
            trans[k, hand_index[hand]] += ways / total
    lists: list[list[int]] = []
    for hand in hands:
        seen: dict[int, None] = {}
        for size in range(dice):
            for chosen in combinations(hand, size):
                seen[keep_index[chosen]] = None
        lists.append(list(seen))
    width = max(len(row) for row in lists)
    subkeeps = np.zeros((len(hands), width), dtype=np.int64)
    for i, row in enumerate(lists):
        subkeeps[i, : len(row)] = row
        subkeeps[i, len(row) :] = row[0]
    for array in (counts, trans, subkeeps):
        array.setflags(write=False)
    return DiceSpace(
        dice=dice,
        faces=faces,
        hands=hands,
        hand_counts=counts,
        keeps=keeps,
        keep_sizes=np.array([len(k) for k in keeps], dtype=np.int64),
        trans=trans,
        subkeeps=subkeeps,
        hand_index=hand_index,
        keep_index=keep_index,
        empty_keep=keep_index[()],
    )


def keep_positions(dice: Sequence[int], keep: Sequence[int]) -> tuple[int, ...]:
    """Positions of `dice` that hold the multiset `keep` (the first matching die of each face)."""
    wanted = list(keep)
    positions = []
    for position, die in enumerate(dice):
        if die in wanted:
            wanted.remove(die)
            positions.append(position)
    if wanted:
        raise ValueError(f"{list(keep)} is not part of the hand {list(dice)}")
    return tuple(positions)


# --- per-rules tables --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class RuleTables:
    """What the rows make for every hand: `made[row, hand]` and `value[row, hand]` (undoubled)."""

    rules: Rules
    space: DiceSpace
    made: BoolArray  # (rows, hands)
    value: IntArray  # (rows, hands): 0 where not made
    yahtzee_face: IntArray  # (hands,): the face when all dice show it, else 0
    upper: tuple[int, ...]
    box: int | None
    joker_points: dict[int, int]
    points: FloatArray  # (rows, hands, 2): the cell's points, doubled where the row doubles
    legal: BoolArray  # (rows, hands): a score is allowed (made, or unmade rows score 0)
    change: FloatArray  # (rows, hands): School rows: the reserve change of closing the row
    have: IntArray  # (rows, hands): dice showing the row's face (School rows)


def rule_tables(rules: Rules) -> RuleTables:
    """The tables of `rules`, built once and kept in `rules.memo`."""
    tables: RuleTables | None = rules.memo.get("planner")
    if tables is not None:
        return tables
    space = dice_space(rules.dice, rules.faces)
    n_rows, n_hands = len(rules.rows), space.n_hands
    made = np.zeros((n_rows, n_hands), dtype=np.bool_)
    value = np.zeros((n_rows, n_hands), dtype=np.int64)
    for o in range(n_hands):
        counts = tuple(int(c) for c in space.hand_counts[o])
        for r, row in enumerate(rules.rows):
            made_value = combo_value(row.combo, counts)
            if made_value is not None:
                made[r, o] = True
                value[r, o] = made_value
    yahtzee_face = np.array(
        [hand[0] if len(set(hand)) == 1 else 0 for hand in space.hands], dtype=np.int64
    )
    extra = rules.extra_yahtzee
    points = np.repeat(value[:, :, None].astype(np.float64), 2, axis=2)
    have = np.zeros((n_rows, n_hands), dtype=np.int64)
    change = np.zeros((n_rows, n_hands), dtype=np.float64)
    for r, row in enumerate(rules.rows):
        if row.doubles:
            points[r, :, 1] *= 2
        if row.school and rules.reserve is not None:
            have[r] = space.hand_counts[:, row.combo.n]
            change[r] = (have[r] - rules.reserve.target) * row.combo.n
    legal = np.ones_like(made) if rules.unmade_scores_zero else made.copy()
    for array in (made, value, points, legal, change, have):
        array.setflags(write=False)
    tables = RuleTables(
        rules=rules,
        space=space,
        made=made,
        value=value,
        yahtzee_face=yahtzee_face,
        upper=tuple(i for i, row in enumerate(rules.rows) if row.section == "upper"),
        box=rules.row_index[extra.box] if extra else None,
        joker_points=(
            {rules.row_index[name]: pts for name, pts in extra.joker_points} if extra else {}
        ),
        points=points,
        legal=legal,
        change=change,
        have=have,
    )
    rules.memo["planner"] = tables
    return tables


# --- the gain of every cell move for every hand ------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class MoveTable:
    """Every cell move that some hand allows, with its effect for every hand and doubling flag.

    `gain[m, o, d]` is the change in the mover's total (-inf where the move is not legal with hand
    `o`), `points[m, o, d]` the points written in the cell (0 for a cross, a stroke or a zero),
    `reserve[m, o]` the reserve after the move. `d = 1` is a hand thrown with all the dice.
    """

    state: GameState
    moves: tuple[Move, ...]
    rows: IntArray  # (moves,) row index
    columns: IntArray  # (moves,) the column the move fills
    gain: FloatArray  # (moves, hands, 2)
    points: FloatArray  # (moves, hands, 2)
    reserve: FloatArray  # (moves, hands)

    @classmethod
    def build(cls, state: GameState) -> MoveTable:
        return _build_moves(state)


def _column_status(rules: Rules, state: GameState) -> tuple[list[bool], list[int], list[int]]:
    """Per column: no stroke and no zero so far, best `column_best` points, empty cells."""
    sheet = state.sheet
    clean = [True] * rules.columns
    best = [0] * rules.columns
    empty = [0] * rules.columns
    for r, row in enumerate(rules.rows):
        for c in range(rules.columns):
            cell = sheet.cells[r * rules.columns + c]
            if cell is None:
                empty[c] += 1
            elif cell.mark is Mark.STRIKE or cell.mark is Mark.ZERO:
                clean[c] = False
            elif row.column_best and cell.points > best[c]:
                best[c] = cell.points
    return clean, best, empty


def _build_moves(state: GameState) -> MoveTable:
    rules = state.rules
    tables = rule_tables(rules)
    space = tables.space
    n_hands = space.n_hands
    sheet = state.sheet
    columns = rules.columns
    stars = rules.stars
    claimed = claimed_stars(state) if stars is not None else {}
    clean, col_best, col_empty = _column_status(rules, state)
    open_rows = sheet.open_rows(rules)

    # The forced Joker: which hands are further Yahtzees, and the rows each of them allows.
    joker_hands: BoolArray | None = None
    joker_allowed: dict[int, BoolArray] = {}  # row -> hands (among joker hands) it may take
    yahtzee_bonus = 0.0
    if tables.box is not None and sheet.cells[tables.box * columns] is not None:
        extra = rules.extra_yahtzee
        assert extra is not None
        box_cell = sheet.cells[tables.box * columns]
        if box_cell is not None and box_cell.points > 0:
            yahtzee_bonus = float(extra.bonus)
        joker_hands = tables.yahtzee_face > 0
        open_upper = [i for i in tables.upper if i in open_rows]
        open_lower = [i for i in open_rows if rules.rows[i].section == "lower"]
        for i in open_rows:
            joker_allowed[i] = np.zeros(n_hands, dtype=np.bool_)
        for o in np.flatnonzero(joker_hands):
            face = int(tables.yahtzee_face[o])
            matching = [i for i in open_upper if rules.rows[i].combo.n == face]
            for i in matching or open_lower or open_upper:
                joker_allowed[i][o] = True
    upper_before = upper_total(rules, sheet) if rules.upper_bonus is not None else 0

    n_moves = sum(2 if rules.rows[r].school or rules.rows[r].strike else 1 for r in open_rows)
    if not n_moves:
        raise ValueError("no empty cell to fill")
    gain = np.zeros((n_moves, n_hands, 2))
    points = np.zeros((n_moves, n_hands, 2))
    reserve = np.full((n_moves, n_hands), float(sheet.reserve))
    moves: list[Move] = []
    rows: list[int] = []
    cols: list[int] = []
    reserve_now = float(sheet.reserve)

    for r in open_rows:
        row = rules.rows[r]
        c = sheet.row_fill[r]
        m = len(moves)
        earlier = sheet.cells[r * columns : r * columns + c]
        # The move completes column c when every other row already has its cell c filled.
        column_star = (
            stars is not None
            and stars.columns
            and col_empty[c] == 1
            and clean[c]
            and ("column", c) not in claimed
        )
        row_key = ("school_row" if row.school else "combination_row", row.id)
        row_star_open = (
            stars is not None and row.star and c == columns - 1 and row_key not in claimed
        )
        if row.school:
            reserve_rules = rules.reserve
            assert reserve_rules is not None
            have = tables.have[r]
            change = tables.change[r]
            closable = (have >= 1) & (reserve_now + change >= 0)
            g = change.copy()
            if (
                row_star_open
                and stars is not None
                and all(
                    cell is not None and cell.mark is Mark.CLOSED and not cell.used_reserve
                    for cell in earlier
                )
            ):
                g += np.where(have >= reserve_rules.target, stars.school_factor * row.combo.n, 0)
            if column_star:
                g += col_best[c]
            gain[m] = np.where(closable, g, NEG)[:, None]
            reserve[m] = reserve_now + change
            gain[m + 1] = np.where(closable, NEG, -float(reserve_rules.zero_penalty))[:, None]
            moves += (Move("score", row.id), Move("zero", row.id))
            rows += (r, r)
            cols += (c, c)
            continue

        # A scored cell: the row's value, the Joker, doubling, bonuses.
        pts = points[m]
        pts[:] = tables.points[r]
        legal = tables.legal[r]
        g = gain[m]
        if joker_hands is not None:
            legal = np.where(joker_hands, joker_allowed[r], legal)
            fixed = tables.joker_points.get(r)
            if fixed is not None:
                pts[joker_hands] = float(fixed)
            g[joker_hands] = yahtzee_bonus
        g += pts
        up = rules.upper_bonus
        if up is not None and row.section == "upper" and upper_before < up.threshold:
            g += np.where(upper_before + pts >= up.threshold, float(up.points), 0.0)
        if row_star_open and all(cell is not None and cell.mark is Mark.SCORE for cell in earlier):
            best_before = max((cell.points for cell in earlier if cell is not None), default=0)
            g += np.maximum(pts, float(best_before))
        if column_star:
            if row.column_best:
                g += np.maximum(pts, float(col_best[c]))
            else:
                g += float(col_best[c])
        g[~legal] = NEG
        moves.append(Move("score", row.id))
        rows.append(r)
        cols.append(c)
        if row.strike:
            if joker_hands is not None:
                gain[m + 1][joker_hands] = NEG  # (no preset has both; the engine would refuse it)
            moves.append(Move("strike", row.id))
            rows.append(r)
            cols.append(c)

    return MoveTable(
        state=state,
        moves=tuple(moves),
        rows=np.array(rows, dtype=np.int64),
        columns=np.array(cols, dtype=np.int64),
        gain=gain,
        points=points,
        reserve=reserve,
    )


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

    def hand_value(self, hand: int, doubled: int, left: int) -> float:
        """Expected value of the decision point (hand, doubled, rolls left) with best play."""
        value = float(self.stop[hand, doubled])
        if left > 0:
            value = max(value, float(self.keep_value[left][self.space.subkeeps[hand]].max()))
        return value

    def turn_value(self) -> float:
        """Expected value of the turn before its first roll."""
        rerolls = len(self.keep_value) - 1
        space = self.space
        values = self.stop[:, 1]
        if rerolls > 0:
            values = np.maximum(values, self.keep_value[rerolls][space.subkeeps].max(axis=1))
        return float(space.trans[space.empty_keep] @ values)


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
    empty = space.empty_keep
    hands = np.arange(len(space.subkeeps))
    picks: list[IntArray] = [hands]  # per rolls left: the keep the plan would choose (unused at 0)
    rolls: list[BoolArray] = [np.zeros(len(hands), dtype=np.bool_)]  # ... and whether it rolls
    for left in range(1, rerolls + 1):
        expect = space.trans @ best  # (keeps, 2)
        values = expect[:, 0].copy()
        values[empty] = expect[empty, 1]  # throwing all five keeps the doubling
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
        expect = space.trans @ score_best
        kept = expect[:, 0].copy()
        kept[empty] = expect[empty, 1]
        score_keep[left] = kept
        score_best = np.where(rolls[left], kept[picks[left]][:, None], score_stop)
    return TurnPlan(
        table, stop, best_move, keep_value, space, after, score_after, score_keep, score_best
    )


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
        rerolls = state.rules.rolls_per_turn - 1
        return solve_turn(table, self.after_values(table), rerolls).turn_value()

    def cell_values(self, state: GameState) -> FloatArray:
        """Per move of the plan's table, the value of ending the turn with the dice of `state` by
        that move (-inf: illegal): gain + after-value, the `refine` best of them re-ranked by the
        two-turn search.

        The search's value of a candidate (gain + `next_turn_value`) is a different estimate from
        the one-turn plan's, which values every keep: mixing the two scales would make stopping
        look better or worse than rolling on the estimator's bias alone (measured: the search's
        values run higher). So the search only orders the candidates: the best of them is worth
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

    def cell_scores(self, state: GameState) -> FloatArray:
        """Per move of the plan's table, the expected points of ending the turn by that move with
        the dice of `state`: gain + the expected points after it (-inf: illegal). Where the
        objective is the expected score, these are the one-turn plan's values (`cell_values`
        re-ranks its best few by the two-turn search)."""
        plan = self.plan(state)
        hand = plan.space.hand_index[tuple(sorted(state.dice))]
        doubled = 1 if state.thrown_all else 0
        return plan.move_scores(hand, doubled)

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
                return Roll(keep_positions(state.dice, keep))
        if self.refine > 1:
            move = plan.table.moves[int(np.argmax(self.cell_values(state)))]
        else:
            move = plan.table.moves[int(plan.best_move[hand, doubled])]
        # The turn ends: its plan (about 0.4 MiB for a School sheet) is never asked for again. A
        # server's bot worker keeps a bot per game, and would otherwise keep every last plan.
        self._key = self._plan = None
        return move


__all__ = [
    "TIE",
    "AfterValue",
    "DiceSpace",
    "MoveTable",
    "ObjectiveAfter",
    "Planner",
    "RuleTables",
    "TurnPlan",
    "ZeroAfter",
    "dice_space",
    "keep_positions",
    "rule_tables",
    "solve_turn",
]
