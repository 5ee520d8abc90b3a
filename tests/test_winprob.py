"""Win probability's common part (dicepoker.winprob): comparing seats' final totals, ties,
forfeits, the end of a game, tie-break games, solitaire, and the handicap of a known level
(each backend has its own tests: test_winprob_sheets.py, test_winprob_school.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dicepoker.winprob import win_probability
from dicepoker.winprob.mixture import ScoreDistribution, normal_cdf, scale_pair, win_chances
from dicepoker.winprob.skill import Handicap, handicap, handicapped, rest_mixture
from support import start

Exact = ScoreDistribution.exact


def brute_force(dists: list[dict[int, float]]) -> list[float]:
    """Each seat's share of first place, by enumerating every combination of totals."""
    out = [0.0] * len(dists)
    for combo in itertools.product(*[list(d.items()) for d in dists]):
        chance = float(np.prod([p for _, p in combo]))
        best = max(total for total, _ in combo)
        tied = [i for i, (total, _) in enumerate(combo) if total == best]
        for i in tied:
            out[i] += chance / len(tied)
    return out


def as_mixture(dist: dict[int, float]) -> ScoreDistribution:
    totals = list(dist)
    return ScoreDistribution.mixture([dist[t] for t in totals], totals, [0.0] * len(totals))


small = st.dictionaries(
    st.integers(-5, 12), st.integers(1, 9).map(float), min_size=1, max_size=5
).map(lambda d: {k: v / sum(d.values()) for k, v in d.items()})


@settings(max_examples=150, deadline=None)
@given(st.lists(small, min_size=2, max_size=4))
def test_discrete_totals_give_the_exact_shares_of_first_place(
    dists: list[dict[int, float]],
) -> None:
    got = win_chances([as_mixture(d) for d in dists])
    assert got == pytest.approx(brute_force(dists), abs=1e-9)
    assert sum(got) == pytest.approx(1.0)


def test_normal_totals_compare_as_normals() -> None:
    # P(N(110, 10) > N(100, 10)) = Phi(10 / sqrt(200)); the whole-number grid adds no bias.
    got = win_chances([ScoreDistribution.normal(110, 10), ScoreDistribution.normal(100, 10)])
    assert got[0] == pytest.approx(0.76025, abs=2e-4)
    three = win_chances([ScoreDistribution.normal(100, 15)] * 3)
    assert three == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_ties_are_shared_and_a_forfeited_seat_gets_nothing() -> None:
    assert win_chances([Exact(50), Exact(50), Exact(40)]) == [0.5, 0.5, 0.0]
    assert win_chances([Exact(50), None, Exact(20)]) == [1.0, 0.0, 0.0]
    assert win_chances([None, Exact(3)]) == [0.0, 1.0]
    assert win_chances([None, None]) == [0.0, 0.0]


def test_a_long_shot_keeps_its_chance() -> None:
    # Only a Yahtzee (50) catches up 30 points: the chance is that of the Yahtzee, not a
    # normal's tail.
    shot = ScoreDistribution.mixture([0.046, 0.954], [80, 30], [0, 0])
    assert win_chances([shot, Exact(60)])[0] == pytest.approx(0.046)


def grid_moments(dist: ScoreDistribution, low: int, high: int, order: int) -> tuple[float, ...]:
    """Mean, variance and the standardised central moment of `order` of `dist` on its whole-number
    grid from `low` to `high`."""
    grid = np.arange(low, high + 1)
    pmf = dist.pmf(low, high)
    mean = float(np.dot(pmf, grid))
    variance = float(np.dot(pmf, (grid - mean) ** 2))
    return mean, variance, float(np.dot(pmf, (grid - mean) ** order)) / variance ** (order / 2)


@pytest.mark.parametrize("skew", [-1.2, -0.3, 0.0, 0.2, 0.8, 1.6, 3.0])
@pytest.mark.parametrize("share", [0.35, 0.5, 0.7])
def test_a_skewed_component_has_its_three_moments(skew: float, share: float) -> None:
    dist = ScoreDistribution.skewed([1.0], [250.0], [60.0], [skew], share=share)
    mean, variance, got = grid_moments(dist, -600, 1399, 3)
    # The grid adds 1/12 to the variance (each component's mass is rounded to whole numbers).
    assert mean == pytest.approx(250.0, abs=1e-6)
    assert variance == pytest.approx(3600.0 + 1 / 12, rel=1e-4)
    assert got == pytest.approx(skew, abs=2e-3)
    assert len(dist.weights) == (1 if skew == 0.0 else 2)


def test_skew_leaves_point_masses_and_the_share_zero_alone() -> None:
    dist = ScoreDistribution.skewed([0.5, 0.5], [10.0, 20.0], [0.0, 5.0], [1.0, 1.0], share=0.0)
    assert dist.weights.tolist() == [0.5, 0.5] and dist.sds.tolist() == [0.0, 5.0]
    point = ScoreDistribution.skewed([1.0], [10.0], [0.0], [2.0])
    assert point.means.tolist() == [10.0] and point.sds.tolist() == [0.0]


def test_a_right_skewed_rival_is_caught_less_often_than_a_normal_one() -> None:
    """Most of a skewed rest's upper tail is rare and large: against two rivals a little ahead,
    the normal overstates their chance (the median of a right-skewed total is below its mean)."""
    leader = ScoreDistribution.normal(260.0, 0.0)
    normal = win_chances([leader] + [ScoreDistribution.normal(250.0, 40.0)] * 2)
    skewed = win_chances([leader] + [ScoreDistribution.skewed([1.0], [250.0], [40.0], [1.5])] * 2)
    assert skewed[0] > normal[0] + 0.02


@pytest.mark.parametrize("kurtosis", [3.0, 4.2, 5.45, 7.0, 12.0])
def test_a_heavy_tailed_rest_keeps_its_variance_and_has_its_kurtosis(kurtosis: float) -> None:
    q, wide, narrow = scale_pair(kurtosis)
    assert q * wide**2 + (1 - q) * narrow**2 == pytest.approx(1.0)
    assert 3 * (q * wide**4 + (1 - q) * narrow**4) == pytest.approx(kurtosis)
    dist = ScoreDistribution.heavy([1.0], [300.0], [50.0], [50.0], kurtosis)
    mean, variance, got = grid_moments(dist, -700, 1299, 4)
    assert mean == pytest.approx(300.0, abs=1e-6)
    assert variance == pytest.approx(2500.0 + 1 / 12, rel=1e-4)
    assert got == pytest.approx(kurtosis, rel=2e-3)
    assert len(dist.weights) == (1 if kurtosis == 3.0 else 2)


def test_only_the_rest_of_a_component_gets_the_heavy_tails() -> None:
    """A component of a turn's merged ends: its own width (20) stays, the rest's (30) is scaled;
    a component with no rest (the last turn) stays as it is, one normal."""
    q, wide, narrow = scale_pair(6.0)
    dist = ScoreDistribution.heavy([1.0], [100.0], [np.hypot(20.0, 30.0)], [30.0], 6.0)
    assert dist.weights.tolist() == pytest.approx([q, 1 - q])
    assert dist.sds.tolist() == pytest.approx([np.hypot(20, 30 * wide), np.hypot(20, 30 * narrow)])
    last = ScoreDistribution.heavy([0.5, 0.5], [10.0, 20.0], [2.0, 0.0], [0.0, 0.0], 6.0)
    assert last.weights.tolist() == [0.5, 0.5] and last.sds.tolist() == [2.0, 0.0]


def test_a_lead_of_half_a_spread_is_safer_with_heavy_tails() -> None:
    """The same variance, more of it far out: a rival half a spread behind is caught less often
    (and one three spreads behind more often)."""
    leader = ScoreDistribution.normal(0.0, 0.0)

    def caught(behind: float, kurtosis: float) -> float:
        rival = ScoreDistribution.heavy([1.0], [-behind], [40.0], [40.0], kurtosis)
        return win_chances([leader, rival])[1]

    assert caught(20.0, 7.0) < caught(20.0, 3.0) - 0.02
    assert caught(120.0, 7.0) > caught(120.0, 3.0)


def test_mixtures_check_their_parts() -> None:
    with pytest.raises(ValueError):
        ScoreDistribution.mixture([], [], [])
    with pytest.raises(ValueError):
        ScoreDistribution.mixture([1, -1], [0, 1], [0, 0])
    with pytest.raises(ValueError):
        ScoreDistribution.mixture([1, 1], [0], [0, 0])
    dist = ScoreDistribution.mixture([1, 3], [0, 10], [0, 0])
    assert dist.mean == pytest.approx(7.5)
    assert dist.sd == pytest.approx(np.sqrt(0.25 * 56.25 + 0.75 * 6.25))


def test_a_handicap_lowers_the_mean_by_the_turns_left_and_scales_the_spread() -> None:
    dist = ScoreDistribution.normal(200, 20)
    worse = handicapped(dist, 5, Handicap(deficit=4.0, spread=1.5))
    assert worse.mean == pytest.approx(180.0) and worse.sd == pytest.approx(30.0)
    assert handicapped(dist, 0, Handicap(4.0, 1.5)) is dist
    assert handicapped(dist, 5, Handicap()) is dist


def test_a_measured_rest_replaces_the_expert_s_spread_around_its_expected_total() -> None:
    """With its rest measured, a level's final total is the expert's expected one plus the
    level's own residuals with as many turns left: their mean, their spread and their tail."""
    rng = np.random.default_rng(3)
    # A long tail of misses: mostly a few points short, sometimes forty.
    residuals = np.where(rng.random(4000) < 0.2, -40.0, -3.0) + rng.normal(0, 2, 4000)
    rest = rest_mixture(residuals.tolist(), 10)
    assert sum(rest[0]) == pytest.approx(1.0)
    assert list(rest[1]) == sorted(rest[1])  # slices of the residuals, sorted
    hand = Handicap(4.0, 1.5, (rest, rest))
    expert = ScoreDistribution.mixture([0.5, 0.5], [190, 210], [15, 15])
    level = handicapped(expert, 2, hand)
    assert level.mean == pytest.approx(200 + residuals.mean(), abs=0.01)
    assert level.sd == pytest.approx(residuals.std(), rel=0.05)
    below = sum(
        w * normal_cdf((200 - 30 - m) / s)
        for w, m, s in zip(level.weights, level.means, level.sds, strict=True)
    )
    assert below == pytest.approx(np.mean(residuals < -30), abs=0.02)
    # Beyond the turns measured, the deficit and the spread.
    beyond = handicapped(expert, 3, hand)
    assert beyond.mean == pytest.approx(200 - 12)
    assert handicapped(expert, 0, hand) is expert


@pytest.mark.parametrize("variant", ["yahtzee", "yahtzee15", "poker-dice"])
def test_greedy_s_rest_is_measured_for_every_turn_of_the_sheet(variant: str) -> None:
    """The file's greedy has a rest for every number of turns left, each a mixture below the
    expert (greedy scores less), wider the more turns are left."""
    state = start(variant, 2)
    hand = handicap(state.rules, "greedy")
    assert len(hand.rest) == state.rules.cells
    means = [float(np.dot(w, m)) for w, m, _s in hand.rest]
    assert all(mean < 0 for mean in means)
    spreads = [
        float(np.sqrt(np.dot(w, np.square(s) + np.square(np.asarray(m) - mean))))
        for (w, m, s), mean in zip(hand.rest, means, strict=True)
    ]
    assert spreads[-1] > spreads[0]


def test_solitaire_has_none_and_a_finished_game_gives_its_winner_all() -> None:
    assert win_probability(start("yahtzee", 1)) is None
    state = start("poker-dice", 3)
    over = state._replace(finished=True, winner=1)  # decided by a tie-break
    assert win_probability(over) == (0.0, 1.0, 0.0)
    assert win_probability(state._replace(finished=True)) == (1 / 3, 1 / 3, 1 / 3)  # all at 0
    tie_break = state._replace(stage=1, contenders=(0, 2))
    assert win_probability(tie_break) == (0.5, 0.0, 0.5)
    with pytest.raises(ValueError):
        win_probability(state, levels=[None])
