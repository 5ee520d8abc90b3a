"""`POST /api/records` keeps only records it can send back: strict JSON in, exactly the same JSON
out, and no accepted record answers 500 afterwards (a lone surrogate in a name, or a value nested
300 deep in an unknown key, used to be stored and then break every read of the record)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from dicepoker.protocol import MAX_DEPTH, ErrorResponse, Position, Record, RecordStored
from live_server import LiveServer

JSON_TYPE = {"content-type": "application/json"}
GOOD_TURN = {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score ones"}


@pytest.fixture(scope="module")
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=60) as http:
        yield http


def post(client: httpx.Client, text: str) -> httpx.Response:
    return client.post("/api/records", content=text.encode(), headers=JSON_TYPE)


def reads(client: httpx.Client, record_id: str) -> list[httpx.Response]:
    """Every read of a stored record."""
    paths = ["", "/position?turn=1", "/position?turn=0&roll=1", "/analysis", "/verify"]
    return [client.get(f"/api/records/{record_id}{path}") for path in paths]


REFUSED = {
    "a lone surrogate in a name": '{"variant": "yahtzee", "players": ["Ana\\ud800"], "turns": []}',
    "a lone surrogate in an unknown key's value": (
        '{"variant": "yahtzee", "players": ["A"], "turns": [], "note": "\\udfff"}'
    ),
    "a lone surrogate in a key": (
        '{"variant": "yahtzee", "players": ["A"], "turns": [], "\\ud83d": 1}'
    ),
    "nested 300 deep in an unknown key": json.dumps(
        {
            "variant": "yahtzee",
            "players": ["A"],
            "turns": [GOOD_TURN],
            "x": json.loads("[" * 300 + "]" * 300),
        }
    ),
    "nested one level too deep": (
        '{"variant": "yahtzee", "players": ["A"], "turns": [], "x": '
        + "[" * MAX_DEPTH
        + "]" * MAX_DEPTH
        + "}"
    ),
    "duplicate players": '{"variant": "yahtzee", "players": ["A"], "players": ["A", "B"]}',
    "duplicate move": (
        '{"variant": "yahtzee", "players": ["A"], "turns": [{"rolls": [{"dice": [1, 2, 3, 4, 6]}],'
        ' "move": "score banana", "move": "score ones"}]}'
    ),
    "NaN": '{"variant": "yahtzee", "players": ["A"], "turns": [], "x": NaN}',
    "Infinity": '{"variant": "yahtzee", "players": ["A"], "turns": [], "x": -Infinity}',
    "1e999": '{"variant": "yahtzee", "players": ["A"], "turns": [], "x": 1e999}',
    "auto not a boolean": json.dumps(
        {"variant": "yahtzee", "players": ["A"], "turns": [{**GOOD_TURN, "auto": "yes"}]}
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_records_that_could_not_be_sent_back_are_refused(client: httpx.Client, case: str) -> None:
    response = post(client, REFUSED[case])
    assert response.status_code == 422, response.text
    error = ErrorResponse.model_validate(response.json()).error
    assert error.code == "bad_record"
    assert error.message


def test_a_bad_turn_of_the_typed_record_says_which(client: httpx.Client) -> None:
    response = post(client, REFUSED["auto not a boolean"])
    assert response.json()["error"]["turn"] == 1


ACCEPTED: dict[str, dict[str, Any]] = {
    "names and keys in any script": {
        "variant": "yahtzee",
        "players": ["Zoë 🎲", "李"],
        "turns": [GOOD_TURN],
        "notes": {"ключ": "значение", "emoji": "🎯"},
    },
    "nested as deep as allowed": {
        "variant": "school",
        "players": ["A"],
        "turns": [],
        "x": json.loads("[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)),
    },
    "numbers JSON has": {
        "variant": "yahtzee",
        "players": ["A"],
        "turns": [GOOD_TURN],
        "seed": 10**30,
        "ratio": 0.1,
        "tiny": 1e-300,
    },
    "nulls where the contract allows them": {
        "variant": "yahtzee",
        "options": None,
        "players": ["A"],
        "turns": [{"rolls": [{"keep": None, "dice": [1, 2, 3, 4, 6]}], "move": "score ones"}],
    },
}


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_an_accepted_record_is_served_exactly_and_every_read_answers(
    client: httpx.Client, case: str
) -> None:
    record = ACCEPTED[case]
    response = post(client, json.dumps(record, ensure_ascii=False))
    assert response.status_code == 201, response.text
    stored = RecordStored.model_validate(response.json())
    answers = reads(client, stored.id)
    for answer in answers:
        assert answer.status_code == 200, (answer.request.url, answer.text)
    served = answers[0].json()
    assert served == record
    assert Record.model_validate(served).to_data() == record
    position = Position.model_validate(answers[1].json())
    assert position.players == record["players"]


def test_the_served_text_is_what_was_checked(client: httpx.Client) -> None:
    """Escapes and spacing may differ; the values are the same, in the same order."""
    text = (
        '{"variant":"yahtzee","players":["\\u00c5sa"],"extra":{"b":1,"a":[1.5,"\\ud83c\\udfb2"]},'
        '"turns":[]}'
    )
    response = post(client, text)
    assert response.status_code == 201, response.text
    served = client.get(f"/api/records/{response.json()['id']}")
    assert list(served.json()) == ["variant", "players", "extra", "turns"]
    assert served.json() == json.loads(text)
    assert served.json()["players"] == ["Åsa"]
