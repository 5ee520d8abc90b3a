"""The vectorized environment's compiled step: numba kernels over a batch of games.

The kernels hold no rule of their own. Every number they use (a row's points for a hand, thrown
all at once or not, under the forced Joker or not; whether a row may be scored or closed; what a
closing does to the reserve; the upper bonus a move brings; the further-Yahtzee bonus; which cell
keeps which star and what a star is worth; which holds are legal and whether a hold throws every
die) is read from one flat table `table` that `vector_tables.py` builds by evaluating the engine's
rule primitives on every hand, face, count and total they can meet. What is left here is
bookkeeping: which cell of a row comes next, adding points up, walking the dice graph.

A batch is one int64 matrix `state` (a row per game: the fixed columns below, then the row
fills, the marks, the points, the stars, the sorted dice and the face counts, at offsets that
sit in `table`),
one uint64 generator state per game (`rng`, splitmix64 as the solver's simulator), and the masks.
`cache=True`: the kernels compile once per install.
"""

from __future__ import annotations

from typing import Any

from dicepoker.solver.kernels import die, jit

IntArray = Any  # int64 arrays (numba sees through the annotation)
BoolArray = Any
MaskArray = Any
FloatArray = Any
UIntArray = Any

# --- the slots of `table`: numbers first, then the offsets of the arrays --------------------------

DICE, FACES, ROWS, COLUMNS, CELLS, N_HOLDS, N_ACTIONS, ROLLS = range(8)
N_STARS, BOX, N_TIERS, ZERO_PENALTY, N_HANDS, N_KEEPS, OUTCOME_BASE, EMPTY_KEEP = range(8, 16)
UPPER_CAP, MAX_POINTS, MAX_RESERVE, N_MARKS = range(16, 20)
CODE_SCORE, CODE_CLOSED, CODE_RESERVE, CODE_STRIKE, CODE_ZERO = range(20, 25)
STAR_EARNED, STAR_STRUCK, EMPTY_POINTS = range(25, 28)
# offsets of the state's variable-width blocks in a row of `state`
S_ROW_FILL, S_MARKS, S_POINTS, S_STARS, S_DICE, S_COUNTS, S_WIDTH = range(28, 35)
# offsets of the arrays in `table`
(
    A_HAND_FACES,  # (hands, dice): the sorted faces of each hand
    A_HAND_COUNTS,  # (hands, faces): dice showing each face 1..faces
    A_KEEP_AFTER,  # (hands, holds): the keep left by hold m of hand o
    A_ADD,  # (keeps, faces): the keep plus one die showing face f + 1
    A_KEEP_SIZE,  # (keeps,)
    A_HOLD_LEGAL,  # (rolls + 1, holds): the engine's legal holds after r rolls of a turn
    A_THROWN_ALL,  # (holds,): whether hold m throws every die (the engine's `thrown_all`)
    A_ROW_ACTIONS,  # (rows, 3): the index of score, strike and zero ROW, -1 where none
    A_ACTION_ROW,  # (actions,): the row of a cell move, -1 for a hold
    A_ACTION_VERB,  # (actions,): 0 score, 1 strike, 2 zero
    A_SCHOOL,  # (rows,): 1 for School rows (closed with the reserve)
    A_HAVE,  # (rows, hands): the dice of hand o that count for School row r
    A_CLOSE_OK,  # (rows, dice + 1, reserve + 1): `school_refusal` is None
    A_CLOSE_CHANGE,  # (rows, dice + 1): the reserve's change (`school_closing`)
    A_CLOSE_USED,  # (rows, dice + 1): the closing used the reserve
    A_SCORE_OK,  # (rows, hands): `score_refusal` is None
    A_SCORE_POINTS,  # (rows, hands, 2, 2): `score_cell` by thrown_all and Joker
    A_YAHTZEE_FACE,  # (hands,): `yahtzee_face`, 0 for none
    A_JOKER_MASKS,  # (faces + 1, tiers): `joker_tiers` as bit sets of rows
    A_BOX_BONUS,  # (points + 1,): `further_yahtzee_bonus` with the box holding that score
    A_IS_UPPER,  # (rows,): the rows the upper bonus counts
    A_UPPER_GAIN,  # (cap + 1, points + 1): `upper_bonus_gain` from a capped upper total
    A_UPPER_NEXT,  # (cap + 1, points + 1): the capped upper total after the points
    A_ROW_STAR,  # (rows,): the row's star in the observation's `stars`, -1 for none
    A_COLUMN_STAR,  # (columns,): the column's star, -1 for none
    A_KEEPS_ROW,  # (rows, marks): `keeps_row_star` for a cell of each mark code
    A_KEEPS_COLUMN,  # (marks,): `keeps_column_star`
    A_ROW_STAR_FIXED,  # (rows,): the row star's value when fixed, -1 when its best cell
    A_COLUMN_BEST,  # (rows,): the row's cells count for the column star's value
) = range(35, 64)
HEADER = 64

# The fixed columns of a row of `state` (the observation's own, then the bookkeeping).
(
    C_THROWN_ALL,
    C_ROLLS_LEFT,
    C_RESERVE,
    C_HAND,
    C_ROLLS,
    C_UPPER,
    C_TOTAL,
    C_FILLED,
    C_DONE,
) = range(9)
FIXED_COLUMNS = 9


@jit
def _array1(table: IntArray, slot: int, n: int) -> IntArray:
    start = table[slot]
    return table[start : start + n]


@jit
def _array2(table: IntArray, slot: int, n: int, m: int) -> IntArray:
    start = table[slot]
    return table[start : start + n * m].reshape((n, m))


@jit
def _array3(table: IntArray, slot: int, n: int, m: int, k: int) -> IntArray:
    start = table[slot]
    return table[start : start + n * m * k].reshape((n, m, k))


@jit
def _set_hand(g: int, state: IntArray, table: IntArray, hand: int) -> None:
    """Game g now shows `hand`: its hand index, sorted dice and face counts."""
    dice, faces, hands = table[DICE], table[FACES], table[N_HANDS]
    state[g, C_HAND] = hand
    if hand < 0:
        for i in range(dice):
            state[g, table[S_DICE] + i] = 0
        for f in range(faces):
            state[g, table[S_COUNTS] + f] = 0
        return
    hand_faces = _array2(table, A_HAND_FACES, hands, dice)
    hand_counts = _array2(table, A_HAND_COUNTS, hands, faces)
    for i in range(dice):
        state[g, table[S_DICE] + i] = hand_faces[hand, i]
    for f in range(faces):
        state[g, table[S_COUNTS] + f] = hand_counts[hand, f]


@jit
def _roll(g: int, hold: int, state: IntArray, rng: UIntArray, table: IntArray) -> None:
    """Game g keeps the sorted dice that `hold`'s bits name and throws the others (a turn's first
    roll is hold 0 from no dice)."""
    faces, hands = table[FACES], table[N_HANDS]
    add = _array2(table, A_ADD, table[N_KEEPS], faces)
    size = _array1(table, A_KEEP_SIZE, table[N_KEEPS])
    if state[g, C_ROLLS] == 0:
        keep = table[EMPTY_KEEP]
    else:
        keep = _array2(table, A_KEEP_AFTER, hands, table[N_HOLDS])[state[g, C_HAND], hold]
    while size[keep] < table[DICE]:
        keep = add[keep, die(rng, g, faces)]
    _set_hand(g, state, table, keep - table[OUTCOME_BASE])
    state[g, C_ROLLS] += 1
    state[g, C_ROLLS_LEFT] = table[ROLLS] - state[g, C_ROLLS]
    state[g, C_THROWN_ALL] = _array1(table, A_THROWN_ALL, table[N_HOLDS])[hold]


@jit
def _joker_rows(g: int, state: IntArray, table: IntArray) -> int:
    """The rows (a bit set) the forced Joker allows game g's dice, or -1 when it does not apply:
    the first tier of `joker_tiers` with an open row, once the box has a cell."""
    box = table[BOX]
    if box < 0 or state[g, table[S_ROW_FILL] + box] == 0:
        return -1
    face = _array1(table, A_YAHTZEE_FACE, table[N_HANDS])[state[g, C_HAND]]
    if face == 0:
        return -1
    open_rows = 0
    for r in range(table[ROWS]):
        if state[g, table[S_ROW_FILL] + r] < table[COLUMNS]:
            open_rows |= 1 << r
    masks = _array2(table, A_JOKER_MASKS, table[FACES] + 1, table[N_TIERS])
    for tier in range(table[N_TIERS]):
        rows = masks[face, tier] & open_rows
        if rows != 0:
            return int(rows)
    return 0


@jit
def _fill_mask(g: int, state: IntArray, mask: MaskArray, table: IntArray) -> None:
    """Game g's legal actions, as the engine's `legal_actions` would list them."""
    n_holds, rows, columns = table[N_HOLDS], table[ROWS], table[COLUMNS]
    hands, dice = table[N_HANDS], table[DICE]
    if state[g, C_DONE] != 0:
        for a in range(table[N_ACTIONS]):
            mask[g, a] = 0
        return
    legal = _array2(table, A_HOLD_LEGAL, table[ROLLS] + 1, n_holds)
    rolls = state[g, C_ROLLS]
    for m in range(n_holds):
        mask[g, m] = legal[rolls, m]
    row_actions = _array2(table, A_ROW_ACTIONS, rows, 3)
    school = _array1(table, A_SCHOOL, rows)
    hand = state[g, C_HAND]
    jokers = _joker_rows(g, state, table)
    score_ok = _array2(table, A_SCORE_OK, rows, hands)
    have = _array2(table, A_HAVE, rows, hands)
    close_ok = _array3(table, A_CLOSE_OK, rows, dice + 1, table[MAX_RESERVE] + 1)
    reserve = state[g, C_RESERVE]
    for r in range(rows):
        open_row = state[g, table[S_ROW_FILL] + r] < columns
        score, strike, zero = row_actions[r, 0], row_actions[r, 1], row_actions[r, 2]
        if school[r] != 0:
            closable = open_row and close_ok[r, have[r, hand], reserve] != 0
            mask[g, score] = 1 if closable else 0
            if zero >= 0:
                mask[g, zero] = 1 if open_row and not closable else 0
        else:
            allowed = score_ok[r, hand] != 0 and (jokers < 0 or (jokers >> r) & 1 == 1)
            mask[g, score] = 1 if open_row and allowed else 0
            if zero >= 0:
                mask[g, zero] = 0
        if strike >= 0:
            mask[g, strike] = 1 if open_row else 0


@jit
def _move(g: int, action: int, state: IntArray, table: IntArray) -> int:
    """Game g fills the next cell of the action's row; returns the change of its total."""
    rows, columns, hands, dice = table[ROWS], table[COLUMNS], table[N_HANDS], table[DICE]
    r = _array1(table, A_ACTION_ROW, table[N_ACTIONS])[action]
    verb = _array1(table, A_ACTION_VERB, table[N_ACTIONS])[action]
    hand = state[g, C_HAND]
    column = state[g, table[S_ROW_FILL] + r]
    jokers = _joker_rows(g, state, table)
    gain = 0
    points = table[EMPTY_POINTS]
    if verb == 1:
        code = table[CODE_STRIKE]
    elif verb == 2:
        code = table[CODE_ZERO]
        gain -= table[ZERO_PENALTY]
    elif _array1(table, A_SCHOOL, rows)[r] != 0:
        have = _array2(table, A_HAVE, rows, hands)[r, hand]
        change = _array2(table, A_CLOSE_CHANGE, rows, dice + 1)[r, have]
        state[g, C_RESERVE] += change
        gain += change
        used = _array2(table, A_CLOSE_USED, rows, dice + 1)[r, have]
        code = table[CODE_RESERVE] if used != 0 else table[CODE_CLOSED]
    else:
        score_points = _array3(table, A_SCORE_POINTS, rows, hands, 4)
        points = score_points[r, hand, 2 * state[g, C_THROWN_ALL] + (1 if jokers >= 0 else 0)]
        code = table[CODE_SCORE]
    gain += points
    if jokers >= 0:
        box_cell = table[S_POINTS] + table[BOX] * columns
        gain += _array1(table, A_BOX_BONUS, table[MAX_POINTS] + 1)[state[g, box_cell]]
    if _array1(table, A_IS_UPPER, rows)[r] != 0:
        upper = state[g, C_UPPER]
        n_upper, n_points = table[UPPER_CAP] + 1, table[MAX_POINTS] + 1
        gain += _array2(table, A_UPPER_GAIN, n_upper, n_points)[upper, points]
        state[g, C_UPPER] = _array2(table, A_UPPER_NEXT, n_upper, n_points)[upper, points]
    cell = r * columns + column
    state[g, table[S_MARKS] + cell] = code
    state[g, table[S_POINTS] + cell] = points
    state[g, table[S_ROW_FILL] + r] = column + 1
    state[g, C_FILLED] += 1
    gain += _stars(g, state, table, r, column, code)
    state[g, C_TOTAL] += gain
    return int(gain)


@jit
def _stars(g: int, state: IntArray, table: IntArray, r: int, column: int, code: int) -> int:
    """The stars a cell of mark `code` in row r, column `column` earns or breaks; their value."""
    if table[N_STARS] == 0:
        return 0
    rows, columns = table[ROWS], table[COLUMNS]
    gain = 0
    star = _array1(table, A_ROW_STAR, rows)[r]
    if star >= 0 and state[g, table[S_STARS] + star] == 0:
        if _array2(table, A_KEEPS_ROW, rows, table[N_MARKS])[r, code] == 0:
            state[g, table[S_STARS] + star] = table[STAR_STRUCK]
        elif column == columns - 1:
            state[g, table[S_STARS] + star] = table[STAR_EARNED]
            value = _array1(table, A_ROW_STAR_FIXED, rows)[r]
            if value < 0:
                value = 0
                for c in range(columns):
                    value = max(value, state[g, table[S_POINTS] + r * columns + c])
            gain += value
    star = _array1(table, A_COLUMN_STAR, columns)[column]
    if star >= 0 and state[g, table[S_STARS] + star] == 0:
        if _array1(table, A_KEEPS_COLUMN, table[N_MARKS])[code] == 0:
            state[g, table[S_STARS] + star] = table[STAR_STRUCK]
        else:
            complete = True
            for q in range(rows):
                if state[g, table[S_ROW_FILL] + q] <= column:
                    complete = False
            if complete:
                state[g, table[S_STARS] + star] = table[STAR_EARNED]
                best = _array1(table, A_COLUMN_BEST, rows)
                value = 0
                for q in range(rows):
                    if best[q] != 0:
                        value = max(value, state[g, table[S_POINTS] + q * columns + column])
                gain += value
    return gain


@jit
def _start(g: int, state: IntArray, rng: UIntArray, mask: MaskArray, table: IntArray) -> None:
    """Game g starts afresh: an empty sheet and the first roll thrown."""
    for c in range(table[S_WIDTH]):
        state[g, c] = 0
    _roll(g, 0, state, rng, table)
    _fill_mask(g, state, mask, table)


@jit
def reset(
    which: BoolArray, state: IntArray, rng: UIntArray, mask: MaskArray, table: IntArray
) -> None:
    """Start a new game in every game g where `which[g]`."""
    for g in range(state.shape[0]):
        if which[g]:
            _start(g, state, rng, mask, table)


@jit
def refresh(which: BoolArray, state: IntArray, mask: MaskArray, table: IntArray) -> None:
    """Recompute the masks of the games where `which[g]` (after their state was written)."""
    for g in range(state.shape[0]):
        if which[g]:
            _fill_mask(g, state, mask, table)


@jit
def step(
    actions: IntArray,
    state: IntArray,
    rng: UIntArray,
    mask: MaskArray,
    reward: FloatArray,
    terminated: BoolArray,
    refused: BoolArray,
    table: IntArray,
) -> None:
    """One step of every game: a finished game starts afresh (Gymnasium's next-step autoreset,
    its action ignored); an action the mask rules out is refused (nothing changes); a hold
    rerolls; a cell move fills a cell and throws the next turn's first roll, or ends the game."""
    for g in range(state.shape[0]):
        reward[g] = 0.0
        terminated[g] = False
        refused[g] = False
        if state[g, C_DONE] != 0:
            _start(g, state, rng, mask, table)
            continue
        action = actions[g]
        if mask[g, action] == 0:
            refused[g] = True
            continue
        if action < table[N_HOLDS]:
            _roll(g, action, state, rng, table)
        else:
            reward[g] = float(_move(g, action, state, table))
            state[g, C_ROLLS] = 0
            if state[g, C_FILLED] == table[CELLS]:
                state[g, C_DONE] = 1
                state[g, C_THROWN_ALL] = 0
                state[g, C_ROLLS_LEFT] = table[ROLLS]
                _set_hand(g, state, table, -1)
                terminated[g] = True
            else:
                _roll(g, 0, state, rng, table)
        _fill_mask(g, state, mask, table)


__all__ = ["HEADER", "refresh", "reset", "step"]
