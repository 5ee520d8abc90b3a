"""The Gymnasium environments: registered per variant, Gymnasium's checker, masks that are the
engine's legal actions, rewards that add up to the engine's total, reproducible seeds, refused
actions, and the yardsticks (the exact solver's values, the expert's actions)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dicepoker.envs as envs
from dicepoker.dice import SeededDice
from dicepoker.engine import ROLL, GameState, Move, apply, breakdown, legal_actions, new_game
from dicepoker.envs import DicePokerEnv, ExpertPolicy, InvalidActionError, optimal_action_values
from dicepoker.envs.codec import decode
from dicepoker.rules import RulesError, get_rules

IDS = {
    "dicepoker/School-v0": "school",
    "dicepoker/Yahtzee-v0": "yahtzee",
    "dicepoker/Yahtzee15-v0": "yahtzee15",
    "dicepoker/PokerDice-v0": "poker-dice",
}
# Every preset, and School with other widths.
MADE: list[tuple[str, dict[str, Any]]] = [
    *((env_id, {}) for env_id in IDS),
    ("dicepoker/School-v0", {"columns": 1}),
    ("dicepoker/School-v0", {"columns": 6}),
    ("dicepoker/Yahtzee-v0", {"upper_bonus": False, "yahtzee_bonus": False}),
]


def inner(env: gym.Env[Any, Any]) -> DicePokerEnv:
    found = env.unwrapped
    assert isinstance(found, DicePokerEnv)
    return found


def random_game(
    env: gym.Env[Any, Any], seed: int, check: bool = False
) -> tuple[list[float], dict[str, Any], list[int]]:
    """Play one game with random legal actions; with `check`, compare every mask with the
    engine's legal actions. The rewards, the last info and the actions played."""
    _, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards: list[float] = []
    played: list[int] = []
    done = False
    while not done:
        mask = info["action_mask"]
        if check:
            state = inner(env).state
            assert mask.dtype == np.int8
            assert np.array_equal(mask, env.get_wrapper_attr("action_masks")())
            decoded = {decode(inner(env).layout, state, int(i)) for i in np.flatnonzero(mask)}
            legal = legal_actions(state)
            assert decoded == set(legal)
            assert int(mask.sum()) == len(legal)  # no two legal actions share an index
        action = int(rng.choice(np.flatnonzero(mask)))
        _, reward, done, truncated, info = env.step(action)
        assert not truncated and "refused" not in info
        rewards.append(float(reward))
        played.append(action)
    return rewards, info, played


def test_importing_registers_one_environment_per_variant() -> None:
    assert envs.ENV_IDS == IDS
    for env_id, variant in IDS.items():
        assert gym.spec(env_id).kwargs == {"variant": variant}
        assert inner(gym.make(env_id)).rules == get_rules(variant)


def test_the_variants_options_are_make_keywords() -> None:
    env = gym.make("dicepoker/School-v0", columns=2)
    assert inner(env).rules == get_rules("school", {"columns": 2})
    assert inner(env).observation_space["marks"].shape == (len(inner(env).rules.rows) * 2,)
    with pytest.raises(RulesError, match="columns' must be at most 6"):
        gym.make("dicepoker/School-v0", columns=9)
    with pytest.raises(RulesError, match="unknown option 'columns'"):
        gym.make("dicepoker/Yahtzee-v0", columns=2)


@pytest.mark.parametrize(("env_id", "options"), MADE)
def test_gymnasium_checker_passes(env_id: str, options: dict[str, Any]) -> None:
    check_env(gym.make(env_id, **options).unwrapped)


def test_the_spaces_follow_the_rules() -> None:
    school = gym.make("dicepoker/School-v0", columns=3)
    rules = inner(school).rules
    # 2**5 holds, then score and zero per School row, score and strike per combination row.
    rows = len(rules.rows)
    assert school.action_space == gym.spaces.Discrete(32 + rows * 2)
    assert set(inner(school).observation_space) == {
        "dice",
        "face_counts",
        "marks",
        "points",
        "reserve",
        "rolls_left",
        "stars",
        "thrown_all",
    }
    assert inner(school).observation_space["stars"].shape == (rows - 1 + 3,)  # 'sum' has no star
    yahtzee = gym.make("dicepoker/Yahtzee-v0")
    assert yahtzee.action_space == gym.spaces.Discrete(32 + 13)
    assert set(inner(yahtzee).observation_space) == {
        "dice",
        "face_counts",
        "marks",
        "points",
        "rolls_left",
    }
    points = inner(yahtzee).observation_space["points"]
    assert isinstance(points, gym.spaces.Box) and points.high.max() == 50  # a Yahtzee
    poker = gym.make("dicepoker/PokerDice-v0")
    assert inner(poker).observation_space["rolls_left"] == gym.spaces.Discrete(3)


@pytest.mark.parametrize(("env_id", "options"), MADE[:5])
def test_masks_are_the_engines_legal_actions(env_id: str, options: dict[str, Any]) -> None:
    env = gym.make(env_id, **options)
    for seed in range(2):
        random_game(env, seed, check=True)


@pytest.mark.parametrize(("env_id", "options"), MADE[:5])
def test_rewards_add_up_to_the_engines_total(env_id: str, options: dict[str, Any]) -> None:
    env = gym.make(env_id, **options)
    rewards, info, played = random_game(env, 7)
    state = inner(env).state
    assert state.finished
    assert sum(rewards) == breakdown(state, 0).total == info["total"]
    # The game is the engine's game on SeededDice(game_seed): replaying the decoded actions
    # through `apply` gives the same final state.
    _, first = env.reset(seed=7)
    dice = SeededDice(first["game_seed"])
    replay = apply(new_game(inner(env).rules, ["agent"]), ROLL, dice)
    for index in played:
        replay = apply(replay, decode(inner(env).layout, replay, index), dice)
        if not replay.finished and replay.rolls == 0:
            replay = apply(replay, ROLL, dice)
    assert replay.finished and replay.sheets == state.sheets


def test_the_observation_shows_the_state() -> None:
    env = gym.make("dicepoker/School-v0", columns=2)
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        state: GameState = inner(env).state
        sheet = state.sheet
        assert list(obs["dice"]) == sorted(state.dice)
        assert list(obs["face_counts"]) == [state.dice.count(f) for f in range(1, 7)]
        assert obs["rolls_left"] == state.rolls_left
        assert int((obs["marks"] > 0).sum()) == sheet.filled
        assert int(obs["points"].sum()) == breakdown(state, 0).cells
        assert obs["reserve"][0] == sheet.reserve
        assert obs["thrown_all"] == state.thrown_all
        assert int((obs["stars"] == 1).sum()) == len(sheet.stars)
        assert env.observation_space.contains(obs)
        flat = envs.flat_observation(inner(env), obs)
        assert flat.shape == (gym.spaces.flatdim(env.observation_space),)
        obs, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


def test_a_hold_keeps_the_sorted_dice_its_bits_name() -> None:
    env = gym.make("dicepoker/Yahtzee-v0")
    obs, _ = env.reset(seed=11)
    kept = [int(obs["dice"][0]), int(obs["dice"][2])]
    obs, reward, *_ = env.step(0b00101)
    assert reward == 0.0
    assert inner(env).state.rolls == 2
    remaining = list(obs["dice"])
    for face in kept:
        remaining.remove(face)  # both kept dice are still there
    assert len(remaining) == 3


def test_reset_with_a_seed_is_reproducible() -> None:
    first, second = gym.make("dicepoker/Yahtzee-v0"), gym.make("dicepoker/Yahtzee-v0")
    a = random_game(first, 5)
    b = random_game(second, 5)
    assert a[0] == b[0] and a[2] == b[2]
    _, info1 = first.reset(seed=5)
    _, info2 = first.reset(seed=6)
    _, info3 = first.reset(seed=5)
    assert info1["game_seed"] == info3["game_seed"] != info2["game_seed"]
    assert random_game(first, 1)[0] != random_game(first, 2)[0]


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    env = gym.make("dicepoker/Yahtzee-v0")
    obs, _ = env.reset(seed=2)
    before = inner(env).state
    obs2, reward, terminated, truncated, info = env.step(31)  # keep every die: never legal
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert "every die is held" in info["refused"]
    assert inner(env).state is before
    assert all(np.array_equal(obs[key], obs2[key]) for key in obs)


def test_raise_mode_raises_a_clear_error_and_changes_nothing() -> None:
    env = gym.make("dicepoker/School-v0", invalid_action="raise")
    _, info = env.reset(seed=4)
    before = inner(env).state
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[-1])
    with pytest.raises(InvalidActionError, match=f"action {illegal} .* is not legal now"):
        env.step(illegal)
    assert inner(env).state is before
    for outside in (-1, inner(env).action_space.n, "score"):
        with pytest.raises(InvalidActionError, match="action"):
            inner(env).step(outside)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid_action must be 'refuse' or 'raise'"):
        gym.make("dicepoker/School-v0", invalid_action="ignore")


def test_no_rolls_left_masks_every_hold() -> None:
    env = gym.make("dicepoker/PokerDice-v0", invalid_action="raise")
    _, info = env.reset(seed=1)
    _, _, _, _, info = env.step(0)  # roll every die again: the last roll of poker dice
    assert inner(env).state.rolls_left == 0
    assert not info["action_mask"][:32].any() and info["action_mask"][32:].all()
    with pytest.raises(InvalidActionError, match="no rolls left"):
        env.step(0)


def test_stepping_a_finished_game_asks_for_a_reset() -> None:
    env = gym.make("dicepoker/PokerDice-v0")
    random_game(env, 0)
    with pytest.raises(InvalidActionError, match="call reset"):
        inner(env).step(32)


def test_render_shows_the_sheet_and_the_dice() -> None:
    env = gym.make("dicepoker/Yahtzee-v0", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "total" in text and "rolls left: 2" in text
    refused = pytest.raises(ValueError, match="render_mode must be 'ansi' or None")
    with pytest.warns(UserWarning, match="render_mode"), refused:
        gym.make("dicepoker/Yahtzee-v0", render_mode="human")


# --- yardsticks ----------------------------------------------------------------------------------


@pytest.fixture
def table_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The solver's tables in a folder of the test's own."""
    from dicepoker.solver import clear_solvers

    monkeypatch.setenv("DICEPOKER_CACHE_DIR", str(tmp_path))
    clear_solvers()
    return tmp_path


def test_the_optimal_value_and_the_expert_agree(table_cache: Path) -> None:
    env = gym.make("dicepoker/PokerDice-v0", optimal_value=True)
    policy = ExpertPolicy()
    _, info = env.reset(seed=9)
    done = False
    while not done:
        values = optimal_action_values(env)
        mask = info["action_mask"].astype(bool)
        assert np.array_equal(~np.isnan(values), mask)
        assert info["optimal_value"] == pytest.approx(np.nanmax(values))
        action = policy(env)
        assert values[action] == pytest.approx(np.nanmax(values))  # the expert is the solver
        _, _, done, _, info = env.step(action)
    assert info["optimal_value"] == info["total"]


def test_optimal_value_needs_a_game_the_solver_covers() -> None:
    with pytest.raises(ValueError, match=r"optimal_value needs the exact solver.*reserve"):
        gym.make("dicepoker/School-v0", optimal_value=True)
    with pytest.raises(ValueError, match="optimal_value=True"):
        optimal_action_values(gym.make("dicepoker/Yahtzee-v0"))


def test_the_school_expert_plays_legal_actions() -> None:
    env = gym.make("dicepoker/School-v0", columns=1)
    policy = ExpertPolicy(seed=0)
    _, info = env.reset(seed=1)
    for _ in range(4):
        action = policy(env)
        assert info["action_mask"][action] == 1
        _, _, _, _, info = env.step(action)
        assert "refused" not in info
    with pytest.raises(TypeError, match="dicepoker environment"):
        policy(gym.make("CartPole-v1"))


def test_the_expert_cell_move_is_a_cell_index() -> None:
    dice = SeededDice(1)
    state = new_game(get_rules("yahtzee"), ["a"])
    for _ in range(3):
        state = apply(state, ROLL, dice)  # no roll left: the expert must fill a cell
    index = ExpertPolicy().action_for(state)
    layout = inner(gym.make("dicepoker/Yahtzee-v0")).layout
    assert index >= 32 and isinstance(decode(layout, state, index), Move)


def test_a_clear_error_without_gymnasium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gymnasium", None)
    monkeypatch.delitem(sys.modules, "dicepoker.envs")
    with pytest.raises(ImportError, match=r"needs Gymnasium: pip install 'dicepoker\[research\]'"):
        importlib.import_module("dicepoker.envs")
