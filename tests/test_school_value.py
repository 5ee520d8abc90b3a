"""The School value: the features of the sheets a turn's moves leave against the engine's sheets,
stars someone holds, the race, the duel fit, the spreads, and the plan's points of its own play."""

from __future__ import annotations

import json
import math
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from bot_positions import played_position, positions, throws, two_player_position
from dicepoker.bots.planner import (
    MoveTable,
    TurnPlan,
    rule_tables,
    solve_turn,
)
from dicepoker.bots.school_value import (
    DATA,
    ENDGAME_TURNS,
    RISK,
    WIN_POINTS,
    DuelFit,
    SchoolNet,
    SchoolValue,
    after_features,
    after_positions,
    duel_features,
    duel_fit_for,
    encode,
    layout,
    load_duel_fits,
    model_for,
    normal_cdf,
    spread_for,
    state_position,
)
from dicepoker.bots.school_value import (
    position as sheet_position,
)
from dicepoker.dice import SeededDice
from dicepoker.engine import (
    Bonus,
    Cell,
    GameState,
    Mark,
    Roll,
    Sheet,
    apply,
    claimed_stars,
    legal_actions,
    new_game,
    totals,
)
from dicepoker.rules import get_rules
from processes import run as run_alone


@pytest.mark.parametrize("columns", [3, 1, 2])
def test_after_positions_are_the_engines_sheets(columns: int) -> None:
    """The features of every sheet a move can leave, built at once for a whole turn, are those of
    the sheet the engine makes (rivals, stars earned and broken, reserve, column status)."""
    rules = get_rules("school", {"columns": columns})
    space = rule_tables(rules).space
    lay = layout(rules)
    rng = random.Random(columns)
    for state in positions("school", {"columns": columns}, 16):
        table = MoveTable.build(state)
        after, where = after_positions(table, state_position(state))
        features = encode(lay, after)
        for m, move in enumerate(table.moves):
            for o in rng.sample(range(space.n_hands), 12):
                for doubled in (0, 1):
                    if not np.isfinite(table.gain[m, o, doubled]):
                        continue
                    probe = state._replace(dice=space.hands[o], thrown_all=bool(doubled))
                    made = apply(probe, move)
                    sheet = made.sheets[state.seat]
                    rivals = [s for seat, s in enumerate(made.sheets) if seat != state.seat]
                    raw = sheet_position(rules, sheet, claimed_stars(made), rivals)
                    expected = encode(lay, raw)[0]
                    np.testing.assert_allclose(features[where[m, o, doubled]], expected)


@pytest.mark.parametrize(("columns", "players"), [(3, 2), (1, 3), (2, 1), (3, 4)])
def test_the_compiled_features_are_those_of_the_readable_path(
    columns: int, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`after_features` in a process that compiles them (a bot worker: `compile_features`) writes
    bit-for-bit the rows of `encode(after_positions(...))`, which the test above holds to the
    engine's sheets, in every position of played games: solitaire and with rivals, stars taken
    and broken, School rows closed with and without the reserve, up to the last move."""
    from dicepoker.bots import school_features

    rules = get_rules("school", {"columns": columns})
    lay = layout(rules)
    seen = 0
    for game in range(3):
        state = new_game(rules, [f"p{seat}" for seat in range(players)])
        dice, rng = SeededDice(100 * columns + game), random.Random(game)
        while not state.finished:
            if state.rolls > 0:
                table = MoveTable.build(state)
                pos = state_position(state)
                monkeypatch.setattr(school_features, "_COMPILED", [False])
                readable, where = after_features(table, pos)
                after, after_where = after_positions(table, pos)
                assert readable.tobytes() == encode(lay, after).tobytes()
                monkeypatch.setattr(school_features, "_COMPILED", [True])
                compiled, compiled_where = after_features(table, pos)
                assert compiled.tobytes() == readable.tobytes()
                np.testing.assert_array_equal(compiled_where, where)
                np.testing.assert_array_equal(after_where, where)
                seen += 1
            state = apply(state, rng.choice(legal_actions(state)), dice)
    assert seen > 3 * players * rules.cells


def test_school_value_drops_stars_someone_holds() -> None:
    """A star someone else holds is out of reach: with every star taken by the opponent, no
    feature of any sheet after a move counts a star or a race, and the value does not depend on
    the opponent's sheet."""
    rules = get_rules("school")
    model = model_for(rules)
    assert model is not None
    lay = layout(rules)
    rng = random.Random(5)
    state = played_position(rules, 2, rng)
    everything = tuple(Bonus("column", c, 100) for c in range(rules.columns)) + tuple(
        Bonus("school_row" if row.school else "combination_row", row.id, 20)
        for row in rules.rows
        if row.star
    )
    other = 1 - state.seat
    sheets = list(state.sheets)
    sheets[state.seat] = sheets[state.seat]._replace(stars=())
    sheets[other] = sheets[other]._replace(stars=everything)
    taken = state._replace(sheets=tuple(sheets))
    after, _ = after_positions(MoveTable.build(taken), state_position(taken))
    assert not after.alive.any() and not after.col_alive.any()
    fresh = list(sheets)
    fresh[other] = Sheet.empty(rules)._replace(stars=everything)
    values = SchoolValue(model).after_values(MoveTable.build(taken))
    again = SchoolValue(model).after_values(MoveTable.build(taken._replace(sheets=tuple(fresh))))
    np.testing.assert_allclose(values, again)
    assert encode(lay, after).shape == (len(after.turns), lay.width)


def test_school_value_sees_the_race() -> None:
    """A star that a rival is one cell from is worth less to us than the same star alone."""
    rules = get_rules("school")
    model = model_for(rules)
    assert model is not None
    lay = layout(rules)
    cross = Cell(Mark.CLOSED)
    cells: list[Cell | None] = [None] * rules.cells
    fills = [0] * len(rules.rows)
    sixes = rules.row_index["sixes"]
    for c in range(2):
        cells[sixes * rules.columns + c] = cross
    fills[sixes] = 2
    near = Sheet(tuple(cells), tuple(fills), filled=2)
    alone = sheet_position(rules, Sheet.empty(rules), {})
    raced = sheet_position(rules, Sheet.empty(rules), {}, [near])
    assert raced.rival[0, sixes] == 1 and alone.rival[0, sixes] == 0
    assert float(model(encode(lay, raced))[0]) < float(model(encode(lay, alone))[0])


def test_the_last_move_plays_for_the_win() -> None:
    """On the mover's last turn against a rival who has finished, the objective is the gain plus
    `WIN_POINTS` for a win (half on a tie), exactly; the points part is the gain alone."""
    rules = get_rules("school")
    model, spread = model_for(rules), spread_for(rules)
    assert model is not None and spread is not None
    value = SchoolValue(model, spread)
    for seed in range(6):
        state = two_player_position(rules, seed, 1)
        table = MoveTable.build(state)
        objective, points = value.after_parts(table)
        assert points is not None
        np.testing.assert_allclose(points, 0.0)
        mine, theirs = totals(state)[1], totals(state)[0]
        finals = mine + table.gain
        legal = np.isfinite(finals)
        won = np.where(finals > theirs, 1.0, np.where(finals == theirs, 0.5, 0.0))
        full = np.broadcast_to(objective, table.gain.shape)
        np.testing.assert_allclose(full[legal], WIN_POINTS * won[legal])


def test_the_race_counts_only_at_the_end_of_a_game_with_rivals() -> None:
    rules = get_rules("school")
    model, spread = model_for(rules), spread_for(rules)
    assert model is not None and spread is not None
    racing, plain = SchoolValue(model, spread), SchoolValue(model)
    early = two_player_position(rules, 2, ENDGAME_TURNS + 1)
    late = two_player_position(rules, 2, ENDGAME_TURNS)
    solo = apply(new_game(rules, ["a"]), Roll(), SeededDice(2))
    for state in (early, solo):
        table = MoveTable.build(state)
        objective, points = racing.after_parts(table)
        assert points is None
        np.testing.assert_array_equal(objective, plain.after_values(table))
    table = MoveTable.build(late)
    objective, points = racing.after_parts(table)
    assert points is not None
    np.testing.assert_allclose(points, np.broadcast_to(plain.after_values(table), points.shape))
    chance = (objective - points)[np.isfinite(table.gain)] / WIN_POINTS
    assert chance.min() >= 0.0 and chance.max() <= 1.0 and chance.max() > chance.min()


def test_the_duel_fit_counts_only_in_games_with_rivals_before_the_race() -> None:
    """With rivals and before the race the points after a move are the network's value plus the
    fitted correction, and the objective takes RISK times the fitted spread off them; in the race
    the corrected points carry the chance of winning; solitaire games use the network alone."""
    rules = get_rules("school")
    model, spread, duel = model_for(rules), spread_for(rules), duel_fit_for(rules)
    assert model is not None and spread is not None and duel is not None
    value, plain = SchoolValue(model, spread, duel=duel), SchoolValue(model)
    lay = layout(rules)
    early = two_player_position(rules, 3, ENDGAME_TURNS + 5)
    table = MoveTable.build(early)
    objective, points = value.after_parts(table)
    assert points is not None and not value.racing(early)
    after, where = after_positions(table, state_position(early))
    x = encode(lay, after)
    correction = duel_features(lay, x) @ duel.correction
    sigma = np.sqrt(np.maximum(duel.variance(x), 0.0))
    np.testing.assert_allclose(points, (model(x) + correction)[where], rtol=1e-6)
    np.testing.assert_allclose(objective, points - RISK * sigma[where], rtol=1e-6)
    assert sigma.min() > 10.0 and np.abs(correction).max() > 1.0  # both change the values
    solo = apply(new_game(rules, ["a"]), Roll(), SeededDice(3))
    table = MoveTable.build(solo)
    objective, points = value.after_parts(table)
    assert points is None
    np.testing.assert_array_equal(objective, plain.after_values(table))
    late = two_player_position(rules, 3, ENDGAME_TURNS)
    table = MoveTable.build(late)
    objective, points = value.after_parts(table)
    assert points is not None and value.racing(late)
    after, where = after_positions(table, state_position(late))
    x = encode(lay, after)
    corrected = (model(x) + duel_features(lay, x) @ duel.correction)[where]
    np.testing.assert_allclose(points, corrected, rtol=1e-6)
    chance = (objective - points)[np.isfinite(table.gain)] / WIN_POINTS
    assert chance.min() >= 0.0 and chance.max() <= 1.0


def test_duel_fits_are_read_for_the_fitted_widths_only(tmp_path: Path) -> None:
    fits = load_duel_fits()
    assert 3 in fits
    rules = get_rules("school", {"columns": 3})
    assert fits[3].fits(rules) and not fits[3].fits(get_rules("school", {"columns": 4}))
    for columns in range(1, 7):
        other = get_rules("school", {"columns": columns})
        assert (duel_fit_for(other) is not None) == (columns in fits)
    again = DuelFit.from_json(fits[3].as_json())  # the file's form round-trips exactly
    np.testing.assert_array_equal(again.correction, fits[3].correction)
    x = encode(layout(rules), state_position(two_player_position(rules, 1, 20)))
    np.testing.assert_array_equal(again.variance(x), fits[3].variance(x))
    assert load_duel_fits(tmp_path / "missing.json") == {}
    assert DATA.exists()


def test_train_school_makes_a_duel_fit(tmp_path: Path) -> None:
    """`train_school.py --duel-fit` plays 2-player games with the file's network and writes a fit
    the expert can use, leaving the networks as they were."""
    out = tmp_path / "school_value.json"
    data = json.loads(DATA.read_text(encoding="utf-8"))
    out.write_text(json.dumps({"models": {"3": data["models"]["3"]}}), encoding="utf-8")
    script = Path(__file__).resolve().parents[1] / "tools" / "fit" / "train_school.py"
    command = [sys.executable, str(script), "--duel-fit", "--columns", "3", "--games", "4"]
    command += ["--duels", "1.0", "--rivals", "greedy", "--hidden", "8", "--epochs", "1"]
    command += ["--workers", "1", "--seed", "5", "--out", str(out)]
    done = run_alone(command, timeout=600)  # its worker pool is ended with it, whatever happens
    assert done.returncode == 0, done.stderr
    assert "turns; value error" in done.stdout
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["models"]["3"] == data["models"]["3"]
    fit = load_duel_fits(out)[3]
    rules = get_rules("school", {"columns": 3})
    assert fit.fits(rules)
    x = encode(layout(rules), state_position(two_player_position(rules, 1, 20)))
    correction, spread = fit.correction_of(layout(rules), x), fit.spread_of(x)
    assert np.isfinite(correction).all() and (spread >= 0).all()


def test_normal_cdf() -> None:
    z = np.linspace(-6, 6, 121)
    exact = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in z])
    np.testing.assert_allclose(normal_cdf(z), exact, atol=2e-7)


def brute_force_points(plan: TurnPlan, state: GameState, keep: tuple[int, ...]) -> float:
    """Throw every positional outcome of the dice not held (one roll left), stop with the move
    the plan's objective prefers, and average that move's points."""
    total = 0.0
    for dice in throws(state, keep):
        hand = plan.space.hand_index[tuple(sorted(dice))]
        doubled = 1 if not keep else 0
        move = int(np.argmax(plan.move_values(hand, doubled)))
        total += float(plan.move_scores(hand, doubled)[move])
    return float(total / 6 ** (5 - len(keep)))


def test_a_racing_plan_knows_the_points_of_its_own_play() -> None:
    """With another objective than the points, the plan's keeps carry the expected points of the
    objective's own play (against brute force), and its values are the objective's."""
    rules = get_rules("school")
    model, spread = model_for(rules), spread_for(rules)
    assert model is not None and spread is not None
    state = two_player_position(rules, 4, 3, rolls=rules.rolls_per_turn - 1)
    value = SchoolValue(model, spread)
    table = MoveTable.build(state)
    objective, points = value.after_parts(table)
    plan = solve_turn(table, objective, rules.rolls_per_turn - 1, points)
    plain = solve_turn(table, objective, rules.rolls_per_turn - 1)
    np.testing.assert_array_equal(plan.keep_value, plain.keep_value)
    np.testing.assert_array_equal(plan.stop, plain.stop)
    space = plan.space
    for size in (0, 1, 3):
        keep = tuple(range(size))
        k = space.keep_index[tuple(sorted(state.dice[:size]))]
        assert plan.keep_score(1, k) == pytest.approx(
            brute_force_points(plan, state, keep), abs=1e-9
        )
    assert plan.turn_score() < plan.turn_value()  # the chance of winning is worth something


def test_school_spreads_are_measured_for_every_width() -> None:
    for columns in range(1, 7):
        rules = get_rules("school", {"columns": columns})
        spread = spread_for(rules)
        assert spread is not None and len(spread) == rules.cells + 1
        assert spread[0] == 0.0 and min(spread[1:]) > 0.0
        assert spread[1] < spread[rules.cells // 2] < spread[rules.cells]


def _negligible_weights(net: SchoolNet) -> int:
    """How many of the network's weights are not 0 but under `NEGLIGIBLE`."""
    from dicepoker.bots.school_net import NEGLIGIBLE

    arrays = [array for layer in net.layers for array in layer] + [net.linear]
    return sum(int(((np.abs(a) > 0) & (np.abs(a) < NEGLIGIBLE)).sum()) for a in arrays)


def test_loaded_networks_hold_no_weight_on_the_slow_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed networks are read with their negligible weights at exactly 0: subnormal
    weights (and weights whose products are subnormal) put the CPU on a slow path that made the
    network about ten times slower. Their values are the raw weights' values."""
    import dicepoker.bots.school_net as school_net

    models = json.loads(DATA.read_text())["models"]
    rng = np.random.default_rng(0)
    for columns in range(1, 7):
        model = model_for(get_rules("school", {"columns": columns}))
        assert model is not None
        assert _negligible_weights(model) == 0
        with monkeypatch.context() as raw_weights:  # read as stored, nothing made 0
            raw_weights.setattr(school_net, "NEGLIGIBLE", 0.0)
            raw = SchoolNet.from_json(models[str(columns)])
        assert _negligible_weights(raw) > 0, "none to flush: this test no longer tests anything"
        features = rng.random((64, len(model.linear)))
        assert np.allclose(model(features), raw(features), rtol=0, atol=1e-4)


def test_a_networks_values_do_not_depend_on_how_its_rows_are_chunked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The network is evaluated `CHUNK` rows per product; the value of a row is the same whatever
    the chunk of several rows (so the chunk is a matter of speed, and the expert's choices do not
    move with it; a product of one or two rows runs BLAS's vector kernel, whose sums may differ in
    the last bit)."""
    import dicepoker.bots.school_net as school_net

    model = model_for(get_rules("school"))
    assert model is not None
    features = np.random.default_rng(1).random((150, len(model.linear)))
    values = {}
    for chunk in (8, 16, 64, 150):
        monkeypatch.setattr(school_net, "CHUNK", chunk)
        values[chunk] = model(features)
    assert all(v.tobytes() == values[64].tobytes() for v in values.values())


def test_training_reads_weights_at_nothing_as_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """`train_school.fit` hands the next iteration's self-play a network whose negligible weights
    are 0, like the committed ones (weight decay leaves subnormal weights behind)."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(name, "1")  # what the script sets on import, undone after the test
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "tools" / "fit"))
    from train_school import fit

    rules = get_rules("school", {"columns": 1})
    net = SchoolNet.initial(rules, [8], seed=1)
    first, bias = net.layers[0]
    first = first.copy()
    first[0, :4] = np.float32(1e-40)  # subnormal
    first[1, :4] = np.float32(1e-25)  # products with small features are subnormal
    net = SchoolNet(net.columns, ((first, bias), *net.layers[1:]), net.linear)
    x = np.random.default_rng(0).random((64, len(net.linear))).astype(np.float32)
    fitted, _, _ = fit(net, x, np.zeros(64), epochs=1, rate=0.0, batch=16, seed=0)
    weights = fitted.layers[0][0]
    assert (weights[:2, :4] == 0).all()
    assert (weights[2:] == first[2:]).all()  # the rest as it was (a rate of 0 moves nothing)
    assert _negligible_weights(fitted) == 0
