"""A player's history made by real games, on SQLite and on PostgreSQL: a `dicepoker serve`
process, an account that creates a game with its own seat and a bot and plays it to the end
over the WebSocket, and another that takes an open seat while logged in. Their pages list the
games as the server sees them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from live_server import LiveServer, fresh_postgres_database
from ws_client import Player

PASSWORD = "correct horse"


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    if request.param == "sqlite":
        database = str(tmp_path_factory.mktemp("players-live") / "games.db")
    else:
        database = fresh_postgres_database()
    server = LiveServer(database, bot_delay=0.0).start()
    yield server
    server.stop()


@contextlib.contextmanager
def _person(server: LiveServer, name: str) -> Iterator[httpx.Client]:
    """A browser of `name`'s: signed up, with its session cookie and its page's Origin."""
    with httpx.Client(base_url=server.url, timeout=10.0, headers={"origin": server.url}) as client:
        response = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
        assert response.status_code == 201, response.text
        yield client


def _play_to_the_end(server: LiveServer, game: dict[str, Any], seat: int) -> dict[str, Any]:
    player = Player(server.ws_url, game["id"], game["seats"][seat]["token"])
    try:
        while not player.state.get("finished"):
            if player.my_turn():
                player.play_turn()
            else:
                player.recv()
    finally:
        player.close()
    data: dict[str, Any] = server.get(f"/api/games/{game['id']}")
    return data


def test_a_game_played_under_an_account_is_on_its_page(live: LiveServer) -> None:
    with _person(live, "Lidia") as lidia:
        created = lidia.post(
            "/api/games",
            json={
                "variant": "school",
                "options": {"columns": 1},
                "rated": True,
                "seats": [{"kind": "human", "account": True}, {"kind": "bot", "level": "random"}],
            },
        )
        assert created.status_code == 201, created.text
        game = created.json()
        assert game["seats"][0]["name"] == "Lidia"
        # While it runs, the game is on her page with its table.
        page = live.get("/api/players/lidia")
        (running,) = page["games"]
        assert running["id"] == game["id"] and running["status"] == "running"
        assert running["links"] == {"table": f"/g/{game['id']}"}
        assert running["players"] == ["Lidia", game["seats"][1]["name"]]
        assert running["seat"] == 0 and running["rated"] is True
        assert running["pool"] == "school-1" and running["options"] == {"columns": 1}
        end = _play_to_the_end(live, game, 0)
        assert end["status"] == "finished"
        page = live.get("/api/players/LIDIA")
        (finished,) = page["games"]
        assert finished["status"] == "finished"
        assert finished["links"]["replay"] == f"/replay/g/{game['id']}"
        assert finished["links"]["analysis_api"] == f"/api/games/{game['id']}/analysis"
        assert finished["finished_at"] is not None
        # The links lead somewhere: the replay page and the analysis answer.
        assert httpx.get(live.url + finished["links"]["replay"]).status_code == 200
        analysis = live.get(finished["links"]["analysis_api"])
        assert [player["seat"] for player in analysis["players"]] == [0, 1]


def test_an_open_seat_taken_while_logged_in_is_the_accounts(live: LiveServer) -> None:
    host = live.post(
        "/api/games",
        {"variant": "yahtzee", "seats": [{"kind": "human", "name": "Host"}, {"kind": "human"}]},
    )
    assert host.status_code == 201
    game_id = host.json()["id"]
    with _person(live, "Nuno") as nuno:
        assert nuno.get("/api/players/Nuno").json()["games"] == []
        joined = nuno.post(f"/api/games/{game_id}/join", json={})
        assert joined.status_code == 200, joined.text
        (game,) = nuno.get("/api/players/nuno").json()["games"]
    assert (game["id"], game["seat"], game["players"]) == (game_id, 1, ["Host", "Nuno"])
    assert game["status"] == "running" and game["variant"] == "yahtzee"
    assert game["pool"] == "yahtzee" and game["rated"] is False
    # The anonymous host has no page.
    assert httpx.get(live.url + "/api/players/Host").status_code == 404
