"""The web server over real HTTP and WebSockets, on a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from dicepoker.record import replay
from dicepoker.view import game_view
from live_server import LiveServer
from ws_client import Player

HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def create(server: LiveServer, seats: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    response = server.post(
        "/api/games", {"variant": "school", "options": {"columns": 1}, "seats": seats, **extra}
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_create_returns_tokens_only_for_named_humans(server: LiveServer) -> None:
    body = create(
        server,
        [{"kind": "human", "name": "Ana"}, {"kind": "human"}, {"kind": "bot", "level": "greedy"}],
    )
    tokens = [seat["token"] for seat in body["seats"]]
    assert tokens[0] and len(tokens[0]) >= 24
    assert tokens[1] is None and tokens[2] is None
    game = server.get(f"/api/games/{body['id']}")
    assert game["status"] == "open"
    assert game["seq"] == 0
    assert "token" not in json.dumps(game)
    assert [seat["taken"] for seat in game["seats"]] == [True, False, True]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"variant": "chess", "seats": [{"kind": "human", "name": "A"}]}, 422, "bad_options"),
        (
            {
                "variant": "school",
                "options": {"columns": 9},
                "seats": [{"kind": "human", "name": "A"}],
            },
            422,
            "bad_options",
        ),
        (
            {
                "variant": "school",
                "options": {"colour": 1},
                "seats": [{"kind": "human", "name": "A"}],
            },
            422,
            "bad_options",
        ),
        (
            {"variant": "school", "seats": [{"kind": "human", "name": str(n)} for n in range(5)]},
            422,
            "bad_seats",
        ),
        (
            {"variant": "school", "seats": [{"kind": "bot", "level": "grandmaster"}]},
            422,
            "bad_seats",
        ),
        ({"variant": "school", "seats": []}, 400, "bad_request"),
        ({"variant": "school", "seats": [{"kind": "alien"}]}, 400, "bad_request"),
        ({"seats": [{"kind": "human", "name": "A"}]}, 400, "bad_request"),
    ],
)
def test_bad_creations_are_refused_with_a_reason(
    server: LiveServer, body: dict[str, Any], status: int, code: str
) -> None:
    before = server.get("/api/games?limit=200")["games"]
    response = server.post("/api/games", body)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code and error["message"]
    assert server.get("/api/games?limit=200")["games"] == before


def test_malformed_and_oversized_bodies(server: LiveServer) -> None:
    response = httpx.post(
        server.url + "/api/games",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    huge = b'{"variant": "school", "seats": [], "x": "' + b"a" * (2 * 1024 * 1024) + b'"}'
    response = httpx.post(
        server.url + "/api/games", content=huge, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert httpx.get(server.url + "/api/games/no-such-game").status_code == 404


def test_bot_only_game_plays_itself_and_its_record_replays(server: LiveServer) -> None:
    body = create(server, [{"kind": "bot", "level": "greedy"}, {"kind": "bot", "level": "random"}])
    game = server.wait_for(f"/api/games/{body['id']}", lambda g: g["status"] == "finished")
    record = server.get(f"/api/games/{body['id']}/record")
    replayed = game_view(replay(record).state)
    assert replayed.finished is True
    assert [p.total for p in replayed.players] == [p["total"] for p in game["state"]["players"]]
    assert len(record["turns"]) == 30
    assert record["bots"] == ["greedy", "random"]
    listed = server.get("/api/games?status=finished")["games"]
    assert body["id"] in [g["id"] for g in listed]


def test_human_against_bot_over_websocket(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "greedy"}])
    player = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    watcher = Player(server.ws_url, body["id"])
    assert player.seat == 0 and watcher.seat is None
    while not player.state["finished"]:
        if player.my_turn():
            player.play_turn()
        else:
            player.until(lambda m: m["type"] == "event")
    # The spectator saw every event in order, ending with the same state.
    watcher.until(lambda m: m["type"] == "event" and watcher.state["finished"])
    seqs = [m["seq"] for m in watcher.seen if m["type"] == "event"]
    assert seqs == list(range(1, len(seqs) + 1))
    assert watcher.state == player.state
    final = server.get(f"/api/games/{body['id']}")
    assert final["status"] == "finished" and final["seq"] == seqs[-1]
    player.close()
    watcher.close()


def test_refusals_change_nothing_and_keep_the_connection(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}])
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    bea = Player(server.ws_url, body["id"], body["seats"][1]["token"])
    watcher = Player(server.ws_url, body["id"])

    def unchanged() -> None:
        game = server.get(f"/api/games/{body['id']}")
        assert game["seq"] == ana.seq
        assert game["state"] == ana.state

    assert bea.act("roll")["code"] == "not_your_turn"
    unchanged()
    assert watcher.act("roll")["code"] == "spectator"
    assert ana.act("score pair")["code"] == "bad_move"  # nothing rolled yet
    assert ana.act("keep 0 1")["code"] == "bad_roll"  # nothing to hold before the first roll
    unchanged()
    assert ana.act("roll", seq=0)["type"] == "event"
    assert ana.act("roll", seq=0)["code"] == "stale"
    zero = ana.act("zero pair")  # why, as data too: the page says it in its own words
    assert (zero["code"], zero["reason"], zero["params"]["row"]) == ("bad_move", "no_zero", "pair")
    assert "reason" not in ana.act("roll", seq=0)  # a refusal with no engine reason has none
    assert ana.act("score no_such_row")["code"] == "bad_move"
    assert ana.act("dance")["code"] == "bad_move"
    unchanged()
    for bad in [
        "not json",
        json.dumps({"type": "act"}),
        json.dumps({"type": "fly"}),
        json.dumps([1, 2]),
        json.dumps({"type": "act", "action": "roll", "extra": 1}),
    ]:
        ana.send(bad)
        assert ana.until(lambda m: m["type"] == "error")["code"] == "bad_message"
    ana.send(json.dumps({"type": "act", "action": "roll", "ref": "x" * 5000}))
    assert ana.until(lambda m: m["type"] == "error")["code"] == "too_large"
    ana.send({"type": "ping"})
    assert ana.until(lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
    unchanged()
    for player in (ana, bea, watcher):
        player.close()


def test_wrong_token_and_unknown_game_are_refused(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}])
    with pytest.raises((ConnectionClosed, InvalidStatus)):
        player = Player(server.ws_url, body["id"], "not-the-token")
        player.recv(timeout=5)
    with pytest.raises((ConnectionClosed, InvalidStatus)):
        player = Player(server.ws_url, "no-such-game")
        player.recv(timeout=5)


def test_reconnect_receives_what_it_missed(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}])
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    bea = Player(server.ws_url, body["id"], body["seats"][1]["token"])
    ana.play_turn()
    bea.until(lambda m: m["type"] == "event" and m["seq"] == ana.seq)
    seen = bea.seq
    bea.close()
    assert ana.act("roll")["code"] == "not_your_turn"  # Bea's turn now
    bea = Player(server.ws_url, body["id"], body["seats"][1]["token"])
    bea.play_turn()
    ana.close()
    missed_by_ana = ana.seq
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    ana.send({"type": "sync", "last_seq": missed_by_ana})
    sync = ana.until(lambda m: m["type"] == "sync")
    assert [e["seq"] for e in sync["events"]] == list(range(missed_by_ana + 1, sync["seq"] + 1))
    assert sync["events"][-1]["seat"] == 1
    assert sync["seq"] == bea.seq > seen
    assert sync["state"]["turn"]["seat"] == 0
    ana.close()
    bea.close()


def test_join_open_seat_starts_the_game(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "human"}])
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    assert ana.act("roll")["code"] == "waiting"
    joined = server.post(f"/api/games/{body['id']}/join", {"name": "<script>alert(1)</script>"})
    assert joined.status_code == 200
    token = joined.json()["token"]
    assert joined.json()["seat"] == 1
    again = server.post(f"/api/games/{body['id']}/join", {"name": "Late"})
    assert again.status_code == 409
    assert server.post(f"/api/games/{body['id']}/join", {"name": "   "}).status_code == 400
    seats = ana.until(lambda m: m["type"] == "seats")
    assert seats["status"] == "running"
    assert seats["seats"][1]["name"] == "<script>alert(1)</script>"
    assert ana.act("roll")["type"] == "event"
    guest = Player(server.ws_url, body["id"], token)
    assert guest.seat == 1
    record = server.get(f"/api/games/{body['id']}/record")
    assert record["players"] == ["Ana", "<script>alert(1)</script>"]
    ana.close()
    guest.close()


def test_import_records(server: LiveServer) -> None:
    examples = Path(__file__).parent / "golden" / "spec_examples"
    record = json.loads((examples / "school-3c-2p.json").read_text())
    response = server.post("/api/records", record)
    assert response.status_code == 201
    stored = server.get(f"/api/records/{response.json()['id']}")
    assert stored["turns"] == record["turns"]
    last = server.get(f"/api/records/{response.json()['id']}/position?turn=90")
    assert [p["total"] for p in last["state"]["players"]] == [-3354, 1587]
    middle = server.get(f"/api/records/{response.json()['id']}/position?turn=3&roll=1")
    assert middle["state"]["turn"]["dice"] == record["turns"][3]["rolls"][0]["dice"]
    assert middle["turns"] == 90

    bad = json.loads(json.dumps(record))
    bad["turns"][4]["rolls"][0]["dice"] = [7, 1, 1, 1, 1]
    response = server.post("/api/records", bad)
    assert response.status_code == 422
    assert response.json()["error"]["turn"] == 5
    assert "turn 5" in response.json()["error"]["message"]
    response = httpx.post(
        server.url + "/api/records", content=b"[1, 2", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "bad_record"
    response = server.post("/api/records", {"variant": "go", "players": ["a"], "turns": []})
    assert response.status_code == 422


def test_poker_dice_clock_running_out_loses_the_game(server: LiveServer) -> None:
    response = server.post(
        "/api/games",
        {
            "variant": "poker-dice",
            "turn_seconds": 1,
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}],
        },
    )
    assert response.status_code == 201
    game_id = response.json()["id"]
    started = server.get(f"/api/games/{game_id}")
    assert started["clock"]["seat"] == 0 and started["clock"]["seconds"] == 1
    game = server.wait_for(f"/api/games/{game_id}", lambda g: g["status"] == "finished")
    assert game["state"]["winner"] == 1
    assert game["state"]["players"][0]["forfeited"] is True
    record = server.get(f"/api/games/{game_id}/record")
    assert record["turns"] == [{"rolls": [], "forfeit": "timeout", "auto": True}]
    replayed = replay(record).state
    winner = game_view(replayed).winner
    assert winner is not None and replayed.players[winner] == "Bea"


def test_school_clock_plays_the_turn_with_a_bot(server: LiveServer) -> None:
    body = create(
        server, [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}], turn_seconds=1
    )
    game = server.wait_for(
        f"/api/games/{body['id']}", lambda g: g["seq"] >= 2 and g["state"]["turn"]["seat"] == 1
    )
    assert game["clock"]["seat"] == 1
    record = server.get(f"/api/games/{body['id']}/record")
    assert record["turns"][0]["auto"] is True and record["turns"][0]["move"]


def test_poker_dice_auto_play_on_request(server: LiveServer) -> None:
    response = server.post(
        "/api/games",
        {
            "variant": "poker-dice",
            "turn_seconds": 0,
            "seats": [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}],
        },
    )
    body = response.json()
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    ana.send({"type": "auto"})
    ana.until(lambda m: m["type"] == "event" and m["action"].startswith("score"))
    record = server.get(f"/api/games/{body['id']}/record")
    assert record["turns"][0]["auto"] is True
    assert 1 <= len(record["turns"][0]["rolls"]) <= 2
    assert ana.state["turn"]["seat"] == 1
    ana.close()


def test_auto_out_of_turn_is_refused_like_any_other_intent(server: LiveServer) -> None:
    response = server.post(
        "/api/games",
        {"variant": "poker-dice", "turn_seconds": 0, "seats": HUMANS},
    )
    body = response.json()
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    bea = Player(server.ws_url, body["id"], body["seats"][1]["token"])
    watcher = Player(server.ws_url, body["id"])
    # Bea asks for auto-play on Ana's turn: refused as her "roll" would be, with its ref.
    bea.send({"type": "auto", "ref": "a1"})
    bea.send({"type": "ping"})
    answer = bea.until(lambda m: m["type"] in ("error", "pong"))
    assert (answer["type"], answer.get("code"), answer.get("ref")) == (
        "error",
        "not_your_turn",
        "a1",
    )
    assert bea.act("roll")["code"] == "not_your_turn"
    watcher.send({"type": "auto"})
    assert watcher.until(lambda m: m["type"] == "error")["code"] == "spectator"
    assert server.get(f"/api/games/{body['id']}")["seq"] == 0
    for player in (ana, bea, watcher):
        player.close()


def test_advice_and_analysis_endpoints(server: LiveServer) -> None:
    body = create(server, [{"kind": "human", "name": "Ana"}, {"kind": "bot", "level": "expert"}])
    ana = Player(server.ws_url, body["id"], body["seats"][0]["token"])
    assert ana.act("roll")["type"] == "event"
    advice = server.get(f"/api/games/{body['id']}/advice")
    assert advice["seq"] == ana.seq and advice["seat"] == 0
    legal = {option["action"] for option in ana.state["turn"]["legal"]}
    valued = {option["action"] for option in advice["options"]}
    assert legal <= valued and "roll" in valued
    assert advice["best"]["value"] == max(option["value"] for option in advice["options"])
    ana.play_turn()
    ana.until(lambda m: m["type"] == "event" and ana.state["turn"]["seat"] == 0)
    analysis = server.get(f"/api/games/{body['id']}/analysis", timeout=60)
    assert [p["name"] for p in analysis["players"]] == ["Ana", "Expert 2"]
    assert analysis["players"][1]["expected_loss"] == 0
    assert analysis["players"][0]["decisions"] >= 1
    assert analysis["curve"][0]["turn"] == 0 and len(analysis["curve"][0]["chances"]) == 2
    decision = analysis["decisions"][0]
    assert decision["link"] == f"/replay/g/{body['id']}?turn={decision['turn'] - 1}&roll=1"
    assert len(decision["win_before"]) == 2 and decision["win_lost"] >= 0
    assert analysis["rolls"][0]["seat"] == 0 and analysis["players"][0]["verdict"]
    ana.close()


def test_the_dice_a_player_holds_are_shown_live_to_the_table(server: LiveServer) -> None:
    body = create(server, HUMANS)
    game_id = body["id"]
    ana = Player(server.ws_url, game_id, body["seats"][0]["token"])
    bea = Player(server.ws_url, game_id, body["seats"][1]["token"])
    watcher = Player(server.ws_url, game_id)
    try:
        watcher.send({"type": "keep", "seq": 0, "keep": [0]})
        assert watcher.until(lambda m: m["type"] == "error")["code"] == "spectator"
        ana.send({"type": "keep", "seq": 0, "keep": [0]})
        assert ana.until(lambda m: m["type"] == "error")["code"] == "bad_roll"
        assert ana.act("roll", 0)["type"] == "event"
        bea.send({"type": "keep", "seq": 1, "keep": [0]})
        assert bea.until(lambda m: m["type"] == "error")["code"] == "not_your_turn"
        ana.send({"type": "keep", "seq": 1, "keep": [4, 2], "ref": "k"})
        held = {"type": "held", "seq": 1, "seat": 0, "held": [2, 4]}
        for player in (ana, bea, watcher):
            assert player.until(lambda m: m["type"] == "held") == held
        ana.send({"type": "keep", "seq": 0, "keep": [1]})
        assert ana.until(lambda m: m["type"] == "error")["code"] == "stale"
        # Who arrives mid-turn is welcomed with the selection.
        late = Player(server.ws_url, game_id)
        assert late.state["turn"]["held"] == [2, 4]
        late.close()
        assert ana.act("keep 2 4", 1)["type"] == "event"
        bea.until(lambda m: m["type"] == "event")
        assert bea.state["turn"]["held"] == [2, 4]
    finally:
        for player in (ana, bea, watcher):
            player.close()
