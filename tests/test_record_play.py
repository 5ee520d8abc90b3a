"""Game records in play: games in progress, keeps and doubling, auto-play, forfeits, tie-breaks,
and the record `Game` writes while a game is played."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, Move, cell_moves, legal_actions, ranking
from dicepoker.record import Game, RecordTurnError, replay
from dicepoker.rules import get_rules
from dicepoker.view import game_view
from support import POKER_ROWS, VARIANT_CASES, case_id, previews


def totals(state: GameState) -> list[int]:
    return [player.total for player in game_view(state).players]


# --- records in progress -----------------------------------------------------------------------

RECORD_MD_EXAMPLE: dict[str, Any] = {
    "variant": "school",
    "options": {"columns": 3},
    "players": ["Ana", "Bruno"],
    "seed": 20240611,
    "bots": [None, "greedy"],
    "turns": [
        {
            "rolls": [{"dice": [4, 4, 2, 4, 6]}, {"keep": [0, 1, 3], "dice": [4, 4, 4, 4, 1]}],
            "move": "score fours",
        },
        {"rolls": [{"dice": [6, 6, 6, 6, 2]}], "move": "score four_of_a_kind"},
        {
            "rolls": [
                {"dice": [3, 1, 5, 3, 2]},
                {"keep": [0, 3], "dice": [3, 2, 6, 3, 5]},
                {"dice": [1, 1, 1, 1, 1]},
            ],
            "move": "score five_of_a_kind",
        },
        {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "strike large_straight"},
        {"rolls": [{"dice": [3, 3, 5, 1, 2]}, {"keep": [0, 1], "dice": [3, 3, 6, 2, 5]}]},
    ],
}


def test_record_in_progress() -> None:
    game = replay(RECORD_MD_EXAMPLE)
    state = game.state
    assert not state.finished
    assert state.seat == 0
    assert state.rolls == 2
    assert state.dice == (3, 3, 6, 2, 5)
    view = game_view(state)
    # Ana: four 4s (reserve 4) and five 1s thrown again with all dice, (5 + 50) x 2 = 110.
    # Bruno: 6 6 6 6 2 thrown at once, (24 + 20) x 2 = 88, then a strike.
    assert [player.total for player in view.players] == [114, 88]
    assert [sheet.breakdown.reserve for sheet in view.sheets] == [4, 0]
    assert [sheet.breakdown.strikes for sheet in view.sheets] == [0, 1]
    assert [sheet.breakdown.zeros for sheet in view.sheets] == [0, 0]
    assert [sheet.bonuses for sheet in view.sheets] == [[], []]
    assert view.finished is False
    assert view.turn_number == 4
    assert view.winner is None
    assert view.turn is not None
    assert view.players[view.turn.seat].name == "Ana"
    assert (view.turn.dice, view.turn.rolls, view.turn.rolls_left) == ([3, 3, 6, 2, 5], 2, 1)
    # Ana may close threes with her reserve: 4 - 3 = 1.
    assert Move("score", "threes") in cell_moves(state)
    assert previews(state)["score threes"].reserve == 1
    # Exported, the record reads back to the same position.
    exported = game.to_record()
    assert exported["turns"][-1] == RECORD_MD_EXAMPLE["turns"][-1]
    assert replay(exported).state == state


def test_keep_on_rolls_and_doubling() -> None:
    record: dict[str, Any] = {
        "variant": "school",
        "players": ["A"],
        "turns": [
            # An empty keep on the first roll is accepted; thrown at once: 17 x 2 = 34.
            {"rolls": [{"keep": [], "dice": [1, 2, 3, 5, 6]}], "move": "score sum"},
            # A later roll without keep re-rolls all five: doubled again, 110.
            {
                "rolls": [
                    {"dice": [1, 2, 3, 4, 6]},
                    {"keep": [0], "dice": [1, 1, 2, 3, 4]},
                    {"dice": [1, 1, 1, 1, 1]},
                ],
                "move": "score five_of_a_kind",
            },
            # A later roll with an explicit empty keep: the same.
            {
                "rolls": [{"dice": [1, 2, 3, 4, 6]}, {"keep": [], "dice": [6, 6, 6, 6, 2]}],
                "move": "score four_of_a_kind",
            },
            # Held dice: not doubled.
            {
                "rolls": [{"dice": [5, 5, 5, 1, 2]}, {"keep": [0, 1, 2], "dice": [5, 5, 5, 5, 2]}],
                "move": "score four_of_a_kind",
            },
        ],
    }
    assert totals(replay(record).state) == [34 + 110 + 88 + 40]


def test_auto_flag_survives_a_replay() -> None:
    record: dict[str, Any] = {
        "variant": "poker-dice",
        "players": ["A", "B"],
        "turns": [
            {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score aces", "auto": True},
            {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score aces"},
        ],
    }
    exported = replay(record).to_record()
    assert exported["turns"][0].get("auto") is True
    assert "auto" not in exported["turns"][1]


def test_turn_in_progress_in_yahtzee() -> None:
    record = {
        "variant": "yahtzee",
        "players": ["P0"],
        "turns": [
            {"rolls": [{"dice": [1, 1, 1, 2, 3]}], "move": "score ones"},
            {
                "rolls": [{"dice": [2, 2, 3, 4, 5]}, {"keep": [0, 1], "dice": [2, 2, 2, 2, 6]}],
                "move": "score twos",
            },
            {"rolls": [{"dice": [3, 3, 1, 2, 4]}, {"keep": [0, 1], "dice": [3, 3, 3, 5, 6]}]},
        ],
    }
    state = replay(record).state
    assert not state.finished
    assert (state.turn, state.rolls, state.rolls_left) == (2, 2, 1)
    assert state.dice == (3, 3, 3, 5, 6)
    turn = game_view(state).turn
    assert turn is not None and turn.rolls_left == 1


def test_record_without_turns_is_a_new_game() -> None:
    choices: list[list[Any] | None] = [[], None]
    for turns in choices:
        record: dict[str, Any] = {"variant": "yahtzee15", "players": ["A", "B"]}
        if turns is not None:
            record["turns"] = turns
        state = replay(record).state
        assert state.turn == 0
        assert not state.finished
        assert totals(state) == [0, 0]


# --- poker-dice: forfeits and tie-breaks in records ---------------------------------------------


def test_forfeit_in_a_record() -> None:
    record: dict[str, Any] = {
        "variant": "poker-dice",
        "options": {"turn_seconds": 60},
        "players": ["A", "B"],
        "turns": [
            {"rolls": [{"dice": [1, 1, 1, 1, 1]}], "move": "score five_of_a_kind"},
            {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "forfeit": "timeout"},
        ],
    }
    game = replay(record)
    view = game_view(game.state)
    assert view.finished is True
    assert view.winner == 0
    assert view.players[1].forfeited is True
    assert view.rules.options == {"turn_seconds": 60}
    assert replay(game.to_record()).state == game.state
    record["turns"].append({"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score aces"})
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 3


def test_tiebreak_turns_follow_in_the_record() -> None:
    rows = list(POKER_ROWS)
    turns: list[dict[str, Any]] = []
    for row in rows:
        for _ in range(2):
            turns.append({"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": f"score {row}"})
    record: dict[str, Any] = {"variant": "poker-dice", "players": ["A", "B"], "turns": turns}
    # 1 2 3 4 6: one die in each of nines, tens, jacks, queens, aces; nothing else.
    tied = game_view(replay(record).state)
    assert tied.finished is False
    assert [player.total for player in tied.players] == [5, 5]
    assert tied.tiebreak is not None
    assert tied.tiebreak.game == 1
    assert tied.tiebreak.seats == [0, 1]
    record["turns"] = [
        *turns,
        {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score kings"},  # A: 0
        {"rolls": [{"dice": [6, 6, 6, 1, 2]}], "move": "score aces"},  # B: 3
    ]
    game = replay(record)
    result = game_view(game.state)
    assert result.finished is True
    assert result.winner == 1
    assert [player.total for player in result.players] == [5, 5]
    assert [s.seat for s in ranking(game.state)] == [1, 0]
    assert replay(game.to_record()).state == game.state


# --- Game records what is played ---------------------------------------------------------------


def test_game_writes_a_record_that_replays() -> None:
    game = Game(get_rules("school", {"columns": 1}), ["A", "B"], SeededDice(3), extra={"seed": 3})
    game.play("roll")
    game.play("hold 0 1")
    game.play("strike sum")
    game.play("roll")
    record = game.to_record()
    assert record["variant"] == "school"
    assert record["options"] == {"columns": 1}
    assert record["seed"] == 3
    assert len(record["turns"]) == 2
    first = record["turns"][0]
    assert first["move"] == "strike sum"
    assert "keep" not in first["rolls"][0]
    assert first["rolls"][1]["keep"] == [0, 1]
    assert first["rolls"][1]["dice"][:2] == first["rolls"][0]["dice"][:2]
    assert "move" not in record["turns"][1]
    assert replay(record).state == game.state
    assert replay(json.loads(json.dumps(record))).state == game.state


@pytest.mark.parametrize("case", VARIANT_CASES, ids=case_id)
def test_finished_games_replay(case: tuple[str, dict[str, object]]) -> None:
    name, options = case
    game = Game(get_rules(name, options), ["A", "B"], SeededDice(21))
    rng = random.Random(21)
    while not game.state.finished:
        game.play(rng.choice(legal_actions(game.state)))
    record = game.to_record()
    assert all("move" in turn for turn in record["turns"])
    again = replay(json.loads(json.dumps(record)))
    assert again.state == game.state
    assert game_view(again.state) == game_view(game.state)
    assert game_view(again.state).finished is True
