"""One turn count everywhere (issue 55): the analysis says where a decision or a roll was as the
table does ("Turn 12 of 15 · Ana · roll 2": the mover's round of the game's rounds, from
`dicepoker.view.turn_count`), and a decision's link opens the replay viewer at exactly that
position: the same mover, the same round, the same roll."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import GameState
from dicepoker.record import replay
from dicepoker.review import analyse
from dicepoker.rules import get_rules
from dicepoker.server.community.analysis import position, with_links
from dicepoker.simulate import play_game
from dicepoker.view import TurnCount, turn_count


def played(variant: str, options: dict[str, Any], levels: list[str], seed: int) -> dict[str, Any]:
    rules = get_rules(variant, options)
    bots = [make_bot(level, seed=seed + seat) for seat, level in enumerate(levels)]
    record: dict[str, Any] = play_game(rules, bots, SeededDice(seed)).to_record()
    return record


def states_of(record: dict[str, Any]) -> list[GameState]:
    states: list[GameState] = []
    game = replay(record, observer=lambda state, _action: states.append(state))
    return [*states, game.state]


def test_the_count_is_the_movers_round_of_a_sheets_cells() -> None:
    """Every player's k-th turn is round k of as many rounds as a sheet has cells (the record's
    turn index, which counts every player's turns, is never it), and a finished game has none."""
    record = played("school", {"columns": 2}, ["greedy", "casual", "greedy"], seed=3)
    states = states_of(record)
    rules = states[0].rules
    turns_of = dict.fromkeys(range(3), 0)
    for state in states[:-1]:
        count = turn_count(state)
        assert count is not None
        if state.rolls == 0:
            turns_of[state.seat] += 1
        assert count == TurnCount(turns_of[state.seat], rules.cells, state.seat)
    assert all(turns == rules.cells for turns in turns_of.values())
    assert turn_count(states[-1]) is None
    # Fifteen rows in two columns: 30 rounds, while the record counts 90 turns.
    assert (rules.cells, len(record["turns"])) == (30, 90)


@pytest.mark.parametrize(
    ("variant", "options", "levels"),
    [
        ("yahtzee", {}, ["greedy", "casual"]),
        ("school", {"columns": 1}, ["greedy", "random", "casual"]),
        ("poker-dice", {}, ["random"]),
    ],
)
def test_a_decisions_link_opens_the_position_it_names(
    variant: str, options: dict[str, Any], levels: list[str]
) -> None:
    """Each decision and roll of the analysis carries the round the table would show, and the
    API's link (`with_links`) opens the replay at a position whose mover, round and roll are the
    decision's: the replay viewer's words (turns.js) come from that position's view."""
    record = played(variant, options, levels, seed=7)
    states = states_of(record)
    rules = states[0].rules
    analysis = analyse(record).as_json()
    linked = with_links(analysis, "/replay/g/x")
    assert linked["decisions"]
    for decision in linked["decisions"]:
        query = parse_qs(urlsplit(decision["link"]).query)
        turn, roll = int(query["turn"][0]), int(query["roll"][0])
        assert (turn, roll) == (decision["turn"] - 1, decision["roll"])
        shown = position(record, turn, roll)
        assert shown.state.turn is not None
        assert shown.state.turn.seat == decision["seat"]
        assert shown.state.turn.rolls == decision["roll"]
        filled = sum(
            1
            for row in shown.state.sheets[decision["seat"]].rows
            for cell in row.cells
            if cell is not None
        )
        assert decision["round"] == filled + 1
        assert decision["rounds"] == rules.cells
    for player in linked["players"]:
        for moment in player["key_moments"]:
            assert moment["link"].startswith("/replay/g/x?turn=")
            assert moment["round"] >= 1 and moment["rounds"] == rules.cells
    for luck in analysis["rolls"]:
        assert 1 <= luck["round"] <= luck["rounds"] == rules.cells
