"""The contract against a real server: it reads a client's messages strictly (a wrong type or a
duplicate key is `bad_message` and changes nothing), and everything it sends, on the WebSocket
and over HTTP, is described exactly by the models of dicepoker.protocol (each answer validates,
and written back it is the same JSON: no key the models do not know, none missing)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from dicepoker.protocol import (
    Analysis,
    DiceCheck,
    ErrorMessage,
    ErrorResponse,
    GameAdvice,
    GameCreated,
    GameInfo,
    GameList,
    Position,
    Record,
    RecordStored,
    SeatTaken,
    VariantList,
    Wire,
    server_message,
)
from live_server import LiveServer
from ws_client import Player


def create(server: LiveServer, seats: list[dict[str, Any]], variant: str = "yahtzee") -> Any:
    response = server.post("/api/games", {"variant": variant, "seats": seats})
    assert response.status_code == 201, response.text
    return response.json()


def exactly(model: type[Wire], data: Any) -> Any:
    """`data` read with `model`, checked to be written back as the same JSON."""
    typed = model.model_validate(data)
    assert typed.to_data() == data, model.__name__
    return typed


def game_seq(server: LiveServer, game_id: str) -> int:
    seq: int = server.get(f"/api/games/{game_id}")["seq"]
    return seq


# --- strict reading, through the server ---------------------------------------------------------

LAX = {
    # Read as 0 and applied, before: a text is not a number.
    "seq as text": '{"type": "act", "action": "roll", "seq": "0"}',
    # Read as 0 (False) and applied, before.
    "seq false": '{"type": "act", "action": "roll", "seq": false}',
    # The last key won, before: "roll" was applied.
    "duplicate action": '{"type": "act", "action": "score ones", "action": "roll", "seq": 0}',
    "duplicate seq": '{"type": "act", "action": "roll", "seq": 5, "seq": 0}',
}


@pytest.mark.parametrize("case", list(LAX))
def test_wrong_types_and_duplicate_keys_are_bad_messages(server: LiveServer, case: str) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}])
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    try:
        ana.send(LAX[case])
        answer = ana.until(lambda m: m["type"] in ("error", "event"))
        assert answer["type"] == "error", answer
        assert answer["code"] == "bad_message"
        assert game_seq(server, body["id"]) == 0  # nothing changed
        # The connection goes on: a well-formed intent is applied.
        assert ana.act("roll", 0)["type"] == "event"
    finally:
        ana.close()


def test_seq_true_is_not_seq_1(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}])
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    try:
        assert ana.act("roll", 0)["type"] == "event"
        ana.send('{"type": "act", "action": "roll", "seq": true}')  # was read as seq 1
        answer = ana.until(lambda m: m["type"] in ("error", "event"))
        assert (answer["type"], answer.get("code")) == ("error", "bad_message")
        assert game_seq(server, body["id"]) == 1
    finally:
        ana.close()


# --- every message the server sends ------------------------------------------------------------


def test_every_message_the_server_sends_is_a_server_message(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "human"}])
    game_id = body["id"]
    exactly(GameCreated, body)
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    watcher = Player(server.ws_url, game_id)
    try:
        join = server.post(f"/api/games/{game_id}/join", {"name": "Bea"})
        exactly(SeatTaken, join.json())
        ana.until(lambda m: m["type"] == "seats")
        ana.act("roll", 0)
        ana.act("keep 0 1", 1)
        ana.send({"type": "sync", "last_seq": 0})
        ana.until(lambda m: m["type"] == "sync")
        ana.send({"type": "ping"})
        ana.until(lambda m: m["type"] == "pong")
        ana.act("roll", 0, ref="late")  # stale
        watcher.send({"type": "act", "action": "roll"})  # a spectator
        watcher.until(lambda m: m["type"] == "error")
        seen = [*ana.seen, *watcher.seen]
    finally:
        ana.close()
        watcher.close()
    kinds = {message["type"] for message in seen}
    assert kinds == {"welcome", "seats", "event", "sync", "pong", "error"}
    for message in seen:
        typed = server_message.validate_python(message)
        assert typed.to_data() == message, message["type"]
    errors = [ErrorMessage.model_validate(m) for m in seen if m["type"] == "error"]
    assert {(error.code, error.ref) for error in errors} >= {("stale", "late"), ("spectator", None)}
    assert all("ref" not in m for m in seen if m["type"] == "error" and m["code"] == "spectator")


# --- every REST answer ---------------------------------------------------------------------------


def test_every_rest_answer_is_its_model(server: LiveServer) -> None:
    body = create(server, [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}])
    game_id = body["id"]
    exactly(GameCreated, body)
    finished = server.wait_for(f"/api/games/{game_id}", lambda g: g["status"] == "finished")
    exactly(GameInfo, finished)
    record = server.get(f"/api/games/{game_id}/record")
    exactly(Record, record)
    exactly(Position, server.get(f"/api/games/{game_id}/position?turn=3&roll=1"))
    exactly(Analysis, server.get(f"/api/games/{game_id}/analysis", timeout=60))
    check = exactly(DiceCheck, server.get(f"/api/games/{game_id}/verify"))
    assert check.ok
    exactly(GameList, server.get("/api/games?status=finished&limit=5"))
    exactly(VariantList, server.get("/api/variants"))
    stored = server.post("/api/records", record)
    assert stored.status_code == 201
    record_id = exactly(RecordStored, stored.json()).id
    assert exactly(Record, server.get(f"/api/records/{record_id}")) == Record.model_validate(record)
    exactly(Position, server.get(f"/api/records/{record_id}/position?turn=99"))
    exactly(DiceCheck, server.get(f"/api/records/{record_id}/verify"))
    # A game in progress: its advice.
    playing = create(server, [{"kind": "human", "name": "Ana"}])
    ana = Player(server.ws_url, playing["id"], playing["seats"][0]["token"])
    try:
        ana.act("roll", 0)
        advice = exactly(GameAdvice, server.get(f"/api/games/{playing['id']}/advice"))
        assert advice.seq == 1
    finally:
        ana.close()


def test_every_error_answer_is_an_error_response(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}])
    bad_turn = {
        "variant": "yahtzee",
        "players": ["A"],
        "turns": [{"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": "score nothing"}],
    }
    with httpx.Client(base_url=server.url, timeout=30) as client:
        answers = {
            400: client.post("/api/games", json={"variant": "school", "seats": []}),
            404: client.get("/api/games/no-such-game"),
            405: client.delete(f"/api/games/{body['id']}"),
            409: client.post(f"/api/games/{body['id']}/join", json={"name": "Bea"}),
            422: client.post("/api/records", json=bad_turn),
        }
        for status, response in answers.items():
            assert response.status_code == status, response.text
            error = exactly(ErrorResponse, response.json()).error
            assert error.code and error.message
        assert exactly(ErrorResponse, answers[422].json()).error.turn == 1


def test_models_are_what_the_server_imports() -> None:
    """One contract: the server builds its answers from these very classes."""
    from dicepoker.master import live, messages
    from dicepoker.server.http import app
    from dicepoker.server.http.routes import games, records, schema, socket, variants

    for module in (app, games, records, schema, socket, variants, live, messages):
        names = {name for name, value in vars(module).items() if isinstance(value, type)}
        for name in names:
            value = getattr(module, name)
            if issubclass(value, BaseModel) and not value.__module__.startswith("fastapi."):
                # (FastAPI's own models, such as a bearer token's credentials, are its input.)
                assert value.__module__.startswith("dicepoker.protocol"), (module, name)
    assert json.loads(messages.RESYNC) == {"type": "resync"}
