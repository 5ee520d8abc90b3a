"""What the School value reads from a sheet: the features of the network (`school_value.py`).

- the turns left, and the empty cells of every row;
- per row with a star: whether the star is still in reach (the row unbroken, the star not taken)
  and, for a combination row, its best cell so far (the star's value);
- the reserve: per School row, how many missing dice of its face the reserve covers (whether it
  can close the row with two dice, with one, and the cover itself), and the reserve itself;
- per column: whether its star is in reach, its empty cells, its hard cells still empty (five and
  four of a kind, the two straights), whether its five-of-a-kind cell is empty, and its best
  combination so far;
- the race for every star against the other players: whether someone else can still earn it, and
  how many more cells they need for it than we do.

Whether a star is in reach and what it is worth come from the engine's primitives
(`row_star_open`, `column_star_open`, `row_star_value`, `column_star_value`, `claimed_stars`), and
after a move from whether the cell it writes keeps the star (`keeps_row_star`,
`keeps_column_star`, through `MoveTable.keeps_stars`). `after_positions` gives the features of
every distinct sheet the moves of a turn can leave, in one batch.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from dicepoker.bots.move_table import BoolArray, FloatArray, IntArray, Keeping, MoveTable
from dicepoker.engine import (
    GameState,
    Sheet,
    claimed_stars,
    column_star_open,
    column_star_value,
    row_star_open,
    row_star_value,
)
from dicepoker.rules import Rules

HARD_ROWS = ("five_of_a_kind", "four_of_a_kind", "small_straight", "large_straight")
FIVE_ROW = "five_of_a_kind"
RACE_SPAN = 3  # the race feature: rival's need minus ours, clipped to +-RACE_SPAN


@dataclass(frozen=True, slots=True)
class Layout:
    """Which rows are which on a School sheet of `columns`, and the width of the features."""

    columns: int
    n_rows: int
    school_rows: tuple[int, ...]
    faces: tuple[int, ...]  # per School row: its face
    star: tuple[bool, ...]  # per row: has a row star
    school: tuple[bool, ...]  # per row: a School row
    hard: tuple[bool, ...]  # per row: one of HARD_ROWS
    five: int
    column_best: tuple[bool, ...]

    @property
    def cells(self) -> int:
        return self.n_rows * self.columns

    @property
    def width(self) -> int:
        rows, columns, school = self.n_rows, self.columns, len(self.school_rows)
        return 1 + 3 * rows + 3 * school + 1 + 5 * columns + 2 * (rows + columns)


@cache
def _layout_for(rows_key: tuple[tuple[str, bool, bool, bool, int], ...], columns: int) -> Layout:
    school = tuple(i for i, key in enumerate(rows_key) if key[1])
    return Layout(
        columns=columns,
        n_rows=len(rows_key),
        school_rows=school,
        faces=tuple(rows_key[i][4] for i in school),
        star=tuple(key[2] for key in rows_key),
        school=tuple(key[1] for key in rows_key),
        hard=tuple(key[0] in HARD_ROWS for key in rows_key),
        five=next(i for i, key in enumerate(rows_key) if key[0] == FIVE_ROW),
        column_best=tuple(key[3] for key in rows_key),
    )


def layout(rules: Rules) -> Layout:
    """The layout of `rules`, kept with the rules (asked for many times a decision)."""
    return rules.memoized("school_layout", _layout_of)


def _layout_of(rules: Rules) -> Layout:
    key = tuple((row.id, row.school, row.star, row.column_best, row.combo.n) for row in rules.rows)
    return _layout_for(key, rules.columns)


# --- what the value reads from a sheet ---------------------------------------------------------


@dataclass(slots=True)
class Position:
    """Raw features of `n` sheets (one per row of every array), before encoding.

    `alive[r]`: row r's star is still in reach (0 for rows without a star, full rows, rows whose
    condition is broken and stars someone holds); `best[r]`: a combination row's best cell;
    `rival[k]` for the row stars then the column stars: the fewest cells a rival who can still earn
    that star needs for it (0: no rival can).
    """

    turns: IntArray  # (n,) empty cells = turns left
    reserve: IntArray  # (n,)
    empty: IntArray  # (n, rows)
    alive: IntArray  # (n, rows)
    best: IntArray  # (n, rows)
    col_alive: IntArray  # (n, columns)
    col_empty: IntArray  # (n, columns)
    col_hard: IntArray  # (n, columns)
    col_five: IntArray  # (n, columns)
    col_best: IntArray  # (n, columns)
    rival: IntArray  # (n, rows + columns)

    def repeat(self, count: int) -> Position:
        return Position(*(np.repeat(getattr(self, name), count, axis=0) for name in _FIELDS))

    @classmethod
    def stack(cls, parts: Sequence[Position]) -> Position:
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in _FIELDS))


_FIELDS = tuple(Position.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class _Own:
    """One sheet's own features (no rivals), as plain lists."""

    empty: list[int]
    alive: list[int]
    best: list[int]
    col_alive: list[int]
    col_empty: list[int]
    col_hard: list[int]
    col_five: list[int]
    col_best: list[int]


def _own(rules: Rules, sheet: Sheet, claimed: Collection[Any]) -> _Own:
    """The features of one sheet; every star's reach and value from the engine's primitives."""
    lay = layout(rules)
    columns = rules.columns
    empty = [columns - fill for fill in sheet.row_fill]
    alive = [int(row_star_open(rules, sheet, r, claimed)) for r in range(lay.n_rows)]
    best = [
        0 if row.school else row_star_value(rules, r, sheet.row_cells(rules, r))
        for r, row in enumerate(rules.rows)
    ]
    col_alive = [int(column_star_open(rules, sheet, c, claimed)) for c in range(columns)]
    col_best = [column_star_value(rules, sheet.column_cells(rules, c)) for c in range(columns)]
    col_empty = [0] * columns
    col_hard = [0] * columns
    col_five = [0] * columns
    for r, fill in enumerate(sheet.row_fill):
        for c in range(fill, columns):
            col_empty[c] += 1
            col_hard[c] += lay.hard[r]
            col_five[c] |= r == lay.five
    return _Own(empty, alive, best, col_alive, col_empty, col_hard, col_five, col_best)


# The last rivals' reaches, by the identity of their sheets: (rules, sheet, claimed, reach).
_REACHES: dict[int, tuple[Rules, Sheet, frozenset[Any], tuple[tuple[int, int], ...]]] = {}
REACHES_KEPT = 64


def _reach(rules: Rules, sheet: Sheet, claimed: frozenset[Any]) -> tuple[tuple[int, int], ...]:
    """A rival's (star in reach, cells still needed) for every row star, then column star. A
    rival's sheet does not change during our turn: kept for the turn's many positions, found by
    the sheet's identity (hashing a whole sheet cost more than a tenth of a position)."""
    kept = _REACHES.get(id(sheet))
    if kept is not None and kept[1] is sheet and kept[0] is rules and kept[2] == claimed:
        return kept[3]
    theirs = _own(rules, sheet, claimed)
    alive, empty = theirs.alive + theirs.col_alive, theirs.empty + theirs.col_empty
    reach = tuple(zip(alive, empty, strict=True))
    if len(_REACHES) >= REACHES_KEPT:
        _REACHES.clear()
    _REACHES[id(sheet)] = (rules, sheet, claimed, reach)
    return reach


def position(
    rules: Rules, sheet: Sheet, claimed: set[Any] | dict[Any, Any], rivals: Sequence[Sheet] = ()
) -> Position:
    """The raw features of one sheet (n = 1), with the rivals' sheets in the race for stars."""
    own = _own(rules, sheet, claimed)
    need = [0] * (len(rules.rows) + rules.columns)
    taken = frozenset(claimed)
    for other in rivals:
        for k, (live, cells) in enumerate(_reach(rules, other, taken)):
            if live and (need[k] == 0 or cells < need[k]):
                need[k] = cells

    def one(values: Sequence[int] | int) -> IntArray:
        return np.array(values, dtype=np.int64).reshape(1, -1)

    return Position(
        turns=np.array([rules.cells - sheet.filled], dtype=np.int64),
        reserve=np.array([sheet.reserve], dtype=np.int64),
        empty=one(own.empty),
        alive=one(own.alive),
        best=one(own.best),
        col_alive=one(own.col_alive),
        col_empty=one(own.col_empty),
        col_hard=one(own.col_hard),
        col_five=one(own.col_five),
        col_best=one(own.col_best),
        rival=one(need),
    )


def encode(lay: Layout, pos: Position) -> FloatArray:
    """The network's input: `(n, lay.width)` features of the positions (see the module doc)."""
    n = len(pos.turns)
    columns = lay.columns
    parts: list[FloatArray] = []
    add = parts.append
    add((pos.turns / lay.cells)[:, None])
    add(pos.empty / columns)
    alive = pos.alive.astype(np.float64)
    add(alive)
    add(alive * pos.best / 50)
    reserve = pos.reserve.astype(np.float64)[:, None]
    faces = np.array(lay.faces, dtype=np.float64)[None, :]
    add(np.minimum(reserve / faces, 6) / 6)
    add((reserve >= faces).astype(np.float64))
    add((reserve >= 2 * faces).astype(np.float64))
    add(np.minimum(reserve, 60) / 20)
    col_alive = pos.col_alive.astype(np.float64)
    add(col_alive)
    add(col_alive * pos.col_empty / lay.n_rows)
    add(col_alive * pos.col_hard / len(HARD_ROWS))
    add(col_alive * pos.col_five)
    add(col_alive * pos.col_best / 100)
    mine_alive = np.concatenate([alive, col_alive], axis=1)
    mine_need = np.concatenate([pos.empty, pos.col_empty], axis=1)
    live = mine_alive * (pos.rival > 0)
    add(live)
    add(live * np.clip(pos.rival - mine_need, -RACE_SPAN, RACE_SPAN) / RACE_SPAN)
    out = np.concatenate(parts, axis=1)
    assert out.shape == (n, lay.width)
    return out


def state_position(state: GameState) -> Position:
    """The raw features of the sheet of the player to move, with its rivals."""
    rules = state.rules
    rivals = [
        sheet
        for seat, sheet in enumerate(state.sheets)
        if seat != state.seat and seat in state.contenders and seat not in state.forfeited
    ]
    return position(rules, state.sheet, claimed_stars(state), rivals)


KEY = 1024  # above any points or reserve a sheet can hold


def after_positions(table: MoveTable, pos: Position) -> tuple[Position, IntArray]:
    """Every distinct sheet the moves of `table` can leave (from the sheet `pos`, n = 1), and for
    every (move, hand, doubled) the row of that list it leads to (`(moves, hands, 2)` indices).

    A combination move's sheet depends on its points where they can still count (for the row's
    star or the column's), a School closing's on the reserve it leaves; a stroke or a zero breaks
    the row's star and the column's. The value reads their features through `after_features`."""
    rules = table.state.rules
    lay = layout(rules)
    rows, cols = table.rows, table.columns
    by_reserve, by_points, legal = _counted(table, pos)
    value = np.where(
        by_reserve[:, None, None],
        table.reserve[:, :, None],
        np.where(by_points[:, None, None], table.points, 0.0),
    )
    value = np.where(legal, np.clip(value, 0, KEY - 1), 0.0).astype(np.int64)
    # Each (move, value) as one key, move-major: the span is the largest value + 1 (at most KEY),
    # so that the mask below is as small as the turn's values allow.
    span = int(value.max()) + 1
    key = value + span * np.arange(len(rows))[:, None, None]
    # The distinct keys in order, and each entry's place among them (np.unique's answer, by a
    # mask over the small key range instead of a sort).
    present = np.zeros(span * len(rows), dtype=np.bool_)
    present[key.ravel()] = True
    keys = np.flatnonzero(present)
    inverse = (np.cumsum(present) - 1)[key]
    m = keys // span
    v = keys % span
    r, c = rows[m], cols[m]
    by_res, by_pts = by_reserve[m], by_points[m]
    n = len(keys)
    at = np.arange(n)
    after = pos.repeat(n)
    after.turns -= 1
    after.empty[at, r] -= 1
    after.col_empty[at, c] -= 1
    after.col_hard[at, c] -= np.array(lay.hard, dtype=np.int64)[r]
    after.col_five[at, c] &= r != lay.five
    reserve_now = int(pos.reserve[0])
    after.reserve = np.where(by_res, v, reserve_now)
    # A star stays in reach when the cell written keeps it (`keeps_row_star`: a School row closed
    # without the reserve, a combination scored) and its row or column is not full yet (a full
    # one has earned its star or lost it).
    keeps_row, keeps_column = table.keeps_stars()
    where = inverse.reshape(key.shape)
    after.alive[at, r] &= _kept(keeps_row, where, legal, m) & (after.empty[at, r] > 0)
    # The best cell so far of a row and of a column: the value their star would have
    # (`row_star_value`, `column_star_value`: the best cell), with the move's points.
    star_points = by_pts & np.array(lay.star)[r]
    after.best[at, r] = np.where(star_points, np.maximum(after.best[at, r], v), after.best[at, r])
    column_points = by_pts & np.array(lay.column_best)[r]
    after.col_best[at, c] = np.where(
        column_points, np.maximum(after.col_best[at, c], v), after.col_best[at, c]
    )
    after.col_alive[at, c] &= _kept(keeps_column, where, legal, m) & (after.col_empty[at, c] > 0)
    return after, where


def _counted(table: MoveTable, pos: Position) -> tuple[BoolArray, BoolArray, BoolArray]:
    """Per move: whether its sheet is told apart by the reserve it leaves (a School row closed),
    whether by its points (a combination whose points count for the row's star or the
    column's); and per (move, hand, doubled), whether the move is legal."""
    lay = layout(table.state.rules)
    rows, cols = table.rows, table.columns
    scored = np.array([move.verb == "score" for move in table.moves])
    school = np.array(lay.school)[rows]
    counts = (pos.alive[0, rows] > 0) | (
        (pos.col_alive[0, cols] > 0) & np.array(lay.column_best)[rows]
    )
    return scored & school, scored & ~school & counts, np.isfinite(table.gain)


# Whether this process makes the features with the compiled kernels (`compile_features`).
_COMPILED = [False]


def compile_features() -> None:
    """From now on this process makes the School value's features with numba's compiled kernels
    (`school_kernels`: the same values, bit for bit, in about a third of the time), loaded at the
    first use. numba costs a process about 115 MiB, so only a process that spends most of its time
    on the expert's decisions (a server's worker) asks for them."""
    _COMPILED[0] = True


def after_features(table: MoveTable, pos: Position) -> tuple[FloatArray, IntArray]:
    """The network's input for every distinct sheet the moves of `table` can leave, and `where`
    (see `after_positions`): `encode(layout, after)` of `after, where = after_positions(...)`,
    or, in a process that asked for them (`compile_features`), the same rows bit for bit from the
    compiled kernels (tests/test_school_value.py compares them)."""
    lay = layout(table.state.rules)
    if not _COMPILED[0]:
        after, where = after_positions(table, pos)
        return encode(lay, after), where
    from dicepoker.bots.school_kernels import distinct_sheets, encode_after

    by_reserve, by_points, legal = _counted(table, pos)
    m, value, where = distinct_sheets(
        by_reserve, by_points, table.reserve, table.points, legal, KEY
    )
    rows, cols = table.rows[m], table.columns[m]
    keeps_row, keeps_column = table.keeps_stars()
    flags = np.stack(
        [
            by_reserve[m],
            by_points[m],
            _kept(keeps_row, where, legal, m),
            _kept(keeps_column, where, legal, m),
        ],
        axis=1,
    )
    before = np.concatenate(
        [
            pos.empty[0],
            pos.alive[0],
            pos.best[0],
            pos.col_alive[0],
            pos.col_empty[0],
            pos.col_hard[0],
            pos.col_five[0],
            pos.col_best[0],
        ]
    )
    shape, faces = _kernel_layout(lay)
    out = np.empty((len(m), lay.width), dtype=np.float64)
    encode_after(
        before,
        pos.rival[0],
        int(pos.turns[0]),
        int(pos.reserve[0]),
        np.stack([rows, cols], axis=1),
        value,
        flags,
        shape,
        faces,
        out,
    )
    return out, where


@cache
def _kernel_layout(lay: Layout) -> tuple[IntArray, FloatArray]:
    """The layout as `encode_after` reads it: its sizes and rows' kinds, and the School faces."""
    head = [lay.n_rows, lay.columns, lay.five, lay.cells, RACE_SPAN, len(HARD_ROWS)]
    shape = np.array([*head, *lay.hard, *lay.star, *lay.column_best], dtype=np.int64)
    return shape, np.array(lay.faces, dtype=np.float64)


def _kept(keeping: Keeping, where: IntArray, legal: BoolArray, m: IntArray) -> BoolArray:
    """Per distinct sheet (`m`: its move), whether the cell written keeps the star: a move whose
    cells all agree gives its value; for the others (a School closing, by the dice it closes
    with) each sheet takes the value of the cells that lead to it, those of legal entries last
    (every legal entry of a sheet writes the same cell)."""
    kept: BoolArray = keeping.first[m]
    if len(keeping.by_hand):
        entries = where[keeping.varies]
        values = np.broadcast_to(keeping.by_hand[:, :, None], entries.shape)
        kept[entries] = values
        ok = legal[keeping.varies]
        kept[entries[ok]] = values[ok]
    return kept


__all__ = [
    "FIVE_ROW",
    "HARD_ROWS",
    "KEY",
    "RACE_SPAN",
    "Layout",
    "Position",
    "after_features",
    "after_positions",
    "compile_features",
    "encode",
    "layout",
    "position",
    "state_position",
]
