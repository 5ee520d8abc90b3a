"""The OpenSpiel games: OpenSpiel's random simulation test (with serialization) for every preset
and 1-4 players, exact chance outcomes, legal actions that are the engine's, the engine's totals
on the same dice, returns, observations, refused parameters and the MCTS example."""

from __future__ import annotations

import pickle
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import ROLL, Roll, apply, legal_actions, new_game, ranking, totals
from dicepoker.envs.codec import decode, encode, layout
from dicepoker.envs.openspiel import (
    GAME_NAMES,
    DicePokerState,
    game_class,
    game_name,
    register,
)
from dicepoker.envs.openspiel_parts import throws
from dicepoker.rules import VARIANTS, get_rules

ROOT = Path(__file__).resolve().parent.parent

SIMS: list[tuple[str, dict[str, Any], int]] = [
    ("school", {"players": 1, "columns": 1, "returns": "score"}, 2),
    ("school", {"players": 4, "columns": 1}, 1),
    ("school", {"players": 2, "columns": 3}, 1),
    ("yahtzee", {"players": 2}, 2),
    ("yahtzee", {"players": 3, "returns": "score", "yahtzee_bonus": False}, 1),
    ("yahtzee15", {"players": 1, "returns": "score"}, 2),
    ("poker-dice", {"players": 4}, 2),
    ("poker-dice", {"players": 2, "turn_seconds": 30}, 2),
]


def load(variant: str, params: dict[str, Any]) -> pyspiel.Game:
    return pyspiel.load_game(game_name(variant), params)


def random_game(
    game: pyspiel.Game, seed: int, check: Any = None
) -> tuple[DicePokerState, list[DicePokerState]]:
    """A whole game with random chance outcomes and random legal actions; `check(state)` is
    called at every decision. Returns the end and every decision state."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    seen = []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=chances)))
            continue
        seen.append(state.clone())
        if check is not None:
            check(state)
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state, seen


def test_every_variant_is_registered_once_under_its_derived_name() -> None:
    assert register() == register() == list(GAME_NAMES)
    assert set(GAME_NAMES.values()) == set(VARIANTS)
    assert game_name("poker-dice") == "python_dicepoker_poker_dice"
    names = pyspiel.registered_names()
    for name in GAME_NAMES:
        assert names.count(name) == 1
        game_type = pyspiel.load_game(name).get_type()
        assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert game_type.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert game_type.reward_model == pyspiel.GameType.RewardModel.TERMINAL


@pytest.mark.parametrize(("variant", "params", "sims"), SIMS, ids=[str(s[:2]) for s in SIMS])
def test_openspiel_random_simulation_with_serialization(
    variant: str, params: dict[str, Any], sims: int
) -> None:
    game = load(variant, params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_the_parameters_and_the_sizes_come_from_the_rules() -> None:
    game = load("school", {"players": 3, "columns": 2})
    params = game.get_parameters()
    assert params == {"players": 3, "columns": 2, "returns": "win"}
    rules = get_rules("school", {"columns": 2})
    assert game.num_distinct_actions() == layout(rules).n_actions == 62
    assert game.max_chance_outcomes() == sum(1 for _ in throws(5, 6).faces) == 461
    assert game.num_players() == 3
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-0.5, 1.0, 0.0)
    assert load("yahtzee", {}).get_parameters() == {
        "players": 2,
        "returns": "win",
        "upper_bonus": True,
        "yahtzee_bonus": True,
    }
    score = load("yahtzee", {"players": 1, "returns": "score"})
    assert score.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert score.min_utility() == 0.0
    assert score.max_utility() >= 1575  # 13 Yahtzees with every bonus


@pytest.mark.parametrize(
    ("variant", "params", "message"),
    [
        ("school", {"players": 5}, "players must be from 1 to 4, not 5"),
        ("school", {"players": 0}, "players must be from 1 to 4, not 0"),
        ("school", {"columns": 9}, "option 'columns' must be at most 6, not 9"),
        ("yahtzee", {"returns": "points"}, "returns must be 'win' or 'score', not 'points'"),
        ("yahtzee", {"players": 1}, "use returns='score'"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_error(
    variant: str, params: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load(variant, params)
    with pytest.raises(ValueError, match=re.escape(message)):
        game_class(variant)(params)


def test_an_unknown_parameter_is_refused() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        load("school", {"colour": 1})
    with pytest.raises(ValueError, match="unknown parameter 'colour' for python_dicepoker_school"):
        game_class("school")({"colour": 1})
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter columns"):
        load("school", {"columns": "3"})


def test_chance_outcomes_are_every_multiset_with_its_multinomial_probability() -> None:
    table = throws(5, 6)
    for count in range(1, 6):
        counted = Counter(tuple(sorted(faces)) for faces in product(range(1, 7), repeat=count))
        outcomes = table.by_count[count]
        assert [index for index, _ in outcomes] == sorted(index for index, _ in outcomes)
        assert {table.faces[index] for index, _ in outcomes} == set(counted)
        assert sum(table.exact[index] for index, _ in outcomes) == 1
        for index, chance in outcomes:
            expected = Fraction(counted[table.faces[index]], 6**count)
            assert table.exact[index] == expected
            assert chance == pytest.approx(float(expected), abs=1e-15)


def test_a_hold_waits_for_a_throw_of_the_free_dice() -> None:
    game = load("yahtzee", {"players": 2})
    state = game.new_initial_state()
    assert state.is_chance_node()
    first = state.chance_outcomes()
    assert len(first) == 252
    assert sum(chance for _, chance in first) == pytest.approx(1.0)
    assert state.legal_actions() == [index for index, _ in first]
    outcome = next(i for i, _ in first if state.action_to_string(i) == "throw 2 2 3 5 6")
    state.apply_action(outcome)
    assert sorted(state.engine_state.dice) == [2, 2, 3, 5, 6]
    assert state.current_player() == 0
    keep = encode(layout(state.engine_state.rules), state.engine_state, Roll((0, 1, 2)))
    state.apply_action(keep)
    assert state.is_chance_node()
    assert "throwing 2 dice" in str(state)
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 21  # the multisets of 2 dice
    assert sum(chance for _, chance in outcomes) == pytest.approx(1.0)
    pair = next(i for i, _ in outcomes if state.action_to_string(i) == "throw 4 4")
    assert dict(outcomes)[pair] == pytest.approx(1 / 36)
    state.apply_action(pair)
    assert sorted(state.engine_state.dice) == [2, 2, 3, 4, 4]  # 2 2 3 kept, 4 4 thrown
    before, history = str(state), state.history()
    with pytest.raises(ValueError, match="not legal now"):
        state.apply_action(31)  # keep every die: never legal
    assert (str(state), state.history()) == (before, history)


def test_legal_actions_are_the_engines_on_random_games() -> None:
    for variant, params in [
        ("school", {"players": 3, "columns": 2}),
        ("yahtzee", {"players": 2}),
        ("poker-dice", {"players": 3}),
    ]:
        game = load(variant, params)

        def check(state: DicePokerState, game: pyspiel.Game = game) -> None:
            engine = state.engine_state
            lay = layout(engine.rules)
            expected = sorted({encode(lay, engine, action) for action in legal_actions(engine)})
            assert state.legal_actions() == expected
            assert state.current_player() == engine.seat
            for player in range(game.num_players()):
                if player != engine.seat:
                    assert state.legal_actions(player) == []
            mask = state.legal_actions_mask()
            assert [i for i, bit in enumerate(mask) if bit] == expected

        random_game(game, seed=7, check=check)


@pytest.mark.parametrize(
    ("variant", "params"),
    [
        ("school", {"players": 2, "columns": 1}),
        ("yahtzee", {"players": 3}),
        ("poker-dice", {"players": 2}),
        ("yahtzee15", {"players": 1, "returns": "score"}),
    ],
)
def test_a_game_through_openspiel_has_the_engines_totals_on_the_same_dice(
    variant: str, params: dict[str, Any]
) -> None:
    """The engine plays the same decisions on SeededDice; each throw's faces become the OpenSpiel
    chance outcome, and the totals agree at the end."""
    game = load(variant, params)
    table = throws(5, 6)
    state = game.new_initial_state()
    engine = new_game(state.engine_state.rules, state.engine_state.players)
    lay = layout(engine.rules)
    dice, rng = SeededDice(11), np.random.default_rng(11)
    pending: Roll | None = ROLL
    while not state.is_terminal():
        if state.is_chance_node():
            assert pending is not None
            before = engine
            engine = apply(engine, pending, dice)
            free = [i for i in range(len(engine.dice)) if i not in pending.keep]
            thrown = tuple(sorted(engine.dice[i] for i in free))
            assert all(before.dice[i] == engine.dice[i] for i in pending.keep)
            state.apply_action(table.faces.index(thrown))
            assert sorted(state.engine_state.dice) == sorted(engine.dice)
            pending = None
            continue
        index = int(rng.choice(state.legal_actions()))
        action = decode(lay, engine, index)
        state.apply_action(index)
        if isinstance(action, Roll):
            pending = action
        else:
            engine = apply(engine, action)
            pending = ROLL if not engine.finished and engine.rolls == 0 else None
    assert engine.finished
    assert totals(state.engine_state) == totals(engine)
    returns = state.returns()
    if game.get_parameters()["returns"] == "score":
        assert returns == [float(total) for total in totals(engine)]
    else:
        assert sum(returns) == pytest.approx(0.0)
        first = {standing.seat for standing in ranking(engine) if standing.place == 1}
        assert {seat for seat, value in enumerate(returns) if value > 0} == (
            first if len(first) < len(returns) else set()
        )


def test_win_returns_are_zero_sum_and_shared_on_a_tie() -> None:
    game = load("yahtzee", {"players": 3})
    for seed in range(4):
        end, _ = random_game(game, seed)
        returns = end.returns()
        first = [s.seat for s in ranking(end.engine_state) if s.place == 1]
        assert sum(returns) == pytest.approx(0.0)
        for seat, value in enumerate(returns):
            assert game.min_utility() <= value <= game.max_utility()
            if seat in first:
                assert value == pytest.approx((3 - len(first)) / (len(first) * 2))
            else:
                assert value == pytest.approx(-0.5)


def test_a_tie_break_game_is_played_and_decides_the_returns() -> None:
    game = load("poker-dice", {"players": 2})
    end, seen = random_game(game, seed=32)  # a seed whose main game ends in a tie
    tied = [state for state in seen if state.engine_state.stage > 0]
    assert tied
    observer = game.make_py_observer()
    observer.set_from(tied[0], 0)
    assert observer.dict["tiebreak"][0] == 1.0
    assert "tie-break game 1" in str(tied[0])
    main = totals(end.engine_state)
    assert main[0] == main[1]
    winner = end.engine_state.winner
    assert winner is not None
    assert end.returns()[winner] == 1.0
    assert end.returns()[1 - winner] == -1.0
    assert len(seen) <= game.max_game_length()


def test_observations_are_the_whole_state_from_each_players_seat() -> None:
    game = load("school", {"players": 3, "columns": 2})
    shape = game.observation_tensor_shape()
    assert shape == game.information_state_tensor_shape()
    state = game.new_initial_state()
    while state.engine_state.turn == 0:
        state.apply_action(state.legal_actions()[-1])  # the last move: a cell, by seat 0
    assert state.engine_state.turn == 1
    assert state.is_chance_node()
    views = [np.asarray(state.observation_tensor(player)) for player in range(3)]
    for player, view in enumerate(views):
        assert view.shape == (shape[0],)
        assert np.array_equal(view, state.information_state_tensor(player))
        assert state.observation_string(player) == str(state)
        assert state.information_state_string(player) == str(state)
    # Seat 0 filled one cell: it is its own first sheet, seat 1's last and seat 2's second.
    rules = state.engine_state.rules
    cells = rules.cells
    observer = game.make_py_observer()
    filled = []
    for player in range(3):
        observer.set_from(state, player)
        marks = observer.dict["marks"]
        assert marks.shape == (3, cells, 6)
        filled.append([int(marks[seat, :, 1:].sum()) for seat in range(3)])
        assert observer.dict["to_move"].argmax() == (1 - player) % 3
    assert filled == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert observer.dict["throwing"][0] == 1.0  # seat 1's first throw is waiting


def test_serialization_and_clones_keep_the_game() -> None:
    game = load("poker-dice", {"players": 2})
    end, seen = random_game(game, seed=3)
    middle = seen[len(seen) // 2]
    text = pyspiel.serialize_game_and_state(game, middle)
    assert len(text) < 4000  # the engine state without its rules' tables
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again_game) == str(game)
    assert str(again) == str(middle)
    assert again.history() == middle.history()
    copy = middle.clone()
    action = middle.legal_actions()[0]
    copy.apply_action(action)
    assert str(middle) == str(again)  # the clone's move left the original alone
    again.apply_action(action)
    assert str(again) == str(copy)
    assert pickle.loads(pickle.dumps(middle.at)).game == middle.engine_state
    assert end.is_terminal()


def test_the_mcts_example_runs_and_reports() -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "openspiel_mcts.py"),
            "--games",
            "2",
            "--simulations",
            "2",
            "--variant",
            "poker-dice",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "python_dicepoker_poker_dice, 2 players: MCTS (2 simulations" in out
    rate = re.search(r"MCTS win rate (\d\.\d{3}) \(SE (\d\.\d{3})\)", out)
    assert rate is not None
    assert 0.0 <= float(rate.group(1)) <= 1.0
    scores = re.search(r"mean scores: MCTS (-?\d+\.\d), random (-?\d+\.\d)", out)
    assert scores is not None
    assert re.search(r"\d+\.\d s a game", out)
