"""The vectorized environment and the fast single environment: every step of many games replayed
through the engine (the same dice) gives the same masks, observations, rewards and endings; the
spaces hold the observations; next-step autoreset; refused and raised illegal actions; seeds;
`gymnasium.make_vec`; the fast single environment equals a batch of one and passes the checker."""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import dicepoker.envs
from dicepoker.dice import FixedDice
from dicepoker.engine import ROLL, GameState, Move, Roll, apply, breakdown, new_game, score_cell
from dicepoker.envs import InvalidActionError
from dicepoker.envs.codec import Layout, action_mask, decode, observation
from dicepoker.envs.vector import DicePokerVectorEnv, FastDicePokerEnv
from dicepoker.rules.combos import face_counts
from dicepoker.solver.dice import dice_space

PRESETS: list[tuple[str, dict[str, Any]]] = [
    ("school", {"columns": 1}),
    ("school", {"columns": 2}),
    ("school", {"columns": 3}),
    ("school", {"columns": 6}),
    ("yahtzee", {}),
    ("yahtzee15", {}),
    ("poker-dice", {}),
    ("yahtzee", {"upper_bonus": False, "yahtzee_bonus": False}),
]
GAMES = 8


def start(env: DicePokerVectorEnv, dice: np.ndarray) -> GameState:
    """The engine's game whose first roll is `dice`."""
    return apply(new_game(env.rules, ["agent"]), ROLL, FixedDice(int(d) for d in dice))


def thrown(after: np.ndarray, kept: list[int]) -> list[int]:
    """The faces a roll threw: the dice after it less those kept."""
    rest = Counter(int(d) for d in after)
    rest.subtract(kept)
    return sorted(rest.elements())


def choose(lay: Layout, state: GameState, mask: np.ndarray, rng: np.random.Generator) -> int:
    """A legal action: uniform half of the time, else a player after big hands (keep the most
    common face, then the cell worth most now), so Yahtzees, Jokers, bonuses and stars occur."""
    legal = np.flatnonzero(mask)
    if rng.random() < 0.5:
        return int(rng.choice(legal))
    dice = sorted(state.dice)
    top = max(set(dice), key=dice.count)
    keep = sum(1 << i for i, d in enumerate(dice) if d == top)
    if keep < lay.n_holds - 1 and mask[keep]:
        return keep
    moves = [int(a) for a in legal if a >= lay.n_holds]
    if not moves:
        return int(rng.choice(legal))
    before = breakdown(state, 0).total
    gains = [breakdown(apply(state, decode(lay, state, a)), 0).total - before for a in moves]
    return moves[int(np.argmax(gains))]


def same(env: DicePokerVectorEnv, obs: dict[str, np.ndarray], g: int, state: GameState) -> None:
    expected = observation(env.layout, state)
    assert sorted(obs) == sorted(expected)
    for key, value in expected.items():
        assert np.array_equal(obs[key][g], value), (key, obs[key][g], value)


def events(state: GameState) -> set[str]:
    """What happened in a game, for the coverage check."""
    sheet = state.final_sheets[0]
    found = {"joker"} if sheet.jokers else set()
    if sheet.yahtzee_bonus:
        found.add("yahtzee_bonus")
    if breakdown(state, 0).upper_bonus:
        found.add("upper_bonus")
    for star in sheet.stars:
        found.add(f"{star.kind}_star")
    for cell in sheet.cells:
        if cell is not None:
            found.add("used_reserve" if cell.used_reserve else str(cell.mark))
            if cell.doubled:
                found.add("doubled")
    return found


@pytest.mark.parametrize(("variant", "options"), PRESETS)
def test_every_step_is_the_engines_step_on_the_same_dice(
    variant: str, options: dict[str, Any]
) -> None:
    env = DicePokerVectorEnv(variant, GAMES, **options)
    lay = env.layout
    rules = env.rules
    rng = np.random.default_rng(11)
    obs, info = env.reset(seed=5)
    states = [start(env, obs["dice"][g]) for g in range(GAMES)]
    for g in range(GAMES):
        same(env, obs, g, states[g])
    games, seen = 0, set()
    # Two whole games in every slot at least (a game has at most cells x rolls decisions).
    for _ in range(2 * rules.cells * rules.rolls_per_turn + 2):
        mask = info["action_mask"]
        actions = np.array(
            [
                0 if states[g].finished else choose(lay, states[g], mask[g], rng)
                for g in range(GAMES)
            ]
        )
        obs, reward, terminated, truncated, info = env.step(actions)
        assert env.observation_space.contains(obs)
        assert not truncated.any() and not info["refused"].any()
        for g in range(GAMES):
            state = states[g]
            if state.finished:  # the next-step autoreset: a new game, the action ignored
                games += 1
                seen |= events(state)
                new = start(env, obs["dice"][g])
                assert reward[g] == 0.0 and not terminated[g]
            else:
                action = decode(lay, state, int(actions[g]))
                if isinstance(action, Roll):
                    kept = [state.dice[p] for p in action.keep]
                    new = apply(state, action, FixedDice(thrown(obs["dice"][g], kept)))
                else:
                    new = apply(state, action)
                    if not new.finished:
                        new = apply(new, ROLL, FixedDice(int(d) for d in obs["dice"][g]))
                change = breakdown(new, 0).total - breakdown(state, 0).total
                assert reward[g] == change
                assert bool(terminated[g]) == new.finished
            states[g] = new
            assert np.array_equal(info["action_mask"][g], action_mask(lay, new))
            assert info["total"][g] == breakdown(new, 0).total
            same(env, obs, g, new)
    assert games >= 2 * GAMES
    wanted = {"score"}
    if rules.reserve is not None:
        wanted |= {"closed", "used_reserve", "zero", "strike", "doubled"}
    if rules.extra_yahtzee is not None:
        wanted.add("joker")  # the bonuses and the stars: the best-hands test below
    assert wanted <= seen, wanted - seen


def test_the_batch_is_gymnasiums_batch_of_the_single_spaces() -> None:
    env = DicePokerVectorEnv("school", 4, columns=2)
    single = dicepoker.envs.DicePokerEnv("school", columns=2)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    assert env.observation_space == gym.vector.utils.batch_space(single.observation_space, 4)
    obs, info = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].shape == (4, single.action_space.n)
    assert info["action_mask"].dtype == np.int8
    assert np.array_equal(env.action_masks(), info["action_mask"])
    assert env.action_space.contains(np.array([0, 1, 2, 3]))


def test_next_step_autoreset_starts_a_new_game_in_the_slot() -> None:
    env = DicePokerVectorEnv("poker-dice", 3)
    obs, info = env.reset(seed=2)
    ended = np.zeros(3, dtype=bool)
    total = np.zeros(3)
    while not ended.all():
        mask = info["action_mask"]
        cells = mask[:, env.layout.n_holds :]  # fill a cell every step: games end together
        actions = env.layout.n_holds + cells.argmax(axis=1)
        obs, reward, terminated, _, info = env.step(actions)
        total += reward
        ended |= terminated
    assert terminated.all()
    assert np.array_equal(total, info["total"])
    assert not info["action_mask"].any()  # an ended game has no legal action
    assert (obs["marks"] != 0).all() and not obs["dice"].any()
    obs, reward, terminated, _, info = env.step(np.array([44, 0, 7]))  # ignored
    assert not reward.any() and not terminated.any() and not info["refused"].any()
    assert not obs["marks"].any() and not info["total"].any()
    assert (obs["rolls_left"] == env.rules.rolls_per_turn - 1).all()
    assert (obs["dice"] > 0).all()
    assert info["action_mask"].any(axis=1).all()


def test_an_illegal_action_is_refused_in_its_game_only() -> None:
    env = DicePokerVectorEnv("yahtzee", 2)
    obs, info = env.reset(seed=3)
    keep_all = env.layout.n_holds - 1  # never legal
    assert info["action_mask"][0, keep_all] == 0
    after, reward, terminated, _, info2 = env.step(np.array([keep_all, 0]))
    assert list(info2["refused"]) == [True, False]
    assert reward[0] == 0.0 and not terminated[0]
    for key in obs:
        assert np.array_equal(after[key][0], obs[key][0])
    assert after["rolls_left"][1] == obs["rolls_left"][1] - 1
    assert np.array_equal(info2["action_mask"][0], info["action_mask"][0])


def test_raise_mode_refuses_the_whole_batch_before_any_game_moves() -> None:
    env = DicePokerVectorEnv("yahtzee", 2, invalid_action="raise")
    obs, info = env.reset(seed=3)
    with pytest.raises(InvalidActionError, match=r"game 1: action 31 \(keep the sorted dice"):
        env.step(np.array([0, 31]))
    assert np.array_equal(env.action_masks(), info["action_mask"])
    again, _, _, _, _ = env.step(np.array([0, 0]))
    assert (again["rolls_left"] == obs["rolls_left"] - 1).all()


@pytest.mark.parametrize(
    "actions",
    [np.array([0, 45]), np.array([-1, 0]), np.array([0]), np.array([0.0, 1.0]), [[0, 0]]],
)
def test_actions_outside_the_space_raise(actions: Any) -> None:
    env = DicePokerVectorEnv("yahtzee", 2)
    with pytest.raises(InvalidActionError, match="reset"):
        env.step(np.array([0, 0]))
    env.reset(seed=0)
    before = env.action_masks()
    with pytest.raises(InvalidActionError, match="action"):
        env.step(actions)
    assert np.array_equal(env.action_masks(), before)


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        DicePokerVectorEnv("yahtzee", 0)
    with pytest.raises(ValueError, match="columns"):
        DicePokerVectorEnv("school", 2, columns=9)
    with pytest.raises(ValueError, match="invalid_action"):
        DicePokerVectorEnv("yahtzee", 2, invalid_action="ignore")
    with pytest.raises(ValueError, match="optimal_value"):
        DicePokerVectorEnv("yahtzee", 2, optimal_value=True)
    env = DicePokerVectorEnv("yahtzee", 2)
    with pytest.raises(ValueError, match="one seed per game"):
        env.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="first reset"):
        env.reset(options={"reset_mask": np.array([True, False])})


def play(env: DicePokerVectorEnv, seed: int, steps: int) -> list[np.ndarray]:
    """The observations of `steps` steps with actions drawn from `seed`."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    seen = [np.concatenate([np.asarray(v).reshape(env.num_envs, -1) for v in obs.values()], 1)]
    for _ in range(steps):
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * (mask + 1e-9)).argmax(axis=1)
        obs, _, _, _, info = env.step(actions)
        flat = [np.asarray(v).reshape(env.num_envs, -1) for v in obs.values()]
        seen.append(np.concatenate(flat, axis=1))
    return seen


def test_a_seed_gives_the_same_games() -> None:
    env = DicePokerVectorEnv("yahtzee", 16)
    first, second = play(env, 4, 100), play(env, 4, 100)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    other = play(env, 5, 100)
    assert not all(np.array_equal(a, b) for a, b in zip(first, other, strict=True))
    # Each game has its own dice: the slots of one batch differ.
    assert len({tuple(row) for row in first[0]}) > 1
    # One seed per game: a game's seed gives its games whatever the batch.
    obs, _ = env.reset(seed=[7] * 16)
    assert (obs["dice"] == obs["dice"][0]).all()


def test_a_reset_mask_starts_only_the_games_it_names() -> None:
    env = DicePokerVectorEnv("yahtzee", 2)
    obs, _ = env.reset(seed=1)
    obs, _, _, _, _ = env.step(np.array([0, 0]))
    again, info = env.reset(options={"reset_mask": np.array([False, True])})
    assert again["rolls_left"][0] == obs["rolls_left"][0]
    assert np.array_equal(again["dice"][0], obs["dice"][0])
    assert again["rolls_left"][1] == env.rules.rolls_per_turn - 1
    assert info["action_mask"].any(axis=1).all()


def test_make_vec_gives_the_vectorized_environment() -> None:
    env = gym.make_vec(
        "dicepoker/Yahtzee-v0", num_envs=1024, vectorization_mode="vector_entry_point"
    )
    assert isinstance(env, DicePokerVectorEnv) and env.num_envs == 1024
    obs, info = env.reset(seed=0)
    assert obs["dice"].shape == (1024, 5) and info["action_mask"].shape == (1024, 45)
    school = gym.make_vec("dicepoker/School-v0", num_envs=3, columns=2)
    assert isinstance(school, DicePokerVectorEnv) and school.rules.columns == 2
    assert school.single_observation_space["marks"].shape == (30,)


@pytest.mark.parametrize(("variant", "options"), PRESETS[3:7])
def test_the_fast_single_environment_is_a_batch_of_one(
    variant: str, options: dict[str, Any]
) -> None:
    fast = FastDicePokerEnv(variant, **options)
    batch = DicePokerVectorEnv(variant, 1, **options)
    obs, info = fast.reset(seed=9)
    many, infos = batch.reset(seed=9)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        for key, value in obs.items():
            assert np.array_equal(value, many[key][0])
        assert np.array_equal(info["action_mask"], infos["action_mask"][0])
        assert info["total"] == infos["total"][0]
        assert fast.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, done, _, info = fast.step(action)
        many, rewards, ended, _, infos = batch.step(np.array([action]))
        assert reward == rewards[0] and done == ended[0]
    assert fast.total == info["total"] == batch.totals[0]
    with pytest.raises(InvalidActionError, match="game is over"):
        fast.step(0)


def test_the_fast_single_environment_refuses_like_the_engine_backed_one() -> None:
    fast = FastDicePokerEnv("school")
    with pytest.raises(InvalidActionError, match="reset"):
        fast.step(0)
    obs, _ = fast.reset(seed=1)
    after, reward, done, _, info2 = fast.step(31)
    assert reward == 0.0 and not done
    assert info2["refused"] == "action 31 (keep the sorted dice 0 1 2 3 4) is not legal now"
    assert all(np.array_equal(after[key], obs[key]) for key in obs)
    with pytest.raises(InvalidActionError, match="outside the action space"):
        fast.step(62)
    raising = FastDicePokerEnv("school", invalid_action="raise")
    raising.reset(seed=1)
    with pytest.raises(InvalidActionError, match="not legal now"):
        raising.step(31)
    assert fast.describe_action(0) == "roll every die"


@pytest.mark.parametrize("variant", ["school", "yahtzee"])
def test_the_fast_single_environment_passes_gymnasiums_checker(variant: str) -> None:
    check_env(FastDicePokerEnv(variant), skip_render_check=True)


def test_a_zero_and_the_reserve_reach_the_total() -> None:
    """A School row that cannot be closed takes a zero: -200 in the reward, as the engine."""
    env = DicePokerVectorEnv("school", 64, columns=1)
    _, info = env.reset(seed=12)
    lay = env.layout
    zero = [i for i, move in enumerate(lay.moves) if move.verb == "zero"]
    zeros = np.array([lay.n_holds + i for i in zero])
    legal = info["action_mask"][:, zeros]
    games = np.flatnonzero(legal.any(axis=1))
    assert games.size  # some first rolls miss a face
    actions = np.zeros(64, dtype=np.int64)
    actions[games] = zeros[legal[games].argmax(axis=1)]
    _, reward, _, _, info = env.step(actions)
    assert (reward[games] == -200).all()
    assert (info["total"][games] == -200).all()
    rest = np.setdiff1d(np.arange(64), games)  # these rerolled: nothing scored
    assert not reward[rest].any() and not info["total"][rest].any()


def best_hands(env: DicePokerVectorEnv) -> list[tuple[int, ...]]:
    """For each row, a hand that makes it at its best (the engine's points thrown all at once;
    five of the face for a School row), so that a game of them earns every star and bonus."""
    rules = env.rules
    hands = dice_space(rules.dice, rules.faces).hands
    out = []
    for r, row in enumerate(rules.rows):
        if row.school:
            out.append((row.combo.n,) * rules.dice)
            continue
        points = [
            score_cell(rules, r, face_counts(h, rules.faces), thrown_all=True).points for h in hands
        ]
        out.append(hands[int(np.argmax(points))])
    return out


@pytest.mark.parametrize(("variant", "options"), [*PRESETS[:2], *PRESETS[4:7]])
def test_positions_of_a_game_of_best_hands_step_as_the_engine(
    variant: str, options: dict[str, Any]
) -> None:
    """Every star, the upper bonus, Jokers with their bonus: a game where each turn throws the
    best hand for the row it fills, each position loaded into the batch and stepped there."""
    env = DicePokerVectorEnv(variant, 1, **options)
    rules, lay = env.rules, env.layout
    env.reset(seed=0)
    state = new_game(rules, ["agent"])
    for r, hand in enumerate(best_hands(env)):
        for _ in range(rules.columns):
            state = apply(state, ROLL, FixedDice(hand))
            env.set_game(0, state)
            assert np.array_equal(env.action_masks()[0], action_mask(lay, state))
            move = lay.move_index[Move("score", rules.rows[r].id)]
            obs, reward, terminated, _, info = env.step(np.array([move]))
            after = apply(state, decode(lay, state, move))
            assert reward[0] == breakdown(after, 0).total - breakdown(state, 0).total
            assert terminated[0] == after.finished
            if not after.finished:
                after = apply(after, ROLL, FixedDice(int(d) for d in obs["dice"][0]))
            same(env, obs, 0, after)
            assert np.array_equal(info["action_mask"][0], action_mask(lay, after))
            state = apply(state, decode(lay, state, move))
    found = events(state)
    if rules.stars is not None:
        assert {"school_row_star", "combination_row_star", "column_star"} <= found
    if rules.extra_yahtzee is not None:
        assert {"joker", "yahtzee_bonus", "upper_bonus"} <= found
