"""Fair play (issue 54, items 1 and 2), through the HTTP API and the WebSocket: the expert's help
is refused to everyone in a competitive game until it is over, a copy of the game is no way
around it, and the daily challenge's dice are dealt only to ranked games, each readable by its
own player alone until the day is over (docs/fair-play.md)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from daily_support import (
    ORIGIN,
    PASSWORD,
    PRESET,
    Clock,
    Seat,
    account,
    call,
    client_fixture,
    clock_fixture,
    logged_in,
    ok,
    other_keeps,
    play,
    player_of,
    services_of,
    start,
)
from dicepoker.master.loading import mark_abandoned

clock = pytest.fixture(clock_fixture, name="clock")
client = pytest.fixture(client_fixture, name="client")

ANA_BEA = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    made: dict[str, Any] = ok(client.post("/api/games", json=body, headers=ORIGIN), 201)
    return made


def _refused(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code, response.text


def _finish(client: TestClient, game_id: str) -> None:
    """Play the game to its end by auto-play (on the app's own loop, as the turn clock does)."""
    master = services_of(client).master

    async def finish() -> None:
        live = await master.load(game_id)
        assert live is not None
        while not live.game.state.finished:
            await master.auto(live, live.game.state.seat)

    call(client, finish)


@pytest.fixture
def sqlite_client(tmp_path: Any) -> Iterator[TestClient]:
    yield from client_fixture(str(tmp_path / "fair.db"), clock_fixture())


def test_each_game_is_assisted_or_competitive_from_its_creation(sqlite_client: TestClient) -> None:
    client = sqlite_client
    alone = [{"kind": "human", "name": "Ana"}]
    bots = [*alone, {"kind": "bot", "level": "casual"}]
    cases: list[tuple[dict[str, Any], bool, str | None]] = [
        ({"variant": "yahtzee", "seats": alone}, True, None),
        ({"variant": "yahtzee", "seats": bots}, True, None),
        ({"variant": "yahtzee", "seats": bots, "assisted": False}, False, "casual"),
        ({"variant": "yahtzee", "seats": ANA_BEA}, False, "casual"),
        ({"variant": "yahtzee", "seats": [*alone, {"kind": "human"}]}, False, "casual"),
        ({"variant": "yahtzee", "seats": ANA_BEA, "assisted": True}, True, None),
        ({"variant": "yahtzee", "seats": ANA_BEA, "rated": True}, False, "rated"),
    ]
    for body, assisted, competition in cases:
        made = _create(client, **body)
        game = ok(client.get(f"/api/games/{made['id']}"))
        assert (game["assisted"], game["competition"]) == (assisted, competition), body
        # Everyone who joins is told, on the socket's first message.
        with client.websocket_connect(f"/ws/games/{made['id']}") as spectator:
            welcome = spectator.receive_json()
            assert (welcome["assisted"], welcome["competition"]) == (assisted, competition)
    # A rated game cannot be asked to be assisted: refused, nothing made.
    before = ok(client.get("/api/games?limit=200"))["games"]
    rated_help = {"variant": "yahtzee", "seats": ANA_BEA, "rated": True, "assisted": True}
    _refused(client.post("/api/games", json=rated_help, headers=ORIGIN), 400, "bad_request")
    assert ok(client.get("/api/games?limit=200"))["games"] == before


def test_a_competitive_game_gives_no_help_to_anyone_until_it_is_over(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    made = _create(client, variant="yahtzee", seats=ANA_BEA)
    game_id = made["id"]
    ana = {"Authorization": f"Bearer {made['seats'][0]['token']}"}
    for headers in (ana, {}):  # its player to move, and anyone else
        _refused(client.get(f"/api/games/{game_id}/advice", headers=headers), 403, "competitive")
        refused = client.get(f"/api/games/{game_id}/analysis", headers=headers)
        _refused(refused, 403, "competitive")
        assert "best" not in refused.text
    # A copy of the game (its record, imported) is no way around it: the analysis of the copy is
    # refused while the game runs, though the copy itself is stored and shown.
    record = ok(client.get(f"/api/games/{game_id}/record"))
    copy = ok(client.post("/api/records", json=record, headers=ORIGIN), 201)["id"]
    ok(client.get(f"/api/records/{copy}"))
    _refused(client.get(f"/api/records/{copy}/analysis"), 403, "competitive")
    # Over, the game is open: its analysis, and its copy's.
    _finish(client, game_id)
    _refused(client.get(f"/api/games/{game_id}/advice", headers=ana), 409, "game_over")
    assert ok(client.get(f"/api/games/{game_id}/analysis"))["players"]
    assert ok(client.get(f"/api/records/{copy}/analysis"))["players"]


def test_a_game_closed_as_abandoned_is_over_for_its_analysis(sqlite_client: TestClient) -> None:
    """Nobody plays an abandoned game again: its analysis (the replay viewer's) is open."""
    client = sqlite_client
    made = _create(client, variant="yahtzee", seats=ANA_BEA)
    _refused(client.get(f"/api/games/{made['id']}/analysis"), 403, "competitive")
    master = services_of(client).master

    async def abandon() -> None:
        live = await master.load(made["id"])
        assert live is not None
        mark_abandoned(live, master.now())

    call(client, abandon)
    assert ok(client.get(f"/api/games/{made['id']}/analysis"))["players"]


def test_an_assisted_game_gives_its_help(sqlite_client: TestClient) -> None:
    client = sqlite_client
    made = _create(client, variant="yahtzee", seats=ANA_BEA, assisted=True)
    advice = ok(client.get(f"/api/games/{made['id']}/advice"))
    assert advice["best"]["action"] == "roll"
    assert ok(client.get(f"/api/games/{made['id']}/analysis"))["players"]


def test_the_days_dice_are_dealt_only_to_ranked_games_each_seen_by_its_player(
    client: TestClient, clock: Clock
) -> None:
    """The review's daily oracle: an unranked game of the day that rerolls everything showed
    the day's dice. Now no game is dealt them but an account's one ranked game, and nobody
    else reads it (nor its copy) before the day is over."""
    # Anyone not logged in: no game, whatever they send.
    _refused(client.post(f"/api/daily/{PRESET}", headers=ORIGIN), 401, "log_in_for_daily")
    ana = start(client, "Ana")
    game_id = ana["id"]
    # Its own player gets no hint: following them scored the par.
    _refused(client.get(f"/api/games/{game_id}/advice", headers=player_of(ana)), 403, "competitive")
    # Another account, a spectator and an anonymous caller read nothing of it.
    bea = account(client, "Bea")
    for who in ({}, bea):
        with logged_in(client, who):
            for path in ("", "/record", "/position?turn=1", "/analysis", "/ratings", "/verify"):
                _refused(client.get(f"/api/games/{game_id}{path}"), 403, "daily_private")
            with client.websocket_connect(f"/ws/games/{game_id}") as spectator:
                with pytest.raises(WebSocketDisconnect) as closed:
                    spectator.receive_json()
                assert closed.value.code == 4403 and closed.value.reason == "daily_private"
    # Its player reads it, by their seat's token or their account's session.
    play(client, ana, other_keeps)
    # Played once a day: no rematch on the day's dice or on others.
    rematch = client.post(f"/api/games/{game_id}/rematch", headers=player_of(ana))
    _refused(rematch, 409, "daily_played")
    with logged_in(client, account(client, "Ana")):
        record = ok(client.get(f"/api/games/{game_id}/record"))
    # A copy of it cannot be shared before the day is over.
    _refused(client.post("/api/records", json=record, headers=ORIGIN), 403, "daily_private")
    # An account deleted and made again under the same name does not play the day twice.
    with logged_in(client, account(client, "Ana")):
        gone = client.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=ORIGIN)
        assert gone.status_code == 204, gone.text
    with logged_in(client, account(client, "Ana")):
        again = client.post(f"/api/daily/{PRESET}", headers=ORIGIN)
        _refused(again, 409, "daily_played")
        assert again.json()["error"]["game"] == game_id
    # The day over, the game is everyone's to see, analyse and copy.
    clock.next_day()
    assert ok(client.get(f"/api/games/{game_id}/analysis"))["players"]
    assert ok(client.get(f"/api/games/{game_id}/record"))["fair_dice"]["seed"]
    ok(client.post("/api/records", json=record, headers=ORIGIN), 201)
    with client.websocket_connect(f"/ws/games/{game_id}") as spectator:
        assert spectator.receive_json()["type"] == "welcome"


def test_a_daily_game_is_played_by_its_seat_over_the_socket(client: TestClient) -> None:
    """The player's own connection (its token) is not refused: the privacy is others'."""
    ana = start(client, "Ana")
    seat = Seat(client, ana["id"], ana["token"])
    try:
        assert seat.act("roll")["seat"] == 0
    finally:
        seat.close()
