"""The stronger bots: the planner's gains against the engine, the expectimax against brute force
and against the exact solver, legal play on random positions, and the order of strength."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from statistics import mean, stdev

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicepoker.bots import LEVELS, BasicBot, ExpertBot, GreedyBot, make_bot
from dicepoker.bots.expert import REFINE, after_value_for, planner_for
from dicepoker.bots.planner import (
    AfterValue,
    FloatArray,
    MoveTable,
    Planner,
    TurnPlan,
    dice_space,
    keep_positions,
    rule_tables,
    solve_turn,
)
from dicepoker.bots.school_value import (
    DATA,
    ENDGAME_TURNS,
    RISK,
    WIN_POINTS,
    DuelFit,
    SchoolValue,
    after_positions,
    claimed_by,
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
from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import (
    Bonus,
    Cell,
    GameState,
    Mark,
    Move,
    Roll,
    Sheet,
    apply,
    legal_actions,
    new_game,
    preview,
    totals,
)
from dicepoker.rules import Rules, get_rules
from dicepoker.simulate import play_game

PRESETS: list[tuple[str, dict[str, object]]] = [
    ("school", {}),
    ("school", {"columns": 1}),
    ("school", {"columns": 2}),
    ("yahtzee", {}),
    ("yahtzee", {"upper_bonus": False, "yahtzee_bonus": False}),
    ("yahtzee15", {}),
    ("poker-dice", {}),
]


def played_position(rules: Rules, players: int, rng: random.Random) -> GameState:
    """A position after a random number of turns of mixed random and greedy play, mid-turn."""
    greedy = GreedyBot()
    while True:
        state = new_game(rules, [f"p{i}" for i in range(players)])
        dice = SeededDice(rng.randrange(2**32))
        stop = rng.randrange(rules.cells * players)
        mix = rng.random()
        while not state.finished and state.turn < stop:
            if rng.random() < mix:
                action = rng.choice(legal_actions(state))
            else:
                action = greedy.choose(state)
            state = apply(state, action, dice)
        if state.finished:
            continue
        if state.rolls == 0:
            state = apply(state, legal_actions(state)[0], dice)
        return state


def school_sheet(rules: Rules, rng: random.Random, column: int) -> Sheet:
    """A made-up School sheet, mostly clean, with `column` nearly complete (so that a move can
    earn a column star) and rows nearly complete (row stars)."""
    cols = rules.columns
    space = rule_tables(rules).space
    cells: list[Cell | None] = [None] * rules.cells
    fills = []
    short = set(rng.sample(range(len(rules.rows)), rng.choice([1, 2])))
    for r, row in enumerate(rules.rows):
        fill = column if r in short else rng.randint(column + 1, cols)
        fills.append(fill)
        for c in range(fill):
            if row.school:
                roll = rng.random()
                if roll < 0.04:
                    cell = Cell(Mark.ZERO)
                else:
                    cell = Cell(Mark.CLOSED, used_reserve=roll < 0.15)
            elif rng.random() < 0.04:
                cell = Cell(Mark.STRIKE)
            else:
                made = [
                    int(v)
                    for v, ok in zip(
                        rule_tables(rules).value[r], rule_tables(rules).made[r], strict=True
                    )
                    if ok
                ]
                points = rng.choice(made)
                doubled = rng.random() < 0.3
                cell = Cell(Mark.SCORE, points * 2 if doubled else points, doubled)
            cells[r * cols + c] = cell
    assert space.n_hands == 252
    return Sheet(
        cells=tuple(cells),
        row_fill=tuple(fills),
        reserve=rng.choice([0, 0, 1, 3, 6, 10, 25]),
        filled=sum(fills),
    )


def made_up_position(rules: Rules, rng: random.Random) -> GameState:
    """Two made-up School sheets; the opponent holds a few stars (they are out of reach)."""
    column = rng.randrange(rules.columns)
    mine, theirs = school_sheet(rules, rng, column), school_sheet(rules, rng, column)
    stars = [Bonus("column", c, 50) for c in range(rules.columns) if rng.random() < 0.2]
    stars += [
        Bonus("school_row" if row.school else "combination_row", row.id, 10)
        for row in rules.rows
        if row.star and rng.random() < 0.15
    ]
    state = new_game(rules, ["a", "b"])
    return state._replace(
        sheets=(mine, theirs._replace(stars=tuple(stars))), dice=(1, 2, 3, 4, 5), rolls=1
    )


def positions(preset: str, options: dict[str, object], count: int) -> Iterator[GameState]:
    rules = get_rules(preset, options)
    rng = random.Random(f"{preset}{options}")
    for i in range(count):
        if rules.stars is not None and i % 2:
            yield made_up_position(rules, rng)
        else:
            players = rng.choice([1, 2, 3]) if rules.max_players >= 3 else 1
            yield played_position(rules, players, rng)


def assert_gains_match(state: GameState) -> None:
    table = MoveTable.build(state)
    space = rule_tables(state.rules).space
    for o, hand in enumerate(space.hands):
        for doubled in (0, 1):
            probe = state._replace(dice=hand, thrown_all=bool(doubled))
            expected = {p.move: p.gain for p in preview(probe)}
            got = {
                move: float(table.gain[m, o, doubled])
                for m, move in enumerate(table.moves)
                if np.isfinite(table.gain[m, o, doubled])
            }
            assert got == expected, (hand, doubled)


@pytest.mark.parametrize(("preset", "options"), PRESETS)
def test_gains_equal_the_engine_preview(preset: str, options: dict[str, object]) -> None:
    """Every hand and both doubling flags, on random positions of every preset."""
    for state in positions(preset, options, 6):
        assert_gains_match(state)


def test_made_up_positions_earn_column_and_row_stars() -> None:
    """The made-up School positions do exercise the stars the gains must include."""
    rules = get_rules("school")
    rng = random.Random(7)
    kinds: set[str] = set()
    space = rule_tables(rules).space
    for _ in range(30):
        state = made_up_position(rules, rng)
        for hand in space.hands[::5]:
            for option in preview(state._replace(dice=hand, thrown_all=True)):
                kinds.update(star.kind for star in option.stars)
    assert kinds == {"column", "school_row", "combination_row"}


def test_dice_space() -> None:
    space = dice_space(5, 6)
    assert space.n_hands == 252
    assert len(space.keeps) == 462
    np.testing.assert_allclose(space.trans.sum(axis=1), 1.0)
    hand = space.hand_index[(1, 1, 2, 3, 3)]
    subs = {space.keeps[int(k)] for k in space.subkeeps[hand]}
    assert len(subs) == 3 * 2 * 3 - 1  # every sub-multiset but the whole hand
    assert keep_positions((3, 1, 3, 2, 1), (1, 3)) == (0, 1)


def throws(state: GameState, keep: tuple[int, ...]) -> Iterator[list[int]]:
    """Every positional outcome of throwing the dice of `state` not held in `keep` (6^n of them,
    equally likely)."""
    free = [p for p in range(5) if p not in keep]
    for thrown in product(range(1, 7), repeat=len(free)):
        dice = list(state.dice)
        for position, face in zip(free, thrown, strict=True):
            dice[position] = face
        yield dice


def brute_force_keep(state: GameState, keep: tuple[int, ...]) -> float:
    """Throw every positional outcome of the dice not held; take the best cell move (last roll)."""
    best: dict[tuple[tuple[int, ...], bool], float] = {}
    total = 0.0
    for dice in throws(state, keep):
        key = (tuple(sorted(dice)), not keep)
        if key not in best:
            probe = state._replace(dice=tuple(dice), thrown_all=not keep, rolls=state.rolls + 1)
            best[key] = max(option.gain for option in preview(probe))
        total += best[key]
    return float(total / 6 ** (5 - len(keep)))


@pytest.mark.parametrize("preset", ["school", "yahtzee"])
def test_expectimax_against_brute_force(preset: str) -> None:
    """With one roll left, the value of every keep equals the brute-force average."""
    rules = get_rules(preset)
    rng = random.Random(3)
    for _ in range(2):
        state = played_position(rules, 1, rng)
        state = state._replace(rolls=rules.rolls_per_turn - 1)
        plan = solve_turn(MoveTable.build(state), np.zeros((1, 1, 1)), rules.rolls_per_turn - 1)
        space = plan.space
        for size in (0, 2, 4):
            keep = tuple(range(size))
            value = plan.keep_value[1][space.keep_index[tuple(sorted(state.dice[:size]))]]
            assert value == pytest.approx(brute_force_keep(state, keep), abs=1e-9)


class SolverAfter:
    """The exact solver's table as an after-value: the planner must then play like the solver."""

    def __init__(self, rules: Rules) -> None:
        from dicepoker.solver import Solver

        self.solver = Solver.for_rules(rules)

    def after_values(self, table: MoveTable) -> FloatArray:
        state = table.state
        pos = self.solver.position(state)
        spec = self.solver.spec
        rules = state.rules
        out = np.zeros(table.gain.shape)
        for m, r in enumerate(table.rows):
            row = int(r)
            for o in range(table.gain.shape[1]):
                points = int(table.points[m, o, 0])
                flag = pos.flag or int(row == spec.box and points > 0)
                upper = pos.upper
                if spec.upper_cap and rules.rows[row].section == "upper":
                    upper = min(upper + points, spec.upper_cap)
                out[m, o, :] = self.solver.state_value(pos.filled | 1 << row, flag, upper)
        return out


@pytest.mark.parametrize("preset", ["yahtzee", "poker-dice"])
def test_planner_with_the_solver_table_is_the_solver(preset: str) -> None:
    """The expectimax over the solver's own table of between-turn values gives the solver's
    values of every action (an independent implementation of the same turn)."""
    rules = get_rules(preset)
    after = SolverAfter(rules)
    rng = random.Random(11)
    for _ in range(3):
        state = played_position(rules, 1, rng)
        state = state._replace(rolls=1)
        planner = Planner(after)
        plan = planner.plan(state)
        space = plan.space
        hand = space.hand_index[tuple(sorted(state.dice))]
        points = after.solver.position(state).points
        left = rules.rolls_per_turn - 1
        for action, value in after.solver.action_values(state):
            if isinstance(action, Roll):
                keep = tuple(sorted(state.dice[p] for p in action.keep))
                mine = plan.keep_value[left][space.keep_index[keep]]
            else:
                assert isinstance(action, Move)
                m = plan.table.moves.index(action)
                mine = plan.table.gain[m, hand, 0] + after.after_values(plan.table)[m, hand, 0]
            assert points + mine == pytest.approx(value, rel=1e-9, abs=1e-6)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(
    preset=st.sampled_from([p for p in PRESETS if p[0] != "yahtzee" or p[1]]),
    seed=st.integers(0, 10**6),
    players=st.integers(1, 2),
    level=st.sampled_from(["basic", "expert"]),
)
def test_bots_play_legal_actions(
    preset: tuple[str, dict[str, object]], seed: int, players: int, level: str
) -> None:
    rules = get_rules(*preset)
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
    assert list(LEVELS) == ["random", "greedy", "basic", "expert"]
    assert isinstance(make_bot("basic"), BasicBot)
    assert isinstance(make_bot("expert"), ExpertBot)


def test_expert_uses_the_solver_and_the_school_tables() -> None:
    bot = ExpertBot()
    for preset, method in (("yahtzee", "solver"), ("school", "school-value")):
        rules = get_rules(preset)
        state = apply(
            new_game(rules, ["a"]), legal_actions(new_game(rules, ["a"]))[0], SeededDice(1)
        )
        bot.choose(state)
        assert bot.method == method
    for columns in range(1, 7):
        assert model_for(get_rules("school", {"columns": columns})) is not None


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
                    raw = sheet_position(rules, sheet, claimed_by(made), rivals)
                    expected = encode(lay, raw)[0]
                    np.testing.assert_allclose(features[where[m, o, doubled]], expected)


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
    """numba (the exact solver's compiler, about 60 MiB in a process) is loaded only where the
    solver applies: a School bot worker or advice never pays for it."""
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


def test_nothing_follows_a_players_last_cell() -> None:
    rules = get_rules("school", {"columns": 1})
    planner = planner_for(rules)
    state, dice = new_game(rules, ["a"]), SeededDice(3)
    bot = ExpertBot()
    while rules.cells - state.sheet.filled > 1:
        state = apply(state, bot.choose(state), dice)
    state = apply(state, Roll(), dice)
    for move in legal_actions(state):
        if isinstance(move, Move):
            assert planner.next_turn_value(state, move) == 0.0


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


def scores(level: str, preset: str, games: int, seed: int) -> list[int]:
    rules = get_rules(preset)
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


# --- the race at the end of a game with rivals -------------------------------------------------


def two_player_position(rules: Rules, seed: int, left: int, rolls: int = 1) -> GameState:
    """A 2-player game between `greedy` bots, stopped when seat 1 has `left` empty cells, is to
    move and has rolled `rolls` times."""
    bots = [GreedyBot(), GreedyBot()]
    state, dice = new_game(rules, ["a", "b"]), SeededDice(seed)
    while not (state.seat == 1 and rules.cells - state.sheet.filled == left):
        state = apply(state, bots[state.seat].choose(state), dice)
    for _ in range(rolls):
        state = apply(state, Roll(), dice)
    return state


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


# --- the duel fit: games with rivals before the race --------------------------------------------


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
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "train_school.py"
    command = [sys.executable, str(script), "--duel-fit", "--columns", "3", "--games", "4"]
    command += ["--duels", "1.0", "--rivals", "greedy", "--hidden", "8", "--epochs", "1"]
    command += ["--workers", "1", "--seed", "5", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
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
