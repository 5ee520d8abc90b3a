"""A player's history made by real games, on SQLite and on PostgreSQL: a `dicepoker serve`
process; an account that creates a game with its own seat and a bot and plays it to the end over
the WebSocket; two accounts that play a rated game (one takes the open seat while logged in).
Their pages show the games as the server sees them, and the results, accuracy and ratings that
the games left, against the engine's own scoring and the server's analysis."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import httpx
import pytest

from dicepoker.engine import GameState, breakdown, ranking
from dicepoker.record import replay
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


def _play_to_the_end(server: LiveServer, game_id: str, tokens: list[str]) -> GameState:
    """Play every seat of these tokens until the game is over; the final state, replayed by
    the engine from the game's record."""
    players = [Player(server.ws_url, game_id, token) for token in tokens]
    try:
        while not players[0].state.get("finished"):
            mover = next((p for p in players if p.my_turn()), None)
            if mover is None:
                players[0].recv()  # a bot's move, or the end
                continue
            mover.play_turn()
            for other in players:  # each learns the move before who is next is asked
                _catch_up(other, mover.seq)
    finally:
        for player in players:
            player.close()
    return replay(server.get(f"/api/games/{game_id}/record")).state


def _catch_up(player: Player, seq: int) -> None:
    """Read `player`'s messages until it has seen the game at `seq`."""
    if player.seq < seq:
        player.until(lambda m: player.seq >= seq)


def _place(state: GameState, seat: int) -> tuple[int, int]:
    """The seat's place, and how many seats share it."""
    places = {standing.seat: standing.place for standing in ranking(state)}
    return places[seat], sum(1 for place in places.values() if place == places[seat])


def test_a_game_played_under_an_account_is_on_its_page(live: LiveServer) -> None:
    with _person(live, "Lidia") as lidia:
        created = lidia.post(
            "/api/games",
            json={
                "variant": "school",
                "options": {"columns": 1},
                "seats": [{"kind": "human", "account": True}, {"kind": "bot", "level": "random"}],
            },
        )
        assert created.status_code == 201, created.text
        game = created.json()
    game_id = game["id"]
    assert game["seats"][0]["name"] == "Lidia"
    # While it runs, the game is on her page with its table.
    (running,) = live.get("/api/players/lidia")["games"]
    assert running["id"] == game_id and running["status"] == "running"
    assert running["links"] == {"table": f"/g/{game_id}"}
    assert running["players"] == ["Lidia", game["seats"][1]["name"]]
    assert running["seat"] == 0 and running["rated"] is False
    assert running["pool"] == "school-1" and running["options"] == {"columns": 1}
    state = _play_to_the_end(live, game_id, [game["seats"][0]["token"]])
    assert state.finished
    # Once the results and the analysis are written: her game and her stats. The analysis is
    # a background one (the work queue's lowest priority): on a loaded machine it comes last.
    page = live.wait_for(
        "/api/players/LIDIA",
        lambda p: p["stats"] and p["stats"][0]["analysed"] == 1,
        timeout=120,
    )
    (finished,) = page["games"]
    place, sharing = _place(state, 0)
    total = breakdown(state, 0).total
    assert finished["status"] == "finished" and finished["finished_at"] is not None
    assert (finished["score"], finished["place"]) == (total, place)
    assert finished["links"]["replay"] == f"/replay/g/{game_id}"
    assert finished["links"]["analysis_api"] == f"/api/games/{game_id}/analysis"
    assert httpx.get(live.url + finished["links"]["replay"]).status_code == 200
    analysis = live.get(finished["links"]["analysis_api"])
    (stats,) = page["stats"]
    assert stats["pool"] == "school-1" and stats["games"] == 1
    assert stats["mean_score"] == stats["best_score"] == total
    assert stats["zeros_per_game"] == breakdown(state, 0).zeros
    assert stats["stars_per_game"] == len(state.sheets[0].stars)
    assert stats["win_rate"] == pytest.approx(1 / sharing if place == 1 else 0)
    mine = analysis["players"][0]
    assert stats["accuracy"] == pytest.approx(mine["expected_loss"] / mine["decisions"])
    assert page["ratings"] == []  # not a rated game


def test_a_rated_game_of_two_accounts_rates_both(live: LiveServer) -> None:
    with _person(live, "Marco") as marco, _person(live, "Nuno") as nuno:
        created = marco.post(
            "/api/games",
            json={
                "variant": "yahtzee",
                "rated": True,
                "seats": [{"kind": "human", "account": True}, {"kind": "human"}],
            },
        )
        assert created.status_code == 201, created.text
        game = created.json()
        # Nuno takes the open seat while logged in: it is his account's.
        joined = nuno.post(f"/api/games/{game['id']}/join", json={})
        assert joined.status_code == 200, joined.text
        assert joined.json()["seat"] == 1
        (waiting,) = nuno.get("/api/players/nuno").json()["games"]
    assert (waiting["id"], waiting["seat"], waiting["players"]) == (
        game["id"],
        1,
        ["Marco", "Nuno"],
    )
    assert waiting["status"] == "running" and waiting["rated"] is True
    state = _play_to_the_end(live, game["id"], [game["seats"][0]["token"], joined.json()["token"]])
    ratings = live.wait_for(f"/api/games/{game['id']}/ratings", lambda r: r["status"] == "rated")
    after = {change["name"]: change["after"] for change in ratings["changes"]}
    assert set(after) == {"Marco", "Nuno"}
    for seat, name in enumerate(("Marco", "Nuno")):
        page = live.get(f"/api/players/{name}")
        (rating,) = page["ratings"]
        assert (rating["pool"], rating["games"], rating["rating"]) == ("yahtzee", 1, after[name])
        assert [(p["game_id"], p["rating"]) for p in rating["history"]] == [
            (game["id"], after[name])
        ]
        (played,) = page["games"]
        assert played["score"] == breakdown(state, seat).total
    # The leaderboard of the pool: both, by their ratings (the winner above).
    board = live.get("/api/leaderboard/yahtzee")["entries"]
    assert sorted((e["name"], e["rating"], e["games"]) for e in board) == sorted(
        (name, rating, 1) for name, rating in after.items()
    )
    assert [e["rating"] for e in board] == sorted(after.values(), reverse=True)
    # The anonymous have no page.
    assert httpx.get(live.url + "/api/players/Random").status_code == 404
