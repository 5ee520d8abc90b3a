"""Puzzles grade by what they show (issue 55): in a position with rivals a guess is graded by the
chance of winning (what the expert plays for there), in solitaire by expected points, and the
verdict, the star (the answer's `best`) and the figures sent never disagree. Checked over every
variant that has puzzles, alone and with rivals, at a hold and at a cell choice, with the
variant's win-probability tables loaded (as a server's worker has them once warm)."""

from __future__ import annotations

from typing import Any

import pytest

from dicepoker import winprob
from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import legal_actions
from dicepoker.record import replay
from dicepoker.rules import get_rules, variant_names
from dicepoker.server.community.puzzles import (
    GOOD_CHANCE,
    by_chance,
    cut,
    good_within,
    judge,
    position_state,
)
from dicepoker.simulate import play_game

#: Every variant that has puzzles (a puzzle's preset is its game's variant), with the options
#: of its default pool.
KINDS = [(name, {"columns": 1} if name == "school" else {}) for name in variant_names()]


def positions(variant: str, options: dict[str, Any], seats: int) -> list[dict[str, Any]]:
    """Two positions of a game played by a fallible level: a hold after the first roll of the
    fifth record turn, and the cell choice after the last roll of the sixth."""
    rules = get_rules(variant, options)
    bots = [make_bot("casual", seed=5 + seat) for seat in range(seats)]
    record: dict[str, Any] = play_game(rules, bots, SeededDice(23)).to_record()
    turns = record["turns"]
    last = len(turns[5]["rolls"])
    return [cut(record, 4, 1), cut(record, 5, last)]


def figure(option: dict[str, Any], measure: str) -> float:
    value: float = option[measure]
    return value


@pytest.mark.parametrize("seats", [1, 2], ids=["solitaire", "rivals"])
@pytest.mark.parametrize(("variant", "options"), KINDS, ids=[name for name, _ in KINDS])
def test_the_verdict_the_star_and_the_figures_agree(
    variant: str, options: dict[str, Any], seats: int
) -> None:
    rules = get_rules(variant, options)
    winprob.prepare(rules)
    for position in positions(variant, options, seats):
        state, _moves = position_state(position)
        first = judge("p", position, str(legal_actions(state)[0]), "")
        answer = first.model_dump()
        shown = answer["options"]
        chance = by_chance(state, [option.get("win") for option in shown])
        # With rivals and the tables loaded the chance of winning is the measure; alone, points.
        assert chance == (seats > 1)
        measure = "win" if chance else "value"
        good = GOOD_CHANCE if chance else good_within(rules)
        assert answer["good_within"] == pytest.approx(good, abs=1e-4)
        # The star is the option with the best figure shown, first in the list; every loss is
        # the star's figure less the option's, and the list goes from the least loss up.
        best = answer["best"]
        assert best == shown[0] and best["loss"] == 0.0
        top = max(figure(option, measure) for option in shown)
        assert figure(best, measure) == top
        for option in shown:
            assert option["loss"] == pytest.approx(top - figure(option, measure), abs=2e-4)
        losses = [option["loss"] for option in shown]
        assert losses == sorted(losses)
        # The verdict of a guess follows from its loss: the best, one within the margin, and
        # the worst, each judged as a guess.
        within = [option for option in shown if 0 < option["loss"] <= good]
        guesses = [shown[0], *within[:1], shown[-1]]
        for option in guesses:
            graded = judge("p", position, option["action"], "").model_dump()
            chosen = graded["chosen"]
            assert graded["loss"] == chosen["loss"] == option["loss"]
            # Never a guess shown with a figure at least the star's and called worse than best,
            # nor one shown below it by more than the margin and called good.
            if figure(chosen, measure) >= figure(graded["best"], measure):
                assert graded["verdict"] == "best"
            elif graded["loss"] <= good:
                assert graded["verdict"] == "good"
            else:
                assert graded["verdict"] == "mistake"
        assert replay(position).state == state  # the position itself is what was judged


def test_solitaire_never_grades_by_chance_even_where_the_expert_names_one() -> None:
    """In solitaire there is nobody to beat: a chance on every option (the School endgame's
    expert plays for one) does not make it the measure."""
    position = positions("school", {"columns": 1}, 1)[1]
    state, _moves = position_state(position)
    assert not by_chance(state, [0.5, 0.4])
    assert not by_chance(state, [])
