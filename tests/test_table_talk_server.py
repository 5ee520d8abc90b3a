"""Rematches and quick reactions through the web app: the route, its refusals, the offers and
the reactions on the WebSocket (an app in this process, its games played out by the master)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from dicepoker.protocol import server_message, socket_protocols
from dicepoker.server.settings import Settings
from dicepoker.site import create_app

SEATS = [
    {"kind": "human", "name": "Ana"},
    {"kind": "human", "name": "Bea"},
    {"kind": "bot", "level": "random"},
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("pace")
    settings = Settings(
        database=str(folder / "pace.db"),
        bot_delay=0,
        bot_workers=0,
        ws_rate=0,
        http_rate=0,
        analysis_rate=0,
        reaction_rate=0.001,
        reaction_burst=2,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _create(client: TestClient) -> tuple[str, list[str]]:
    body = {"variant": "school", "options": {"columns": 1}, "seats": SEATS, "turn_seconds": 30}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    created = response.json()
    return created["id"], [seat["token"] for seat in created["seats"][:2]]


def _finish(client: TestClient, game_id: str) -> None:
    """Play the game out on the app's own loop (each turn by auto-play, as a timed-out one)."""
    app: Any = client.app
    master = app.state.services.master

    async def play() -> None:
        live = await master.load(game_id)
        while not live.game.state.finished:
            await master.auto(live, live.game.state.seat)

    assert client.portal is not None
    client.portal.call(play)


def _socket(client: TestClient, game_id: str, token: str | None = None) -> WebSocketTestSession:
    return client.websocket_connect(f"/ws/games/{game_id}", subprotocols=socket_protocols(token))


def _until(ws: WebSocketTestSession, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = ws.receive_json()
        server_message.validate_python(message)  # every message is the protocol's
        if message["type"] == kind:
            return message


def _rematch(client: TestClient, game_id: str, token: str | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post(f"/api/games/{game_id}/rematch", headers=headers)


def test_a_rematch_is_refused_in_the_error_shape(client: TestClient) -> None:
    game_id, (ana, _bea) = _create(client)
    cases = [
        (_rematch(client, "nope", ana), 404, "not_found"),
        (_rematch(client, game_id, None), 403, "spectator"),
        (_rematch(client, game_id, "a" * 32), 403, "bad_token"),
        (_rematch(client, game_id, ana), 409, "not_finished"),
    ]
    for response, status, code in cases:
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code
        assert response.json()["error"]["message"]
    # A token of another game holds no seat here, even once the game is over.
    _finish(client, game_id)
    _other, (stranger, _) = _create(client)
    assert _rematch(client, game_id, stranger).json()["error"]["code"] == "bad_token"
    assert client.get(f"/api/games/{game_id}").json()["status"] == "finished"


def test_a_rematch_is_offered_to_every_connection_each_with_its_own_seat(
    client: TestClient,
) -> None:
    game_id, (ana, bea) = _create(client)
    _finish(client, game_id)
    with (
        _socket(client, game_id, ana) as ana_ws,
        _socket(client, game_id, bea) as bea_ws,
        _socket(client, game_id) as watcher,
    ):
        for ws in (ana_ws, bea_ws, watcher):
            _until(ws, "welcome")
        first = _rematch(client, game_id, bea)
        assert first.status_code == 201, first.text
        made = first.json()
        assert made["created"] is True and made["seat"] == 1 and made["token"] == bea
        offers = [_until(ws, "rematch") for ws in (ana_ws, bea_ws, watcher)]
    assert [offer["game"] for offer in offers] == [made["id"]] * 3
    assert (offers[0]["seat"], offers[0]["token"]) == (0, ana)
    assert (offers[1]["seat"], offers[1]["token"]) == (1, bea)
    assert offers[2]["seat"] is None and "token" not in offers[2]
    # Asked again, from the other seat: the same game, that seat's place in it.
    again = _rematch(client, game_id, ana)
    assert again.status_code == 200
    assert again.json() | {"seat": 1, "token": bea} == made | {"created": False}
    assert again.json()["seat"] == 0
    # The rematch: same variant, options, clock and seats; the seats' tokens hold them there.
    old = client.get(f"/api/games/{game_id}").json()
    new = client.get(made["url"].replace("/g/", "/api/games/")).json()
    assert new["state"]["rules"] == old["state"]["rules"]
    assert new["turn_seconds"] == old["turn_seconds"] == 30
    assert [(s["kind"], s["name"], s["level"]) for s in new["seats"]] == [
        (s["kind"], s["name"], s["level"]) for s in old["seats"]
    ]
    assert new["status"] == "running" and not new["state"]["finished"]
    with _socket(client, made["id"], bea) as seated:
        assert _until(seated, "welcome")["seat"] == 1
    # A connection that arrives later is offered it as well.
    with _socket(client, game_id, ana) as late:
        _until(late, "welcome")
        assert _until(late, "rematch") == offers[0]


def test_reactions_reach_the_table_from_seats_only_and_a_few_at_a_time(
    client: TestClient,
) -> None:
    game_id, (ana, bea) = _create(client)
    with _socket(client, game_id, ana) as ana_ws, _socket(client, game_id) as watcher:
        _until(ana_ws, "welcome")
        _until(watcher, "welcome")
        ana_ws.send_json({"type": "react", "reaction": "nice_roll"})
        expected = {"type": "reaction", "seat": 0, "reaction": "nice_roll"}
        assert _until(watcher, "reaction") == expected
        assert _until(ana_ws, "reaction") == expected
        watcher.send_json({"type": "react", "reaction": "good_game"})
        assert _until(watcher, "error")["code"] == "spectator"
        ana_ws.send_json({"type": "react", "reaction": "shut up"})
        assert _until(ana_ws, "error")["code"] == "bad_message"
        # The burst is two; the third is refused, the table hears nothing of it.
        ana_ws.send_json({"type": "react", "reaction": "well_played"})
        assert _until(watcher, "reaction")["reaction"] == "well_played"
        ana_ws.send_json({"type": "react", "reaction": "oops"})
        assert _until(ana_ws, "error")["code"] == "rate_limited"
        ana_ws.send_json({"type": "ping"})
        assert _until(ana_ws, "pong") == {"type": "pong"}
        # Another seat has its own allowance.
        with _socket(client, game_id, bea) as bea_ws:
            _until(bea_ws, "welcome")
            bea_ws.send_json({"type": "react", "reaction": "thanks"})
            assert _until(watcher, "reaction") == {
                "type": "reaction",
                "seat": 1,
                "reaction": "thanks",
            }
        watcher.send_json({"type": "ping"})
        seen = _until(watcher, "pong")
        assert seen == {"type": "pong"}
