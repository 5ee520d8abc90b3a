"""The School win probability (`dicepoker.winprob.school`): the chances' properties on played and
altered positions, the mover's turn played out against the expert's own plan, and a small
calibration run through the benchmark's own functions (`tools/fit/winprob.py`)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from dicepoker.bots import make_bot
from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import ROLL, GameState, Roll, apply, new_game, positions_of, ranking, totals
from dicepoker.rules import get_rules
from dicepoker.winprob import (
    _averaged_over_reroll,
    chances_after,
    school,
    win_chances,
    win_probability,
)
from dicepoker.winprob.school import (
    _backend,
    keep_distributions,
    rest_kurtosis,
    school_distributions,
    spread_table,
    turn_ends,
)

RULES = get_rules("school", {})
BENCH = Path(__file__).resolve().parents[1] / "tools" / "fit" / "winprob.py"


def bench(path: Path = BENCH, name: str = "winprob_bench") -> ModuleType:
    """tools/fit/winprob.py (or another script beside it) as a module (they are scripts,
    not a package)."""
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def played(players: int, seed: int, turns: int, levels: str = "greedy") -> GameState:
    """A School game of `levels` bots after `turns` moves, the next mover before its first roll."""
    state = new_game(RULES, [f"p{i}" for i in range(players)])
    bot, dice = make_bot(levels), SeededDice(seed)
    while state.turn < turns and not state.finished:
        state = apply(state, bot.choose(state), dice)
    return state


def richer(state: GameState, seat: int, points: int) -> GameState:
    """`state` with `points` more in `seat`'s reserve (the reserve counts toward the total)."""
    sheets = list(state.sheets)
    sheets[seat] = sheets[seat]._replace(reserve=sheets[seat].reserve + points)
    return state._replace(sheets=tuple(sheets))


@pytest.mark.parametrize(("players", "turns"), [(2, 0), (2, 37), (3, 50), (3, 121), (4, 90)])
def test_chances_sum_to_one(players: int, turns: int) -> None:
    state = played(players, seed=turns, turns=turns)
    for position in (state, apply(state, ROLL, SeededDice(1))):
        chances = win_probability(position)
        assert chances is not None and len(chances) == players
        assert sum(chances) == pytest.approx(1.0, abs=1e-9)
        assert all(0.0 <= c <= 1.0 for c in chances)


def test_a_seat_far_ahead_near_the_end_is_nearly_sure() -> None:
    state = played(2, seed=4, turns=2 * RULES.cells - 6)  # three turns left each
    now = totals(state)
    for seat in (0, 1):
        ahead = richer(state, seat, max(0, now[1 - seat] - now[seat]) + 400)
        chances = win_probability(ahead)
        assert chances is not None and chances[seat] > 0.99


def test_a_forfeited_seat_has_no_chance() -> None:
    state = played(3, seed=5, turns=30)
    out = state._replace(forfeited=(2,))
    chances = win_probability(out)
    assert chances is not None and chances[2] == 0.0
    assert sum(chances) == pytest.approx(1.0)
    assert school_distributions(out)[2] is None


def test_a_finished_game_decided_gives_its_winner_everything() -> None:
    state = played(2, seed=6, turns=2 * RULES.cells)
    assert state.finished
    decided = state._replace(winner=1)  # as a tie-break or a forfeit leaves it
    assert win_probability(decided) == (0.0, 1.0)


def test_a_finished_game_gives_the_leader_everything() -> None:
    state = played(2, seed=6, turns=2 * RULES.cells)
    first = [s.seat for s in ranking(state) if s.place == 1]
    chances = win_probability(state)
    assert chances is not None
    assert [chances[seat] for seat in first] == [1.0 / len(first)] * len(first)


def test_no_turn_left_is_an_exact_total() -> None:
    state = played(2, seed=7, turns=2 * RULES.cells - 1)  # seat 0 is done, seat 1 plays its last
    dists = school_distributions(state)
    done = dists[0]
    assert done is not None and done.sd == 0.0 and done.mean == totals(state)[0]
    last = dists[1]
    assert last is not None and np.all(last.sds == 0.0)  # its last turn, played out exactly


def test_the_symmetric_start_is_even() -> None:
    """At the start the seats differ only by who moves first (measured in the benchmark's 2-player
    expert games: seat 0 won 53.3% of 300, +- 2.9); the model gives the mover its turn
    played out and the other seat its sheet's value, which agree within a few points."""
    for players in (2, 3):
        chances = win_probability(new_game(RULES, [f"p{i}" for i in range(players)]))
        assert chances is not None
        assert max(abs(c - 1 / players) for c in chances) < 0.02


def test_the_turn_played_out_is_the_plans_own_expectation() -> None:
    state = played(2, seed=8, turns=40)
    backend = _backend(RULES)
    ends = turn_ends(backend.planner, state)
    assert ends.weight.sum() == pytest.approx(1.0)
    assert ends.mean == pytest.approx(backend.planner.plan(state).turn_score(), abs=1e-6)
    rolled = apply(state, ROLL, SeededDice(3))
    plan = backend.planner.plan(rolled)
    space = plan.space
    hand = space.hand_index[tuple(sorted(rolled.dice))]
    left = RULES.rolls_per_turn - rolled.rolls
    keep_values = plan.keep_value[left][space.subkeeps[hand]]
    best = int(space.subkeeps[hand][int(np.argmax(keep_values))])
    if float(keep_values.max()) > float(plan.stop[hand, 1]):  # the expert rolls again
        mid = turn_ends(backend.planner, rolled)
        assert mid.weight.sum() == pytest.approx(1.0)
        assert mid.mean == pytest.approx(plan.keep_score(left, best), abs=1e-6)


def test_a_keep_before_its_dice_land() -> None:
    """The mover's distribution once it keeps dice: the plan's own expected points of that keep,
    and chances equal to the average of the chances over the throw (up to the two-turn search
    where the plan stops, and the merging of the turn's ends)."""
    state = apply(played(2, seed=10, turns=50), ROLL, SeededDice(4))
    backend = _backend(RULES)
    plan = backend.planner.plan(state)
    space = plan.space
    left = RULES.rolls_per_turn - state.rolls
    for kept in (tuple(sorted(state.dice))[:3], (), tuple(sorted(state.dice))[:4]):
        keep = space.keep_index[kept]
        ends = turn_ends(backend.planner, state, kept)
        assert ends.weight.sum() == pytest.approx(1.0)
        assert ends.mean == pytest.approx(plan.keep_score(left, keep), abs=1e-6)
        dists = keep_distributions(state, kept)
        mover = dists[state.seat]
        now = totals(state)[state.seat]
        assert mover is not None and mover.mean == pytest.approx(now + ends.mean, abs=0.5)
        if len(kept) >= 3:  # few throws to average over
            positions = positions_of(state.dice, kept)
            averaged = _averaged_over_reroll(state, Roll(positions), (None, None))
            assert win_chances(dists) == pytest.approx(averaged, abs=0.01)
            assert chances_after(state, Roll(positions)) == pytest.approx(win_chances(dists))
    with pytest.raises(ValueError):
        turn_ends(backend.planner, played(2, seed=10, turns=50), ())


def test_the_dice_on_the_table_count() -> None:
    """The mover with five sixes thrown at once (a doubled five of a kind) is far better placed
    than before its roll, and with the dice out for the other seat's turns left nothing changes
    for that seat's own distribution."""
    state = played(2, seed=9, turns=60)
    rolled = apply(state, ROLL, FixedDice((6, 6, 6, 6, 6)))
    before, after = win_probability(state), win_probability(rolled)
    assert before is not None and after is not None
    mover = state.seat
    assert after[mover] > before[mover] + 0.02
    other = 1 - mover
    dists_before, dists_after = school_distributions(state), school_distributions(rolled)
    b, a = dists_before[other], dists_after[other]
    assert b is not None and a is not None and (b.mean, b.sd) == (a.mean, a.sd)
    mine = dists_after[mover]
    assert mine is not None and mine.mean > (dists_before[mover] or mine).mean + 50


def test_a_seat_s_rest_has_twice_the_excess_kurtosis_of_the_measured_margins() -> None:
    """Two independent seats of one spread: their margin has half a seat's excess kurtosis.
    The sheet width without a measurement stays normal."""
    measured = json.loads(
        (Path(school.__file__).parent / "data" / school.SPREAD_FILE).read_text("utf-8")
    )["measured"]["3"]
    for players in (2, 3, 4):
        margin = measured[str(players)]["scaled_kurtosis"]
        assert margin > 4.0  # heavy tails: why the rest is not one normal
        assert rest_kurtosis(RULES, players) == pytest.approx(3 + 2 * (margin - 3))
    assert rest_kurtosis(get_rules("school", {"columns": 1}), 2) == 3.0


def test_the_spread_grows_with_the_turns_left() -> None:
    for players in (2, 3, 4):
        table = np.array(spread_table(RULES, players))
        assert len(table) == RULES.cells + 1 and table[0] == 0.0
        assert np.all(np.diff(table) >= 0) and table[-1] > 100


def test_a_small_calibration_run() -> None:
    """100 two-player poker-dice games of experts through the benchmark's own functions (about
    15,000 predictions, but only 100 outcomes: the bounds are those such a run clears with room,
    not the benchmark's deciles). School's pipeline runs in the test below (a whole School game
    of experts costs a minute here)."""
    module = bench()
    records = module.run_games("poker-dice", ("expert", "expert"), list(range(100)), 1)
    flat = module.Flat.of(records)
    brier = module.brier(flat.p, flat.y)
    base = module.baselines(flat)
    assert brier < 0.21
    assert base["model_held"] < base["baseline"]
    assert np.allclose(flat.p.reshape(-1, 2).sum(axis=1), 1.0)
    table = module.reliability(flat.p, flat.y)
    assert sum(row["count"] for row in table) == len(flat.p)
    # Coarse: what is predicted above one half happens more often than not, and below, less.
    high = flat.p > 0.5
    assert flat.y[high].mean() > 0.5 > flat.y[~high & (flat.p < 0.5)].mean()


def test_what_noise_alone_would_flag() -> None:
    """The benchmark's account of chance: a decile whose standard error is half the target gap
    is flagged by noise 4.55 % of the time (two standard errors); deciles too small to be
    flagged, or (with 2 seats) above one half, the mirror of those below, do not count."""
    module = bench()
    gap = module.FLAG_GAP

    def row(decile: int, se: float, count: int = 10_000) -> dict[str, float]:
        return {"decile": decile, "se": se, "count": count}

    expected, some = module.noise_flags([row(2, gap / 2)], 3)
    assert expected == pytest.approx(0.0455, abs=1e-4) and some == pytest.approx(expected)
    expected, some = module.noise_flags([row(2, gap / 2), row(7, gap / 2)], 3)
    assert expected == pytest.approx(2 * 0.0455, abs=1e-4)
    assert some == pytest.approx(1 - (1 - 0.0455) ** 2, abs=1e-4)
    assert module.noise_flags([row(2, gap / 2), row(7, gap / 2)], 2)[0] == pytest.approx(
        0.0455, abs=1e-4
    )
    assert [r["decile"] for r in module.counted([row(2, 0.1), row(7, 0.1)], 2)] == [2]
    assert module.noise_flags([row(2, gap / 2, count=module.FLAG_COUNT - 1)], 3) == (0.0, 0.0)
    assert module.noise_flags([row(2, gap / 100)], 3)[1] < 1e-12


def test_the_benchmark_runs_with_few_games(capsys: pytest.CaptureFixture[str]) -> None:
    module = bench()
    args = "--variants school --players 3 --matchups greedy --games 1 --workers 1 --seed 3"
    report = module.main(args.split())
    out = capsys.readouterr().out
    assert out.startswith("$ python")
    assert "school 3p expert-expert-greedy" in out
    (row,) = report["sets"]
    assert row["predictions"] > 0 and 0 <= row["brier"] <= 1
    assert "flagged deciles:" in out and row["flagged"] == sum(
        r["flag"] for r in row["reliability"]
    )  # (3 seats: every decile counts; with 2 only those below one half)
    by_level = row["reliability_by_level"]  # each level's own table: its seats' rows
    assert set(by_level) == {"expert", "greedy"}
    counts = [sum(r["count"] for r in by_level[level]) for level in ("expert", "greedy")]
    assert counts[0] == 2 * counts[1] and sum(counts) == row["predictions"]


def test_sheet_reserve_trick_is_a_total() -> None:
    """(The far-ahead test adds points through the reserve, which counts toward the total.)"""
    state = played(2, seed=4, turns=10)
    assert totals(richer(state, 0, 100))[0] == totals(state)[0] + 100


def test_the_skill_fit_chooses_the_best_calibrated_handicap() -> None:
    """`--fit-skill`'s refinement on a few poker-dice games of the expert against greedy: the
    handicap chosen on the grid is calibrated at least as well as the moments' fit by the
    benchmark's own measure, which is 0 for outcomes equal to the predictions and grows with a
    bias; the games' standard error is the usual one when every row is its own game."""
    from concurrent.futures import ProcessPoolExecutor

    module = bench(BENCH.with_name("winprob_skill.py"), "winprob_skill_bench")
    p = np.array([0.1, 0.2, 0.6, 0.9, 0.35, 0.75])
    rows = np.arange(len(p))
    assert module.calibration_error(p, p, rows) == 0.0
    y = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    assert bench().clustered_se(y - p, rows) == pytest.approx(
        np.sqrt(np.sum(((y - p) - (y - p).mean()) ** 2)) / len(p)
    )
    games = module.play_skill("poker-dice", ("expert", "greedy"), list(range(12)))
    assert len(games.pairs) == 12 and len(games.samples) == len(games.game) > 12 * 5
    moments = (0.3, 1.1)
    with ProcessPoolExecutor(max_workers=1) as pool:
        deficit, spread, error, before, met = module.refine("poker-dice", games, moments, pool, 1)
    cells = get_rules("poker-dice").cells
    grid = {(0.3 * a, 1.1 * b) for a in module.DEFICIT_STEPS for b in module.SPREAD_STEPS}
    assert (deficit, spread) in grid
    assert error <= before
    # The rest: one mixture per turns left, of the residuals of greedy's final totals against
    # the expert's expectation (greedy ends below it on the whole), sorted into slices.
    # (`refine` meets the same residuals as `residuals` works out on its own.)
    found = module.residuals(games.samples, games.finals)
    assert sorted(met) == sorted(found)
    rest = module.fit_rest(cells, met)
    assert len(found) > 12 * 5 and all(1 <= left <= cells for left, _r in found)
    assert np.mean([r for _left, r in found]) < 0
    assert len(rest) == cells
    for weights, offsets, spreads in rest:
        assert sum(weights) == pytest.approx(1.0, abs=1e-5)
        assert list(offsets) == sorted(offsets) and min(spreads) >= 1.0
