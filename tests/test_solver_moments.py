"""The spread of the points to come and how a turn ends (`dicepoker.solver.moments`).

- The second moments: their mean is the value table (bit for bit, along the policy's choices);
  their variance is that of simulated optimal games (within 4 standard errors), and that of the
  exact final-score distribution composed turn by turn on small games.
- How a turn ends (`turn_outcomes`, `keep_outcomes`, `cell_outcome`): on positions of engine
  games, the distributions sum to 1, their mean gain plus the next state's value is the value of
  the position or of the action, their second moment is the table's at a turn start, and the cell
  moves land where the engine does; against an exact one-turn enumeration on the last open row.
- The third moments (`Solver.shape`'s skewness): those of the exact final-score distribution
  of small games, and of simulated yahtzee games; their own disk cache.
- The disk cache of the second moments.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import factorial
from pathlib import Path

import numpy as np
import pytest

from dicepoker.dice import FixedDice
from dicepoker.engine import (
    ROLL,
    GameState,
    Move,
    Roll,
    apply,
    legal_actions,
    new_game,
    score_cell,
    upper_bonus_gain,
    upper_rows,
    yahtzee_face,
)
from dicepoker.rules import get_rules
from dicepoker.rules.combos import face_counts
from dicepoker.rules.model import Combo, ExtraYahtzee, Pattern, Row, Rules, UpperBonus, Value
from dicepoker.solver import (
    Position,
    Solver,
    SolverError,
    TurnOutcomes,
    clear_solvers,
    moments_path,
)
from dicepoker.solver import moments as moments_module
from dicepoker.solver.dice import FloatArray
from dicepoker.solver.moments import KIND, THIRD_KIND, policy_moments
from dicepoker.solver.table import load_table, read_header, table_path


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("moment-tables")


def solver_for(cache_dir: Path, variant: str) -> Solver:
    return Solver.for_rules(get_rules(variant), cache_dir=cache_dir)


Dist = dict[int, Fraction]
HandDist = Callable[[tuple[int, ...], int], Dist]


def next_values(solver: Solver, out: TurnOutcomes) -> tuple[FloatArray, FloatArray]:
    """V and E[R^2] of the states the turn can end in."""
    second = solver.moments_table().table
    return solver.table[out.filled, out.flag, out.upper], second[out.filled, out.flag, out.upper]


def mean_to_come(solver: Solver, out: TurnOutcomes) -> float:
    value, _ = next_values(solver, out)
    return float(np.sum(out.prob * (out.gain + value)))


def second_to_come(solver: Solver, out: TurnOutcomes) -> float:
    value, second = next_values(solver, out)
    gain = out.gain.astype(np.float64)
    return float(np.sum(out.prob * (gain * gain + 2.0 * gain * value + second)))


# --- the second moments -------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["poker-dice", "yahtzee"])
def test_mean_is_the_value_table(cache_dir: Path, variant: str) -> None:
    solver = solver_for(cache_dir, variant)
    first, second = policy_moments(solver.spec, solver.table)
    assert np.array_equal(first, solver.table, equal_nan=True)
    assert np.array_equal(second, solver.moments_table().table, equal_nan=True)
    assert np.array_equal(np.isnan(second), np.isnan(solver.table))
    assert second[solver.spec.full_mask].tolist() == np.zeros_like(second[0]).tolist()
    live = ~np.isnan(solver.table)
    assert np.all(second[live] - solver.table[live] ** 2 >= -1e-12 * second[live])
    mean, variance = solver.moments(0)
    assert mean == solver.start_value
    assert variance == pytest.approx(float(second[0, 0, 0]) - solver.start_value**2)
    mean, variance = solver.moments(0b111111, 0, 99)  # an upper total above the cap is capped
    assert mean == solver.state_value(0b111111, 0, 99) and variance > 0


@pytest.mark.parametrize(("variant", "seed"), [("yahtzee", 2024), ("poker-dice", 7)])
def test_variance_matches_simulated_games(cache_dir: Path, variant: str, seed: int) -> None:
    solver = solver_for(cache_dir, variant)
    scores = solver.simulate(20_000, seed=seed).astype(np.float64)
    n = len(scores)
    centred = scores - scores.mean()
    sample = float(np.sum(centred**2) / (n - 1))
    m4 = float(np.mean(centred**4))
    se = np.sqrt((m4 - sample**2) / n)
    mean, variance = solver.moments(0)
    assert abs(variance - sample) < 4 * se, (variance, sample, se)
    assert abs(mean - scores.mean()) < 4 * np.sqrt(sample / n)


# Small games (as in test_solver_exact): two dice with three faces, an upper bonus and the forced
# Joker; two six-sided dice with both bonuses, with three rolls a turn and with one.
JOKER_GAME = Rules(
    variant="moments-joker",
    options=(),
    rows=(
        Row("ones", Combo(Pattern.FACE, Value.MATCHING, n=1), "upper"),
        Row("threes", Combo(Pattern.FACE, Value.MATCHING, n=3), "upper"),
        Row("yahtzee", Combo(Pattern.OF_A_KIND, Value.FIXED, n=2, points=50), "lower"),
        Row(
            "run",
            Combo(Pattern.STRAIGHT, Value.FIXED, points=20, runs=((1, 2), (2, 3))),
            "lower",
        ),
        Row("chance", Combo(Pattern.ANY, Value.ALL), "lower"),
    ),
    dice=2,
    faces=3,
    face_labels=("1", "2", "3"),
    upper_bonus=UpperBonus(4, 10),
    extra_yahtzee=ExtraYahtzee("yahtzee", 100, (("run", 20),)),
)
SIX_GAME = Rules(
    variant="moments-six",
    options=(),
    rows=(
        Row("fives", Combo(Pattern.FACE, Value.MATCHING, n=5), "upper"),
        Row("yahtzee", Combo(Pattern.OF_A_KIND, Value.FIXED, n=2, points=50), "lower"),
        Row("chance", Combo(Pattern.ANY, Value.ALL), "lower"),
    ),
    dice=2,
    faces=6,
    upper_bonus=UpperBonus(10, 25),
    extra_yahtzee=ExtraYahtzee("yahtzee", 100, (("chance", 30),)),
)
# One roll a turn: no keep at all.
ONE_ROLL_GAME = replace(SIX_GAME, variant="moments-one-roll", rolls_per_turn=1)


@pytest.mark.parametrize(
    "rules", [JOKER_GAME, SIX_GAME, ONE_ROLL_GAME], ids=lambda rules: rules.variant
)
def test_moments_are_those_of_the_final_score_distribution(rules: Rules) -> None:
    """The whole game's score distribution, composed turn by turn from `turn_outcomes` (a
    different computation from the table build), has the tables' mean and variance everywhere."""
    solver = Solver.for_rules(rules, cache=False)
    full = solver.spec.full_mask

    @cache
    def to_come(filled: int, flag: int, upper: int) -> dict[int, float]:
        if filled == full:
            return {0: 1.0}
        out = solver.turn_outcomes(Position(filled, flag, upper, 0), None, 0)
        dist: dict[int, float] = {}
        for p, g, f, fl, u in zip(out.prob, out.gain, out.filled, out.flag, out.upper, strict=True):
            for rest, q in to_come(int(f), int(fl), int(u)).items():
                dist[int(g) + rest] = dist.get(int(g) + rest, 0.0) + float(p) * q
        return dist

    table = solver.table
    states = np.argwhere(~np.isnan(table[:full]))
    assert len(states) > 10
    for filled, flag, upper in states:
        dist = to_come(int(filled), int(flag), int(upper))
        totals = np.array(list(dist), dtype=np.float64)
        probs = np.array(list(dist.values()))
        mean = float(np.sum(probs * totals))
        variance = float(np.sum(probs * (totals - mean) ** 2))
        got_mean, got_variance = solver.moments(int(filled), int(flag), int(upper))
        assert sum(probs) == pytest.approx(1.0, abs=1e-12)
        assert got_mean == pytest.approx(mean, rel=1e-12)
        assert got_variance == pytest.approx(variance, rel=1e-9, abs=1e-9)
        central3 = float(np.sum(probs * (totals - mean) ** 3))
        shape = solver.shape(int(filled), int(flag), int(upper))
        assert shape[:2] == (got_mean, got_variance)
        if variance > 1e-6:
            skew = central3 / variance**1.5
            assert shape[2] == pytest.approx(skew, rel=1e-6, abs=1e-6)
        else:
            assert shape[2] == 0.0


# --- how a turn ends, on engine positions --------------------------------------------------------


class HeavyDice:
    """Five equal dice on about a third of the throws of all the dice (to meet the Joker)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        if count > 1 and self._random.random() < 0.3:
            return (self._random.randint(1, faces),) * count
        return tuple(self._random.randint(1, faces) for _ in range(count))


def check_turn(solver: Solver, state: GameState) -> None:
    """Every option of `state` valued through the distributions, against `action_values` and
    the engine."""
    pos = solver.position(state)
    values = solver.action_values(state)
    if state.rolls == 0:
        out = solver.turn_outcomes(pos, None, 0)
        assert float(out.prob.sum()) == pytest.approx(1.0, abs=1e-12)
        assert pos.points + mean_to_come(solver, out) == pytest.approx(values[0][1], abs=1e-9)
        second = float(solver.moments_table().table[pos.filled, pos.flag, pos.upper])
        assert second_to_come(solver, out) == pytest.approx(second, rel=1e-6)
        return
    left = state.rules.rolls_per_turn - state.rolls
    out = solver.turn_outcomes(pos, state.dice, left)
    assert float(out.prob.sum()) == pytest.approx(1.0, abs=1e-12)
    keys = list(zip(out.gain, out.filled, out.flag, out.upper, strict=True))
    assert len(set(keys)) == len(keys) and keys == sorted(keys)
    best = max(value for _, value in values)
    assert pos.points + mean_to_come(solver, out) == pytest.approx(best, abs=1e-9)
    _, gains = solver.cell_values(pos, state.dice)
    for action, value in values:
        if isinstance(action, Roll):
            kept = tuple(state.dice[p] for p in action.keep)
            held = solver.keep_outcomes(pos, kept, left - 1)
            assert float(held.prob.sum()) == pytest.approx(1.0, abs=1e-12)
            assert pos.points + mean_to_come(solver, held) == pytest.approx(value, abs=1e-9)
            continue
        assert isinstance(action, Move)
        c = state.rules.row_index[action.row]
        gain, after = solver.cell_outcome(pos, state.dice, c)
        assert gain == gains[c] and after.points == pos.points + gain
        engine = apply(state, action)
        if not engine.finished:
            assert after == solver.position(engine)
        future = solver.state_value(after.filled, after.flag, after.upper)
        assert pos.points + gain + future == value


@pytest.mark.parametrize("variant", ["poker-dice", "yahtzee"])
def test_turn_outcomes_on_engine_positions(cache_dir: Path, variant: str) -> None:
    solver = solver_for(cache_dir, variant)
    chooser = random.Random(5)
    checked = 0
    for game in range(3):
        state = new_game(solver.rules, ["solo"])
        dice = HeavyDice(game)
        while not state.finished:
            check_turn(solver, state)
            checked += 1
            actions = legal_actions(state)
            use_best = chooser.random() < 0.7
            action = solver.best_action(state) if use_best else chooser.choice(actions)
            state = apply(state, action, dice)
    assert checked > 60


def test_refused_positions(cache_dir: Path) -> None:
    solver = solver_for(cache_dir, "yahtzee")
    start = Position(0, 0, 0, 0)
    with pytest.raises(SolverError):
        solver.turn_outcomes(Position(solver.spec.full_mask, 0, 0, 0), None, 0)
    with pytest.raises(SolverError):  # flag 1 with an empty extra-Yahtzee box
        solver.turn_outcomes(Position(0, 1, 0, 0), None, 0)
    with pytest.raises(SolverError):
        solver.turn_outcomes(start, (1, 2, 3), 0)
    with pytest.raises(SolverError):
        solver.turn_outcomes(start, (1, 2, 3, 4, 5), 3)
    with pytest.raises(SolverError):
        solver.keep_outcomes(start, (1, 2, 3, 4, 5), 0)
    with pytest.raises(SolverError):
        solver.keep_outcomes(start, (1, 2), 2)
    with pytest.raises(SolverError):  # the Joker: five 2s go to "twos" while it is open
        solver.cell_outcome(Position(1 << 11, 1, 0, 50), (2, 2, 2, 2, 2), 0)
    gain, after = solver.cell_outcome(Position(1 << 11, 1, 0, 50), (2, 2, 2, 2, 2), 1)
    assert gain == 110 and after == Position((1 << 11) | 0b10, 1, 10, 160)


# --- one turn against an exact enumeration --------------------------------------------------------


def throws(count: int, faces: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every multiset of `count` dice with its exact chance."""
    out = []
    for dice in combinations_with_replacement(range(1, faces + 1), count):
        ways = factorial(count)
        for face in set(dice):
            ways //= factorial(dice.count(face))
        out.append((dice, Fraction(ways, faces**count)))
    return out


def exact_last_row(rules: Rules, row: int, upper: int) -> tuple[HandDist, HandDist]:
    """Exact one-turn expectimax with one open row, from the engine's scoring alone (the
    extra-Yahtzee box is filled, with 0: a Yahtzee scores the row's forced-Joker points).

    Returns (hand_dist, keep_dist): the distribution of the points gained from a hand with r
    rolls left, and from a keep about to be rerolled with r rolls left after that. Ties go to
    stopping, then to the first keep (by size, then lexicographic); with one open row a tie
    between keeps is between mirror images, which end the same way."""
    counts_upper = row in upper_rows(rules) and rules.upper_bonus is not None

    def gain(hand: tuple[int, ...]) -> int:
        counts = face_counts(hand, rules.faces)
        joker = rules.extra_yahtzee is not None and yahtzee_face(rules, counts) is not None
        points = score_cell(rules, row, counts, thrown_all=False, joker=joker).points
        return points + (upper_bonus_gain(rules, upper, points) if counts_upper else 0)

    @cache
    def hand_value(hand: tuple[int, ...], left: int) -> Fraction:
        return max([Fraction(gain(hand))] + [keep_value(k, left) for k in inside(hand, left)])

    @cache
    def keep_value(keep: tuple[int, ...], left: int) -> Fraction:
        return sum(
            (
                p * hand_value(tuple(sorted(keep + t)), left - 1)
                for t, p in throws(rules.dice - len(keep), rules.faces)
            ),
            Fraction(0),
        )

    def inside(hand: tuple[int, ...], left: int) -> list[tuple[int, ...]]:
        if left == 0:
            return []
        found = {c for n in range(len(hand)) for c in combinations(hand, n)}
        return sorted(found, key=lambda keep: (len(keep), keep))

    @cache
    def hand_dist(hand: tuple[int, ...], left: int) -> Dist:
        best, choice = Fraction(gain(hand)), None
        for keep in inside(hand, left):
            if keep_value(keep, left) > best:
                best, choice = keep_value(keep, left), keep
        if choice is None:
            return {gain(hand): Fraction(1)}
        return keep_dist(choice, left - 1)

    @cache
    def keep_dist(keep: tuple[int, ...], left: int) -> Dist:
        dist: Dist = {}
        for thrown, p in throws(rules.dice - len(keep), rules.faces):
            for g, q in hand_dist(tuple(sorted(keep + thrown)), left).items():
                dist[g] = dist.get(g, Fraction(0)) + p * q
        return dist

    return hand_dist, keep_dist


def by_gain(out: TurnOutcomes) -> dict[int, float]:
    dist: dict[int, float] = {}
    for g, p in zip(out.gain, out.prob, strict=True):
        dist[int(g)] = dist.get(int(g), 0.0) + float(p)
    return dist


def assert_same(got: dict[int, float], exact: Dist) -> None:
    assert set(got) == {g for g, p in exact.items() if p > 0}
    for g, p in exact.items():
        assert got[g] == pytest.approx(float(p), abs=1e-12), g


@pytest.mark.parametrize(
    ("variant", "row", "upper", "hand", "keep"),
    [
        # sixes with the upper bonus at stake: three sixes or more bring 35 more
        ("yahtzee", "sixes", 50, (1, 2, 6, 6, 3), (6,)),
        ("yahtzee", "chance", 0, (1, 2, 4, 5, 6), (5, 6)),
        ("yahtzee", "large_straight", 0, (1, 2, 3, 4, 6), (2, 3, 4)),
        # aces count dice, and three bring the bonus of 3
        ("poker-dice", "aces", 12, (6, 6, 1, 2, 3), (6,)),
        ("poker-dice", "full_house", 0, (2, 2, 5, 5, 1), (2, 2, 5)),
    ],
)
def test_last_row_turn_against_exact_enumeration(
    cache_dir: Path,
    variant: str,
    row: str,
    upper: int,
    hand: tuple[int, ...],
    keep: tuple[int, ...],
) -> None:
    solver = solver_for(cache_dir, variant)
    rules = solver.rules
    c = rules.row_index[row]
    pos = Position(solver.spec.full_mask & ~(1 << c), 0, upper, 100)
    hand_dist, keep_dist = exact_last_row(rules, c, upper)
    rerolls = solver.spec.rerolls
    start: Dist = {}
    for thrown, p in throws(rules.dice, rules.faces):
        for g, q in hand_dist(thrown, rerolls).items():
            start[g] = start.get(g, Fraction(0)) + p * q
    out = solver.turn_outcomes(pos, None, 0)
    assert set(out.filled) == {solver.spec.full_mask}
    assert_same(by_gain(out), start)
    for left in range(rerolls + 1):
        exact = hand_dist(tuple(sorted(hand)), left)
        assert_same(by_gain(solver.turn_outcomes(pos, hand, left)), exact)
    for left in range(rerolls):
        exact = keep_dist(tuple(sorted(keep)), left)
        assert_same(by_gain(solver.keep_outcomes(pos, keep, left)), exact)


def test_a_thrown_hand_is_a_point_mass_at_the_cell_move(cache_dir: Path) -> None:
    solver = solver_for(cache_dir, "yahtzee")
    state = apply(new_game(solver.rules, ["solo"]), ROLL, FixedDice((4, 4, 4, 4, 4)))
    pos = solver.position(state)
    out = solver.turn_outcomes(pos, state.dice, 0)
    assert len(out) == 1 and out.prob[0] == 1.0
    assert (int(out.gain[0]), int(out.filled[0])) == (50, 1 << solver.rules.row_index["yahtzee"])


# --- the disk cache -------------------------------------------------------------------------------


def small_rules(points: int) -> Rules:
    return Rules(
        variant="moments-cache",
        options=(("flavour", 1),),
        rows=(
            Row("ones", Combo(Pattern.FACE, Value.MATCHING, n=1), "upper"),
            Row("sixes", Combo(Pattern.FACE, Value.MATCHING, n=6), "upper"),
            Row("pair", Combo(Pattern.OF_A_KIND, Value.FIXED, n=2, points=points), "lower"),
            Row("chance", Combo(Pattern.ANY, Value.ALL), "lower"),
        ),
        dice=3,
        upper_bonus=UpperBonus(12, 10),
    )


def test_moments_cache_round_trip(tmp_path: Path) -> None:
    rules = get_rules("poker-dice")
    built = Solver.for_rules(rules, cache_dir=tmp_path)
    first = built.moments_table()
    path = moments_path(built.spec, tmp_path)
    assert first.built and first.path == path and path.suffix == "." + KIND
    assert path.parent == table_path(built.spec, tmp_path).parent
    header = read_header(path)
    assert header is not None and header.digest == built.spec.digest
    assert header.fields["kind"] == KIND and header.shape == built.spec.table_shape
    assert built.moments_table() is first  # kept by the solver
    clear_solvers()
    again = Solver.for_rules(rules, cache_dir=tmp_path)
    loaded = again.moments_table()
    assert not loaded.built and loaded.path == path
    assert isinstance(loaded.table.base, np.memmap) or isinstance(loaded.table, np.memmap)
    assert np.array_equal(loaded.table, first.table, equal_nan=True)
    assert again.moments(0) == built.moments(0)
    # Neither kind is read as the other.
    assert load_table(again.spec, path) is None
    table_file = table_path(again.spec, tmp_path)
    path.write_bytes(table_file.read_bytes())
    clear_solvers()
    assert Solver.for_rules(rules, cache_dir=tmp_path).moments_table().built


def test_third_moments_cache_round_trip(tmp_path: Path) -> None:
    rules = get_rules("poker-dice")
    built = Solver.for_rules(rules, cache_dir=tmp_path)
    third = built.third_table()
    path = moments_path(built.spec, tmp_path, third=True)
    assert third.built and third.path == path and path.suffix == "." + THIRD_KIND
    assert built.third_table() is third
    header = read_header(path)
    assert header is not None and header.fields["kind"] == THIRD_KIND
    clear_solvers()
    again = Solver.for_rules(rules, cache_dir=tmp_path)
    loaded = again.third_table()
    assert not loaded.built and np.array_equal(loaded.table, third.table, equal_nan=True)
    assert again.shape(0) == built.shape(0)
    # The second and third moments are never read as each other.
    assert load_table(again.spec, path, kind=KIND) is None
    second_path = moments_path(again.spec, tmp_path)
    assert moments_module.load_moments(again.spec, second_path, third=True) is None


def test_skewness_matches_simulated_games(cache_dir: Path) -> None:
    """Yahtzee's final score leans right (a Yahtzee and its bonuses are rare and large): the
    table's skewness is that of 20,000 simulated optimal games, within 4 standard errors."""
    solver = solver_for(cache_dir, "yahtzee")
    scores = solver.simulate(20_000, seed=99).astype(np.float64)
    z = (scores - scores.mean()) / scores.std()
    sample = float(np.mean(z**3))
    se = float(np.std(z**3 - 3.0 * z) / np.sqrt(len(z)))
    _, _, skew = solver.shape(0)
    assert skew > 1.0
    assert abs(skew - sample) < 4 * se, (skew, sample, se)


def test_moments_of_other_rules_are_not_used(tmp_path: Path) -> None:
    first = Solver.for_rules(small_rules(20), cache_dir=tmp_path)
    first_moments = first.moments_table()
    clear_solvers()
    changed = Solver.for_rules(small_rules(25), cache_dir=tmp_path)
    moments = changed.moments_table()
    assert moments.path == first_moments.path  # same variant and options: same file name
    assert moments.built  # but the header's digest differs: rebuilt
    assert changed.moments(0) != first.moments(0)
    clear_solvers()
    again = Solver.for_rules(small_rules(25), cache_dir=tmp_path).moments_table()
    assert not again.built and np.array_equal(again.table, moments.table, equal_nan=True)


def test_moments_without_a_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    solver = Solver.for_rules(small_rules(20), cache=False)
    loaded = solver.moments_table()
    assert loaded.built and loaded.path is None

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError("a read-only cache")

    cached = Solver.for_rules(small_rules(20), cache_dir=tmp_path)
    monkeypatch.setattr(moments_module, "save_table", refuse)
    moments = cached.moments_table()  # kept in memory
    assert moments.built and moments.path is None
    assert not moments_path(cached.spec, tmp_path).exists()
    assert np.array_equal(moments.table, loaded.table, equal_nan=True)


def test_the_solve_command_builds_the_win_probability_s_tables_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from dicepoker.cli import app
    from dicepoker.solver.table import CACHE_ENV

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    clear_solvers()
    spec = Solver.for_rules(get_rules("poker-dice"), cache=False).spec
    done = CliRunner().invoke(app, ["solve", "poker-dice"])
    assert done.exit_code == 0, done.output
    assert table_path(spec, tmp_path).exists() and not moments_path(spec, tmp_path).exists()
    clear_solvers()
    done = CliRunner().invoke(app, ["solve", "poker-dice", "--moments"])
    assert done.exit_code == 0, done.output
    assert "expected score 35.78" in done.output
    for third in (False, True):
        found = moments_module.load_moments(
            spec, moments_path(spec, tmp_path, third=third), third=third
        )
        assert found is not None and found.shape == spec.table_shape
    clear_solvers()
