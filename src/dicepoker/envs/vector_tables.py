"""The rule tables of the vectorized environment, derived from the engine's rule primitives.

The numba kernels of `vector_kernels.py` cannot call Python, so every rule reaches them as arrays
built here by evaluating the engine on every input the rule can meet, as the exact solver's
`spec.py` does:

- each row's cell for every hand, thrown all at once or not, under the forced Joker or not
  (`score_cell`), and whether the dice may score it (`score_refusal`);
- the School reserve: closing a row with each count of its face (`school_closing`) and whether
  that is allowed with each reserve it can hold (`school_refusal`), what a zero costs
  (`zero_penalty`);
- further Yahtzees: which hands are Yahtzees (`yahtzee_face`), the Joker's rows by preference
  for each face (`joker_tiers`, as bit sets), the bonus for each score the box can hold
  (`further_yahtzee_bonus`);
- the upper bonus: the rows it counts (`upper_rows`) and what a move's points bring from each
  total (`upper_bonus_gain`);
- stars: which cell of each mark keeps a row's or a column's star (`keeps_row_star`,
  `keeps_column_star`), what a star is worth (`row_star_value`, `column_star_value`, probed), and
  their order in the observation (`star_status`);
- the holds: which are legal after each roll of a turn and whether each throws every die, from
  the engine's `legal_actions` and `apply` on a game in progress; the action indices, mark codes
  and sizes from `codec` (the single environment's).

So the vectorized environment and the engine cannot disagree about a rule; the equivalence tests
replay its games through `dicepoker.engine.apply` and compare every step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicepoker.dice import FixedDice
from dicepoker.engine import (
    ROLL,
    Cell,
    Mark,
    apply,
    column_star_key,
    column_star_value,
    further_yahtzee_bonus,
    joker_box,
    joker_tiers,
    keeps_column_star,
    keeps_row_star,
    new_game,
    row_star_key,
    row_star_value,
    school_closing,
    school_refusal,
    score_cell,
    score_refusal,
    star_status,
    upper_bonus_gain,
    upper_rows,
    yahtzee_face,
    zero_penalty,
)
from dicepoker.engine.actions import VERBS
from dicepoker.envs import vector_kernels as k
from dicepoker.envs.codec import MARK_CODES, N_MARKS, STAR_CODES, IntArray, Layout, layout
from dicepoker.envs.codec import action_mask as engine_mask
from dicepoker.envs.codec import decode as engine_decode
from dicepoker.rules.combos import face_counts
from dicepoker.rules.model import Rules
from dicepoker.solver.dice import dice_space


class UnsupportedShapeError(ValueError):
    """A rule whose shape the kernels do not know (a star worth neither a fixed value nor the
    best cell): the vectorized environment refuses the rules rather than play them wrong."""


@dataclass(frozen=True, slots=True, eq=False)
class ObservationPart:
    """Where one key of the observation lives in a row of the state matrix."""

    key: str
    start: int
    stop: int
    scalar: bool  # a Discrete part: one column, given as an int (a (n,) array when batched)


@dataclass(frozen=True, slots=True, eq=False)
class VectorTables:
    """One game's rules as the kernels read them: the flat table and the state's layout."""

    rules: Rules
    layout: Layout
    table: IntArray  # the kernels' `table`
    width: int  # columns of the state matrix `S`
    parts: tuple[ObservationPart, ...]  # the observation's keys, sorted as `spaces.Dict` keeps them


def vector_tables(rules: Rules) -> VectorTables:
    """The kernels' tables for `rules`, built once and kept with the rules."""
    return rules.memoized("envs_vector_tables", _build)


def _build(rules: Rules) -> VectorTables:
    lay = layout(rules)
    space = dice_space(rules.dice, rules.faces)
    hands = space.hands
    counts = [face_counts(hand, rules.faces) for hand in hands]
    n_rows, n_hands, dice = len(rules.rows), len(hands), rules.dice
    _check_codes()

    keep_after = np.zeros((n_hands, lay.n_holds), dtype=np.int64)
    for o, hand in enumerate(hands):
        for m in range(lay.n_holds):
            kept = tuple(hand[i] for i in range(dice) if m >> i & 1)
            keep_after[o, m] = space.keep_index[kept]
    hold_legal, thrown_all = _holds(rules, lay)

    row_actions = np.full((n_rows, 3), -1, dtype=np.int64)
    action_row = np.full(lay.n_actions, -1, dtype=np.int64)
    action_verb = np.full(lay.n_actions, -1, dtype=np.int64)
    for move, index in lay.move_index.items():
        r, verb = rules.row_index[move.row], VERBS.index(move.verb)
        row_actions[r, verb], action_row[index], action_verb[index] = index, r, verb

    school = np.array([int(row.school) for row in rules.rows], dtype=np.int64)
    have = np.zeros((n_rows, n_hands), dtype=np.int64)
    close_ok = np.zeros((n_rows, dice + 1, lay.max_reserve + 1), dtype=np.int64)
    close_change = np.zeros((n_rows, dice + 1), dtype=np.int64)
    close_used = np.zeros((n_rows, dice + 1), dtype=np.int64)
    score_ok = np.zeros((n_rows, n_hands), dtype=np.int64)
    score_points = np.zeros((n_rows, n_hands, 2, 2), dtype=np.int64)
    for r, row in enumerate(rules.rows):
        if row.school:
            # The dice a closing counts, as the engine reads them (`counts[row.combo.n]`).
            have[r] = [c[row.combo.n] for c in counts]
            for count in range(dice + 1):
                closing = school_closing(rules, r, count)
                close_change[r, count] = closing.change
                close_used[r, count] = int(closing.used_reserve)
                for reserve in range(lay.max_reserve + 1):
                    close_ok[r, count, reserve] = school_refusal(rules, r, count, reserve) is None
            continue
        for o, c in enumerate(counts):
            score_ok[r, o] = score_refusal(rules, r, c) is None
            for t in (0, 1):
                for j in (0, 1):
                    cell = score_cell(rules, r, c, thrown_all=bool(t), joker=bool(j))
                    score_points[r, o, t, j] = cell.points

    box = joker_box(rules)
    faces_of = np.array([yahtzee_face(rules, c) or 0 for c in counts], dtype=np.int64)
    tiers = [joker_tiers(rules, face) for face in range(1, rules.faces + 1)]
    joker_masks = np.zeros((rules.faces + 1, max(1, len(tiers[0]))), dtype=np.int64)
    if box is not None:
        for face, face_tiers in enumerate(tiers, start=1):
            for tier, tier_rows in enumerate(face_tiers):
                joker_masks[face, tier] = sum(1 << r for r in tier_rows)
    box_bonus = np.array(
        [further_yahtzee_bonus(rules, Cell(Mark.SCORE, p)) for p in range(lay.max_points + 1)],
        dtype=np.int64,
    )
    upper = upper_rows(rules)
    is_upper = np.array([int(r in upper) for r in range(n_rows)], dtype=np.int64)
    cap = rules.upper_bonus.threshold if rules.upper_bonus is not None else 0
    upper_gain = np.zeros((cap + 1, lay.max_points + 1), dtype=np.int64)
    upper_next = np.zeros((cap + 1, lay.max_points + 1), dtype=np.int64)
    for u in range(cap + 1):
        for p in range(lay.max_points + 1):
            upper_gain[u, p] = upper_bonus_gain(rules, u, p)
            upper_next[u, p] = min(u + p, cap)

    stars = _stars(rules, lay)
    width = k.FIXED_COLUMNS + n_rows + 2 * rules.cells + lay.stars + dice + rules.faces
    s_row_fill = k.FIXED_COLUMNS
    s_marks = s_row_fill + n_rows
    s_points = s_marks + rules.cells
    s_stars = s_points + rules.cells
    s_dice = s_stars + lay.stars
    s_counts = s_dice + dice
    numbers = {
        k.DICE: dice,
        k.FACES: rules.faces,
        k.ROWS: n_rows,
        k.COLUMNS: rules.columns,
        k.CELLS: rules.cells,
        k.N_HOLDS: lay.n_holds,
        k.N_ACTIONS: lay.n_actions,
        k.ROLLS: rules.rolls_per_turn,
        k.N_STARS: lay.stars,
        k.BOX: box if box is not None else -1,
        k.N_TIERS: joker_masks.shape[1],
        k.ZERO_PENALTY: zero_penalty(rules),
        k.N_HANDS: n_hands,
        k.N_KEEPS: space.n_keeps,
        k.OUTCOME_BASE: space.outcome_base,
        k.EMPTY_KEEP: space.empty_keep,
        k.UPPER_CAP: cap,
        k.MAX_POINTS: lay.max_points,
        k.MAX_RESERVE: lay.max_reserve,
        k.N_MARKS: N_MARKS,
        k.CODE_SCORE: MARK_CODES[(Mark.SCORE, False)],
        k.CODE_CLOSED: MARK_CODES[(Mark.CLOSED, False)],
        k.CODE_RESERVE: MARK_CODES[(Mark.CLOSED, True)],
        k.CODE_STRIKE: MARK_CODES[(Mark.STRIKE, False)],
        k.CODE_ZERO: MARK_CODES[(Mark.ZERO, False)],
        k.STAR_EARNED: STAR_CODES["earned"],
        k.STAR_STRUCK: STAR_CODES["struck"],
        k.EMPTY_POINTS: Cell(Mark.CLOSED).points,
        k.S_ROW_FILL: s_row_fill,
        k.S_MARKS: s_marks,
        k.S_POINTS: s_points,
        k.S_STARS: s_stars,
        k.S_DICE: s_dice,
        k.S_COUNTS: s_counts,
        k.S_WIDTH: width,
    }
    arrays = {
        k.A_HAND_FACES: np.array(hands, dtype=np.int64),
        k.A_HAND_COUNTS: np.array([c[1:] for c in counts], dtype=np.int64),
        k.A_KEEP_AFTER: keep_after,
        k.A_ADD: space.add,
        k.A_KEEP_SIZE: space.size,
        k.A_HOLD_LEGAL: hold_legal,
        k.A_THROWN_ALL: thrown_all,
        k.A_ROW_ACTIONS: row_actions,
        k.A_ACTION_ROW: action_row,
        k.A_ACTION_VERB: action_verb,
        k.A_SCHOOL: school,
        k.A_HAVE: have,
        k.A_CLOSE_OK: close_ok,
        k.A_CLOSE_CHANGE: close_change,
        k.A_CLOSE_USED: close_used,
        k.A_SCORE_OK: score_ok,
        k.A_SCORE_POINTS: score_points,
        k.A_YAHTZEE_FACE: faces_of,
        k.A_JOKER_MASKS: joker_masks,
        k.A_BOX_BONUS: box_bonus,
        k.A_IS_UPPER: is_upper,
        k.A_UPPER_GAIN: upper_gain,
        k.A_UPPER_NEXT: upper_next,
        **stars,
    }
    table = _pack(numbers, arrays)
    parts = [
        ObservationPart("dice", s_dice, s_dice + dice, False),
        ObservationPart("face_counts", s_counts, s_counts + rules.faces, False),
        ObservationPart("marks", s_marks, s_marks + rules.cells, False),
        ObservationPart("points", s_points, s_points + rules.cells, False),
        ObservationPart("rolls_left", k.C_ROLLS_LEFT, k.C_ROLLS_LEFT + 1, True),
    ]
    if lay.doubles:
        parts.append(ObservationPart("thrown_all", k.C_THROWN_ALL, k.C_THROWN_ALL + 1, True))
    if rules.reserve is not None:
        parts.append(ObservationPart("reserve", k.C_RESERVE, k.C_RESERVE + 1, False))
    if lay.stars:
        parts.append(ObservationPart("stars", s_stars, s_stars + lay.stars, False))
    parts.sort(key=lambda part: part.key)
    return VectorTables(rules, lay, table, width, tuple(parts))


def _check_codes() -> None:
    """The kernels start a game from a zeroed state: an empty cell and an open star are 0."""
    if STAR_CODES["open"] != 0 or 0 in MARK_CODES.values():
        raise UnsupportedShapeError("an empty cell and an open star must be coded 0")
    empty = {Cell(mark).points for mark in (Mark.CLOSED, Mark.STRIKE, Mark.ZERO)}
    if empty != {Cell(Mark.CLOSED).points}:
        raise UnsupportedShapeError("a cell without a score must hold the same points")


def _holds(rules: Rules, lay: Layout) -> tuple[IntArray, IntArray]:
    """The legal holds after each roll of a turn (the engine's mask on a game in progress) and
    whether each hold throws every die (the engine's `thrown_all` after it)."""
    faces = [1 + i % rules.faces for i in range(rules.dice)]
    legal = np.zeros((rules.rolls_per_turn + 1, lay.n_holds), dtype=np.int64)
    thrown_all = np.zeros(lay.n_holds, dtype=np.int64)
    state = apply(new_game(rules, ["probe"]), ROLL, FixedDice(faces))
    thrown_all[0] = int(state.thrown_all)  # the turn's first roll
    first = state
    for rolls in range(1, rules.rolls_per_turn + 1):
        legal[rolls] = engine_mask(lay, state)[: lay.n_holds]
        if rolls < rules.rolls_per_turn:
            state = apply(state, ROLL, FixedDice(faces))
    for m in range(lay.n_holds):
        if legal[1, m]:
            hold = engine_decode(lay, first, m)
            thrown_all[m] = int(apply(first, hold, FixedDice([1] * rules.dice)).thrown_all)
    return legal, thrown_all


def _stars(rules: Rules, lay: Layout) -> dict[int, IntArray]:
    """Each row's and column's star (its place in `star_status`), which marks keep it, and what
    it is worth (probed on the engine's `row_star_value` and `column_star_value`)."""
    n_rows = len(rules.rows)
    row_star = np.full(n_rows, -1, dtype=np.int64)
    column_star = np.full(rules.columns, -1, dtype=np.int64)
    keeps_row = np.zeros((n_rows, N_MARKS), dtype=np.int64)
    keeps_column = np.zeros(N_MARKS, dtype=np.int64)
    fixed = np.full(n_rows, -1, dtype=np.int64)
    best = np.zeros(n_rows, dtype=np.int64)
    cells = {code: Cell(mark, used_reserve=used) for (mark, used), code in MARK_CODES.items()}
    if lay.stars:
        order = [(s.kind, s.key) for s in star_status(new_game(rules, ["probe"]), 0)]
        for r in range(n_rows):
            key = row_star_key(rules, r)
            if key is not None:
                row_star[r] = order.index(key)
                fixed[r] = _row_star_shape(rules, r)
            for code, cell in cells.items():
                keeps_row[r, code] = keeps_row_star(rules, r, cell)
            probe: list[Cell | None] = [None] * n_rows
            probe[r] = Cell(Mark.SCORE, 1)
            best[r] = column_star_value(rules, probe)
        for column in range(rules.columns):
            key = column_star_key(rules, column)
            if key is not None:
                column_star[column] = order.index(key)
        for code, cell in cells.items():
            keeps_column[code] = keeps_column_star(rules, cell)
    return {
        k.A_ROW_STAR: row_star,
        k.A_COLUMN_STAR: column_star,
        k.A_KEEPS_ROW: keeps_row,
        k.A_KEEPS_COLUMN: keeps_column,
        k.A_ROW_STAR_FIXED: fixed,
        k.A_COLUMN_BEST: best,
    }


def _row_star_shape(rules: Rules, r: int) -> int:
    """A row star's value as the kernels take it: a fixed value, or -1 for the row's best cell."""
    low = [Cell(Mark.SCORE, 0) for _ in range(rules.columns)]
    high = [Cell(Mark.SCORE, 7 + 3 * c) for c in range(rules.columns)]
    at_low, at_high = row_star_value(rules, r, low), row_star_value(rules, r, high)
    if at_low == at_high:
        return at_low
    if at_low == 0 and at_high == max(cell.points for cell in high):
        return -1
    raise UnsupportedShapeError(f"row {rules.rows[r].id}'s star has a value the kernels miss")


def _pack(numbers: dict[int, int], arrays: dict[int, IntArray]) -> IntArray:
    """One flat int64 table: the numbers and array offsets in the header, then the arrays."""
    if set(arrays) != set(range(k.A_HAND_FACES, k.HEADER)):
        raise AssertionError("every array slot of the kernels must be filled")
    size = k.HEADER + sum(int(np.asarray(a).size) for a in arrays.values())
    table = np.zeros(size, dtype=np.int64)
    for slot, number in numbers.items():
        table[slot] = number
    at = k.HEADER
    for slot in sorted(arrays):
        flat = np.ascontiguousarray(arrays[slot], dtype=np.int64).ravel()
        table[slot] = at
        table[at : at + flat.size] = flat
        at += flat.size
    return table


__all__ = ["ObservationPart", "UnsupportedShapeError", "VectorTables", "vector_tables"]
