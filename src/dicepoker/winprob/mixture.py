"""Each seat's final total as a distribution, and each seat's chance of finishing first.

The backends (`sheets.py` for the single-sheet presets, `school.py` for School) describe a seat's
final total as a mixture of normal distributions: exact where they know it exactly (the points a
sheet already holds, how the current turn can end), normal for the turns after. Totals are
whole numbers, so a mixture is put on the integer grid (each normal component's mass between
x - 1/2 and x + 1/2 goes to x) and the seats are compared there: seat i finishes first with
the chance that every other seat ends lower, and a tie of k seats for first counts 1/k for each
of them (a tie is settled by a tie-break game between the tied seats, which none of them is
favoured in).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: How many standard deviations of a component the grid covers on each side.
REACH = 7.0


def normal_cdf(z: FloatArray) -> FloatArray:
    """The standard normal distribution function (Abramowitz and Stegun 7.1.26, error < 1.5e-7;
    numpy has no erf)."""
    x = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
    poly = poly + 0.254829592
    erf = 1.0 - poly * t * np.exp(-x * x)
    out: FloatArray = 0.5 * (1.0 + np.sign(z) * erf)
    return out


#: The share of a skewed component's variance that `skew_pair` puts between its two normals
#: (the rest is their own spread). See docs/analysis.md: 0.5 matched the final totals of
#: expected-score play best among the shares tried.
SKEW_SHARE = 0.5
#: Skewness below this (in size) leaves a component normal.
SKEW_MIN = 0.05


def skew_pair(
    sds: FloatArray, skews: FloatArray, share: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Two normals with one spread whose mixture has mean 0, standard deviation `sds` and
    skewness `skews`: (weight of the first, its offset, the second's offset, their spread).

    The offsets form a two-point distribution with `share` of the variance and all of the third
    central moment (a normal adds none), so its skewness is skew / share^1.5; the weight p of the
    first point solves (1 - 2p) / sqrt(p (1 - p)) = that skewness. Where a skewness is too small
    to matter, or the share is 0, p is 0 (the component stays normal)."""
    sds = np.asarray(sds, dtype=np.float64)
    skews = np.asarray(skews, dtype=np.float64)
    active = (np.abs(skews) >= SKEW_MIN) & (sds > 0.0) & (share > 0.0)
    pair_skew = np.where(active, skews, 1.0) / max(share, 1e-12) ** 1.5
    a = pair_skew * pair_skew + 4.0
    small = (1.0 - np.sqrt(1.0 - 4.0 / a)) / 2.0
    p = np.where(pair_skew > 0.0, small, 1.0 - small)
    p = np.where(active, p, 0.5)  # (a weight that divides safely; unused)
    gap = np.sqrt(share * sds * sds / (p * (1.0 - p)))
    up = gap * (1.0 - p)
    down = -gap * p
    inner = sds * np.sqrt(max(0.0, 1.0 - share))
    zero = np.zeros_like(sds)
    return (
        np.where(active, p, 0.0),
        np.where(active, up, zero),
        np.where(active, down, zero),
        np.where(active, inner, sds),
    )


#: The weight of the wide normal of `scale_pair` (a heavy-tailed rest: one draw in five from
#: the wide one). See docs/analysis.md, "School: the rest's tails".
WIDE_SHARE = 0.2


def scale_pair(kurtosis: float, wide: float = WIDE_SHARE) -> tuple[float, float, float]:
    """Two normals around one mean whose mixture has variance 1 and kurtosis `kurtosis` (3 is
    the normal's): (the weight of the wide one, its standard deviation, the narrow one's).

    With weight q the wide one's variance A and the narrow one's B solve q A + (1 - q) B = 1 and
    q A^2 + (1 - q) B^2 = kurtosis / 3: A = 1 + sqrt(e (1 - q) / q), B = 1 - sqrt(e q / (1 - q)),
    e = kurtosis / 3 - 1. A kurtosis at or below 3 gives (0, 1, 1), one normal; one so large
    that B would not be positive is capped where B is a tenth."""
    excess = kurtosis / 3.0 - 1.0
    if not excess > 0.0 or not 0.0 < wide < 1.0:
        return 0.0, 1.0, 1.0
    excess = min(excess, 0.81 * (1.0 - wide) / wide)
    big = 1.0 + float(np.sqrt(excess * (1.0 - wide) / wide))
    small = 1.0 - float(np.sqrt(excess * wide / (1.0 - wide)))
    return wide, float(np.sqrt(big)), float(np.sqrt(small))


def _arrays(
    weights: Sequence[float] | FloatArray,
    means: Sequence[float] | FloatArray,
    sds: Sequence[float] | FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """A mixture's parts as float arrays, the spreads at least 0."""
    w = np.asarray(weights, dtype=np.float64)
    m = np.asarray(means, dtype=np.float64)
    return w, m, np.maximum(np.asarray(sds, dtype=np.float64), 0.0)


@dataclass(frozen=True, slots=True)
class ScoreDistribution:
    """A seat's final total: a mixture of normals (`weights` sum to 1; a component whose `sds`
    is 0 is a point mass at its mean)."""

    weights: FloatArray
    means: FloatArray
    sds: FloatArray

    @classmethod
    def exact(cls, total: float) -> ScoreDistribution:
        """A total that is known: a seat with no turn left."""
        return cls.normal(total, 0.0)

    @classmethod
    def normal(cls, mean: float, sd: float) -> ScoreDistribution:
        return cls(np.ones(1), np.array([float(mean)]), np.array([max(0.0, float(sd))]))

    @classmethod
    def mixture(
        cls,
        weights: Sequence[float] | FloatArray,
        means: Sequence[float] | FloatArray,
        sds: Sequence[float] | FloatArray,
    ) -> ScoreDistribution:
        w, m, s = _arrays(weights, means, sds)
        total = float(w.sum())
        if not (len(w) > 0 and total > 0 and np.all(w >= 0)):
            raise ValueError("a mixture needs non-negative weights with a positive sum")
        if not (m.shape == w.shape == s.shape):
            raise ValueError("weights, means and sds differ in length")
        return cls(w / total, m, s)

    @classmethod
    def heavy(
        cls,
        weights: Sequence[float] | FloatArray,
        means: Sequence[float] | FloatArray,
        sds: Sequence[float] | FloatArray,
        rest: Sequence[float] | FloatArray,
        kurtosis: float,
    ) -> ScoreDistribution:
        """A mixture whose components have these means and spreads, where `rest` (at most `sds`)
        is the part of each spread that the turns to come bring, with the given kurtosis: each
        component becomes two normals, the rest's variance scaled by `scale_pair` and the other
        part (a turn's ends merged into one component) kept as it is."""
        q, wide, narrow = scale_pair(kurtosis)
        w, m, s = _arrays(weights, means, sds)
        r = np.minimum(np.maximum(np.asarray(rest, dtype=np.float64), 0.0), s)
        if q == 0.0 or not np.any(r > 0.0):
            return cls.mixture(w, m, s)
        other = s * s - r * r
        return cls.mixture(
            np.concatenate((w * q, w * (1.0 - q))),
            np.concatenate((m, m)),
            np.concatenate((np.sqrt(other + (wide * r) ** 2), np.sqrt(other + (narrow * r) ** 2))),
        )

    @classmethod
    def skewed(
        cls,
        weights: Sequence[float] | FloatArray,
        means: Sequence[float] | FloatArray,
        sds: Sequence[float] | FloatArray,
        skews: Sequence[float] | FloatArray,
        share: float | None = None,
    ) -> ScoreDistribution:
        """A mixture whose components have these means, spreads and skewnesses: each skewed
        component becomes two normals of one spread whose mixture has its first three moments
        (`skew_pair`), `share` of its variance in the distance between them."""
        w, m, s = _arrays(weights, means, sds)
        g = np.nan_to_num(np.asarray(skews, dtype=np.float64))
        p, up, down, inner = skew_pair(s, g, SKEW_SHARE if share is None else share)
        split = p > 0.0
        if not split.any():
            return cls.mixture(w, m, s)
        return cls.mixture(
            np.concatenate((w[~split], w[split] * p[split], w[split] * (1.0 - p[split]))),
            np.concatenate((m[~split], m[split] + up[split], m[split] + down[split])),
            np.concatenate((s[~split], inner[split], inner[split])),
        )

    @property
    def mean(self) -> float:
        return float(np.dot(self.weights, self.means))

    @property
    def sd(self) -> float:
        second = float(np.dot(self.weights, self.sds**2 + self.means**2))
        return float(np.sqrt(max(0.0, second - self.mean**2)))

    def bounds(self) -> tuple[int, int]:
        """The whole numbers outside which the distribution has no mass to speak of."""
        low = self.means - REACH * self.sds
        high = self.means + REACH * self.sds
        return int(np.floor(low.min())) - 1, int(np.ceil(high.max())) + 1

    def pmf(self, low: int, high: int) -> FloatArray:
        """The probability of each whole total from `low` to `high` (inclusive)."""
        from dicepoker.winprob.kernels import mixture_pmf

        out = np.zeros(high - low + 1)
        # By spread, then by the fraction of a point in the mean, then by mean: the components
        # that can share one table of masses (equal spreads, means a whole number apart: the
        # gains of one state's turn, each followed by its rest) come one after the other.
        fraction = np.round(self.means - np.floor(self.means), 9)
        order = np.lexsort((self.means, fraction, self.sds))
        mixture_pmf(self.weights[order], self.means[order], self.sds[order], low, REACH, out)
        total = out.sum()
        return out / total if total > 0 else out


def win_chances(seats: Sequence[ScoreDistribution | None]) -> list[float]:
    """Each seat's chance of finishing first (ties shared); a seat given as None is out of the
    race (it forfeited) and gets 0. The chances sum to 1 when any seat is in the race."""
    live = [index for index, seat in enumerate(seats) if seat is not None]
    out = [0.0] * len(seats)
    if not live:
        return out
    if len(live) == 1:
        out[live[0]] = 1.0
        return out
    dists = [seats[index] for index in live]
    spans = [dist.bounds() for dist in dists if dist is not None]
    low = min(span[0] for span in spans)
    high = max(span[1] for span in spans)
    pmfs = [dist.pmf(low, high) for dist in dists if dist is not None]
    for i in range(len(pmfs)):
        others = pmfs[:i] + pmfs[i + 1 :]
        out[live[i]] = float(np.dot(pmfs[i], _share(others, len(pmfs[i]))))
    total = sum(out)
    return [value / total for value in out] if total > 0 else out


def _share(others: Sequence[FloatArray], size: int) -> FloatArray:
    """For each point of a grid: the share of first place of a seat ending there, against
    seats whose totals have these probabilities on the same grid (a tie of k: 1/k each)."""
    n = len(others) + 1
    # poly[t][x]: the chance that every other seat ends at x or lower, t of them at x.
    poly = np.zeros((n, size))
    poly[0] = 1.0
    for pmf in others:
        below = np.cumsum(pmf) - pmf  # P(X < x)
        shifted = np.zeros_like(poly)
        shifted[1:] = poly[:-1] * pmf
        poly = poly * below + shifted
    share: FloatArray = sum((poly[t] / (t + 1) for t in range(n)), np.zeros(size))
    return share


@dataclass(frozen=True, slots=True)
class WinCurve:
    """A seat's share of first place as a function of its final total, the other seats'
    distributions given: `at(x)` for whole totals x (0 below every rival's reach, 1 above)."""

    low: int
    values: FloatArray

    @classmethod
    def against(cls, others: Sequence[ScoreDistribution]) -> WinCurve:
        if not others:
            return cls(0, np.ones(1))
        spans = [dist.bounds() for dist in others]
        low = min(span[0] for span in spans)
        high = max(span[1] for span in spans)
        pmfs = [dist.pmf(low, high) for dist in others]
        return cls(low, _share(pmfs, high - low + 1))

    def at(self, totals: npt.NDArray[np.int64]) -> FloatArray:
        index = totals - self.low
        inside = np.clip(index, 0, len(self.values) - 1)
        out: FloatArray = np.where(
            index < 0, 0.0, np.where(index >= len(self.values), 1.0, self.values[inside])
        )
        return out
