"""The solver's hot loops, compiled with numba (`cache=True`: compiled once per install).

One turn is an expectimax over the keep graph of `dice.py`. The table build does it in place on a
work array `a[keep, v]` whose columns v run over all the states that share a filled set (both
values of the extra-Yahtzee flag once its box is filled, times the upper totals that still matter):
they walk the same graph with the same arithmetic, so the inner loops are contiguous and vectorise.

- `fill_outcomes` puts in each outcome's row the value of its best cell move: the points (bonuses
  included) plus the table value of the state after the move.
- `avg_pass` turns outcome values into keep values: E[keep] = mean over the faces of one more die.
- `max_pass` turns keep values into outcome values: the best keep inside each hand (the hand
  itself, i.e. stopping, included).
- `expect` weighs the outcomes of a throw of all the dice: the value at the start of the turn.

The kernels hold no rule: they walk the arrays `spec.py` builds from the engine's rule primitives
(the rows' points and Joker points, the Joker's rows by preference per face, which box score pays
the further-Yahtzee bonus, the upper bonus a move's points bring from each upper total).

The policy and the simulator run one state at a time with the scalar twins of these functions
(`*_1`, `turn_levels`). Every value is computed with the same float operations in the same order
on both paths (`float(points) + table[...]`, the same summation order, exact maxima), so a value
is bit-for-bit the same wherever it is computed. Nothing here uses fast-math.

Indices in the inner loops come straight from `range` (numba then skips its negative-index
wrap-around, which would stop the vectoriser), and maxima use `np.maximum` (a select would be
compiled to masked stores, which are slow on AMD processors).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba import prange

from dicepoker.solver.dice import FloatArray, IntArray

F = TypeVar("F", bound=Callable[..., Any])

UIntArray = Any  # a uint64 array: one generator state per game

#: Held around every call of a parallel kernel: numba's `workqueue` threading layer (the fallback
#: when neither OpenMP nor TBB is available) must not be entered from two threads at once.
PARALLEL_LOCK = threading.Lock()


def jit(func: F) -> F:
    """`numba.njit(cache=True)` keeping the Python signature for the type checker."""
    return cast(F, numba.njit(cache=True, nogil=True)(func))


def jit_parallel(func: F) -> F:
    """`numba.njit(cache=True, parallel=True)` keeping the Python signature."""
    return cast(F, numba.njit(cache=True, nogil=True, parallel=True)(func))


NEG_INF = -np.inf


# --- rules of one cell move ----------------------------------------------------------------------


@jit
def allowed_rows(
    mask: int,
    o: int,
    yahtzee_face: IntArray,
    joker_masks: IntArray,
    box: int,
    joker: bool,
    n_rows: int,
) -> tuple[int, bool]:
    """The rows outcome `o` may fill (a bit set) and whether the forced Joker is in play.

    `joker_masks[face]` are the engine's `joker_tiers` of a further Yahtzee of `face`, as bit
    sets in order of preference: the first one with an open row is the choice."""
    open_rows = ((1 << n_rows) - 1) & ~mask
    face = yahtzee_face[o]
    if not (joker and face > 0 and box >= 0 and ((mask >> box) & 1) == 1):
        return open_rows, False
    for tier in range(joker_masks.shape[1]):
        allowed = joker_masks[face, tier] & open_rows
        if allowed != 0:
            return allowed, True
    return 0, True


@jit
def move_value(
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    c: int,
    o: int,
    jok: bool,
    score: IntArray,
    joker_score: IntArray,
    is_upper: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
) -> tuple[float, int, int, int]:
    """Filling row `c` with outcome `o`: (value, points gained, next flag, next upper total)."""
    s = joker_score[c, o] if jok else score[c, o]
    gain = s
    if jok and flag == 1:
        gain += joker_bonus
    nflag = flag
    if c == box:
        nflag = box_pays[s]
    nupper = upper
    if is_upper[c] == 1 and upper_cap > 0:
        gain += upper_gain[upper, s]
        nupper = upper_next[upper, s]
    return gain + table[mask | (1 << c), nflag, nupper], gain, nflag, nupper


# --- the table build (vectorised over the states of one filled set) -------------------------------


@jit
def fill_outcomes(
    a: FloatArray,
    table: FloatArray,
    mask: int,
    n_flag: int,
    ucol: IntArray,
    g: FloatArray,
    have: IntArray,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    outcome_base: int,
    n_outcomes: int,
    n_rows: int,
) -> None:
    """Outcome rows of `a` (keep x width): the best cell move, for every column.

    Column v = flag * n_col + col stands for the state (flag, upper total `ucol[col]`). `g`
    (scores + 2, width) and `have` (scores + 2) are scratch: a row's next-state values in the
    layout of `a`, for each score it can take (upper rows) or for a zero and a non-zero score
    (other rows), so that each (row, outcome) pair is one contiguous loop.
    """
    n_col = ucol.shape[0]
    width = n_flag * n_col
    n_g = have.shape[0]
    open_rows = ((1 << n_rows) - 1) & ~mask
    jok_on = joker and box >= 0 and ((mask >> box) & 1) == 1
    for o in range(n_outcomes):
        k = outcome_base + o
        for v in range(width):
            a[k, v] = NEG_INF
    for c in range(n_rows):
        if ((open_rows >> c) & 1) == 0:
            continue
        nm = mask | (1 << c)
        if not (is_upper[c] == 1 and upper_cap > 0):
            # The next state's values: slot 0 for a cell that leaves the flag as it is; in the
            # extra-Yahtzee box, slot s for the flag it sets, `box_pays[s]` (whether a box
            # holding s points pays the further Yahtzee bonus: the engine's rule).
            slots = 2 if c == box else 1
            for slot in range(slots):
                for j in range(n_flag):
                    nflag = j
                    if c == box:
                        nflag = slot
                    for col in range(n_col):
                        g[slot, j * n_col + col] = table[nm, nflag, ucol[col]]
            for o in range(n_outcomes):
                if jok_on and yahtzee_face[o] > 0:
                    continue
                s = score[c, o]
                slot = box_pays[s] if c == box else 0
                k = outcome_base + o
                for v in range(width):
                    a[k, v] = np.maximum(s + g[slot, v], a[k, v])
            continue
        for s in range(n_g):
            have[s] = 0
        for o in range(n_outcomes):
            if jok_on and yahtzee_face[o] > 0:
                continue
            s = score[c, o]
            if have[s] == 0:
                have[s] = 1
                for j in range(n_flag):
                    nflag = j
                    if c == box:
                        nflag = box_pays[s]
                    for col in range(n_col):
                        u = ucol[col]
                        nu = upper_next[u, s]
                        g[s, j * n_col + col] = (s + upper_gain[u, s]) + table[nm, nflag, nu]
            k = outcome_base + o
            for v in range(width):
                a[k, v] = np.maximum(g[s, v], a[k, v])
    if jok_on:
        # Further Yahtzees under the forced Joker: few outcomes, done one state at a time.
        for o in range(n_outcomes):
            if yahtzee_face[o] == 0:
                continue
            allowed, jok = allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
            k = outcome_base + o
            for c in range(n_rows):
                if ((allowed >> c) & 1) == 0:
                    continue
                for j in range(n_flag):
                    for col in range(n_col):
                        val = move_value(
                            table,
                            mask,
                            j,
                            ucol[col],
                            c,
                            o,
                            jok,
                            score,
                            joker_score,
                            is_upper,
                            box,
                            box_pays,
                            joker_bonus,
                            upper_cap,
                            upper_gain,
                            upper_next,
                        )[0]
                        v = j * n_col + col
                        a[k, v] = np.maximum(val, a[k, v])


@jit
def avg_pass(a: FloatArray, add: IntArray, outcome_base: int, faces: int) -> None:
    """Keeps smaller than a hand (a: keep x width): the mean over the faces of one more die."""
    width = a.shape[1]
    for k in range(outcome_base - 1, -1, -1):
        first = add[k, 0]
        for v in range(width):
            a[k, v] = a[first, v]
        for f in range(1, faces):
            nxt = add[k, f]
            for v in range(width):
                a[k, v] += a[nxt, v]
        for v in range(width):
            a[k, v] /= faces


@jit
def max_pass(a: FloatArray, sub: IntArray, faces: int) -> None:
    """Every keep (a: keep x width): the best of itself and the keeps one die smaller."""
    width = a.shape[1]
    for k in range(1, a.shape[0]):
        for f in range(faces):
            smaller = sub[k, f]
            if smaller >= 0:
                for v in range(width):
                    a[k, v] = np.maximum(a[smaller, v], a[k, v])


@jit
def expect(a: FloatArray, probs: FloatArray, outcome_base: int, out: FloatArray) -> None:
    """`out[v]`: the outcomes' values weighed by their chance in a throw of all the dice."""
    width = a.shape[1]
    for v in range(width):
        out[v] = 0.0
    for o in range(probs.shape[0]):
        p = probs[o]
        k = outcome_base + o
        for v in range(width):
            out[v] += p * a[k, v]


@jit_parallel
def build_table(
    table: FloatArray,
    order: IntArray,
    layer_start: IntArray,
    n_flags: IntArray,
    n_uppers: IntArray,
    live_lo: IntArray,
    n_cols: IntArray,
    workers: int,
    max_score: int,
    rerolls: int,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    outcome_base: int,
    n_outcomes: int,
    n_rows: int,
    add: IntArray,
    sub: IntArray,
    probs: FloatArray,
    faces: int,
) -> None:
    """Fill `table` layer by layer (more filled rows first); a layer's sets in parallel.

    For filled set m, upper totals below `live_lo[m]` can no longer reach the bonus, so they all
    have the same future: one column (for the total 0) stands for them and the table gets copies.
    The other columns are the totals live_lo[m] .. n_uppers[m] - 1, `n_cols[m]` columns in all.
    Worker w of a layer takes its sets w, w + workers, ...; each set is solved independently, so
    the values do not depend on the number of threads.
    """
    n_keeps = outcome_base + n_outcomes
    most = table.shape[1] * table.shape[2]
    for layer in range(layer_start.shape[0] - 1):
        lo_i = layer_start[layer]
        hi_i = layer_start[layer + 1]
        for w in prange(workers):
            buf = np.empty(n_keeps * most)
            gbuf = np.empty((max_score + 2) * most)
            have = np.empty(max_score + 2, dtype=np.int64)
            out = np.empty(most)
            ubuf = np.empty(table.shape[2], dtype=np.int64)
            for i in range(lo_i + w, hi_i, workers):
                mask = order[i]
                n_flag = n_flags[mask]
                n_col = n_cols[mask]
                lo = live_lo[mask]
                dead = 1 if lo > 0 else 0
                ucol = ubuf[:n_col]
                for col in range(n_col):
                    ucol[col] = 0 if col < dead else lo + col - dead
                width = n_flag * n_col
                flat = buf[: n_keeps * width].reshape((n_keeps, width))
                g = gbuf[: (max_score + 2) * width].reshape((max_score + 2, width))
                fill_outcomes(
                    flat,
                    table,
                    mask,
                    n_flag,
                    ucol,
                    g,
                    have,
                    score,
                    joker_score,
                    yahtzee_face,
                    is_upper,
                    joker_masks,
                    box,
                    box_pays,
                    joker_bonus,
                    joker,
                    upper_cap,
                    upper_gain,
                    upper_next,
                    outcome_base,
                    n_outcomes,
                    n_rows,
                )
                for _ in range(rerolls):
                    avg_pass(flat, add, outcome_base, faces)
                    max_pass(flat, sub, faces)
                expect(flat, probs, outcome_base, out)
                for j in range(n_flag):
                    for u in range(n_uppers[mask]):
                        col = 0 if u < lo else u - lo + dead
                        table[mask, j, u] = out[j * n_col + col]


# --- one state at a time: the policy and the simulator ------------------------------------------


@jit
def fill_outcomes_1(
    a: FloatArray,
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    gv: FloatArray,
    score_f: FloatArray,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    outcome_base: int,
    n_outcomes: int,
    n_rows: int,
) -> None:
    """`fill_outcomes` for one state: `a[outcome_base + o]` = best cell move's value.

    `score_f` is `score` as floats (the same values: the sums are the same); `gv` (at least the
    largest upper score + 1) is scratch: an upper row's value for each score.
    """
    open_rows = ((1 << n_rows) - 1) & ~mask
    out = a[outcome_base : outcome_base + n_outcomes]
    for o in range(n_outcomes):
        out[o] = NEG_INF
    for c in range(n_rows):
        if ((open_rows >> c) & 1) == 0:
            continue
        nm = mask | (1 << c)
        row = score_f[c]
        points = score[c]
        if not (is_upper[c] == 1 and upper_cap > 0):
            # The next state's value when the cell leaves the flag at 0 and when it sets it
            # (only the extra-Yahtzee box sets it: `box_pays`).
            unpaid = table[nm, 0 if c == box else flag, upper]
            paid = table[nm, 1 if c == box else flag, upper]
            for o in range(n_outcomes):
                s = row[o]
                out[o] = np.maximum(s + (paid if box_pays[points[o]] == 1 else unpaid), out[o])
            continue
        for s in range(gv.shape[0]):
            nflag = flag
            if c == box:
                nflag = box_pays[s]
            gv[s] = (s + upper_gain[upper, s]) + table[nm, nflag, upper_next[upper, s]]
        for o in range(n_outcomes):
            out[o] = np.maximum(gv[points[o]], out[o])
    if joker and box >= 0 and ((mask >> box) & 1) == 1:
        # Further Yahtzees go where the forced Joker says: recompute those outcomes.
        for o in range(n_outcomes):
            if yahtzee_face[o] == 0:
                continue
            allowed, jok = allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
            best = NEG_INF
            for c in range(n_rows):
                if ((allowed >> c) & 1) == 0:
                    continue
                val = move_value(
                    table,
                    mask,
                    flag,
                    upper,
                    c,
                    o,
                    jok,
                    score,
                    joker_score,
                    is_upper,
                    box,
                    box_pays,
                    joker_bonus,
                    upper_cap,
                    upper_gain,
                    upper_next,
                )[0]
                best = np.maximum(val, best)
            out[o] = best


@jit
def avg_pass_1(a: FloatArray, add: IntArray, outcome_base: int, faces: int) -> None:
    """`avg_pass` for one state (same summation order)."""
    for k in range(outcome_base - 1, -1, -1):
        acc = a[add[k, 0]]
        for f in range(1, faces):
            acc += a[add[k, f]]
        a[k] = acc / faces


@jit
def max_pass_1(a: FloatArray, sub_list: IntArray) -> None:
    """`max_pass` for one state (`sub_list`: the keeps one die smaller, padded with k itself)."""
    width = sub_list.shape[1]
    for k in range(1, a.shape[0]):
        best = a[k]
        for j in range(width):
            best = np.maximum(a[sub_list[k, j]], best)
        a[k] = best


@jit
def turn_levels(
    levels: FloatArray,
    a: FloatArray,
    gv: FloatArray,
    score_f: FloatArray,
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    rerolls: int,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    outcome_base: int,
    n_outcomes: int,
    n_rows: int,
    add: IntArray,
    sub_list: IntArray,
    faces: int,
) -> None:
    """The within-turn values of one state, level by level (`levels`: rerolls + 1 x keeps).

    `levels[0, outcome_base + o]`: the best cell move with outcome `o`. For r >= 1,
    `levels[r, k]` (k a keep smaller than a hand): keeping `k` and rerolling the rest with r
    rolls left; for 1 <= r < rerolls, `levels[r, outcome_base + o]`: holding outcome `o` with r
    rolls left (its best keep, or stopping). `levels[rerolls, outcome_base:]` is not used (the
    first roll of a turn is never "held") and is set to NaN. `gv`, `score_f`: see fill_outcomes_1.
    """
    fill_outcomes_1(
        a,
        table,
        mask,
        flag,
        upper,
        gv,
        score_f,
        score,
        joker_score,
        yahtzee_face,
        is_upper,
        joker_masks,
        box,
        box_pays,
        joker_bonus,
        joker,
        upper_cap,
        upper_gain,
        upper_next,
        outcome_base,
        n_outcomes,
        n_rows,
    )
    n_keeps = outcome_base + n_outcomes
    for k in range(outcome_base, n_keeps):
        levels[0, k] = a[k]
    for k in range(outcome_base):
        levels[0, k] = NEG_INF
    for r in range(1, rerolls + 1):
        # avg_pass rebuilds every smaller keep from the outcome rows, so what max_pass left in
        # the smaller keeps of the previous level does not matter.
        avg_pass_1(a, add, outcome_base, faces)
        for k in range(outcome_base):
            levels[r, k] = a[k]
        if r < rerolls:
            max_pass_1(a, sub_list)
            for k in range(outcome_base, n_keeps):
                levels[r, k] = a[k]
        else:
            for k in range(outcome_base, n_keeps):
                levels[r, k] = np.nan


@jit
def cell_values(
    out: FloatArray,
    gains: IntArray,
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    o: int,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    n_rows: int,
) -> None:
    """Each row's value with outcome `o` (-inf where the row may not be filled) and its gain."""
    allowed, jok = allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
    for c in range(n_rows):
        if ((allowed >> c) & 1) == 0:
            out[c] = NEG_INF
            gains[c] = 0
            continue
        val, gain, _, _ = move_value(
            table,
            mask,
            flag,
            upper,
            c,
            o,
            jok,
            score,
            joker_score,
            is_upper,
            box,
            box_pays,
            joker_bonus,
            upper_cap,
            upper_gain,
            upper_next,
        )
        out[c] = val
        gains[c] = gain


# --- the simulator ------------------------------------------------------------------------------

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
SEED_MUL = np.uint64(0xD1B54A32D192ED03)
GAME_MUL = np.uint64(0x8CB92BA72F3D8DD7)
S30 = np.uint64(30)
S27 = np.uint64(27)
S31 = np.uint64(31)
S11 = np.uint64(11)


@jit
def next_u64(state: UIntArray, g: int) -> Any:
    """splitmix64 on `state[g]` (a uint64 array): the next 64 random bits of game g."""
    state[g] += GOLDEN
    z = state[g]
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@jit
def die(state: UIntArray, g: int, faces: int) -> int:
    """A face index 0..faces-1 for game g, uniform (from 53 random bits)."""
    bits = next_u64(state, g) >> S11
    return int(float(bits) * (1.0 / 9007199254740992.0) * faces)


@jit
def play_turn(
    g: int,
    levels: FloatArray,
    rng: UIntArray,
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    proper_subs: IntArray,
    dice: int,
    rerolls: int,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    outcome_base: int,
    n_rows: int,
    add: IntArray,
    faces: int,
) -> tuple[int, int, int, int]:
    """Game g plays one turn optimally (`levels` from `turn_levels` for its state).

    The hand is a keep index: each thrown die moves it along `add`. Returns (filled rows, flag,
    upper total, points gained). Ties go to stopping (a cell move) over rerolling, then to the
    first keep in `proper_subs` order, then to the first row.
    """
    hand = 0
    for _ in range(dice):
        hand = add[hand, die(rng, g, faces)]
    for left in range(rerolls, 0, -1):
        best = levels[0, hand]  # stopping: the best cell move now
        best_keep = -1
        inside = proper_subs[hand - outcome_base]
        for j in range(inside.shape[0]):
            keep = inside[j]
            if keep < 0:
                break
            val = levels[left, keep]
            if val > best:
                best = val
                best_keep = keep
        if best_keep < 0:
            break
        hand = best_keep
        while hand < outcome_base:
            hand = add[hand, die(rng, g, faces)]
    o = hand - outcome_base
    allowed, jok = allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
    best_val = NEG_INF
    best_c = -1
    best_gain = 0
    best_flag = flag
    best_upper = upper
    for c in range(n_rows):
        if ((allowed >> c) & 1) == 0:
            continue
        val, gain, nflag, nupper = move_value(
            table,
            mask,
            flag,
            upper,
            c,
            o,
            jok,
            score,
            joker_score,
            is_upper,
            box,
            box_pays,
            joker_bonus,
            upper_cap,
            upper_gain,
            upper_next,
        )
        if val > best_val:
            best_val = val
            best_c = c
            best_gain = gain
            best_flag = nflag
            best_upper = nupper
    return mask | (1 << best_c), best_flag, best_upper, best_gain


@jit_parallel
def simulate(
    scores: IntArray,
    seed: int,
    workers: int,
    group_size: int,
    max_score: int,
    table: FloatArray,
    proper_subs: IntArray,
    dice: int,
    rerolls: int,
    score: IntArray,
    joker_score: IntArray,
    yahtzee_face: IntArray,
    is_upper: IntArray,
    joker_masks: IntArray,
    box: int,
    box_pays: IntArray,
    joker_bonus: int,
    joker: bool,
    upper_cap: int,
    upper_gain: IntArray,
    upper_next: IntArray,
    outcome_base: int,
    n_outcomes: int,
    n_rows: int,
    add: IntArray,
    sub_list: IntArray,
    faces: int,
) -> None:
    """Play `scores.shape[0]` optimal solitaire games from the empty sheet; store their totals.

    All games advance turn by turn. Each turn the games are sorted by state, the turn values of
    each distinct state are computed once (for at most `group_size` games at a time), and every
    game of the group plays its turn. Game g draws from its own generator, seeded from
    (seed, g), so a game's score depends on neither the grouping nor the number of threads.
    """
    n = scores.shape[0]
    n_keeps = outcome_base + n_outcomes
    masks = np.zeros(n, dtype=np.int64)
    flags = np.zeros(n, dtype=np.int64)
    uppers = np.zeros(n, dtype=np.int64)
    totals = np.zeros(n, dtype=np.int64)
    rng = np.empty(n, dtype=np.uint64)
    keys = np.empty(n, dtype=np.int64)
    starts = np.empty(n + 1, dtype=np.int64)
    score_f = score.astype(np.float64)
    for g in range(n):
        rng[g] = np.uint64(seed) * SEED_MUL + np.uint64(g) * GAME_MUL
        next_u64(rng, g)
    for _turn in range(n_rows):
        for g in range(n):
            keys[g] = (masks[g] * 2 + flags[g]) * (upper_cap + 1) + uppers[g]
        order = np.argsort(keys, kind="mergesort")
        n_groups = 0
        run = 0
        for i in range(n):
            if i == 0 or keys[order[i]] != keys[order[i - 1]] or run == group_size:
                starts[n_groups] = i
                n_groups += 1
                run = 0
            run += 1
        starts[n_groups] = n
        for w in prange(workers):
            levels = np.empty((rerolls + 1, n_keeps))
            a = np.empty(n_keeps)
            gv = np.empty(max_score + 1)
            for group in range(w, n_groups, workers):
                first = order[starts[group]]
                mask = masks[first]
                flag = flags[first]
                upper = uppers[first]
                turn_levels(
                    levels,
                    a,
                    gv,
                    score_f,
                    table,
                    mask,
                    flag,
                    upper,
                    rerolls,
                    score,
                    joker_score,
                    yahtzee_face,
                    is_upper,
                    joker_masks,
                    box,
                    box_pays,
                    joker_bonus,
                    joker,
                    upper_cap,
                    upper_gain,
                    upper_next,
                    outcome_base,
                    n_outcomes,
                    n_rows,
                    add,
                    sub_list,
                    faces,
                )
                for i in range(starts[group], starts[group + 1]):
                    g = order[i]
                    nmask, nflag, nupper, gain = play_turn(
                        g,
                        levels,
                        rng,
                        table,
                        mask,
                        flag,
                        upper,
                        proper_subs,
                        dice,
                        rerolls,
                        score,
                        joker_score,
                        yahtzee_face,
                        is_upper,
                        joker_masks,
                        box,
                        box_pays,
                        joker_bonus,
                        joker,
                        upper_cap,
                        upper_gain,
                        upper_next,
                        outcome_base,
                        n_rows,
                        add,
                        faces,
                    )
                    masks[g] = nmask
                    flags[g] = nflag
                    uppers[g] = nupper
                    totals[g] += gain
    for g in range(n):
        scores[g] = totals[g]
