"""Game records: the golden examples, bad turns and malformed records (games in progress, forfeits,
tie-breaks and what `Game` writes: tests/test_record_play.py; strict reading and the typed record:
tests/test_record_strict.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from dicepoker.engine import GameState
from dicepoker.record import (
    RecordFormatError,
    RecordTurnError,
    load_record,
    replay,
)
from dicepoker.view import game_view
from support import (
    LOCAL_EXAMPLES,
    YAHTZEE_ROWS,
    check_parts,
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
GOLDEN = [pytest.param(LOCAL_EXAMPLES, name, id=name) for name in NAMES]


def facts(state: GameState) -> dict[str, Any]:
    """What the examples' `.expected.json` files state, read off the position's view (the API's
    own shape): every value they pin must be visible to an interface."""
    view = game_view(state)
    sheets = view.to_data()["sheets"]
    return {
        "variant": view.rules.variant,
        "options": view.rules.options,
        "finished": view.finished,
        "turns": view.turn_number,
        "totals": [player.total for player in view.players],
        "reserve": [sheet["breakdown"]["reserve"] for sheet in sheets],
        "zeros": [sheet["breakdown"]["zeros"] for sheet in sheets],
        "strikes": [sheet["breakdown"]["strikes"] for sheet in sheets],
        "bonuses": [sheet["bonuses"] for sheet in sheets],
        "upper_bonus": [sheet["breakdown"]["upper_bonus"] for sheet in sheets],
        "yahtzee_bonus": [sheet["breakdown"]["yahtzee_bonus"] for sheet in sheets],
        "jokers": [sheet["jokers"] for sheet in sheets],
    }


def totals(state: GameState) -> list[int]:
    return [player.total for player in game_view(state).players]


# --- golden records ----------------------------------------------------------------------------


def test_examples_are_all_there() -> None:
    """The project keeps its own copies of the contract's examples (tests/golden/spec_examples):
    every example record with its expected results, nothing read from outside the repository."""
    found = sorted(p.name for p in LOCAL_EXAMPLES.glob("*.json"))
    expected = sorted([f"{n}.json" for n in NAMES] + [f"{n}.expected.json" for n in NAMES])
    assert found == expected


@pytest.mark.parametrize(("folder", "name"), GOLDEN)
def test_golden_record(folder: Path, name: str) -> None:
    record = load_record(folder / f"{name}.json")
    expected = json.loads((folder / f"{name}.expected.json").read_text())
    game = replay(record)
    result = facts(game.state)
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
    assert totals(game.state) == [3 + 8 + 9]


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
    assert totals(game.state) == [1 + 2 + 3 + 4 + 6 + 30 + 16]
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
    result = facts(replay(record).state)
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
    result = facts(game.state)
    assert result["options"] == {"columns": 3}
    assert result["totals"] == [110]
    exported = game.to_record()
    assert exported["seed"] == 7
    assert replay(exported).state == game.state
