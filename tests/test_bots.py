"""The bot levels: legal play on random positions, the expert's methods and its two-turn search,
what it keeps between turns and loads, and the order of strength."""

from __future__ import annotations

import random
import subprocess
import sys
import tracemalloc
from statistics import mean, stdev

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot_positions import VARIANTS, played_position
from dicepoker.bots import LEVELS, BasicBot, ExpertBot, make_bot
from dicepoker.bots.expert import REFINE, after_value_for
from dicepoker.bots.planner import (
    AfterValue,
    Planner,
)
from dicepoker.bots.school_value import (
    ENDGAME_TURNS,
    model_for,
)
from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import (
    GameState,
    Move,
    apply,
    legal_actions,
    new_game,
    totals,
)
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(
    variant=st.sampled_from([p for p in VARIANTS if p[0] != "yahtzee" or p[1]]),
    seed=st.integers(0, 10**6),
    players=st.integers(1, 2),
    level=st.sampled_from(["basic", "expert"]),
)
def test_bots_play_legal_actions(
    variant: tuple[str, dict[str, object]], seed: int, players: int, level: str
) -> None:
    rules = get_rules(*variant)
    rng = random.Random(seed)
    state = played_position(rules, players, rng)
    dice = SeededDice(seed)
    bot = make_bot(level)
    for _ in range(8):
        if state.finished:
            break
        action = bot.choose(state)
        assert action in legal_actions(state)
        state = apply(state, action, dice)


def test_levels_registered() -> None:
    assert list(LEVELS) == [
        "beginner",
        "casual",
        "intermediate",
        "advanced",
        "expert",
        "points",
        "random",
        "greedy",
        "basic",
    ]
    assert isinstance(make_bot("basic"), BasicBot)
    assert isinstance(make_bot("expert"), ExpertBot)


def test_expert_uses_the_solver_and_the_school_tables() -> None:
    bot = ExpertBot()
    for variant, method in (("yahtzee", "solver"), ("school", "school-value")):
        rules = get_rules(variant)
        state = apply(
            new_game(rules, ["a"]), legal_actions(new_game(rules, ["a"]))[0], SeededDice(1)
        )
        bot.choose(state)
        assert bot.method == method
    for columns in range(1, 7):
        assert model_for(get_rules("school", {"columns": columns})) is not None


def _next_turn(value: AfterValue, state: GameState, move: Move) -> float:
    """The exact value of the mover's next turn after `move`, by a planner with no search."""
    after = apply(state, move, FixedDice(()))
    mine = after._replace(seat=state.seat, dice=(), rolls=0, thrown_all=False)
    return Planner(value).plan(mine).turn_value()


def test_the_school_expert_ends_a_turn_by_a_two_turn_search() -> None:
    """The cell move that ends a turn is, of the REFINE best by gain + after-value, the one with
    the best gain + exact value of the player's next turn (its state made here by hand). Checked
    before the race at the end, where the after-value also counts the chance of winning (and
    whose next turn is in it)."""
    rules = get_rules("school", {"columns": 3})
    value = after_value_for(rules)
    bot, plain = ExpertBot(), Planner(value)
    state, dice = new_game(rules, ["a", "b"]), SeededDice(11)
    checked = changed = 0
    while not state.finished:
        action = bot.choose(state)
        if isinstance(action, Move) and rules.cells - state.sheet.filled > ENDGAME_TURNS + 1:
            plan = plain.plan(state)
            hand = plan.space.hand_index[tuple(sorted(state.dice))]
            doubled = int(state.thrown_all)
            table = plan.table
            gain = table.gain[:, hand, doubled]
            after = np.broadcast_to(plain.after_values(table), table.gain.shape)
            now = gain + after[:, hand, doubled]
            top = [int(m) for m in np.argsort(-now, kind="stable")[:REFINE] if np.isfinite(now[m])]
            searched = [float(gain[m]) + _next_turn(value, state, table.moves[m]) for m in top]
            assert action == table.moves[top[int(np.argmax(searched))]]
            changed += action != table.moves[top[0]]
            checked += 1
        state = apply(state, action, dice)
    assert checked > 30
    assert changed > 0  # the search does change some choices


def test_a_school_expert_keeps_nothing_of_a_finished_turn() -> None:
    """A server's bot worker keeps one bot per game: between turns an expert holds no turn plan
    (each is about 0.4 MiB of tables), only while its turn lasts."""
    rules = get_rules("school", {"columns": 3})
    warm = ExpertBot()  # the shared tables and the network, loaded once for every bot
    state, dice = new_game(rules, ["a", "b"]), SeededDice(0)
    while state.turn == 0:
        state = apply(state, warm.choose(state), dice)
    bots, sizes = [], []
    tracemalloc.start()
    try:
        for seed in range(20):
            bot, state, dice = ExpertBot(), new_game(rules, ["a", "b"]), SeededDice(seed)
            before = tracemalloc.get_traced_memory()[0]
            state = apply(state, bot.choose(state), dice)  # the roll
            bot.choose(state)  # a decision with dice: the turn's plan is built, or it scores
            during = tracemalloc.get_traced_memory()[0] - before
            while state.turn == 0:  # the rest of the first turn
                state = apply(state, bot.choose(state), dice)
            bots.append(bot)
            sizes.append((during, tracemalloc.get_traced_memory()[0] - before))
    finally:
        tracemalloc.stop()
    # A plan is held while the turn lasts (unless its first decision already ended it)
    assert sum(during > 200_000 for during, _ in sizes) >= 10
    assert max(after for _, after in sizes) < 50_000  # and let go when it ends


def test_a_school_expert_and_its_advice_never_load_numba() -> None:
    """numba (the exact solver's compiler, about 115 MiB in a process with LLVM) is loaded only
    where the solver applies or a process asks for the School features' kernels (a server's bot
    worker: `compile_features`): a School expert or its advice elsewhere never pays for it."""
    script = (
        "import sys\n"
        "from dicepoker.advisor import advise\n"
        "from dicepoker.bots import make_bot\n"
        "from dicepoker.dice import SeededDice\n"
        "from dicepoker.engine import apply, new_game\n"
        "from dicepoker.rules import get_rules\n"
        "state, dice = new_game(get_rules('school'), ['a']), SeededDice(1)\n"
        "bot = make_bot('expert')\n"
        "for _ in range(6):\n"
        "    state = apply(state, bot.choose(state), dice)\n"
        "advise(state)\n"
        "assert 'numba' not in sys.modules, 'numba was loaded'\n"
        "from dicepoker.solver import Solver\n"
        "Solver.__name__\n"
        "assert 'numba' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("players", [1, 2, 3])
def test_the_school_expert_plays_the_same_moves_with_compiled_features(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot worker's School expert (its features from numba's kernels) makes every decision of
    whole games exactly as the expert of a process without them (the advisor's, in the server)."""
    from dicepoker.bots import school_features

    def played(compiled: bool, seed: int) -> list[str]:
        monkeypatch.setattr(school_features, "_COMPILED", [compiled])
        rules = get_rules("school", {"columns": 2})
        bots = [make_bot("expert") for _ in range(players)]
        state, dice, actions = (
            new_game(rules, [f"p{i}" for i in range(players)]),
            SeededDice(seed),
            [],
        )
        while not state.finished:
            action = bots[state.seat].choose(state)
            actions.append(str(action))
            state = apply(state, action, dice)
        return actions

    for seed in range(2):
        assert played(True, seed) == played(False, seed)


def scores(level: str, variant: str, games: int, seed: int) -> list[int]:
    rules = get_rules(variant)
    return [
        totals(play_game(rules, [make_bot(level)], SeededDice(seed + g)).state)[0]
        for g in range(games)
    ]


def margin(a: list[int], b: list[int]) -> float:
    """How many standard errors mean(a) exceeds mean(b) by."""
    error = (stdev(a) ** 2 / len(a) + stdev(b) ** 2 / len(b)) ** 0.5
    return float((mean(a) - mean(b)) / error)


def test_expert_beats_greedy_in_school() -> None:
    expert, greedy = scores("expert", "school", 40, 500), scores("greedy", "school", 40, 500)
    assert margin(expert, greedy) > 6


def test_expert_beats_basic_in_yahtzee() -> None:
    expert, basic = scores("expert", "yahtzee", 150, 900), scores("basic", "yahtzee", 150, 900)
    assert margin(expert, basic) > 4
