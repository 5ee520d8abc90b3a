"""Game records: the golden examples, bad turns, malformed records and games in progress."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import Move, cell_moves, legal_actions, ranking
from dicepoker.record import (
    Game,
    RecordFormatError,
    RecordTurnError,
    load_record,
    replay,
    summary,
)
from dicepoker.rules import get_rules
from support import (
    LOCAL_EXAMPLES,
    POKER_ROWS,
    PRESET_CASES,
    SHARED_EXAMPLES,
    YAHTZEE_ROWS,
    case_id,
    check_parts,
    previews,
)

NAMES = [
    "poker-dice-3p",
    "school-1c-4p",
    "school-2c-3p",
    "school-3c-1p",
    "school-3c-2p",
    "yahtzee-2p",
    "yahtzee15-1p",
]
SOURCES = {"shared": SHARED_EXAMPLES, "local": LOCAL_EXAMPLES}
GOLDEN = [
    pytest.param(SOURCES[where], name, id=f"{where}-{name}") for where in SOURCES for name in NAMES
]


# --- golden records ----------------------------------------------------------------------------


@pytest.mark.parametrize("where", list(SOURCES))
def test_examples_are_all_there(where: str) -> None:
    folder = SOURCES[where]
    found = sorted(p.name for p in folder.glob("*.json"))
    expected = sorted([f"{n}.json" for n in NAMES] + [f"{n}.expected.json" for n in NAMES])
    assert found == expected


@pytest.mark.parametrize("name", NAMES)
def test_local_copies_match_the_spec(name: str) -> None:
    for suffix in (".json", ".expected.json"):
        shared = json.loads((SHARED_EXAMPLES / f"{name}{suffix}").read_text())
        local = json.loads((LOCAL_EXAMPLES / f"{name}{suffix}").read_text())
        assert shared == local


@pytest.mark.parametrize(("folder", "name"), GOLDEN)
def test_golden_record(folder: Path, name: str) -> None:
    record = load_record(folder / f"{name}.json")
    expected = json.loads((folder / f"{name}.expected.json").read_text())
    game = replay(record)
    result = summary(game.state)
    assert expected["finished"] is True
    for key, value in expected.items():
        assert result[key] == value, key
    assert game.state.finished
    assert result["turns"] == len(record["turns"])
    check_parts(game.state)


@pytest.mark.parametrize(("folder", "name"), GOLDEN)
def test_golden_record_round_trips(folder: Path, name: str) -> None:
    record = load_record(folder / f"{name}.json")
    game = replay(record)
    exported = game.to_record()
    assert exported["turns"] == [
        {key: value for key, value in turn.items() if key in ("rolls", "move", "auto")}
        for turn in _normalised(record)["turns"]
    ]
    again = replay(json.loads(json.dumps(exported)))
    assert again.state == game.state


def _normalised(record: dict[str, Any]) -> dict[str, Any]:
    """The record as `Game.to_record` writes it: no `keep` on a first roll, `keep` on the others."""
    out = copy.deepcopy(record)
    for turn in out["turns"]:
        rolls = turn.get("rolls", [])
        for index, roll in enumerate(rolls):
            if index == 0:
                roll.pop("keep", None)
            else:
                dice = roll.pop("dice")
                keep = roll.pop("keep", [])
                roll.update(keep=keep, dice=dice)
    return out


def test_golden_records_load_from_text_and_bytes() -> None:
    path = LOCAL_EXAMPLES / "yahtzee-2p.json"
    text = path.read_text()
    assert load_record(text) == load_record(path)
    assert load_record(text.encode()) == load_record(path)


# --- a small record to break ---------------------------------------------------------------------


def _yahtzee(turn3: Any, players: int = 1) -> dict[str, Any]:
    return {
        "variant": "yahtzee",
        "options": {},
        "players": [f"P{i}" for i in range(players)],
        "turns": [
            {"rolls": [{"dice": [1, 1, 1, 2, 3]}], "move": "score ones"},
            {
                "rolls": [{"dice": [2, 2, 3, 4, 5]}, {"keep": [0, 1], "dice": [2, 2, 2, 2, 6]}],
                "move": "score twos",
            },
            turn3,
        ],
    }


def _rolls(*later: tuple[list[Any], list[Any]]) -> list[dict[str, Any]]:
    first: list[dict[str, Any]] = [{"dice": [3, 3, 1, 2, 4]}]
    return first + [{"keep": keep, "dice": dice} for keep, dice in later]


GOOD_TURN3 = {"rolls": _rolls(([0, 1], [3, 3, 3, 5, 6])), "move": "score threes"}


def test_the_base_record_is_good() -> None:
    game = replay(_yahtzee(GOOD_TURN3))
    assert game.state.turn == 3
    assert summary(game.state)["totals"] == [3 + 8 + 9]


BAD_TURN3: dict[str, Any] = {
    "held die changed": {"rolls": _rolls(([0, 1], [3, 4, 3, 5, 6])), "move": "score threes"},
    "too many rolls": {
        "rolls": _rolls(([0], [3, 1, 1, 1, 1]), ([0], [3, 2, 2, 2, 2]), ([0], [3, 3, 3, 3, 3])),
        "move": "score threes",
    },
    "keep on the first roll": {
        "rolls": [{"keep": [0], "dice": [3, 3, 1, 2, 4]}],
        "move": "score threes",
    },
    "duplicate keep": {"rolls": _rolls(([0, 0], [3, 3, 3, 5, 6])), "move": "score threes"},
    "keep out of range": {"rolls": _rolls(([0, 5], [3, 3, 3, 5, 6])), "move": "score threes"},
    "negative keep": {"rolls": _rolls(([-1], [3, 3, 3, 5, 6])), "move": "score threes"},
    "keep not integers": {"rolls": _rolls((["0"], [3, 3, 3, 5, 6])), "move": "score threes"},
    "keep true": {
        "rolls": [{"dice": [3, 3, 1, 2, 4]}, {"keep": [True], "dice": [3, 3, 3, 5, 6]}],
        "move": "score threes",
    },
    "keep not a list": {
        "rolls": [{"dice": [3, 3, 1, 2, 4]}, {"keep": 0, "dice": [3, 3, 3, 5, 6]}],
        "move": "score threes",
    },
    "all five kept": {
        "rolls": _rolls(([0, 1, 2, 3, 4], [3, 3, 1, 2, 4])),
        "move": "score threes",
    },
    "die 0": {"rolls": [{"dice": [0, 3, 1, 2, 4]}], "move": "score threes"},
    "die 7": {"rolls": [{"dice": [7, 3, 1, 2, 4]}], "move": "score threes"},
    "four dice": {"rolls": [{"dice": [3, 3, 1, 2]}], "move": "score threes"},
    "six dice": {"rolls": [{"dice": [3, 3, 1, 2, 4, 5]}], "move": "score threes"},
    "die as text": {"rolls": [{"dice": [3, 3, 1, 2, "4"]}], "move": "score threes"},
    "die as float": {"rolls": [{"dice": [3, 3, 1, 2, 4.0]}], "move": "score threes"},
    "die as bool": {"rolls": [{"dice": [3, 3, 1, 2, True]}], "move": "score threes"},
    "dice missing": {"rolls": [{}], "move": "score threes"},
    "later dice out of range": {
        "rolls": _rolls(([0, 1], [3, 3, 9, 5, 6])),
        "move": "score threes",
    },
    "roll not an object": {"rolls": [[3, 3, 1, 2, 4]], "move": "score threes"},
    "rolls not a list": {"rolls": {"dice": [3, 3, 1, 2, 4]}, "move": "score threes"},
    "move with no roll": {"rolls": [], "move": "score threes"},
    "move with no rolls key": {"move": "score threes"},
    "row already full": {"rolls": _rolls(), "move": "score ones"},
    "strike outside school": {"rolls": _rolls(), "move": "strike chance"},
    "zero outside school": {"rolls": _rolls(), "move": "zero threes"},
    "unknown row": {"rolls": _rolls(), "move": "score banana"},
    "school row in yahtzee": {"rolls": _rolls(), "move": "score sum"},
    "move not text": {"rolls": _rolls(), "move": 3},
    "move as a list": {"rolls": _rolls(), "move": ["score", "threes"]},
    "move is a roll": {"rolls": _rolls(), "move": "roll"},
    "move is a hold": {"rolls": _rolls(), "move": "hold 0 1"},
    "move is gibberish": {"rolls": _rolls(), "move": "fly away"},
    "forfeit without a clock": {"rolls": _rolls(), "forfeit": "timeout"},
    "move and forfeit": {"rolls": _rolls(), "move": "score threes", "forfeit": "timeout"},
    "turn not an object": ["score threes"],
    "turn is text": "score threes",
}


@pytest.mark.parametrize("case", list(BAD_TURN3))
def test_bad_turn_is_reported_with_its_number(case: str) -> None:
    record = _yahtzee(BAD_TURN3[case])
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 3
    assert info.value.reason
    assert str(info.value).startswith("turn 3: ")


def test_bad_turn_number_counts_every_seat() -> None:
    # Two players: turn 3 is the first player's second turn.
    record = _yahtzee(BAD_TURN3["held die changed"], players=2)
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 3


def test_turn_without_move_before_the_last() -> None:
    record = _yahtzee(GOOD_TURN3)
    del record["turns"][1]["move"]
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 2


def test_first_bad_turn_wins() -> None:
    record = _yahtzee(BAD_TURN3["die 7"])
    record["turns"][1]["move"] = "score ones"  # turn 2 is bad already
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 2


def _full_yahtzee() -> dict[str, Any]:
    return {
        "variant": "yahtzee",
        "players": ["Solo"],
        "turns": [
            {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": f"score {r}"} for r in YAHTZEE_ROWS
        ],
    }


def test_extra_turn_after_the_end() -> None:
    record = _full_yahtzee()
    game = replay(record)
    assert game.state.finished
    # 1 2 3 4 6 everywhere: ones 1, twos 2, threes 3, fours 4, sixes 6 (16, no upper bonus),
    # small straight 30 (1-2-3-4), chance 16; every other box 0.
    assert summary(game.state)["totals"] == [1 + 2 + 3 + 4 + 6 + 30 + 16]
    record["turns"].append({"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score chance"})
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 14
    record["turns"][-1] = {"rolls": [{"dice": [1, 2, 3, 4, 6]}]}
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 14


def test_forced_joker_in_a_record() -> None:
    record: dict[str, Any] = {
        "variant": "yahtzee",
        "players": ["Solo"],
        "turns": [
            {"rolls": [{"dice": [4, 4, 4, 4, 4]}], "move": "score yahtzee"},
            {"rolls": [{"dice": [6, 6, 6, 6, 6]}], "move": "score chance"},
        ],
    }
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 2
    record["turns"][1]["move"] = "score sixes"
    result = summary(replay(record).state)
    assert result["totals"] == [50 + 30 + 100]
    assert result["yahtzee_bonus"] == [100]
    assert result["jokers"] == [1]


SCHOOL_BAD: dict[str, tuple[list[int], str]] = {
    "combination not made": ([1, 2, 3, 4, 6], "score pair"),
    "school row without a die": ([1, 2, 3, 4, 6], "score fives"),
    "school row without reserve": ([3, 3, 1, 2, 4], "score threes"),
    "zero on a row that can be closed": ([5, 5, 5, 1, 2], "zero fives"),
    "strike a school row": ([1, 2, 3, 4, 6], "strike ones"),
    "zero a combination row": ([1, 2, 3, 4, 6], "zero pair"),
    "unknown row": ([1, 2, 3, 4, 6], "score chance"),
}


@pytest.mark.parametrize("case", list(SCHOOL_BAD))
def test_bad_school_move(case: str) -> None:
    dice, move = SCHOOL_BAD[case]
    record = {
        "variant": "school",
        "options": {"columns": 1},
        "players": ["A", "B"],
        "turns": [
            {"rolls": [{"dice": [6, 6, 6, 6, 2]}], "move": "score four_of_a_kind"},
            {"rolls": [{"dice": dice}], "move": move},
        ],
    }
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 2


def test_poker_dice_third_roll_refused() -> None:
    record = {
        "variant": "poker-dice",
        "players": ["A", "B"],
        "turns": [
            {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score aces"},
            {
                "rolls": [
                    {"dice": [1, 2, 3, 4, 6]},
                    {"keep": [0], "dice": [1, 1, 1, 1, 1]},
                    {"keep": [0], "dice": [1, 2, 2, 2, 2]},
                ],
                "move": "score nines",
            },
        ],
    }
    with pytest.raises(RecordTurnError) as info:
        replay(record)
    assert info.value.turn == 2


# --- malformed records -------------------------------------------------------------------------


@pytest.mark.parametrize("text", [b"not json", b"{", b"", b"[]", b'"text"', b"3", b"null"])
def test_not_a_json_object(text: bytes) -> None:
    with pytest.raises(RecordFormatError):
        load_record(text)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(RecordFormatError):
        load_record(tmp_path / "nowhere.json")


BASE: dict[str, Any] = {"variant": "school", "options": {}, "players": ["A"], "turns": []}

MALFORMED: dict[str, dict[str, Any]] = {
    "unknown variant": {"variant": "chess"},
    "variant missing": {"variant": None},
    "variant not text": {"variant": 5},
    "unknown option": {"options": {"colour": "red"}},
    "unknown yahtzee option": {"variant": "yahtzee", "options": {"columns": 3}},
    "wrong option type": {"options": {"columns": "3"}},
    "bool for an integer": {"options": {"columns": True}},
    "integer for a bool": {"variant": "yahtzee", "options": {"upper_bonus": 1}},
    "columns 7": {"options": {"columns": 7}},
    "columns 0": {"options": {"columns": 0}},
    "options a list": {"options": [["columns", 3]]},
    "negative clock": {"variant": "poker-dice", "options": {"turn_seconds": -1}},
    "players not a list": {"players": "A"},
    "players not text": {"players": [1, 2]},
    "no players": {"players": []},
    "too many players": {"players": ["A", "B", "C", "D", "E"]},
    "too many yahtzee players": {"variant": "yahtzee", "players": [str(i) for i in range(9)]},
    "too many poker-dice players": {"variant": "poker-dice", "players": list("ABCDE")},
    "turns not a list": {"turns": {"0": {}}},
    "turns text": {"turns": "none"},
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_record(case: str) -> None:
    record = {**BASE, **MALFORMED[case]}
    with pytest.raises(RecordFormatError):
        replay(record)
    with pytest.raises(RecordFormatError):
        replay(load_record(json.dumps(record)))


def test_defaults_and_unknown_keys() -> None:
    record = {
        "variant": "school",
        "players": ["A"],
        "seed": 7,
        "clock": {"A": 12},
        "bots": [None],
        "turns": [{"rolls": [{"dice": [1, 1, 1, 1, 1]}], "move": "score five_of_a_kind", "at": 1}],
    }
    game = replay(record)
    assert game.rules.columns == 3
    result = summary(game.state)
    assert result["options"] == {"columns": 3}
    assert result["totals"] == [110]
    exported = game.to_record()
    assert exported["seed"] == 7
    assert replay(exported).state == game.state


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
    result = summary(state)
    # Ana: four 4s (reserve 4) and five 1s thrown again with all dice, (5 + 50) x 2 = 110.
    # Bruno: 6 6 6 6 2 thrown at once, (24 + 20) x 2 = 88, then a strike.
    assert result["totals"] == [114, 88]
    assert result["reserve"] == [4, 0]
    assert result["strikes"] == [0, 1]
    assert result["zeros"] == [0, 0]
    assert result["bonuses"] == [[], []]
    assert result["finished"] is False
    assert result["turns"] == 4
    assert result["winner"] is None
    assert result["to_move"] == {
        "seat": 0,
        "name": "Ana",
        "dice": [3, 3, 6, 2, 5],
        "rolls": 2,
        "rolls_left": 1,
    }
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
    result = summary(replay(record).state)
    assert result["totals"] == [34 + 110 + 88 + 40]


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
    record = _yahtzee({"rolls": _rolls(([0, 1], [3, 3, 3, 5, 6]))})
    state = replay(record).state
    assert not state.finished
    assert (state.turn, state.rolls, state.rolls_left) == (2, 2, 1)
    assert state.dice == (3, 3, 3, 5, 6)
    assert summary(state)["to_move"]["rolls_left"] == 1


def test_record_without_turns_is_a_new_game() -> None:
    choices: list[list[Any] | None] = [[], None]
    for turns in choices:
        record: dict[str, Any] = {"variant": "yahtzee15", "players": ["A", "B"]}
        if turns is not None:
            record["turns"] = turns
        state = replay(record).state
        assert state.turn == 0
        assert not state.finished
        assert summary(state)["totals"] == [0, 0]


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
    result = summary(game.state)
    assert result["finished"] is True
    assert result["winner"] == "A"
    assert result["players"][1]["forfeited"] is True
    assert result["options"] == {"turn_seconds": 60}
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
    tied = summary(replay(record).state)
    assert tied["finished"] is False
    assert tied["totals"] == [5, 5]
    assert tied["tiebreak"]["game"] == 1
    assert tied["tiebreak"]["players"] == ["A", "B"]
    record["turns"] = [
        *turns,
        {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score kings"},  # A: 0
        {"rolls": [{"dice": [6, 6, 6, 1, 2]}], "move": "score aces"},  # B: 3
    ]
    game = replay(record)
    result = summary(game.state)
    assert result["finished"] is True
    assert result["winner"] == "B"
    assert result["totals"] == [5, 5]
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


@pytest.mark.parametrize("case", PRESET_CASES, ids=case_id)
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
    assert summary(again.state) == summary(game.state)
    assert summary(again.state)["finished"] is True
