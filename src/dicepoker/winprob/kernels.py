"""The one hot loop of win probabilities, compiled with numba: a mixture of normals put on the
whole-number grid.

Each component only touches the points within `reach` of its spread, and components that differ
by a whole number of points with the same spread (how a turn can end: the gains of the moves
that lead to one state, each followed by that state's rest of the game) share one table of
masses, shifted: so a mixture costs one set of error functions per distinct spread, then a
multiply-add per point each component covers."""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

FloatArray = Any


@numba.njit(cache=True, nogil=True)
def mixture_pmf(
    weights: FloatArray, means: FloatArray, sds: FloatArray, low: int, reach: float, out: FloatArray
) -> None:
    """Add to `out[i]` (the total `low + i`) each component's mass between i - 1/2 and i + 1/2.
    Components should come sorted by spread, then mean (the shared tables are reused along
    runs of equal spreads)."""
    n = out.shape[0]
    scale = 1.0 / math.sqrt(2.0)
    table = np.empty(0)
    base_mean = 0.0
    base_sd = -1.0
    base_start = 0
    for k in range(weights.shape[0]):
        w = weights[k]
        m = means[k]
        s = sds[k]
        if s <= 0.0:
            i = round(m) - low
            i = min(max(i, 0), n - 1)
            out[i] += w
            continue
        shift = m - base_mean
        whole = round(shift)
        if s != base_sd or abs(shift - whole) > 1e-9:
            # A new table: the masses of N(m, s) at the whole numbers around m.
            start = math.floor(m - reach * s)
            stop = math.ceil(m + reach * s)
            table = np.empty(stop - start + 1)
            inv = scale / s
            prev = 0.5 * (1.0 + math.erf((start - 0.5 - m) * inv))
            for j in range(stop - start + 1):
                cur = 0.5 * (1.0 + math.erf((start + j + 0.5 - m) * inv))
                table[j] = cur - prev
                prev = cur
            base_mean, base_sd, base_start, whole = m, s, start, 0.0
        first = base_start + int(whole) - low  # where this component's table starts in `out`
        a = max(0, first)
        b = min(n, first + table.shape[0])
        for i in range(a, b):
            out[i] += w * table[i - first]
