"""Records read strictly and checked whole: strict JSON text, the typed record (`Record`), what
`check_record` accepts and refuses, and `dicepoker replay --json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dicepoker.cli import app
from dicepoker.protocol import MAX_DEPTH, JSONTextError, Record, Replayed, strict_loads
from dicepoker.record import (
    RecordFormatError,
    RecordTurnError,
    check_record,
    load_record,
    replay,
)
from dicepoker.view import game_view

EXAMPLES = Path(__file__).parent / "golden" / "spec_examples"
NAMES = sorted(p.name.removesuffix(".json") for p in EXAMPLES.glob("*.json") if "." not in p.stem)

SMALL = '{"variant": "yahtzee", "players": ["A"], "turns": [], "x": %s}'


def nested(depth: int) -> str:
    """A list nested `depth` levels deep (a top-level object is level 1: this sits at 2..)."""
    return "[" * depth + "]" * depth


# --- strict JSON text ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',
        '{"a": {"b": 1, "b": 1}}',
        '[{"k": 1, "k": 1}]',
        '{"a": NaN}',
        '{"a": Infinity}',
        '{"a": -Infinity}',
        '{"a": 1e999}',
        '{"a": -1e999}',
        '{"a": "\\ud800"}',
        '{"a": ["ok", "\\udfff"]}',
        '{"\\ud83d": 1}',
        '{"a": "\\ud83d\\u0041"}',  # a high surrogate followed by a letter, not its pair
        nested(MAX_DEPTH + 1),
        nested(100_000),
        "",
        "{",
    ],
)
def test_strict_json_refuses(text: str) -> None:
    with pytest.raises(JSONTextError):
        strict_loads(text)
    with pytest.raises(JSONTextError):
        strict_loads(text.encode())


def test_strict_json_accepts_what_json_is() -> None:
    assert strict_loads(nested(MAX_DEPTH)) == json.loads(nested(MAX_DEPTH))
    assert strict_loads('{"a": "\\ud83c\\udfb2 Zoë", "b": 1.5, "c": 10000000000000000000000}') == {
        "a": "🎲 Zoë",
        "b": 1.5,
        "c": 10**22,
    }
    assert strict_loads("\ufeff[1]".encode()) == [1]  # a UTF-8 byte order mark
    assert strict_loads('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}  # not duplicates


def test_bytes_are_utf8() -> None:
    for raw in [b'"\xed\xa0\x80"', b'"\xff"', b'"\xc3"', "[1]".encode("utf-16")]:
        with pytest.raises(JSONTextError, match="UTF-8"):
            strict_loads(raw)


@pytest.mark.parametrize(
    "value",
    ['"\\ud800"', "NaN", "1e999", nested(MAX_DEPTH), '{"k": 1, "k": 2}'],
)
def test_load_record_refuses_what_could_not_be_sent_back(value: str) -> None:
    """The record's own keys are one level down: a value nested MAX_DEPTH deep is too deep."""
    with pytest.raises(RecordFormatError):
        load_record(SMALL % value)


def test_load_record_refuses_a_duplicate_record_key() -> None:
    text = '{"variant": "yahtzee", "players": ["A"], "players": ["A", "B"], "turns": []}'
    with pytest.raises(RecordFormatError, match="duplicate key 'players'"):
        load_record(text)


def test_load_record_refuses_a_lone_surrogate_in_a_name(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_text('{"variant": "yahtzee", "players": ["Ana\\udc80"], "turns": []}')
    with pytest.raises(RecordFormatError, match="surrogate"):
        load_record(path)


# --- the typed record ------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_golden_records_are_records(name: str) -> None:
    record = load_record(EXAMPLES / f"{name}.json")
    typed, game = check_record(record)
    assert isinstance(typed, Record)
    assert typed.to_data() == record
    assert game.state == replay(record).state


def test_a_record_keeps_keys_it_does_not_know() -> None:
    record: dict[str, Any] = {
        "variant": "school",
        "players": ["A"],
        "seed": 7,
        "bots": [None],
        "fair_dice": {"scheme": "x", "commitment": "y"},
        "turns": [
            {"rolls": [{"dice": [1, 1, 1, 1, 1], "at": 3}], "move": "score five_of_a_kind", "t": 1}
        ],
    }
    typed, _game = check_record(record)
    assert typed.to_data() == record
    assert typed.model_extra == {"seed": 7, "bots": [None], "fair_dice": record["fair_dice"]}
    assert json.loads(typed.to_json()) == record


def test_old_records_that_were_valid_still_are() -> None:
    """null where the contract allows a missing key: options, turns, rolls, keep, move."""
    record = {
        "variant": "yahtzee",
        "options": None,
        "players": ["A"],
        "turns": [
            {"rolls": [{"keep": None, "dice": [1, 1, 1, 2, 3]}], "move": "score ones"},
            {"rolls": None, "move": None},
        ],
    }
    typed, game = check_record(record)
    assert typed.to_data() == record
    assert game.state.turn == 1


@pytest.mark.parametrize(
    ("turn", "why"),
    [
        ({"rolls": [{"dice": [1, 1, 1, 2, 3]}], "move": "score ones", "auto": "yes"}, "auto"),
        ({"rolls": [{"dice": [1, 1, 1, 2, 3]}], "move": "score ones", "auto": 1}, "auto"),
    ],
)
def test_check_record_refuses_what_the_replay_does_not_read(turn: Any, why: str) -> None:
    """The replay reads `auto` only when it is true; the typed record refuses other values."""
    record = {"variant": "yahtzee", "players": ["A"], "turns": [turn]}
    replay(record)  # the engine alone lets it through
    with pytest.raises(RecordTurnError) as info:
        check_record(record)
    assert info.value.turn == 1
    assert why in info.value.reason


def test_check_record_reports_the_engine_first() -> None:
    record = {
        "variant": "yahtzee",
        "players": ["A"],
        "turns": [{"rolls": [{"dice": [1, 1, 1, 2, 9]}], "move": "score ones", "auto": "no"}],
    }
    with pytest.raises(RecordTurnError, match="turn 1: roll 1: 'dice' must be 5 integers"):
        check_record(record)
    with pytest.raises(RecordFormatError):
        check_record({"variant": "yahtzee", "players": ["A\ud800"]})


def test_the_record_body_schema() -> None:
    schema = Record.model_json_schema()
    assert set(schema["required"]) == {"variant", "players"}
    assert schema["additionalProperties"] is True
    turn = schema["$defs"]["RecordTurn"]["properties"]
    assert {"rolls", "move", "forfeit", "auto"} <= set(turn)


# --- dicepoker replay --json ---------------------------------------------------------------------


def test_replay_json_prints_the_record_and_the_view(tmp_path: Path) -> None:
    source = EXAMPLES / "school-3c-2p.json"
    record = load_record(source)
    partial = {**record, "turns": record["turns"][:9]}
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(partial))
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 0, result.output
    printed = Replayed.model_validate_json(result.stdout)
    assert printed.record.to_data() == partial
    assert printed.state == game_view(replay(partial).state)
    assert printed.state.turn is not None and printed.state.turn_number == 9
    assert json.loads(result.stdout) == json.loads(printed.to_json())
    assert printed.finished is False
    assert printed.totals == [player.total for player in printed.state.players]
    assert printed.players == printed.state.players
    assert printed.variant == "school" and printed.options == {"columns": 3}
    assert printed.reserve == [sheet.breakdown.reserve for sheet in printed.state.sheets]
    assert printed.bonuses == [list(sheet.bonuses) for sheet in printed.state.sheets]


def test_replay_json_gives_every_fact_of_each_example_s_expected_result() -> None:
    """A script compares `replay --json` with `NAME.expected.json` key by key: every key the
    expected result names is at the top level, with the same value."""
    sources = [s for s in sorted(EXAMPLES.glob("*.json")) if not s.name.endswith(".expected.json")]
    assert len(sources) == 7
    for source in sources:
        result = CliRunner().invoke(app, ["replay", str(source), "--json"])
        assert result.exit_code == 0, result.output
        printed = json.loads(result.stdout)
        expected = json.loads(source.with_name(source.stem + ".expected.json").read_text())
        assert set(expected) <= set(printed), (source.name, set(expected) - set(printed))
        for key, value in expected.items():
            assert printed[key] == value, (source.name, key)
        seats = len(printed["record"]["players"])
        # Each player with its name, total and place, as a script reading a result expects.
        players = printed["players"]
        assert [p["name"] for p in players] == printed["record"]["players"], source.name
        assert [p["total"] for p in players] == expected["totals"], source.name
        for key in (
            "players",
            "totals",
            "reserve",
            "zeros",
            "strikes",
            "bonuses",
            "upper_bonus",
            "jokers",
        ):
            assert len(printed[key]) == seats, (source.name, key)


def test_replay_refuses_a_record_with_duplicate_keys(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text('{"variant": "yahtzee", "players": ["A"], "turns": [], "turns": []}')
    result = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert result.exit_code == 1
    assert "duplicate key 'turns'" in result.output
