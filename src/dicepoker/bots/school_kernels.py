"""The School value's features of every sheet a turn's moves can leave, compiled with numba.

`school_features.after_features` gives the network's input for every distinct sheet a turn's
moves can leave. Its readable twin, `encode(layout, after_positions(...))`, makes a dozen patched
copies of the sheet's raw features and runs twenty array operations on them: a few hundred
microseconds of numpy's per-call overhead for about a hundred small rows, four times per decision
of the expert. These kernels do the same in one pass (docs/bots.md, "Latency"):

- `distinct_sheets` finds the distinct sheets (a move's points where they count for a star, a
  School closing's reserve after) and which one each (move, hand, doubled) leads to;
- `encode_after` writes each sheet's row of the network's input from the features of the sheet
  before the move and what the move changes (its row, its column, the reserve, the turns left).

Every feature is computed with the same float operations in the same order as `encode` (an
integer count over a whole number, `alive * best / 50`, and so on), so the rows are bit-for-bit
the readable path's (tests/test_school_value.py compares them). The kernels hold no rule: which
rows are School rows, hard rows, have a star or count for the column's best, and whether a cell
keeps its star, come in as arrays that the engine's primitives built.

numba costs a process about 115 MiB (its import and LLVM), so only processes that say so use
these kernels (`school_features.compile_features`): a server's worker does, while the
server's own process (its advice and analyses) keeps the readable path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dicepoker.solver.kernels import jit

IntArray = Any  # numba's arrays, which the type checker does not know
BoolArray = Any
FloatArray = Any


@jit
def distinct_sheets(
    by_reserve: BoolArray,
    by_points: BoolArray,
    reserve: FloatArray,
    points: FloatArray,
    legal: BoolArray,
    limit: int,
) -> tuple[IntArray, IntArray, IntArray]:
    """The distinct sheets a turn's moves can leave, in order of move and then value: per sheet
    its move and its value, and per (move, hand, doubled) the sheet it leads to.

    An entry's value is the reserve after its move where `by_reserve` (a School closing), its
    points where `by_points` (they count for a star), else 0; an illegal entry's is 0, and values
    are clipped to 0..`limit` - 1. The entries of one move with one value leave the same sheet."""
    moves, hands = reserve.shape
    value = np.zeros((moves, hands, 2), dtype=np.int64)
    span = 1
    for m in range(moves):
        for o in range(hands):
            for d in range(2):
                if not legal[m, o, d]:
                    continue
                if by_reserve[m]:
                    x = reserve[m, o]
                elif by_points[m]:
                    x = points[m, o, d]
                else:
                    x = 0.0
                v = int(min(max(x, 0.0), limit - 1))
                value[m, o, d] = v
                span = max(span, v + 1)
    present = np.zeros((moves, span), dtype=np.bool_)
    for m in range(moves):
        for o in range(hands):
            for d in range(2):
                present[m, value[m, o, d]] = True
    index = np.zeros((moves, span), dtype=np.int64)  # each present (move, value): its sheet
    n = 0
    for m in range(moves):
        for v in range(span):
            if present[m, v]:
                index[m, v] = n
                n += 1
    move = np.empty(n, dtype=np.int64)
    values = np.empty(n, dtype=np.int64)
    for m in range(moves):
        for v in range(span):
            if present[m, v]:
                move[index[m, v]] = m
                values[index[m, v]] = v
    where = np.empty((moves, hands, 2), dtype=np.int64)
    for m in range(moves):
        for o in range(hands):
            for d in range(2):
                where[m, o, d] = index[m, value[m, o, d]]
    return move, values, where


@jit
def encode_after(
    before: IntArray,
    rival: IntArray,
    turns: int,
    reserve: int,
    written: IntArray,
    values: IntArray,
    flags: BoolArray,
    shape: IntArray,
    faces: FloatArray,
    out: FloatArray,
) -> None:
    """Row k of `out`: the network's input for the k-th sheet after a move.

    - `before`: the sheet before the move, its per-row fields (empty, alive, best) then its
      per-column fields (col_alive, col_empty, col_hard, col_five, col_best), as in `Position`;
      `rival`: the rivals' need per row star then column star; `turns`, `reserve`: its turns left
      and its reserve.
    - Per sheet after a move k: `written[k]`, the row and the column of the cell written;
      `values[k]`, the points or the reserve after; `flags[k]`: the reserve is that value, the
      points count for a star, the cell keeps the row's star, the cell keeps the column's.
    - `shape`: the rows, the columns, the five-of-a-kind row, the cells of a sheet, the race's
      span, how many rows are hard, then per row whether it is hard, whether it has a star,
      whether it counts for the column's best (0/1). `faces`: the School rows' faces.
    """
    n_rows = shape[0]
    columns = shape[1]
    five = shape[2]
    cells = shape[3]
    race = shape[4]
    hard_rows = shape[5]
    hard, star, column_best = 6, 6 + n_rows, 6 + 2 * n_rows  # where they start in `shape`
    n_school = faces.shape[0]
    cb = 3 * n_rows  # where the per-column fields start in `before`
    column_at = 1 + 3 * n_rows + 3 * n_school + 1  # where the per-column features start
    left = turns - 1
    for k in range(out.shape[0]):
        r = written[k, 0]
        c = written[k, 1]
        v = values[k]
        res = float(v) if flags[k, 0] else float(reserve)
        x = out[k]
        x[0] = left / cells
        at = 1
        for i in range(n_rows):
            e = before[i] - 1 if i == r else before[i]
            x[at + i] = e / columns
        at += n_rows
        for i in range(n_rows):
            a = before[n_rows + i]
            b = before[2 * n_rows + i]
            if i == r:
                if not (flags[k, 2] and before[i] - 1 > 0):
                    a = 0
                if flags[k, 1] and shape[star + i]:
                    b = max(b, v)
            x[at + i] = float(a)
            x[at + n_rows + i] = float(a) * b / 50
        at += 2 * n_rows
        for j in range(n_school):
            x[at + j] = min(res / faces[j], 6.0) / 6
            x[at + n_school + j] = 1.0 if res >= faces[j] else 0.0
            x[at + 2 * n_school + j] = 1.0 if res >= 2 * faces[j] else 0.0
        at += 3 * n_school
        x[at] = min(res, 60.0) / 20
        at += 1
        for j in range(columns):
            a = before[cb + j]
            e = before[cb + columns + j]
            h = before[cb + 2 * columns + j]
            f = before[cb + 3 * columns + j]
            b = before[cb + 4 * columns + j]
            if j == c:
                e -= 1
                h -= shape[hard + r]
                if r == five:
                    f = 0
                if not (flags[k, 3] and e > 0):
                    a = 0
                if flags[k, 1] and shape[column_best + r]:
                    b = max(b, v)
            alive = float(a)
            x[at + j] = alive
            x[at + columns + j] = alive * e / n_rows
            x[at + 2 * columns + j] = alive * h / hard_rows
            x[at + 3 * columns + j] = alive * f
            x[at + 4 * columns + j] = alive * b / 100
        at += 5 * columns
        span = n_rows + columns
        for i in range(span):
            if i < n_rows:
                mine = x[1 + n_rows + i]
                need = before[i] - 1 if i == r else before[i]
            else:
                j = i - n_rows
                mine = x[column_at + j]
                need = before[cb + columns + j] - 1 if j == c else before[cb + columns + j]
            live = mine if rival[i] > 0 else 0.0
            x[at + i] = live
            gap = min(max(rival[i] - need, -race), race)
            x[at + span + i] = live * gap / race


__all__ = ["distinct_sheets", "encode_after"]
