"""The wire contract (dicepoker.protocol): a client's messages read strictly, the server's messages
written and read back exactly, the published schema, the refusal codes, and the advisor's and
the dice check's answers described by the REST models."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from dicepoker import engine
from dicepoker.advisor import advise
from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import IllegalActionError
from dicepoker.fair import RECORD_KEY, FairDice, commitment, record_entry, verify_record
from dicepoker.protocol import (
    CODES,
    MAX_MESSAGE_BYTES,
    Act,
    Advice,
    Analysis,
    Auto,
    ChancesMessage,
    ClockView,
    DiceCheck,
    ErrorMessage,
    ErrorResponse,
    EventEntry,
    EventMessage,
    FairDiceView,
    GameView,
    HeldMessage,
    Keep,
    Ping,
    PongMessage,
    ResyncMessage,
    SeatsMessage,
    SeatView,
    Sync,
    SyncMessage,
    WelcomeMessage,
    error,
    error_responses,
    parse_client_message,
    refusal_words,
    server_message,
    ws_schema,
)
from dicepoker.protocol.schema import PUBLISHED
from dicepoker.record import Game, load_record, replay
from dicepoker.review import analyse
from dicepoker.rules import get_rules
from dicepoker.view import game_view

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = Path(__file__).parent / "golden" / "spec_examples"


# --- a client's messages ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"type": "act", "action": "roll", "seq": 3, "ref": "r1"}', Act),
        ('{"type": "act", "action": "keep 0 1"}', Act),
        ('{"type": "auto", "ref": "x"}', Auto),
        ('{"type": "sync", "last_seq": 0}', Sync),
        ('{"type": "keep", "seq": 4, "keep": [0, 3]}', Keep),
        ('{"type": "keep", "seq": 4, "keep": [], "ref": "k1"}', Keep),
        ('{"type": "ping"}', Ping),
    ],
)
def test_good_messages_are_read(text: str, expected: type) -> None:
    message = parse_client_message(text)
    assert isinstance(message, expected)
    assert message.model_dump(exclude_unset=True) == json.loads(text)


BAD_MESSAGES = {
    # Wrong types: lax parsing read these as numbers (true as 1, "0" as 0).
    "seq true": '{"type": "act", "action": "roll", "seq": true}',
    "seq as text": '{"type": "act", "action": "roll", "seq": "0"}',
    "seq as a float": '{"type": "act", "action": "roll", "seq": 1.0}',
    "last_seq as text": '{"type": "sync", "last_seq": "3"}',
    "last_seq false": '{"type": "sync", "last_seq": false}',
    "action a number": '{"type": "act", "action": 5}',
    "ref a number": '{"type": "act", "action": "roll", "ref": 7}',
    # Duplicate keys: they were last-wins.
    "duplicate action": '{"type": "act", "action": "score sum", "action": "roll", "seq": 0}',
    "duplicate type": '{"type": "ping", "type": "act", "action": "roll"}',
    # What JSON is not, or cannot carry back.
    "NaN": '{"type": "act", "action": "roll", "seq": NaN}',
    "Infinity": '{"type": "sync", "last_seq": Infinity}',
    "a huge number": '{"type": "act", "action": "roll", "seq": 1e999}',
    "a lone surrogate": '{"type": "act", "action": "\\ud800"}',
    "a lone surrogate in a key": '{"type": "ping", "\\udc00": 1}',
    "nested": "[" * 1000 + "]" * 1000,
    "not an object": "[1, 2]",
    "null": "null",
    "not JSON": "roll please",
    "empty": "",
    # Shape.
    "unknown key": '{"type": "ping", "extra": 1}',
    "unknown type": '{"type": "dance"}',
    "no type": '{"action": "roll"}',
    "seq negative": '{"type": "act", "action": "roll", "seq": -1}',
    "seq over 32 bits": '{"type": "act", "action": "roll", "seq": 2147483648}',
    "action too long": json.dumps({"type": "act", "action": "x" * 65}),
    # The roller's selection: a seq and a list of positions, nothing else.
    "keep without seq": '{"type": "keep", "keep": [0]}',
    "keep without positions": '{"type": "keep", "seq": 0}',
    "keep a position true": '{"type": "keep", "seq": 0, "keep": [true]}',
    "keep a position as text": '{"type": "keep", "seq": 0, "keep": ["1"]}',
    "keep a negative position": '{"type": "keep", "seq": 0, "keep": [-1]}',
    "keep a position far out": '{"type": "keep", "seq": 0, "keep": [99]}',
    "keep too many positions": json.dumps({"type": "keep", "seq": 0, "keep": [0] * 17}),
    "keep as text": '{"type": "keep", "seq": 0, "keep": "0 1"}',
    "keep a nested list": '{"type": "keep", "seq": 0, "keep": [[0]]}',
}


@pytest.mark.parametrize("case", list(BAD_MESSAGES))
def test_bad_messages_are_refused_with_a_short_reason(case: str) -> None:
    refusal = parse_client_message(BAD_MESSAGES[case])
    assert isinstance(refusal, ErrorMessage)
    assert refusal.code == "bad_message"
    assert refusal.message.startswith("not a valid message: ")
    assert len(refusal.message) <= 200
    json.loads(refusal.to_json())  # the refusal itself can always be sent


def test_the_size_limit_counts_bytes() -> None:
    def padded(size: int, filler: str = " ") -> str:
        head = '{"type": "ping"'
        return head + filler * ((size - len(head.encode()) - 1) // len(filler.encode())) + "}"

    assert isinstance(parse_client_message(padded(MAX_MESSAGE_BYTES)), Ping)
    over = parse_client_message(padded(MAX_MESSAGE_BYTES + 1))
    assert isinstance(over, ErrorMessage) and over.code == "too_large"
    # Characters are not bytes: 2,100 'é' are 4,200 bytes.
    text = json.dumps({"type": "act", "action": "é" * 2100}, ensure_ascii=False)
    assert len(text) < MAX_MESSAGE_BYTES < len(text.encode())
    wide = parse_client_message(text)
    assert isinstance(wide, ErrorMessage) and wide.code == "too_large"


# --- the server's messages -------------------------------------------------------------------


def _view() -> GameView:
    game = Game(get_rules("yahtzee"), ["Ana", "Bea"], SeededDice(4))
    game.play("roll")
    return game_view(game.state, kept=[])


SEATS = [
    SeatView(seat=0, kind="human", name="Ana", level=None, taken=True),
    SeatView(seat=1, kind="bot", name="Greedy 2", level="greedy", taken=True),
]
META: dict[str, Any] = {
    "status": "running",
    "seats": SEATS,
    "clock": ClockView(seat=0, deadline=1764444000123, seconds=60),
    "fair_dice": FairDiceView(scheme="hmac-sha256-v1", commitment="ab" * 32),
}


def server_messages() -> list[Any]:
    state = _view()
    return [
        WelcomeMessage(seat=None, seq=1, **META, state=state),
        EventMessage(seq=1, seat=0, action="roll", auto=False, **META, state=state),
        SyncMessage(seq=1, events=[EventEntry(seq=1, seat=0, action="roll")], **META, state=state),
        SeatsMessage(**{**META, "clock": None, "fair_dice": None}, state=state),
        HeldMessage(seq=1, seat=0, held=[0, 3]),
        ChancesMessage(seq=1, win_probability=[0.62, 0.38]),
        error("stale", "the game has moved on", "r7"),
        error("bad_message", "not a valid message"),
        PongMessage(),
        ResyncMessage(),
    ]


@pytest.mark.parametrize("index", range(10))
def test_server_messages_read_back_exactly(index: int) -> None:
    message = server_messages()[index]
    text = message.to_json()
    data = json.loads(text)
    assert data["type"] == message.type
    again = server_message.validate_json(text)
    assert type(again) is type(message)
    assert again.to_json() == text
    # pydantic's own writer writes the same JSON as the fast one.
    assert json.loads(message.model_dump_json()) == data


def test_an_error_without_ref_has_no_ref_key_and_the_tag_is_always_written() -> None:
    assert json.loads(error("waiting", "wait").to_json()) == {
        "type": "error",
        "code": "waiting",
        "message": "wait",
    }
    assert json.loads(error("stale", "x", "r").to_json())["ref"] == "r"
    assert PongMessage().to_json() == '{"type":"pong"}'
    assert ErrorMessage.build(code="x", message="y").to_data()["type"] == "error"


def test_a_message_of_a_newer_server_still_reads() -> None:
    """Clients ignore keys they do not know (a newer server may add some)."""
    message = server_message.validate_json('{"type": "pong", "at": 5}')
    assert isinstance(message, PongMessage)


def test_a_message_with_a_wrong_type_is_refused() -> None:
    from pydantic import ValidationError

    for text in ['{"type": "welcome"}', '{"type": "telepathy"}', '{"type": "error", "code": 4}']:
        with pytest.raises(ValidationError):
            server_message.validate_json(text)


# --- the schema ------------------------------------------------------------------------------


def test_the_published_schemas_are_the_code_s() -> None:
    """docs/ws-schema.json and docs/rest-schema.json are what `ws_schema()` and `rest_schema()`
    say (regenerate them: see the module)."""
    for name, text in PUBLISHED.items():
        assert (REPO / "docs" / name).read_text(encoding="utf-8") == text(), name


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [ref for value in node.values() for ref in _refs(value)]
    if isinstance(node, list):
        return [ref for value in node for ref in _refs(value)]
    return []


def test_the_schema_names_every_message_of_both_directions() -> None:
    schema = ws_schema()
    defs = schema["$defs"]
    server = defs["ServerMessage"]["discriminator"]["mapping"]
    client = defs["ClientMessage"]["discriminator"]["mapping"]
    assert set(server) == {
        *("welcome", "event", "sync", "seats", "held", "chances", "error", "pong", "resync"),
        *("rematch", "reaction"),
    }
    assert set(client) == {"act", "auto", "keep", "sync", "ping", "react"}
    for ref in _refs(schema):
        assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in defs, ref
    # Every message says its tag is required; absent-or-value fields are never null.
    for name in [*server.values(), *client.values()]:
        model = defs[name.removeprefix("#/$defs/")]
        assert "type" in model["required"], name
    # A field has no title (its name again), which a generator of types would declare as a type.
    assert defs["CellView"]["properties"]["note"] == {
        "description": "the reserve total written in the cell",
        "type": "integer",
    }
    codes = [option.get("const") for option in defs["ErrorMessage"]["properties"]["code"]["anyOf"]]
    assert {"stale", "not_your_turn", "bad_message"} <= set(codes)


# --- refusal codes -----------------------------------------------------------------------------


def test_every_engine_refusal_has_a_code_the_socket_documents() -> None:
    classes = [IllegalActionError]
    codes = set()
    while classes:
        kind = classes.pop()
        codes.add(kind.code)
        classes.extend(kind.__subclasses__())
    assert {"illegal", "game_over", "not_your_turn", "bad_roll", "bad_move"} <= codes
    for code in codes:
        assert code in CODES and CODES[code].socket, code
    assert engine.IllegalActionError.code == "illegal"


def test_refusal_words() -> None:
    assert refusal_words("stale", "the game has moved on (seq 4)") == (
        "The game moved on: look again and retry."
    )
    assert refusal_words("illegal", "no such action here") == "no such action here"
    assert refusal_words("brand_new", "") == "brand_new"


# --- REST bodies that other modules write --------------------------------------------------------


def _mid_turn(name: str, turns: int, rolls: int) -> dict[str, Any]:
    record = load_record(EXAMPLES / f"{name}.json")
    return {
        **record,
        "turns": [*record["turns"][:turns], {"rolls": record["turns"][turns]["rolls"][:rolls]}],
    }


@pytest.mark.parametrize("name", ["yahtzee-2p", "poker-dice-3p", "school-3c-1p"])
def test_the_advisor_s_answer_is_an_advice(name: str) -> None:
    answer = advise(replay(_mid_turn(name, 4, 1)).state).as_json()
    typed = Advice.model_validate(answer)
    assert typed.to_data() == answer
    assert typed.best in typed.options


def test_an_analysis_is_an_analysis() -> None:
    record = load_record(EXAMPLES / "yahtzee-2p.json")
    answer = analyse({**record, "turns": record["turns"][:4]}).as_json()
    typed = Analysis.model_validate(answer)
    assert typed.to_data() == answer
    assert [player.seat for player in typed.players] == [0, 1]


def _fair_record() -> dict[str, Any]:
    seed = hashlib.sha256(b"contracts").hexdigest()
    game = Game(get_rules("yahtzee"), ["A"], extra={RECORD_KEY: record_entry(commitment(seed))})
    dice, bot = FairDice(seed), make_bot("greedy")
    while not game.state.finished:  # the seed is revealed at the end, and only then
        action = bot.choose(game.state)
        game.play(action, dice.for_action(game.state, action))
    game.extra[RECORD_KEY] = record_entry(commitment(seed), seed)
    return game.to_record()


def test_dice_checks_are_dice_checks() -> None:
    good = _fair_record()
    altered = json.loads(json.dumps(good))
    altered["turns"][0]["rolls"][0]["dice"][0] = altered["turns"][0]["rolls"][0]["dice"][0] % 6 + 1
    answers = [
        verify_record(good).as_json(),
        verify_record(altered).as_json(),
        verify_record({"variant": "chess"}).as_json(),
        verify_record({"variant": "yahtzee", "players": ["A"], "turns": []}).as_json(),
    ]
    assert [answer["reason"] for answer in answers] == [
        None,
        "dice_differ",
        "bad_record",
        "no_fair_dice",
    ]
    for answer in answers:
        assert DiceCheck.model_validate(answer).to_data() == answer


def test_the_record_import_body_is_documented(tmp_path: Path) -> None:
    from dicepoker.site import Settings, create_app

    openapi = create_app(Settings(database=str(tmp_path / "games.db"))).openapi()
    body = openapi["paths"]["/api/records"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    assert body["required"] is True
    assert set(schema["required"]) == {"variant", "players"}
    assert "$ref" not in json.dumps(schema)  # written out in full: nothing to resolve
    turns = schema["properties"]["turns"]["anyOf"][0]["items"]["properties"]
    assert {"rolls", "move", "forfeit", "auto"} <= set(turns)


def test_error_responses_for_the_routes() -> None:
    responses = error_responses(404, 429)
    assert set(responses) == {404, 429}
    assert all(entry["model"] is ErrorResponse for entry in responses.values())
