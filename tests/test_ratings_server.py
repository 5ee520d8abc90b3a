"""Rated games over the API, on SQLite and PostgreSQL: a game asked to be rated is rated when it
ends if every person is an account (the winner gains, the loser loses, bots are fixed anchors),
once; a game with an anonymous person or a solitaire is not, and says why; each account seat's
result is written for its history."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from dicepoker.ratings import RatedSeat, anchor, default_rating, rate_game, shown
from dicepoker.server.settings import Settings
from dicepoker.server.storage.models import GameResultRow, RatingRow
from dicepoker.site import create_app
from live_server import fresh_postgres_database

ORIGIN = {"origin": "http://testserver"}
PASSWORD = "rated password"


@pytest.fixture(params=["sqlite", "postgresql"], scope="module")
def client(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TestClient]:
    database = (
        str(tmp_path_factory.mktemp("rated") / "rated.db")
        if request.param == "sqlite"
        else fresh_postgres_database()
    )
    settings = Settings(
        database=database, bot_delay=0, bot_workers=0, http_rate=0, login_rate=0, ws_rate=0
    )
    with TestClient(create_app(settings), headers=ORIGIN) as test_client:
        yield test_client


def _services(client: TestClient) -> Any:
    app: Any = client.app
    return app.state.services


def _log_in_as(client: TestClient, name: str) -> None:
    client.cookies.clear()
    made = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    if made.status_code == 409:
        made = client.post("/api/session", json={"name": name, "password": PASSWORD})
    assert made.is_success, made.text


def _finish(client: TestClient, game_id: str) -> None:
    """Play the game out on the app's own loop, every turn auto-played."""
    master = _services(client).master

    async def play() -> None:
        live = await master.load(game_id)
        while not live.game.state.finished:
            await master.auto(live, live.game.state.seat)

    assert client.portal is not None
    client.portal.call(play)


def _ratings(client: TestClient, game_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        body: dict[str, Any] = client.get(f"/api/games/{game_id}/ratings").json()
        if body["status"] != "pending" or time.monotonic() > deadline:
            return body
        time.sleep(0.02)  # polling a condition: the results are written on the app's loop


def _two_accounts_game(client: TestClient, first: str, second: str, **extra: Any) -> str:
    _log_in_as(client, first)
    seats = [{"kind": "human", "account": True}, {"kind": "human"}]
    made = client.post(
        "/api/games", json={"variant": "yahtzee", "seats": seats, "rated": True, **extra}
    )
    assert made.status_code == 201, made.text
    assert made.json()["rated"] is True
    game_id: str = made.json()["id"]
    _log_in_as(client, second)
    assert client.post(f"/api/games/{game_id}/join", json={}).status_code == 200
    return game_id


def test_a_rated_game_between_accounts_moves_both_ratings(client: TestClient) -> None:
    game_id = _two_accounts_game(client, "Rated_A", "Rated_B")
    pending = client.get(f"/api/games/{game_id}/ratings").json()
    assert pending == {"rated": True, "status": "pending", "changes": []}
    _finish(client, game_id)
    body = _ratings(client, game_id)
    assert body["status"] == "rated", body
    changes = {change["name"]: change for change in body["changes"]}
    assert set(changes) == {"Rated_A", "Rated_B"}
    info = client.get(f"/api/games/{game_id}").json()
    ranking = info["state"]["ranking"]
    first, last = (info["seats"][seat]["name"] for seat in (ranking[0], ranking[-1]))
    start = shown(default_rating())
    assert all(
        change["before"] == start and change["pool"] == "yahtzee" for change in body["changes"]
    )
    if (
        info["state"]["players"][ranking[0]]["place"]
        != info["state"]["players"][ranking[-1]]["place"]
    ):
        assert changes[first]["change"] > 0 > changes[last]["change"]
    for change in body["changes"]:
        assert change["change"] == change["after"] - change["before"]

    async def stored() -> tuple[list[GameResultRow], list[RatingRow]]:
        store = _services(client).store
        async with store.sessions() as session:
            results = list(
                await session.scalars(select(GameResultRow).where(GameResultRow.game_id == game_id))
            )
            ratings = list(await session.scalars(select(RatingRow)))
            return results, ratings

    assert client.portal is not None
    results, ratings = client.portal.call(stored)
    assert sorted(row.seat for row in results) == [0, 1]
    totals = info["state"]["players"]
    for row in results:
        assert row.score == totals[row.seat]["total"] and row.place == totals[row.seat]["place"]
        assert row.pool == "yahtzee" and row.players == 2
        assert row.tied == sum(1 for player in totals if player["place"] == row.place)
    assert {row.games for row in ratings if row.pool == "yahtzee"} >= {1}


def test_the_second_rated_game_starts_from_the_first_s_rating(client: TestClient) -> None:
    one = _two_accounts_game(client, "Again_A", "Again_B")
    _finish(client, one)
    first = {c["name"]: c for c in _ratings(client, one)["changes"]}
    two = _two_accounts_game(client, "Again_A", "Again_B")
    _finish(client, two)
    second = {c["name"]: c for c in _ratings(client, two)["changes"]}
    for name in ("Again_A", "Again_B"):
        assert second[name]["before"] == first[name]["after"]


def test_games_that_are_not_rated_say_why(client: TestClient) -> None:
    _log_in_as(client, "Unrated_Host")
    with_guest = client.post(
        "/api/games",
        json={
            "variant": "yahtzee",
            "seats": [{"kind": "human", "account": True}, {"kind": "human", "name": "Guest"}],
            "rated": True,
        },
    ).json()
    assert with_guest["rated"] is False and with_guest["unrated_reason"] == "anonymous_seat"
    _finish(client, with_guest["id"])
    body = client.get(f"/api/games/{with_guest['id']}/ratings").json()
    assert body == {"rated": True, "status": "unrated", "reason": "anonymous_seat", "changes": []}
    alone = client.post(
        "/api/games",
        json={"variant": "yahtzee", "seats": [{"kind": "human", "account": True}], "rated": True},
    ).json()
    assert alone["unrated_reason"] == "solitaire"
    unasked = client.post(
        "/api/games", json={"variant": "yahtzee", "seats": [{"kind": "human", "account": True}]}
    ).json()
    reply = client.get(f"/api/games/{unasked['id']}/ratings").json()
    assert reply["status"] == "unrated" and reply["reason"] == "not_asked"
    assert client.get("/api/games/nope/ratings").status_code == 404


def test_an_anonymous_seat_taken_later_unrates_the_game(client: TestClient) -> None:
    _log_in_as(client, "Open_Host")
    seats = [{"kind": "human", "account": True}, {"kind": "human"}]
    made = client.post("/api/games", json={"variant": "yahtzee", "seats": seats, "rated": True})
    game_id = made.json()["id"]
    client.cookies.clear()
    assert client.post(f"/api/games/{game_id}/join", json={"name": "Walk_In"}).is_success
    _finish(client, game_id)
    body = client.get(f"/api/games/{game_id}/ratings").json()
    assert body["status"] == "unrated" and body["reason"] == "anonymous_seat"


@pytest.mark.parametrize("level", ["casual", "greedy"])
def test_a_rated_game_against_a_bot_moves_the_person_against_the_bot_s_anchor(
    client: TestClient, level: str
) -> None:
    name = f"Versus_{level}"
    _log_in_as(client, name)
    seats = [{"kind": "human", "account": True}, {"kind": "bot", "level": level}]
    made = client.post("/api/games", json={"variant": "yahtzee", "seats": seats, "rated": True})
    assert made.status_code == 201, made.text
    game = made.json()
    assert game["rated"] is True
    _finish(client, game["id"])
    body = _ratings(client, game["id"])
    assert body["status"] == "rated", body
    (change,) = body["changes"]
    assert change["name"] == name and change["before"] == shown(default_rating())
    info = client.get(f"/api/games/{game['id']}").json()
    players = info["state"]["players"]
    mine, bots = players[0]["place"], players[1]["place"]
    expected, bot_after = rate_game(
        "yahtzee",
        [RatedSeat(place=mine, rating=default_rating()), RatedSeat(place=bots, level=level)],
    )
    assert change["after"] == shown(expected)
    if mine < bots:
        assert change["change"] > 0
    elif mine > bots:
        assert change["change"] < 0
    assert bot_after == anchor("yahtzee", level)  # a bot's anchor never moves
