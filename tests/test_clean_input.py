"""Clean input everywhere (issue 17): the players' names of an imported record are cleaned by the
same function as a name typed on the web, and JSON no reader can take (nested 100,000 deep, an
integer of 5,000 digits) is refused with the project's own words, never Python's, on every
route and command that reads it, the server answering on afterwards."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicepoker.protocol import MAX_NAME, clean_name, socket_protocols
from dicepoker.record import RecordFormatError, load_record
from dicepoker.server.settings import Settings
from dicepoker.site import create_app
from live_server import DICEPOKER
from security_support import GOLDEN, assert_no_internals

ORIGIN = {"origin": "http://testserver"}

RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: reverses the text that follows it
NAMES = {
    "right-to-left override": (f"{RLO}anA", "anA"),
    "zero-width characters": ("\u200bB\u200dea\u2060\ufeff", "Bea"),
    "NUL and an escape sequence": ("Cid\x00\x1b[31m", "Cid[31m"),
    "spaces around": ("   Dan  ", "Dan"),
    "900,000 characters": ("E" * 900_000, "E" * MAX_NAME),
}

#: Nested 100,000 levels deep, and an integer of 5,000 digits: as a bare value and in a record.
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "7" * 5_000
BODIES = {
    "deep list": DEEP,
    "deep in a record": '{"variant": "yahtzee", "players": ["A"], "turns": ' + DEEP + "}",
    "huge integer": '{"variant": "yahtzee", "players": ["A"], "turns": [], "n": ' + HUGE + "}",
    "huge integer elsewhere": '{"seats": [{"kind": "human", "name": "A"}], "turn_seconds": '
    + HUGE
    + "}",
}

#: What no error may say: Python's own words for these two failures, `sys.` settings, classes.
PYTHON_WORDS = re.compile(
    r"recursion|int_max_str_digits|\bsys\.|\b[A-Z][a-z]+[A-Z]\w*\b|Error\b|Exception\b"
)


def assert_clear(message: str) -> None:
    assert message, "an error says what is wrong"
    assert PYTHON_WORDS.search(message) is None, message
    assert_no_internals(message)


def golden() -> dict[str, Any]:
    record: dict[str, Any] = json.loads((GOLDEN / "yahtzee-2p.json").read_text())
    return record


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("clean")
    settings = Settings(
        database=str(folder / "clean.db"),
        bot_delay=0,
        bot_workers=0,
        ws_rate=0,
        http_rate=0,
        analysis_rate=0,
        login_rate=0,
        login_name_rate=0,
    )
    with TestClient(create_app(settings), headers=ORIGIN) as test_client:
        yield test_client


# --- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", list(NAMES), ids=list(NAMES))
def test_a_record_name_is_cleaned_as_a_web_name(client: TestClient, case: str) -> None:
    raw, clean = NAMES[case]
    record = golden()
    record["players"] = [raw, "Hugo"]
    response = client.post("/api/records", content=json.dumps(record))
    assert response.status_code == 201, response.text[:300]
    stored = client.get(f"/api/records/{response.json()['id']}").json()
    assert stored["players"] == [clean, "Hugo"]
    assert stored["turns"] == record["turns"]  # only the names changed
    # The very same name typed on the web, for a seat of a new game, comes out the same.
    seats = [{"kind": "human", "name": raw}, {"kind": "human", "name": "Hugo"}]
    created = client.post("/api/games", json={"variant": "yahtzee", "seats": seats})
    assert created.status_code == 201, created.text[:300]
    game = client.get(f"/api/games/{created.json()['id']}").json()
    assert [seat["name"] for seat in game["seats"]] == stored["players"]
    assert clean_name(raw) == clean


def test_a_name_left_empty_is_refused_and_nothing_stored(client: TestClient) -> None:
    record = golden()
    record["players"] = ["Bruno", f" {RLO}\u200b\x00 "]
    response = client.post("/api/records", content=json.dumps(record))
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "bad_record"
    assert error["message"] == (
        "player 2's name is empty without its control and invisible characters"
    )
    assert_clear(error["message"])
    # On the web an empty name is refused for a seat to take, as here.
    created = client.post(
        "/api/games", json={"variant": "yahtzee", "seats": [{"kind": "human"}] * 2}
    ).json()
    join = client.post(f"/api/games/{created['id']}/join", json={"name": f"{RLO}\x00"})
    assert join.status_code == 400 and "a name is needed" in join.json()["error"]["message"]


def test_a_record_file_has_its_names_cleaned_on_reading(tmp_path: Path) -> None:
    """`load_record` is what every command (replay, analyse, advise, verify, play --load) and
    the server's import read a record with: the cleaning is there, once."""
    record = golden()
    record["players"] = [f"{RLO}Bruno\x07", "\u200bHugo"]
    path = tmp_path / "names.json"
    path.write_text(json.dumps(record))
    assert load_record(path)["players"] == ["Bruno", "Hugo"]
    replayed = run_cli("replay", str(path), "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout)["record"]["players"] == ["Bruno", "Hugo"]
    assert RLO not in replayed.stdout and "\x07" not in replayed.stdout
    record["players"] = ["Bruno", "\x00"]
    with pytest.raises(RecordFormatError, match="player 2's name is empty"):
        load_record(json.dumps(record))


# --- JSON no reader can take -------------------------------------------------------------------


def test_every_json_route_refuses_them_in_its_own_words(client: TestClient) -> None:
    created = client.post(
        "/api/games", json={"variant": "yahtzee", "seats": [{"kind": "human"}] * 2}
    ).json()
    routes = [
        "/api/records",
        "/api/games",
        f"/api/games/{created['id']}/join",
        "/api/accounts",
        "/api/session",
        "/api/me/password",
        "/api/puzzles/nope",
    ]
    for route in routes:
        for name, body in BODIES.items():
            response = client.post(
                route, content=body, headers={"content-type": "application/json"}
            )
            assert 400 <= response.status_code < 500, (route, name, response.status_code)
            error = response.json()["error"]
            assert error["code"] in ("bad_request", "bad_record"), (route, name, error)
            assert_clear(error["message"])
    record = client.post("/api/records", content=BODIES["huge integer"]).json()["error"]
    assert record["message"] == "not a JSON record: a number with more than 4300 digits"
    deep = client.post("/api/records", content=BODIES["deep in a record"]).json()["error"]
    assert deep["message"] == "not a JSON record: nested deeper than 32 levels"
    # The server answers on, as before.
    assert client.get("/livez").status_code == 200
    again = client.post("/api/records", content=json.dumps(golden()))
    assert again.status_code == 201, again.text[:300]


def test_the_websocket_refuses_them_in_its_own_words(client: TestClient) -> None:
    seats = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]
    created = client.post("/api/games", json={"variant": "yahtzee", "seats": seats}).json()
    token = created["seats"][0]["token"]
    deep = "[" * 2_000 + "]" * 2_000  # as deep as fits a message (4,096 bytes)
    messages = [deep, '{"type": "ping", "n": ' + "7" * 4_000 + "}", "{" * 4_000, DEEP]
    with client.websocket_connect(
        f"/ws/games/{created['id']}", subprotocols=socket_protocols(token)
    ) as ws:
        while ws.receive_json()["type"] != "welcome":
            pass
        for text in messages:
            ws.send_text(text)
            answer = ws.receive_json()
            assert answer["type"] == "error", answer
            assert answer["code"] in ("bad_message", "too_large"), answer
            assert_clear(answer["message"])
        ws.send_text('{"type": "ping"}')
        assert ws.receive_json()["type"] == "pong"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DICEPOKER, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", ["replay", "verify", "analyse", "advise"])
def test_the_commands_refuse_them_in_one_clear_line(tmp_path: Path, command: str) -> None:
    for name, body in BODIES.items():
        path = tmp_path / "record.json"
        path.write_text(body)
        result = run_cli(command, str(path))
        assert result.returncode == 1, (command, name, result.stdout[:200])
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, (command, name, result.stderr[-500:])
        assert lines[0].startswith("dicepoker: ")
        assert_clear(lines[0])
