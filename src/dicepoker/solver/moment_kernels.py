"""The numba kernels of `moments.py`: second moments of the points to come, and how a turn ends.

Both follow the policy of `kernels.play_turn` (the expected-score-maximising one) with its
tie-breaking: stopping over rerolling on a tie, then the first keep in `proper_subs` order, then
the first row.

- `build_second` mirrors `kernels.build_table` (the same layers, workers, columns and merged
  upper totals) with a second work array for E[R^2] beside the values (or E[R^3], given the
  second moments): `fill_moments` (the cell moves), `avg_pass` (rerolls: a raw moment averages
  like a value), `choose_pass` (the keep or the stop the values choose, and the moment of that
  choice).
- `turn_outcome_kernel` pushes probability mass through the keep graph, hand by hand, with the
  choices read from a state's `turn_levels`.

Float selects (`x if c else y` over an array) compile to scalar code here; the second moment of
the chosen option is therefore picked through int64 views of the float arrays with a bit mask
(`(new & m) | (old & ~m)`, m = -(val > best)), which copies the value bit for bit and vectorises;
the values themselves take `np.maximum`, as in `kernels.py`.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from dicepoker.solver.dice import FloatArray, IntArray
from dicepoker.solver.kernels import (
    NEG_INF,
    allowed_rows,
    avg_pass,
    expect,
    jit,
    jit_parallel,
)

# --- the moment builds (vectorised over the states of one filled set) -----------------------------


@jit
def raw_moment(order: int, g: float, v: float, m2: float, mk: float) -> float:
    """E[(g + R)^order] for order 2 or 3, from E[R] = v, E[R^2] = m2 and E[R^order] = mk."""
    if order == 2:
        return g * g + 2.0 * g * v + mk
    return g * g * g + 3.0 * g * g * v + 3.0 * g * m2 + mk


@jit
def fill_moments(
    a: FloatArray,
    b: FloatArray,
    b_bits: IntArray,
    table: FloatArray,
    second: FloatArray,
    lower: FloatArray,
    order: int,
    mask: int,
    n_flag: int,
    ucol: IntArray,
    gv: FloatArray,
    g2: FloatArray,
    gm: FloatArray,
    gm_bits: IntArray,
    tm: FloatArray,
    tm_bits: IntArray,
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
    """Outcome rows of `a` and `b`: the policy's cell move's value and its moment of `order`.

    `kernels.fill_outcomes` with the first best row kept (a strictly larger value replaces it, as
    in `play_turn`), so that `b` follows the very row the policy fills: g^2 + 2 g V(s') + M2(s').
    The values are computed with `fill_outcomes`' arithmetic, so `a` is the same bit for bit.
    `second` is the table of the moment being built (E[R^order] of the states after), `lower` the
    second moments when `order` is 3 (g^3 + 3 g^2 V + 3 g M2(s') + M3(s'); unused for 2), and
    `g2` scratch for it like `gv`.
    `gv`, `gm` (scores + 2, width) and `have` (scores + 2) are scratch: a row's next-state values
    and second moments in the layout of `a`; `tm` (width) one outcome's second moments. The
    `*_bits` arguments are int64 views of the float arrays of the same name: the second moment
    of the chosen row is picked with a bit mask (`_blend`), which compiles to vector code where a
    float select does not.
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
            b[k, v] = 0.0
    for c in range(n_rows):
        if ((open_rows >> c) & 1) == 0:
            continue
        nm = mask | (1 << c)
        if not (is_upper[c] == 1 and upper_cap > 0):
            slots = 2 if c == box else 1
            for slot in range(slots):
                for j in range(n_flag):
                    nflag = j
                    if c == box:
                        nflag = slot
                    for col in range(n_col):
                        gv[slot, j * n_col + col] = table[nm, nflag, ucol[col]]
                        gm[slot, j * n_col + col] = second[nm, nflag, ucol[col]]
                        g2[slot, j * n_col + col] = lower[nm, nflag, ucol[col]]
            for o in range(n_outcomes):
                if jok_on and yahtzee_face[o] > 0:
                    continue
                s = score[c, o]
                sf = float(s)
                slot = box_pays[s] if c == box else 0
                k = outcome_base + o
                ak = a[k]
                vals = gv[slot]
                m2s = gm[slot]
                if order == 2:
                    for v in range(width):
                        nv = vals[v]
                        tm[v] = sf * sf + 2.0 * sf * nv + m2s[v]
                else:
                    l2s = g2[slot]
                    for v in range(width):
                        tm[v] = sf * sf * sf + 3.0 * sf * sf * vals[v] + 3.0 * sf * l2s[v] + m2s[v]
                bk = b_bits[k]
                for v in range(width):
                    val = s + vals[v]
                    cur = ak[v]
                    take = -np.int64(val > cur)
                    ak[v] = np.maximum(val, cur)
                    bk[v] = (tm_bits[v] & take) | (bk[v] & ~take)
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
                        gain = s + upper_gain[u, s]
                        nv = table[nm, nflag, nu]
                        gf = float(gain)
                        gv[s, j * n_col + col] = gain + nv
                        gm[s, j * n_col + col] = raw_moment(
                            order, gf, nv, lower[nm, nflag, nu], second[nm, nflag, nu]
                        )
            k = outcome_base + o
            ak = a[k]
            bk = b_bits[k]
            vals = gv[s]
            m2s = gm_bits[s]
            for v in range(width):
                val = vals[v]
                cur = ak[v]
                take = -np.int64(val > cur)
                ak[v] = np.maximum(val, cur)
                bk[v] = (m2s[v] & take) | (bk[v] & ~take)
    if jok_on:
        # Further Yahtzees under the forced Joker, one state at a time (as in fill_outcomes),
        # with `move_value`'s arithmetic written out (a call per state costs more than it).
        for o in range(n_outcomes):
            if yahtzee_face[o] == 0:
                continue
            allowed, jok = allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
            k = outcome_base + o
            for c in range(n_rows):
                if ((allowed >> c) & 1) == 0:
                    continue
                nm = mask | (1 << c)
                s = joker_score[c, o] if jok else score[c, o]
                counts_upper = is_upper[c] == 1 and upper_cap > 0
                for j in range(n_flag):
                    nflag = box_pays[s] if c == box else j
                    for col in range(n_col):
                        gain = s
                        if jok and j == 1:
                            gain += joker_bonus
                        nupper = ucol[col]
                        if counts_upper:
                            gain += upper_gain[nupper, s]
                            nupper = upper_next[nupper, s]
                        nv = table[nm, nflag, nupper]
                        val = gain + nv
                        v = j * n_col + col
                        if val > a[k, v]:
                            gf = float(gain)
                            a[k, v] = val
                            b[k, v] = raw_moment(
                                order, gf, nv, lower[nm, nflag, nupper], second[nm, nflag, nupper]
                            )


@jit
def choose_pass(
    a: FloatArray,
    b_bits: IntArray,
    cell_a: FloatArray,
    cell_bits: IntArray,
    proper_subs: IntArray,
    outcome_base: int,
    best: FloatArray,
    best_bits: IntArray,
) -> None:
    """Hands with rolls left: the option the policy picks, its value (a) and second moment (b).

    The keeps smaller than a hand hold the values and second moments of keeping them and
    rerolling (`avg_pass`); `cell_a`/`cell_bits` (hands x width) those of the best cell move now.
    As in `play_turn`: stopping unless a keep is strictly better, then the first strictly better
    keep in `proper_subs` order. The value left in `a` is the best of them, which is what
    `max_pass` computes (the same maximum), so the next `avg_pass` sees the same numbers.
    Second moments travel as their bits (`b_bits`, `cell_bits`: int64 views) and are picked with
    a mask, which vectorises; `best`, `best_bits` (width) are scratch.
    """
    width = a.shape[1]
    for o in range(proper_subs.shape[0]):
        ca = cell_a[o]
        cb = cell_bits[o]
        for v in range(width):
            best[v] = ca[v]
            best_bits[v] = cb[v]
        inside = proper_subs[o]
        for j in range(inside.shape[0]):
            keep = inside[j]
            if keep < 0:
                break
            ka = a[keep]
            kb = b_bits[keep]
            for v in range(width):
                val = ka[v]
                cur = best[v]
                take = -np.int64(val > cur)
                best[v] = np.maximum(val, cur)
                best_bits[v] = (kb[v] & take) | (best_bits[v] & ~take)
        ak = a[outcome_base + o]
        bk = b_bits[outcome_base + o]
        for v in range(width):
            ak[v] = best[v]
            bk[v] = best_bits[v]


@jit_parallel
def build_second(
    first: FloatArray,
    second: FloatArray,
    table: FloatArray,
    lower: FloatArray,
    moment: int,
    order: IntArray,
    layer_start: IntArray,
    n_flags: IntArray,
    n_uppers: IntArray,
    live_lo: IntArray,
    n_cols: IntArray,
    workers: int,
    max_score: int,
    rerolls: int,
    proper_subs: IntArray,
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
    probs: FloatArray,
    faces: int,
) -> None:
    """Fill `second` with E[R^moment] (and `first`, the policy's values again) layer by layer,
    like build_table; `lower` holds the second moments when `moment` is 3.

    The same layers, workers, columns and merged out-of-reach upper totals as `build_table`
    (those totals have the same future, second moments included: their moves gain no upper
    bonus and lead to states whose entries are copies too). `first` must come out equal to
    `table`: it is the check that the choices followed here are the policy's.
    """
    n_keeps = outcome_base + n_outcomes
    most = table.shape[1] * table.shape[2]
    for layer in range(layer_start.shape[0] - 1):
        lo_i = layer_start[layer]
        hi_i = layer_start[layer + 1]
        for w in prange(workers):
            abuf = np.empty(n_keeps * most)
            bbuf = np.empty(n_keeps * most)
            cabuf = np.empty(n_outcomes * most)
            cbbuf = np.empty(n_outcomes * most, dtype=np.int64)
            gvbuf = np.empty((max_score + 2) * most)
            gmbuf = np.empty((max_score + 2) * most)
            g2buf = np.empty((max_score + 2) * most)
            tm = np.empty(most)
            best = np.empty(most)
            best_bits = np.empty(most, dtype=np.int64)
            have = np.empty(max_score + 2, dtype=np.int64)
            out_a = np.empty(most)
            out_b = np.empty(most)
            ubuf = np.empty(table.shape[2], dtype=np.int64)
            bbits = bbuf.view(np.int64)
            gmbits = gmbuf.view(np.int64)
            tm_bits = tm.view(np.int64)
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
                a = abuf[: n_keeps * width].reshape((n_keeps, width))
                b = bbuf[: n_keeps * width].reshape((n_keeps, width))
                b_bits = bbits[: n_keeps * width].reshape((n_keeps, width))
                cell_a = cabuf[: n_outcomes * width].reshape((n_outcomes, width))
                cell_bits = cbbuf[: n_outcomes * width].reshape((n_outcomes, width))
                gv = gvbuf[: (max_score + 2) * width].reshape((max_score + 2, width))
                gm = gmbuf[: (max_score + 2) * width].reshape((max_score + 2, width))
                g2 = g2buf[: (max_score + 2) * width].reshape((max_score + 2, width))
                gm_bits = gmbits[: (max_score + 2) * width].reshape((max_score + 2, width))
                fill_moments(
                    a,
                    b,
                    b_bits,
                    table,
                    second,
                    lower,
                    moment,
                    mask,
                    n_flag,
                    ucol,
                    gv,
                    g2,
                    gm,
                    gm_bits,
                    tm,
                    tm_bits,
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
                if rerolls > 0:
                    for o in range(n_outcomes):
                        for v in range(width):
                            cell_a[o, v] = a[outcome_base + o, v]
                            cell_bits[o, v] = b_bits[outcome_base + o, v]
                for _ in range(rerolls):
                    avg_pass(a, add, outcome_base, faces)
                    avg_pass(b, add, outcome_base, faces)
                    choose_pass(
                        a, b_bits, cell_a, cell_bits, proper_subs, outcome_base, best, best_bits
                    )
                expect(a, probs, outcome_base, out_a)
                expect(b, probs, outcome_base, out_b)
                for j in range(n_flag):
                    for u in range(n_uppers[mask]):
                        col = 0 if u < lo else u - lo + dead
                        first[mask, j, u] = out_a[j * n_col + col]
                        second[mask, j, u] = out_b[j * n_col + col]


# --- how one turn ends ----------------------------------------------------------------------------


@jit
def spread_keeps(mass: FloatArray, add: IntArray, outcome_base: int, faces: int) -> None:
    """Throw the free dice: each keep's mass goes to the hands, one random die at a time.

    Keeps are numbered by size, so a keep's mass has reached it before it is passed on."""
    for k in range(outcome_base):
        p = mass[k]
        if p != 0.0:
            share = p / faces
            for f in range(faces):
                mass[add[k, f]] += share
            mass[k] = 0.0


@jit
def turn_outcome_kernel(
    start: int,
    left: int,
    levels: FloatArray,
    table: FloatArray,
    mask: int,
    flag: int,
    upper: int,
    proper_subs: IntArray,
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
    faces: int,
) -> tuple[FloatArray, IntArray, IntArray, IntArray, IntArray]:
    """How the turn ends from keep `start` (its free dice about to be thrown) with `left` rolls
    left after that throw, under the policy of `levels` (`turn_levels` of the state).

    The choices are `play_turn`'s: at a hand with r rolls left, stop unless a keep of
    `proper_subs` is strictly better (`levels[r, keep]` against `levels[0, hand]`), the first
    such; at the end, the first best row. Returns (prob, gain, filled, flag, upper), aggregated
    per distinct outcome and sorted by gain, then filled, flag and upper.
    """
    n_keeps = outcome_base + n_outcomes
    mass = np.zeros(n_keeps)
    nxt = np.zeros(n_keeps)
    final = np.zeros(n_outcomes)
    mass[start] = 1.0
    spread_keeps(mass, add, outcome_base, faces)
    for r in range(left, 0, -1):
        for o in range(n_outcomes):
            hand = outcome_base + o
            p = mass[hand]
            if p == 0.0:
                continue
            mass[hand] = 0.0
            best = levels[0, hand]
            best_keep = -1
            inside = proper_subs[o]
            for j in range(inside.shape[0]):
                keep = inside[j]
                if keep < 0:
                    break
                val = levels[r, keep]
                if val > best:
                    best = val
                    best_keep = keep
            if best_keep < 0:
                final[o] += p
            else:
                nxt[best_keep] += p
        mass, nxt = nxt, mass
        spread_keeps(mass, add, outcome_base, faces)
    for o in range(n_outcomes):
        final[o] += mass[outcome_base + o]

    count = 0
    probs = np.empty(n_outcomes)
    keys = np.empty(n_outcomes, dtype=np.int64)
    gains = np.empty(n_outcomes, dtype=np.int64)
    masks = np.empty(n_outcomes, dtype=np.int64)
    flags = np.empty(n_outcomes, dtype=np.int64)
    uppers = np.empty(n_outcomes, dtype=np.int64)
    n_masks = 1 << n_rows
    for o in range(n_outcomes):
        p = final[o]
        if p == 0.0:
            continue
        allowed, jok = allowed_rows(mask, o, yahtzee_face, joker_masks, box, joker, n_rows)
        best_val = NEG_INF
        best_c = -1
        best_gain = 0
        best_flag = flag
        best_upper = upper
        for c in range(n_rows):
            if ((allowed >> c) & 1) == 0:
                continue
            # `move_value`'s arithmetic, written out: a call per (hand, row) costs more than
            # the rest of the kernel.
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
            val = gain + table[mask | (1 << c), nflag, nupper]
            if val > best_val:
                best_val = val
                best_c = c
                best_gain = gain
                best_flag = nflag
                best_upper = nupper
        nmask = mask | (1 << best_c)
        probs[count] = p
        gains[count] = best_gain
        masks[count] = nmask
        flags[count] = best_flag
        uppers[count] = best_upper
        keys[count] = ((best_gain * n_masks + nmask) * 2 + best_flag) * (upper_cap + 1) + best_upper
        count += 1
    order = np.argsort(keys[:count], kind="mergesort")
    out_p = np.empty(count)
    out_g = np.empty(count, dtype=np.int64)
    out_m = np.empty(count, dtype=np.int64)
    out_f = np.empty(count, dtype=np.int64)
    out_u = np.empty(count, dtype=np.int64)
    n = 0
    for i in range(count):
        e = order[i]
        if n > 0 and keys[e] == keys[order[i - 1]]:
            out_p[n - 1] += probs[e]
            continue
        out_p[n] = probs[e]
        out_g[n] = gains[e]
        out_m[n] = masks[e]
        out_f[n] = flags[e]
        out_u[n] = uppers[e]
        n += 1
    return out_p[:n], out_g[:n], out_m[:n], out_f[:n], out_u[:n]
