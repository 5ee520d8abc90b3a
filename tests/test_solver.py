"""The exact solver: published values, agreement with the engine, the disk cache, simulation.

The brute-force comparison in exact fractions is in test_solver_exact.py.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numba
import numpy as np
import pytest

from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import (
    ROLL,
    GameState,
    Move,
    Roll,
    apply,
    breakdown,
    cell_moves,
    joker_tiers,
    legal_actions,
    new_game,
    preview,
)
from dicepoker.rules import get_rules
from dicepoker.rules.model import Combo, Pattern, Row, Rules, UpperBonus, Value
from dicepoker.solver import (
    Solver,
    UnsupportedRulesError,
    build_spec,
    build_table,
    clear_solvers,
    solve,
    supports,
    table_path,
)
from dicepoker.solver.table import MAGIC, read_header

# Published optimal expected scores of solitaire Yahtzee (forced Joker; no Yahtzee bonus).
YAHTZEE_FORCED_JOKER = 254.5877287
YAHTZEE_NO_BONUS = 245.8707745


@pytest.fixture(scope="session")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tables")


def solver_for(cache: Path, variant: str, **options: object) -> Solver:
    return Solver.for_rules(get_rules(variant, options), cache_dir=cache)


# --- published values ---------------------------------------------------------------------------


def test_yahtzee_forced_joker_value(cache: Path) -> None:
    solver = solver_for(cache, "yahtzee")
    assert solver.start_value == pytest.approx(YAHTZEE_FORCED_JOKER, abs=1e-6)


def test_yahtzee_without_yahtzee_bonus_value(cache: Path) -> None:
    solver = solver_for(cache, "yahtzee", yahtzee_bonus=False)
    assert solver.start_value == pytest.approx(YAHTZEE_NO_BONUS, abs=1e-6)


@pytest.mark.parametrize(
    ("options", "value"),
    [
        ({"upper_bonus": False, "yahtzee_bonus": False}, 229.6384995505),
        ({"upper_bonus": False, "yahtzee_bonus": True}, 237.8245201983),
    ],
)
def test_yahtzee_other_option_values(cache: Path, options: dict[str, bool], value: float) -> None:
    """Our own values for the other two option settings (docs/solver.md), pinned."""
    assert solver_for(cache, "yahtzee", **options).start_value == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize(
    ("variant", "value"), [("yahtzee15", 316.6788062364), ("poker-dice", 35.7879855027)]
)
def test_other_variants_values(cache: Path, variant: str, value: float) -> None:
    assert solver_for(cache, variant).start_value == pytest.approx(value, abs=1e-9)


def test_school_is_not_supported() -> None:
    rules = get_rules("school")
    assert not supports(rules)
    with pytest.raises(UnsupportedRulesError):
        Solver.for_rules(rules, cache=False)


def test_build_is_deterministic() -> None:
    spec = build_spec(get_rules("poker-dice"))
    first, second = build_table(spec), build_table(spec)
    assert np.array_equal(first, second, equal_nan=True)


# --- the policy against the engine --------------------------------------------------------------


class YahtzeeHeavyDice:
    """Five equal dice on about a third of the throws of all five (to meet the Joker often)."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        if count == 5 and self._random.random() < 0.35:
            return (self._random.randint(1, faces),) * count
        return tuple(self._random.randint(1, faces) for _ in range(count))


def check_position(solver: Solver, state: GameState) -> None:
    """Every value of `state` agrees with what the engine does with each action."""
    values = solver.action_values(state)
    assert [action for action, _ in values] == list(legal_actions(state))
    pos = solver.position(state)
    assert pos.points == breakdown(state, state.seat).total
    if state.rolls == 0:
        assert values == [(ROLL, pos.points + solver.state_value(pos.filled, pos.flag, pos.upper))]
        return
    cells, gains = solver.cell_values(pos, state.dice)
    rules = state.rules
    allowed = {rules.rows[c].id for c in range(len(rules.rows)) if cells[c] != -np.inf}
    assert allowed == {move.row for move in cell_moves(state)}
    by_action = dict(values)
    for option in preview(state):
        c = rules.row_index[option.move.row]
        assert gains[c] == option.gain, option
        after = apply(state, option.move)
        if after.sheet.is_full(rules) or after.finished:
            future = 0.0
        else:
            nxt = solver.position(after)
            future = solver.state_value(nxt.filled, nxt.flag, nxt.upper)
            assert nxt.points == pos.points + option.gain
        assert by_action[option.move] == pos.points + (gains[c] + future)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("yahtzee", {}),
        ("yahtzee", {"yahtzee_bonus": False}),
        ("yahtzee", {"upper_bonus": False}),
        ("yahtzee15", {}),
        ("poker-dice", {}),
    ],
)
def test_action_values_agree_with_engine(
    cache: Path, variant: str, options: dict[str, bool]
) -> None:
    rules = get_rules(variant, options)
    solver = Solver.for_rules(rules, cache_dir=cache)
    chooser = random.Random(3)
    for game in range(6):
        state = new_game(rules, ["solo"])
        dice = YahtzeeHeavyDice(game)
        while not state.finished:
            check_position(solver, state)
            actions = legal_actions(state)
            action = (
                chooser.choice(actions) if chooser.random() < 0.5 else solver.best_action(state)
            )
            state = apply(state, action, dice)


def test_forced_joker_positions(cache: Path) -> None:
    """Further Yahtzees: matching upper box, then lower boxes with Joker points, with 50 or 0."""
    rules = get_rules("yahtzee")
    solver = solver_for(cache, "yahtzee")

    def turn(state: GameState, dice: tuple[int, ...], move: str | None) -> GameState:
        state = apply(state, ROLL, FixedDice(dice))
        check_position(solver, state)
        return state if move is None else apply(state, Move("score", move))

    state = new_game(rules, ["solo"])
    state = turn(state, (6, 6, 6, 6, 6), "yahtzee")  # 50 in the box
    state = turn(state, (6, 6, 6, 6, 6), "sixes")  # the Joker's only choice; +100
    assert breakdown(state, 0).yahtzee_bonus == 100
    state = turn(state, (6, 6, 6, 6, 6), None)  # sixes full: any open lower box
    moves = {option.move.row: option.gain for option in preview(state)}
    assert set(moves) == {row.id for row in rules.rows if row.section == "lower"} - {"yahtzee"}
    assert moves["large_straight"] == 140 and moves["full_house"] == 125
    assert moves["chance"] == 130

    zero = new_game(rules, ["solo"])
    zero = turn(zero, (1, 2, 3, 4, 6), "yahtzee")  # 0 in the box
    zero = turn(zero, (2, 2, 2, 2, 2), None)  # Joker, no bonus: twos only
    assert [m for m, _ in solver.action_values(zero) if isinstance(m, Move)] == [
        Move("score", "twos")
    ]


def test_turn_start_value_is_the_mean_of_first_roll_values(cache: Path) -> None:
    """E[start of turn] = sum over first throws of P(throw) x best value: bit for bit."""
    for variant in ("yahtzee", "poker-dice"):
        solver = solver_for(cache, variant)
        space = solver.spec.space
        start = new_game(solver.rules, ["solo"])
        total = 0.0
        for o, outcome in enumerate(space.outcomes):
            state = apply(start, ROLL, FixedDice(outcome))
            best = max(value for _, value in solver.action_values(state))
            total += float(space.probs[o]) * best
        assert total == solver.start_value


def test_hold_value_is_the_mean_over_the_engine_rolls(cache: Path) -> None:
    """A hold's value: the average over every throw of the free dice of the best next value."""
    solver = solver_for(cache, "yahtzee")
    rules = solver.rules
    state = apply(new_game(rules, ["solo"]), ROLL, FixedDice((2, 3, 3, 5, 6)))
    state = apply(state, Roll((1, 2)), FixedDice((3, 1, 4)))  # 3 3 3 1 4, one roll left
    for keep in [(0, 1, 2, 3), (1, 2, 3), (0, 2, 4)]:
        hold = Roll(keep)
        thrown = 5 - len(keep)
        values = dict(solver.action_values(state))
        outcomes = []
        for code in range(6**thrown):
            faces = tuple(code // 6**i % 6 + 1 for i in range(thrown))
            after = apply(state, hold, FixedDice(faces))
            outcomes.append(max(value for _, value in solver.action_values(after)))
        assert values[hold] == pytest.approx(sum(outcomes) / len(outcomes), rel=1e-12)


def test_best_action_takes_the_obvious_yahtzee(cache: Path) -> None:
    solver = solver_for(cache, "yahtzee")
    state = apply(new_game(solver.rules, ["solo"]), ROLL, FixedDice((4, 4, 4, 4, 4)))
    assert solver.best_action(state) == Move("score", "yahtzee")


def test_solver_plays_engine_games_near_its_value(cache: Path) -> None:
    solver = solver_for(cache, "poker-dice")
    dice = SeededDice(11)
    totals = []
    for _ in range(300):
        state = new_game(solver.rules, ["solo"])
        while not state.finished:
            state = apply(state, solver.best_action(state), dice)
        totals.append(breakdown(state, 0).total)
    mean = float(np.mean(totals))
    se = float(np.std(totals) / np.sqrt(len(totals)))
    assert abs(mean - solver.start_value) < 3 * se


def test_other_games_state_is_refused(cache: Path) -> None:
    solver = solver_for(cache, "poker-dice")
    state = new_game(get_rules("yahtzee"), ["solo"])
    with pytest.raises(ValueError):
        solver.action_values(state)


# --- simulation -----------------------------------------------------------------------------------


def test_simulated_mean_matches_start_value(cache: Path) -> None:
    solver = solver_for(cache, "yahtzee")
    scores = solver.simulate(20_000, seed=2024)
    se = scores.std() / np.sqrt(len(scores))
    assert abs(scores.mean() - solver.start_value) < 3 * se


def test_simulation_is_reproducible(cache: Path) -> None:
    solver = solver_for(cache, "poker-dice")
    first = solver.simulate(2_000, seed=5)
    assert np.array_equal(first, solver.simulate(2_000, seed=5))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert np.array_equal(first, solver.simulate(2_000, seed=5))
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(first[:500], solver.simulate(500, seed=5))
    assert not np.array_equal(first, solver.simulate(2_000, seed=6))
    se = first.std() / np.sqrt(len(first))
    assert abs(first.mean() - solver.start_value) < 4 * se


# --- the disk cache -------------------------------------------------------------------------------


def small_rules(points: int = 20) -> Rules:
    rows = (
        Row("ones", Combo(Pattern.FACE, Value.MATCHING, n=1), "upper"),
        Row("sixes", Combo(Pattern.FACE, Value.MATCHING, n=6), "upper"),
        Row("pair", Combo(Pattern.OF_A_KIND, Value.FIXED, n=2, points=points), "lower"),
        Row("chance", Combo(Pattern.ANY, Value.ALL), "lower"),
    )
    return Rules(
        variant="cache-test",
        options=(("flavour", 1),),
        rows=rows,
        dice=3,
        upper_bonus=UpperBonus(12, 10),
    )


def test_cache_round_trip(tmp_path: Path) -> None:
    rules = small_rules()
    built = Solver.for_rules(rules, cache_dir=tmp_path, rebuild=True)
    assert built.built and built.path == table_path(built.spec, tmp_path)
    assert built.path is not None and built.path.read_bytes().startswith(MAGIC)
    header = read_header(built.path)
    assert header is not None and header.digest == built.spec.digest
    assert Solver.for_rules(rules, cache_dir=tmp_path) is built  # kept in the process
    clear_solvers()
    loaded = Solver.for_rules(rules, cache_dir=tmp_path)
    assert not loaded.built
    assert isinstance(loaded.table.base, np.memmap) or isinstance(loaded.table, np.memmap)
    assert np.array_equal(loaded.table, built.table, equal_nan=True)


def test_changed_rule_rebuilds(tmp_path: Path) -> None:
    first = Solver.for_rules(small_rules(20), cache_dir=tmp_path)
    clear_solvers()
    changed = Solver.for_rules(small_rules(25), cache_dir=tmp_path)
    assert changed.path == first.path  # same variant and options: same file name
    assert changed.built  # but the header's hash differs: rebuilt, never the stale table
    assert changed.start_value > first.start_value
    clear_solvers()
    again = Solver.for_rules(small_rules(25), cache_dir=tmp_path)
    assert not again.built and again.start_value == changed.start_value


@pytest.mark.parametrize("damage", ["digest", "format", "truncate", "garbage"])
def test_damaged_table_rebuilds(tmp_path: Path, damage: str) -> None:
    rules = small_rules()
    good = Solver.for_rules(rules, cache_dir=tmp_path, rebuild=True)
    path = good.path
    assert path is not None
    data = path.read_bytes()
    if damage == "digest":
        data = data.replace(good.spec.digest.encode(), b"0" * 64)
    elif damage == "format":
        data = data.replace(b'"format": 1', b'"format": 9')
    elif damage == "truncate":
        data = data[:-8]
    else:
        data = b"not a table"
    path.write_bytes(data)
    clear_solvers()
    again = Solver.for_rules(rules, cache_dir=tmp_path)
    assert again.built
    assert again.start_value == good.start_value


def test_spec_hash_covers_the_rules() -> None:
    base = build_spec(small_rules()).digest
    assert build_spec(small_rules()).digest == base
    assert build_spec(small_rules(21)).digest != base
    rules = small_rules()
    assert build_spec(replace(rules, upper_bonus=UpperBonus(12, 11))).digest != base
    assert build_spec(replace(rules, rolls_per_turn=2)).digest != base
    # A turn clock does not change the solitaire game: same table.
    clock = get_rules("poker-dice", {"turn_seconds": 60})
    assert build_spec(clock).digest == build_spec(get_rules("poker-dice")).digest


def test_a_change_to_the_engines_joker_rule_changes_the_hash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Joker's rows reach the kernels as data derived from the engine: another preference
    order there is another game, so a table built for the old one is never loaded."""
    from dicepoker.solver import spec as spec_module

    rules = get_rules("yahtzee")
    base = build_spec(rules).digest

    def reversed_tiers(rules: Rules, face: int) -> tuple[tuple[int, ...], ...]:
        return joker_tiers(rules, face)[::-1]

    monkeypatch.setattr(spec_module, "joker_tiers", reversed_tiers)
    assert build_spec(rules).digest != base


# --- the rule arrays the kernels walk, from the engine's primitives ----------------------------


def test_the_kernels_joker_rows_are_the_engines_joker_tiers() -> None:
    """Per face, the matching upper row, then the lower rows, then the upper rows (bit sets)."""
    spec = build_spec(get_rules("yahtzee"))
    upper, lower = 0b111111, 0b1111111000000
    for face in range(1, 7):
        assert list(spec.joker_masks[face]) == [1 << (face - 1), lower, upper]
    assert spec.box == 11 and spec.joker and spec.joker_bonus == 100
    assert spec.box_pays[50] == 1 and spec.box_pays[0] == 0  # 50 in the box pays, 0 does not
    plain = build_spec(get_rules("yahtzee", {"yahtzee_bonus": False}))
    assert plain.box == -1 and not plain.joker and not plain.box_pays.any()


def test_the_kernels_upper_bonus_table_crosses_at_the_threshold() -> None:
    spec = build_spec(get_rules("yahtzee"))
    assert spec.upper_gain[60, 3] == 35 and spec.upper_gain[60, 2] == 0
    assert spec.upper_gain[0, 30] == 0 and spec.upper_gain[63, 30] == 0
    assert spec.upper_next[60, 2] == 62 and spec.upper_next[60, 3] == 63
    assert spec.upper_next[50, 30] == 63  # capped: the bonus is the only thing a total decides
    poker = build_spec(get_rules("poker-dice"))
    assert poker.upper_gain[14, 1] == 3 and poker.upper_gain[12, 2] == 0
    assert poker.upper_gain.shape == (16, 6)  # totals 0..15, one to five dice of a face


def test_same_game_other_options(tmp_path: Path) -> None:
    """A turn clock leaves the game (and its values) alone; each solver takes its own states."""
    plain = Solver.for_rules(get_rules("poker-dice"), cache_dir=tmp_path)
    clock_rules = get_rules("poker-dice", {"turn_seconds": 60})
    clock = Solver.for_rules(clock_rules, cache_dir=tmp_path)
    assert clock.start_value == plain.start_value
    state = apply(new_game(clock_rules, ["a", "b"]), ROLL, FixedDice((6, 6, 6, 5, 1)))
    assert clock.best_action(state) == Roll((0, 1, 2))


def test_solve_report(tmp_path: Path) -> None:
    report = solve("poker-dice", cache_dir=tmp_path)
    data = json.loads(report.as_json())
    assert set(data) == {"variant", "options", "expected_score", "seconds"}
    assert data["variant"] == "poker-dice"
    assert data["expected_score"] == pytest.approx(35.7879855027, abs=1e-9)
    assert "poker-dice" in report.text()
