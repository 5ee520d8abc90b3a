"""The bot ladder: its levels, the fallible levels' play, the anchors measured for it."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from dicepoker.advisor import advise
from dicepoker.bots import LADDER, LEVELS, REFERENCE, ExpertBot, FallibleBot, make_bot
from dicepoker.bots.fallible import points_per_turn
from dicepoker.bots.ladder import fallible_levels, temperature
from dicepoker.dice import SeededDice
from dicepoker.engine import Roll, apply, legal_actions, new_game, totals
from dicepoker.ratings import (
    Pairing,
    _anchors,
    _nearest_pool,
    _split_pool,
    anchor,
    anchored_levels,
    fit_anchors,
    level_ratings,
    pools,
)
from dicepoker.rules import get_rules, variant_names
from dicepoker.simulate import play_game


def test_the_ladder_goes_from_beginner_to_expert_beside_the_reference_players() -> None:
    assert LADDER == ("beginner", "casual", "intermediate", "advanced", "expert")
    assert list(LEVELS) == [*LADDER, *REFERENCE]
    assert fallible_levels() == LADDER[:-1]
    for level in LADDER[:-1]:
        bot = make_bot(level, 3)
        assert isinstance(bot, FallibleBot) and bot.level == level
    assert isinstance(make_bot("expert"), ExpertBot)
    with pytest.raises(ValueError, match="unknown bot level"):
        make_bot("grandmaster")


@pytest.mark.parametrize(
    ("variant", "options"),
    [*((name, {}) for name in variant_names()), ("school", {"columns": 1})],
)
def test_each_step_errs_less_than_the_one_below_in_every_variant(
    variant: str, options: dict[str, int]
) -> None:
    rules = get_rules(variant, options)
    heat = [temperature(rules, level) for level in fallible_levels()]
    assert all(t > 0 for t in heat)
    assert heat == sorted(heat, reverse=True) and len(set(heat)) == len(heat)
    assert points_per_turn(rules) > 0


def test_a_one_column_school_sheet_has_temperatures_of_its_own() -> None:
    one, three = get_rules("school", {"columns": 1}), get_rules("school", {"columns": 3})
    assert temperature(one, "casual") > temperature(three, "casual")
    assert temperature(get_rules("school", {"columns": 5}), "casual") == temperature(
        three, "casual"
    )
    with pytest.raises(ValueError, match="not a fallible level"):
        temperature(three, "expert")


@pytest.mark.parametrize(
    ("variant", "options"),
    [("yahtzee", {}), ("yahtzee15", {}), ("poker-dice", {}), ("school", {"columns": 1})],
)
def test_a_fallible_level_plays_whole_games_legally_and_reproducibly(
    variant: str, options: dict[str, int]
) -> None:
    rules = get_rules(variant, options)
    played = [
        totals(play_game(rules, [make_bot("beginner", 7)], SeededDice(11)).state) for _ in range(2)
    ]
    assert played[0] == played[1]  # the same seed and dice: the same game
    # play_game raises on an illegal action: a whole game is the legality check


@pytest.mark.parametrize("variant", ["yahtzee", "school"])
def test_at_a_tiny_temperature_a_fallible_level_plays_the_expert_s_choice(variant: str) -> None:
    rules = get_rules(variant, {"columns": 1} if variant == "school" else {})
    bot = FallibleBot("casual", seed=5, fixed=1e-9)
    state = new_game(rules, ["a"])
    dice = SeededDice(21)
    rng = random.Random(2)
    checked = 0
    while not state.finished and checked < 40:
        if state.rolls > 0:
            advice = advise(state)
            chosen = bot.choose(state)
            assert math.isclose(advice.option(chosen).worth, advice.best.worth, abs_tol=1e-6)
            checked += 1
        state = apply(state, rng.choice(legal_actions(state)), dice)  # wander through positions
    assert checked >= 20


def test_holds_of_the_same_dice_are_one_choice() -> None:
    """A hold that keeps dice shown twice is as likely as any other hold of its value: at a huge
    temperature every distinct choice is about equally likely, whatever its positions."""
    rules = get_rules("yahtzee")
    state = apply(new_game(rules, ["a"]), legal_actions(new_game(rules, ["a"]))[0], SeededDice(4))
    state = state._replace(dice=(2, 2, 2, 2, 2))
    bot = FallibleBot("beginner", seed=1, fixed=1e9)
    rolls = [bot.choose(state) for _ in range(3000)]
    kept = [len(action.keep) for action in rolls if isinstance(action, Roll)]
    # five distinct holds (keep 0..4 twos; keeping all five is no roll) and 13 cells
    for count in range(5):
        assert 3000 / 18 * 0.6 < kept.count(count) < 3000 / 18 * 1.4


def test_fitted_anchors_recover_known_strengths() -> None:
    levels = ["weak", "mid", "strong"]
    truth = {"weak": -1.0, "mid": 0.0, "strong": 1.2}
    rng = random.Random(9)
    pairings = []
    for i, a in enumerate(levels):
        for b in levels[i + 1 :]:
            p = 1 / (1 + math.exp(-(truth[a] - truth[b])))
            score = sum(1.0 for _ in range(4000) if rng.random() < p)
            pairings.append(Pairing(a, b, 4000, score))
    fitted = fit_anchors(levels, pairings, centre=levels)
    c = math.sqrt(2 * (25 / 6) ** 2 + 2 * 1.0**2)
    assert math.isclose(sum(fitted[level]["mu"] for level in levels) / 3, 25.0, abs_tol=1e-3)
    for a in levels:
        for b in levels:
            measured = (fitted[a]["mu"] - fitted[b]["mu"]) / c
            assert abs(measured - (truth[a] - truth[b])) < 4 * (fitted[a]["se"] + 0.01) / c + 0.05
    # a level that never wins keeps a finite rating below the others
    never = fit_anchors(["zero", "one"], [Pairing("zero", "one", 50, 0.0)], centre=["zero", "one"])
    assert math.isfinite(never["zero"]["mu"]) and never["zero"]["mu"] < never["one"]["mu"]


def test_a_pool_not_measured_takes_its_variant_s_nearest_measured_sheet() -> None:
    measured = _anchors()
    assert _split_pool("poker-dice") == ("poker-dice", None)
    assert _split_pool("school-3") == ("school", 3)
    for pool in pools():
        nearest = _nearest_pool(pool)
        assert _split_pool(nearest)[0] == _split_pool(pool)[0]
        assert nearest == pool or pool not in measured


def test_every_pool_has_an_anchor_for_every_level() -> None:
    ratings = level_ratings()
    assert set(ratings) == set(pools())
    for pool in pools():
        assert set(anchored_levels(pool)) == set(LEVELS)
        for level in LEVELS:
            assert anchor(pool, level).sigma > 0


def test_the_measured_ladder_is_strictly_ordered_in_every_measured_pool() -> None:
    """The anchors file carries what the round-robin measured: every step of the ladder won
    its head-to-head by at least three standard errors, and the anchors follow the ladder."""
    import json
    from importlib import resources

    data = json.loads(
        resources.files("dicepoker.bots.data").joinpath("ladder_ratings.json").read_text("utf-8")
    )
    assert data["ladder"] == list(LADDER)
    measured = _anchors()
    assert {_split_pool(pool)[0] for pool in measured} == set(variant_names())
    for pool, levels in measured.items():
        mus = [levels[level]["mu"] for level in LADDER]
        assert mus == sorted(mus) and len(set(mus)) == len(mus), pool
        steps = data["steps"][pool]
        assert [(s["weaker"], s["stronger"]) for s in steps] == list(itertools.pairwise(LADDER))
        for step in steps:
            assert step["win_rate"] - 0.5 >= 3 * step["se"] and step["clear"], (pool, step)
