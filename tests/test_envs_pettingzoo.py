"""The PettingZoo environment: PettingZoo's API test for every preset and 1-4 players, masks that
are the engine's legal actions for the agent to move, rewards that add up to each agent's total,
the final placing, reproducible seeds and refused actions."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test

from dicepoker.engine import breakdown, legal_actions, ranking, star_status
from dicepoker.envs import InvalidActionError
from dicepoker.envs.codec import STAR_CODES, encode
from dicepoker.envs.pettingzoo import DicePokerAEC, env, raw_env
from dicepoker.rules import RulesError

GAMES: list[tuple[str, int, dict[str, Any]]] = [
    *(("school", players, {}) for players in (1, 2, 3, 4)),
    *(("school", players, {"columns": 2}) for players in (1, 2, 3, 4)),
    ("yahtzee", 2, {}),
    ("yahtzee15", 3, {}),
    ("poker-dice", 4, {}),
]
IDS = [f"{preset}-{players}p-{options}" for preset, players, options in GAMES]


def play(game: DicePokerAEC, seed: int) -> tuple[dict[str, float], list[Any], dict[str, Any]]:
    """A whole game with random legal actions, checking every mask against the engine; the sum
    of each agent's rewards, the trail of (agent, action, rewards) steps and the final infos."""
    rng = np.random.default_rng(seed)
    game.reset(seed=seed)
    sums = dict.fromkeys(game.possible_agents, 0.0)
    trail: list[Any] = []
    finals: dict[str, Any] = {}
    for agent in game.agent_iter(max_iter=100_000):
        obs, reward, terminated, truncated, info = game.last()
        sums[agent] += reward
        assert not truncated
        if terminated:
            assert not obs["action_mask"].any()
            finals[agent] = info
            game.step(None)
            continue
        state = game.state
        assert game.possible_agents[state.seat] == agent
        legal = {encode(game.layout, state, action) for action in legal_actions(state)}
        assert set(np.flatnonzero(obs["action_mask"]).tolist()) == legal
        for other in game.possible_agents:
            if other != agent:
                assert not game.observe(other)["action_mask"].any()
        action = int(rng.choice(sorted(legal)))
        game.step(action)
        trail.append((agent, action, dict(game.rewards)))
    assert game.state.finished
    assert not game.agents
    assert finals.keys() == set(game.possible_agents)
    return sums, trail, finals


@pytest.mark.parametrize(("preset", "players", "options"), GAMES, ids=IDS)
def test_pettingzoo_api_test(preset: str, players: int, options: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # PettingZoo advises flat Box observations; ours are dicts, as documented.
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        warnings.filterwarnings("ignore", "Observation space for each agent probably")
        api_test(env(preset, players, **options), num_cycles=100, verbose_progress=False)


@pytest.mark.parametrize(
    ("preset", "players", "options"), GAMES[1:4] + GAMES[-3:], ids=IDS[1:4] + IDS[-3:]
)
def test_rewards_add_up_to_totals_and_places(
    preset: str, players: int, options: dict[str, Any]
) -> None:
    game = raw_env(preset, players, **options)
    sums, _, finals = play(game, seed=3)
    state = game.state
    standings = {standing.seat: standing.place for standing in ranking(state)}
    for seat, agent in enumerate(game.possible_agents):
        assert sums[agent] == breakdown(state, seat).total
        assert finals[agent]["place"] == standings[seat]
        assert finals[agent]["total"] == breakdown(state, seat).total
    # The star race: each star goes to one seat at most, and the others see it struck.
    earned = [
        [star.status == "earned" for star in star_status(state, seat)] for seat in range(players)
    ]
    for star in zip(*earned, strict=True):
        assert sum(star) <= 1
    winners = [agent for agent in finals if finals[agent]["place"] == 1]
    expected = winners[0] if len(winners) == 1 else None
    assert all(info["winner"] == expected for info in finals.values())


def test_a_seeded_reset_is_reproducible() -> None:
    first, second = raw_env("school", 3, columns=2), raw_env("school", 3, columns=2)
    sums_a, trail_a, _ = play(first, seed=11)
    sums_b, trail_b, _ = play(second, seed=11)
    assert trail_a == trail_b
    assert sums_a == sums_b
    first.reset(seed=11)
    second.reset(seed=11)
    seen = first.observe("player_1")["observation"]
    again = second.observe("player_1")["observation"]
    assert seen.keys() == again.keys()
    for key in seen:
        assert np.array_equal(seen[key], again[key])
    assert first.game_seed == second.game_seed
    first.reset(seed=12)
    assert first.game_seed != second.game_seed


def test_the_table_from_each_agents_seat() -> None:
    game = raw_env("school", 3)
    game.reset(seed=5)
    game.step(int(np.flatnonzero(game.observe(game.agent_selection)["action_mask"])[-1]))
    mover = game.possible_agents.index("player_0")
    assert game.agent_selection == "player_1"  # a cell move passes the turn; the engine says so
    left = game.observe("player_2")["observation"]
    own = game.observe("player_0")["observation"]
    # player_2 sees player_0 as its next seat (the first rival), player_0 sees itself first.
    assert np.array_equal(left["rival_marks"][0], own["marks"])
    assert np.array_equal(left["rival_points"][0], own["points"])
    assert left["totals"][1] == own["totals"][0] == breakdown(game.state, mover).total
    assert int(left["to_move"]) == 2
    assert int(own["to_move"]) == 1
    assert game.observation_space("player_2").contains(game.observe("player_2"))


def test_illegal_and_foreign_actions() -> None:
    game = raw_env("yahtzee", 2)
    game.reset(seed=1)
    mask = game.observe(game.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = game.state
    game.step(illegal)
    assert game.state is before
    assert "is not legal now" in game.infos[game.agent_selection]["refused"]
    assert game.agent_selection == "player_0"
    assert not any(game.rewards.values())
    strict = raw_env("yahtzee", 2, invalid_action="raise")
    strict.reset(seed=1)
    with pytest.raises(InvalidActionError, match="is not legal now"):
        strict.step(illegal)
    for bad in (-1, game.layout.n_actions, "x", None, True):
        with pytest.raises(InvalidActionError):
            game.step(bad)  # type: ignore[arg-type]
    assert game.state is before
    for players in (0, 5, 2.0):
        with pytest.raises(ValueError, match="players must"):
            raw_env("school", players)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid_action"):
        raw_env("school", 2, invalid_action="ignore")
    with pytest.raises(RulesError):
        raw_env("school", 2, columns=0)


def test_the_school_star_race() -> None:
    """With one column stars are earned in random play: each goes to one seat, the others see it
    struck (own `stars` and `rival_stars` alike), and the star's value is in the rewards."""
    game = raw_env("school", 4, columns=1)
    sums, _, _ = play(game, seed=1)
    state = game.state
    statuses = [[star.status for star in star_status(state, seat)] for seat in range(4)]
    assert sum(status == "earned" for row in statuses for status in row) >= 2
    for star in zip(*statuses, strict=True):
        assert star.count("earned") <= 1
        assert "open" not in star
    view = game.observe("player_0")["observation"]
    seen = [view["stars"], *view["rival_stars"]]
    for seat in range(4):
        assert [STAR_CODES[status] for status in statuses[seat]] == list(seen[seat])
        assert sums[game.possible_agents[seat]] == breakdown(state, seat).total
