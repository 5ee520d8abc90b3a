"""The gain of every cell move for every hand, built from the engine's rule primitives.

`rule_tables(rules)` evaluates, once per `Rules`, what the engine's primitives give each of the
252 hands: the cell `score_cell` writes in every combination row (value, doubling, the Joker's
value), whether `score_refusal` allows it, what `school_closing` does to the reserve, and whether
the written cell keeps the row's and the column's star (`keeps_row_star`, `keeps_column_star`).

`MoveTable.build(state)` turns these into the gain of every legal cell move of the player to move,
for every hand and both doubling flags at once, with what depends on the sheet taken from the
primitives too: which School closings `school_refusal` allows with the reserve, the forced Joker's
rows (`joker_applies`, `joker_rows`) and bonus (`further_yahtzee_bonus`), the upper bonus crossing
(`upper_bonus_gain`, evaluated once per points value), the stars at stake (`stars_at_stake`) and
their values (`row_star_value`, `column_star_value`, evaluated once per distinct points value).
The tests check the gains against the engine's `preview` for every hand on random positions of
every variant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray

from dicepoker.engine import (
    Cell,
    GameState,
    Mark,
    Move,
    claimed_stars,
    column_star_value,
    further_yahtzee_bonus,
    joker_applies,
    joker_box,
    joker_rows,
    keeps_column_star,
    keeps_row_star,
    row_star_value,
    school_closing,
    school_refusal,
    score_cell,
    score_refusal,
    stars_at_stake,
    upper_bonus_gain,
    upper_rows,
    upper_total,
    yahtzee_face,
    zero_penalty,
)
from dicepoker.rules import Rules
from dicepoker.rules.combos import combo_value
from dicepoker.solver.dice import DiceSpace, dice_space

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

NEG = -np.inf
A = TypeVar("A", bound=NDArray[Any])

# --- per-rules tables --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class RuleTables:
    """What the engine's primitives give every hand for `rules` (`[row, hand]` arrays).

    `made`, `value`: whether the dice make the row and its value (0 where not made, undoubled).
    `points[row, hand, d]`: the points `score ROW` writes in a combination row (`d = 1`: the dice
    were thrown all at once); `joker_points` the same under the forced Joker (None without the
    rule). `legal`: `score_refusal` allows the score. School rows: `have` dice of the row's face
    and the reserve `change` of closing it (`school_closing`).
    `keeps_row`, `keeps_column`: the cell a score (or a closing) writes keeps the row's / the
    column's star in reach; `cross_keeps_row`, `cross_keeps_column`: the same for the row's
    stroke (combination rows) or zero (School rows).
    """

    rules: Rules
    space: DiceSpace
    made: BoolArray  # (rows, hands)
    value: IntArray  # (rows, hands): 0 where not made
    yahtzee_face: IntArray  # (hands,): the face when all dice show it, else 0
    upper: frozenset[int]  # the rows the upper bonus counts
    box: int | None
    points: FloatArray  # (rows, hands, 2)
    joker_points: FloatArray | None  # (rows, hands, 2)
    legal: BoolArray  # (rows, hands)
    change: FloatArray  # (rows, hands): School rows: the reserve change of closing the row
    have: IntArray  # (rows, hands): dice showing the row's face (School rows)
    keeps_row: BoolArray  # (rows, hands)
    keeps_column: BoolArray  # (rows, hands)
    # Per row: whether the hand changes the above (a School closing's dice), and whether its
    # other move's cell (a stroke, or a School row's zero) keeps the stars.
    row_varies: BoolArray  # (rows,)
    column_varies: BoolArray  # (rows,)
    cross_keeps_row: BoolArray  # (rows,)
    cross_keeps_column: BoolArray  # (rows,)
    point_values: tuple[tuple[int, ...], ...]  # per row: the points a score can write
    most_points: int  # the most points a scored cell holds (the size of per-points lookups)
    # Lookups of what depends on the sheet, by what it depends on (the reserve, the upper total,
    # the cells beside a star at stake): computed once, and again only when that changes.
    memo: dict[tuple[object, ...], Any]


def rule_tables(rules: Rules) -> RuleTables:
    """The tables of `rules`, built once and kept with the rules (`Rules.memoized`)."""
    return rules.memoized("planner", _rule_tables)


def _rule_tables(rules: Rules) -> RuleTables:
    space = dice_space(rules.dice, rules.faces)
    n_rows, n_hands = len(rules.rows), space.n_hands
    made = np.zeros((n_rows, n_hands), dtype=np.bool_)
    value = np.zeros((n_rows, n_hands), dtype=np.int64)
    points = np.zeros((n_rows, n_hands, 2), dtype=np.float64)
    joker = np.zeros((n_rows, n_hands, 2), dtype=np.float64) if rules.extra_yahtzee else None
    legal = np.ones((n_rows, n_hands), dtype=np.bool_)
    have = np.zeros((n_rows, n_hands), dtype=np.int64)
    change = np.zeros((n_rows, n_hands), dtype=np.float64)
    keeps_row = np.zeros((n_rows, n_hands), dtype=np.bool_)
    keeps_column = np.zeros((n_rows, n_hands), dtype=np.bool_)
    faces = np.zeros(n_hands, dtype=np.int64)
    for o in range(n_hands):
        counts = tuple(int(c) for c in space.hand_counts[o])
        faces[o] = yahtzee_face(rules, counts) or 0
        for r, row in enumerate(rules.rows):
            made_value = combo_value(row.combo, counts)
            if made_value is not None:
                made[r, o] = True
                value[r, o] = made_value
            if row.school:
                have[r, o] = counts[row.combo.n]
                closing = school_closing(rules, r, counts[row.combo.n])
                change[r, o] = closing.change
                cell = Cell(Mark.CLOSED, used_reserve=closing.used_reserve)
            else:
                legal[r, o] = score_refusal(rules, r, counts) is None
                for d in (0, 1):
                    cell = score_cell(rules, r, counts, thrown_all=bool(d))
                    points[r, o, d] = cell.points
                    if joker is not None:
                        joker[r, o, d] = score_cell(
                            rules, r, counts, thrown_all=bool(d), joker=True
                        ).points
            keeps_row[r, o] = keeps_row_star(rules, r, cell)
            keeps_column[r, o] = keeps_column_star(rules, cell)
    crosses = [Cell(Mark.ZERO if row.school else Mark.STRIKE) for row in rules.rows]
    cross_row = np.array([keeps_row_star(rules, r, x) for r, x in enumerate(crosses)])
    cross_column = np.array([keeps_column_star(rules, x) for x in crosses])
    most = max(points.max(initial=0.0), joker.max(initial=0.0) if joker is not None else 0.0)
    written = [points, *([joker] if joker is not None else [])]
    point_values = tuple(
        tuple(sorted({int(p) for array in written for p in array[r].ravel()}))
        for r in range(n_rows)
    )
    arrays = [made, value, faces, points, legal, change, have, keeps_row, keeps_column]
    row_varies = (keeps_row != keeps_row[:, :1]).any(axis=1)
    column_varies = (keeps_column != keeps_column[:, :1]).any(axis=1)
    arrays += [cross_row, cross_column, row_varies, column_varies]
    for array in [*arrays, *([joker] if joker is not None else [])]:
        array.setflags(write=False)
    return RuleTables(
        rules=rules,
        space=space,
        made=made,
        value=value,
        yahtzee_face=faces,
        upper=frozenset(upper_rows(rules)),
        box=joker_box(rules),
        points=points,
        joker_points=joker,
        legal=legal,
        change=change,
        have=have,
        keeps_row=keeps_row,
        keeps_column=keeps_column,
        row_varies=row_varies,
        column_varies=column_varies,
        cross_keeps_row=cross_row,
        cross_keeps_column=cross_column,
        point_values=point_values,
        most_points=int(most),
        memo={},
    )


MEMO_SIZE = 4096  # lookups kept per rules (a server's worker plays many games)


def _remember(tables: RuleTables, key: tuple[object, ...], make: Callable[[], A]) -> A:
    found: A | None = tables.memo.get(key)
    if found is None:
        if len(tables.memo) >= MEMO_SIZE:
            tables.memo.clear()
        found = tables.memo[key] = make()
        found.setflags(write=False)  # shared by every plan of these rules
    return found


def closable(tables: RuleTables, reserve: int) -> BoolArray:
    """`[row, k]`: School row `row` can be closed with `k` dice of its face and `reserve`
    (`school_refusal`)."""
    rules = tables.rules

    def make() -> BoolArray:
        return np.array(
            [
                [
                    rules.rows[r].school and school_refusal(rules, r, k, reserve) is None
                    for k in range(rules.dice + 1)
                ]
                for r in range(len(rules.rows))
            ],
            dtype=np.bool_,
        )

    found: BoolArray = _remember(tables, ("closable", reserve), make)
    return found


def upper_gains(tables: RuleTables, before: int) -> FloatArray:
    """`[p]`: the upper bonus that `p` more points bring to an upper total of `before`
    (`upper_bonus_gain`)."""
    rules = tables.rules

    def make() -> FloatArray:
        gains = [upper_bonus_gain(rules, before, p) for p in range(tables.most_points + 1)]
        return np.array(gains, dtype=np.float64)

    found: FloatArray = _remember(tables, ("upper", before), make)
    return found


def row_star_values(tables: RuleTables, r: int, earlier: tuple[Cell | None, ...]) -> FloatArray:
    """`[p]`: row `r`'s star value when its last cell scores `p` after the cells `earlier`
    (`row_star_value`), for every points value the row can take."""
    rules = tables.rules

    def make() -> FloatArray:
        values = np.zeros(tables.most_points + 1, dtype=np.float64)
        for p in tables.point_values[r]:
            values[p] = row_star_value(rules, r, (*earlier, _scored(p)))
        return values

    found: FloatArray = _remember(tables, ("row", r, earlier), make)
    return found


def column_star_values(tables: RuleTables, r: int, cells: tuple[Cell | None, ...]) -> FloatArray:
    """`[p]`: the value of the star of a column whose cells are `cells` when row `r`'s cell, its
    last, scores `p` (`column_star_value`), for every points value the row can take."""
    rules = tables.rules

    def make() -> FloatArray:
        values = np.zeros(tables.most_points + 1, dtype=np.float64)
        for p in tables.point_values[r]:
            values[p] = column_star_value(rules, (*cells[:r], _scored(p), *cells[r + 1 :]))
        return values

    found: FloatArray = _remember(tables, ("column", r, cells), make)
    return found


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

    def keeps_stars(self) -> tuple[Keeping, Keeping]:
        """Whether the cell each move writes keeps its row's star in reach, and its column's
        (`keeps_row_star`, `keeps_column_star`, from the rules' tables)."""
        tables = rule_tables(self.state.rules)
        score = np.array([move.verb == "score" for move in self.moves], dtype=np.bool_)
        rows = self.rows
        return (
            _keeping(score, rows, tables.keeps_row, tables.row_varies, tables.cross_keeps_row),
            _keeping(
                score, rows, tables.keeps_column, tables.column_varies, tables.cross_keeps_column
            ),
        )


class Keeping(NamedTuple):
    """Per move whether the cell it writes keeps a star: `first`, its value for the first hand;
    `varies`, the moves whose value depends on the hand (a School closing, by its dice), and
    `by_hand[k, hand]` for the k-th of them."""

    first: BoolArray  # (moves,)
    varies: BoolArray  # (moves,)
    by_hand: BoolArray  # (varying moves, hands)


def _keeping(
    score: BoolArray, rows: IntArray, keeps: BoolArray, varies_by_row: BoolArray, cross: BoolArray
) -> Keeping:
    first = np.where(score, keeps[rows, 0], cross[rows])
    varies = score & varies_by_row[rows]
    return Keeping(first, varies, keeps[rows[varies]])


def _joker_moves(
    state: GameState, tables: RuleTables, open_rows: list[int]
) -> tuple[BoolArray | None, dict[int, BoolArray], float]:
    """The forced Joker on the mover's sheet: which hands are further Yahtzees (None when the Joker
    is not in play), the hands each open row may take among them, and the bonus they earn."""
    rules, sheet = state.rules, state.sheet
    if not joker_applies(rules, sheet):
        return None, {}, 0.0
    assert tables.box is not None
    bonus = float(further_yahtzee_bonus(rules, sheet.cells[tables.box * rules.columns]))
    hands = tables.yahtzee_face > 0
    allowed = {i: np.zeros(len(hands), dtype=np.bool_) for i in open_rows}
    for o in np.flatnonzero(hands):
        for i in joker_rows(rules, int(tables.yahtzee_face[o]), open_rows):
            allowed[i][o] = True
    return hands, allowed, bonus


def _build_moves(state: GameState) -> MoveTable:
    rules = state.rules
    tables = rule_tables(rules)
    n_hands = tables.space.n_hands
    sheet = state.sheet
    claimed = claimed_stars(state) if rules.stars is not None else {}
    open_rows = sheet.open_rows(rules)
    joker_hands, joker_allowed, yahtzee_bonus = _joker_moves(state, tables, open_rows)
    upper_gain = upper_gains(tables, upper_total(rules, sheet)) if rules.upper_bonus else None
    allowed = closable(tables, sheet.reserve) if rules.reserve is not None else None

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
    penalty = -float(zero_penalty(rules))
    bonus = np.where(joker_hands, yahtzee_bonus, 0.0) if joker_hands is not None else None

    for r in open_rows:
        row = rules.rows[r]
        c = sheet.row_fill[r]
        m = len(moves)
        row_star, column_star = stars_at_stake(rules, sheet, r, claimed)
        if row.school:
            assert allowed is not None
            change = tables.change[r]
            can_close = allowed[r][tables.have[r]]
            g = change.copy()
            if row_star is not None:
                earlier = sheet.row_cells(rules, r)[:c]
                g += np.where(tables.keeps_row[r], row_star_value(rules, r, earlier), 0)
            if column_star is not None:
                cells = sheet.column_cells(rules, c)
                closed = column_star_value(rules, (*cells[:r], Cell(Mark.CLOSED), *cells[r + 1 :]))
                g += np.where(tables.keeps_column[r], closed, 0)
            if bonus is not None:
                g += bonus
            gain[m] = np.where(can_close, g, NEG)[:, None]
            reserve[m] = reserve_now + change
            zero = penalty if bonus is None else penalty + bonus
            gain[m + 1] = np.where(can_close, NEG, zero)[:, None]
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
            assert tables.joker_points is not None
            legal = np.where(joker_hands, joker_allowed[r] & legal, legal)
            pts[joker_hands] = tables.joker_points[r][joker_hands]
            g[joker_hands] = yahtzee_bonus
        g += pts
        if upper_gain is not None and r in tables.upper:
            g += upper_gain[pts.astype(np.int64)]
        if row_star is not None:
            at = pts.astype(np.int64)
            values = row_star_values(tables, r, sheet.row_cells(rules, r)[:c])
            g += np.where(tables.keeps_row[r][:, None], values[at], 0)
        if column_star is not None:
            at = pts.astype(np.int64)
            values = column_star_values(tables, r, sheet.column_cells(rules, c))
            g += np.where(tables.keeps_column[r][:, None], values[at], 0)
        g[~legal] = NEG
        moves.append(Move("score", row.id))
        rows.append(r)
        cols.append(c)
        if row.strike:
            if joker_hands is not None:
                gain[m + 1][joker_hands] = yahtzee_bonus
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


def _scored(points: int) -> Cell:
    return Cell(Mark.SCORE, points)


__all__ = [
    "BoolArray",
    "FloatArray",
    "IntArray",
    "Keeping",
    "MoveTable",
    "RuleTables",
    "closable",
    "column_star_values",
    "row_star_values",
    "rule_tables",
    "upper_gains",
]
