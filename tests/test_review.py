"""The post-game analysis (`dicepoker.review`): luck and losses account for the score, the curve
of the chances of winning, its swings, the key moments and the verdicts."""

from __future__ import annotations

import pytest

from dicepoker.bots import make_bot
from dicepoker.bots.fallible import points_per_turn
from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, totals
from dicepoker.record import replay
from dicepoker.review import KEY_MOMENTS, VERDICTS, Analysis, analyse, verdict
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game


def played(variant: str, levels: list[str], seed: int) -> dict[str, object]:
    rules = get_rules(variant, {})
    bots = [make_bot(level, seed=seed + seat) for seat, level in enumerate(levels)]
    return play_game(rules, bots, SeededDice(seed)).to_record()


def positions(record: dict[str, object]) -> list[GameState]:
    states: list[GameState] = []
    game = replay(record, observer=lambda state, _action: states.append(state))
    return [*states, game.state]


@pytest.mark.parametrize(
    ("variant", "levels"),
    [("yahtzee", ["greedy", "casual"]), ("poker-dice", ["random", "advanced", "expert"])],
)
def test_luck_and_losses_account_for_the_score(variant: str, levels: list[str]) -> None:
    """With the exact solver a seat's final total is the expected score of its first turn, plus
    the luck of its rolls, less the expected points its decisions lost (to rounding)."""
    record = played(variant, levels, seed=11)
    analysis = analyse(record)
    final = totals(positions(record)[-1])
    for seat in range(len(levels)):
        rolls = [r for r in analysis.rolls if r.seat == seat]
        lost = sum(d.best_value - d.value for d in analysis.decisions if d.seat == seat)
        luck = sum(r.luck for r in rolls)
        assert rolls[0].roll == 1 and rolls[0].turn == seat + 1
        assert final[seat] == pytest.approx(rolls[0].expected_before + luck - lost, abs=1e-6)
        assert analysis.players[seat].luck == pytest.approx(luck)
    # A roll's luck is the change of its expected score; the next decision starts from it.
    by_place = {(d.turn, d.roll): d for d in analysis.decisions}
    for roll in analysis.rolls:
        decision = by_place.get((roll.turn, roll.roll))
        if decision is not None:
            assert decision.best_value == pytest.approx(roll.expected_after)


def test_the_curve_follows_the_game_and_the_decisions_sit_on_it() -> None:
    record = played("yahtzee", ["beginner", "expert"], seed=5)
    analysis = analyse(record, ["beginner", None])
    states = positions(record)
    assert len(analysis.curve) == len(states)
    first, last = analysis.curve[0], analysis.curve[-1]
    assert (first.turn, first.roll) == (0, 0) and first.chances[0] < 0.2  # a beginner's
    assert abs(analyse(record).curve[0].chances[0] - 0.5) < 0.05  # judged as two experts
    winner = max(range(2), key=lambda seat: totals(states[-1])[seat])
    assert last.chances[winner] == 1.0 and last.turn == len(record["turns"])  # type: ignore[arg-type]
    for point in analysis.curve:
        assert sum(point.chances) == pytest.approx(1.0)
    at = {(p.turn, p.roll): p.chances for p in analysis.curve}
    for decision in analysis.decisions:
        assert decision.win_before == at[(decision.turn - 1, decision.roll)]
        assert decision.win_after is not None and sum(decision.win_after) == pytest.approx(1.0)
        assert decision.win_lost is not None and decision.win_lost >= 0.0
    for roll in analysis.rolls:
        assert roll.win_after == at[(roll.turn - 1, roll.roll)][roll.seat]
    # The swings are the curve's largest moves, largest first.
    assert 1 <= len(analysis.swings) <= 3
    moves = sorted(
        (
            max(abs(a - b) for a, b in zip(p.chances, q.chances, strict=True))
            for p, q in zip(analysis.curve, analysis.curve[1:], strict=False)
        ),
        reverse=True,
    )
    assert [abs(s.change) for s in analysis.swings] == pytest.approx(moves[: len(analysis.swings)])
    for swing in analysis.swings:
        before, after = analysis.curve[swing.index - 1], analysis.curve[swing.index]
        assert after.chances[swing.seat] - before.chances[swing.seat] == pytest.approx(swing.change)
        assert (swing.turn, swing.roll) == (after.turn, after.roll)
        assert swing.cause == ("roll" if after.roll > 0 else "decision")


def test_key_moments_are_the_costliest_decisions() -> None:
    analysis = analyse(played("yahtzee", ["random", "beginner"], seed=2))
    for player in analysis.players:
        mine = sorted((d.loss for d in analysis.decisions if d.seat == player.seat), reverse=True)
        data = player.as_json()
        assert [d["loss"] for d in data["key_moments"]] == pytest.approx(
            mine[:KEY_MOMENTS], abs=1e-4
        )
        assert data["verdict"] == "weak"  # both far from the expert
        assert data["win_lost"] > 0


def test_a_solitaire_game_has_no_chances_and_the_expert_is_perfect() -> None:
    analysis = analyse(played("yahtzee15", ["expert"], seed=3))
    assert analysis.curve == [] and analysis.swings == []
    player = analysis.players[0].as_json()
    assert player["verdict"] == "perfect" and player["expected_loss"] == 0
    assert player["luck_win"] is None and player["win_lost"] is None
    assert all(d.win_before is None and d.win_lost is None for d in analysis.decisions)
    assert all(r.win_before is None and r.luck_win is None for r in analysis.rolls)


def test_verdict_bounds_scale_with_a_turn() -> None:
    rules = get_rules("yahtzee", {})
    turn = points_per_turn(rules)
    names = [name for name, _ in VERDICTS]
    assert [verdict(bound * turn * 0.99, turn) for _, bound in VERDICTS[:-1]] == names[:-1]
    assert verdict(10 * turn, turn) == "weak" and verdict(0.0, turn) == "perfect"
    # The same share of a poker-dice turn, whose points are small, is the same verdict.
    small = points_per_turn(get_rules("poker-dice", {}))
    assert verdict(0.05 * small, small) == verdict(0.05 * turn, turn) == "decent"


def test_a_school_game_with_rivals() -> None:
    """School: the expert's plan values the options (its losses on its own measure), the
    chances come from the School model; the decisions are the same as the puzzles expect (every
    one but a turn's first roll)."""
    record = played("school", ["expert", "greedy"], seed=8)
    analysis: Analysis = analyse(record, [None, "greedy"])
    assert analysis.method == "expectimax"
    assert analysis.players[0].loss == pytest.approx(0.0, abs=1e-6)
    assert analysis.players[1].loss > 0
    states = positions(record)
    assert len(analysis.curve) == len(states)
    rolled = sum(len(turn["rolls"]) for turn in record["turns"])  # type: ignore[attr-defined,misc]
    assert len(analysis.rolls) == rolled
    assert len(analysis.decisions) == rolled  # the keeps before each reroll, and the move
    data = analysis.as_json()
    assert {p["verdict"] for p in data["players"]} <= {name for name, _ in VERDICTS}
    assert data["rolls_per_turn"] == 3
