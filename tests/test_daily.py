"""The daily challenge through the API, on SQLite and PostgreSQL: the same dice for the same keeps,
the seed withheld until the day is over (the app's clock is moved, nothing sleeps), every daily
game verified after it, the par the expert's score on those dice, one game per account a day,
the leaderboard against par, and refusals that change nothing (tests/daily_support.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from daily_support import (
    DAY,
    ORIGIN,
    PASSWORD,
    PRESET,
    Clock,
    Seat,
    app_client,
    client_fixture,
    clock_fixture,
    logged_in,
    ok,
    other_keeps,
    play,
    same_keeps,
    seed_of,
    sign_up,
    start,
    wait_par,
)
from dicepoker import i18n
from dicepoker.bots import make_bot
from dicepoker.cli import app
from dicepoker.daily import par
from dicepoker.engine import totals
from dicepoker.fair import VerifyResult, commitment, die, thrown_positions, verify_record
from dicepoker.record import replay
from dicepoker.server.community.accounts import DELETED_NAME
from dicepoker.server.community.daily import preset_rules
from dicepoker.tui.i18n import Words
from dicepoker.tui.table_state import TableState
from dicepoker.tui.widgets.info import fair_dice_lines

clock = pytest.fixture(clock_fixture, name="clock")
client = pytest.fixture(client_fixture, name="client")

# --- the same dice ------------------------------------------------------------------------------


def test_the_same_keeps_give_everyone_the_same_dice_and_the_seed_comes_after_the_day(
    client: TestClient, clock: Clock, database: str, tmp_path: Path
) -> None:
    today = ok(client.get(f"/api/daily/{PRESET}"))
    assert today["date"] == DAY and today["over"] is False and today["seed"] is None
    assert today["ends_at"] == "2031-03-15T00:00:00+00:00" and today["games"] == 0
    ana, bea, caio = (start(client, name) for name in ("Ana", "Bea", "Caio"))
    assert ana["date"] == DAY and ana["ranked"] is True and ana["url"] == f"/g/{ana['id']}"
    records = [
        play(client, ana, same_keeps),
        play(client, bea, same_keeps),
        play(client, caio, other_keeps),
    ]
    # Ana and Bea kept the same dice: every roll of every turn is the same, and so every move.
    assert records[0]["turns"] == records[1]["turns"]
    assert records[0]["players"] == ["Ana"] and records[1]["players"] == ["Bea"]
    # Caio kept others: each turn's first roll is still everyone's, and wherever he threw a
    # position on the same roll of the same turn as Ana, it showed the same face.
    compared = 0
    for mine, his in zip(records[0]["turns"], records[2]["turns"], strict=True):
        assert mine["rolls"][0] == his["rolls"][0]
        for roll, (a, c) in enumerate(zip(mine["rolls"], his["rolls"], strict=False)):
            if roll == 0:
                continue
            both = set(thrown_positions(a.get("keep", []))) & set(thrown_positions(c["keep"]))
            for position in both:
                assert a["dice"][position] == c["dice"][position]
                compared += 1
    assert compared > 0
    daily_commitment = today["commitment"]
    assert all(
        r["fair_dice"] == {"scheme": today["scheme"], "commitment": daily_commitment}
        for r in records
    )

    # During the day: the seed is in no answer about the day or its finished games, and a
    # game is its own player's alone: anyone else is refused it (they may play the same dice).
    seed = seed_of(client, PRESET, DAY)
    assert commitment(seed) == daily_commitment
    for created in (ana, bea, caio):
        game_id, mine = created["id"], created["headers"]
        game = ok(client.get(f"/api/games/{game_id}", headers=mine))
        assert game["status"] == "finished" and "seed" not in game["fair_dice"]
        assert game["assisted"] is False and game["competition"] == "daily"
        refused = client.get(f"/api/games/{game_id}/verify", headers=mine)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "seed_withheld"
        for path in (
            f"/api/games/{game_id}",
            f"/api/games/{game_id}/record",
            f"/api/games/{game_id}/position?turn=13",
            f"/api/games/{game_id}/analysis",
            f"/api/games/{game_id}/verify",
            f"/api/daily/{PRESET}",
            f"/api/daily/{PRESET}?date={DAY}",
            f"/api/daily/{PRESET}/leaderboard",
            "/api/games?status=finished",
        ):
            assert seed not in client.get(path, headers=mine).text, path
            if path.startswith(f"/api/games/{game_id}"):
                other = client.get(path)
                assert other.status_code == 403, (path, other.text)
                assert other.json()["error"]["code"] == "daily_private"
        # Its own player gets no analysis either: others still play these dice.
        analysis = client.get(f"/api/games/{game_id}/analysis", headers=mine)
        assert analysis.status_code == 403 and analysis.json()["error"]["code"] == "competitive"
        early = ok(client.get(f"/api/games/{game_id}/record", headers=mine))
        assert verify_record(early).reason == "no_seed"
        (tmp_path / "early.json").write_text(json.dumps(early), encoding="utf-8")
        refused_cli = CliRunner().invoke(app, ["verify", str(tmp_path / "early.json")])
        assert refused_cli.exit_code == 1 and "not revealed" in refused_cli.output
    # Another server process (or this one restarted) reads the games from the store: the same.
    with app_client(database, clock) as other:
        for created in (ana, bea, caio):
            path, mine = f"/api/games/{created['id']}/record", created["headers"]
            record = ok(other.get(path, headers=mine))
            assert record["turns"] == ok(client.get(path, headers=mine))["turns"]
            assert "seed" not in record["fair_dice"]
            verify = f"/api/games/{created['id']}/verify"
            assert other.get(verify, headers=mine).status_code == 409
            assert other.get(path).status_code == 403

    # The day is over: the seed is revealed, and every daily game verifies.
    clock.next_day()
    past = ok(client.get(f"/api/daily/{PRESET}?date={DAY}"))
    assert past["over"] is True and past["seed"] == seed and past["commitment"] == daily_commitment
    for created in (ana, bea, caio):
        record = ok(client.get(f"/api/games/{created['id']}/record"))
        assert record["fair_dice"]["seed"] == seed
        result = verify_record(record)
        assert result.ok, result.message
        saved = tmp_path / f"{created['id']}.json"
        saved.write_text(json.dumps(record), encoding="utf-8")
        verified = CliRunner().invoke(app, ["verify", str(saved)])  # `dicepoker verify FILE`
        assert verified.exit_code == 0 and "dice verified" in verified.output, verified.output
        checked = ok(client.get(f"/api/games/{created['id']}/verify"))
        assert checked["ok"] is True and checked["seed"] == seed
        assert ok(client.get(f"/api/games/{created['id']}"))["fair_dice"]["seed"] == seed
        # and its analysis is open to anyone.
        assert ok(client.get(f"/api/games/{created['id']}/analysis"))["players"]
    # The first roll of turn 1 is the seed's dice.
    assert records[0]["turns"][0]["rolls"][0]["dice"] == [die(seed, 1, 1, p) for p in range(5)]
    # A new day, a new challenge.
    tomorrow = ok(client.get(f"/api/daily/{PRESET}"))
    assert tomorrow["date"] == "2031-03-15" and tomorrow["seed"] is None
    assert tomorrow["commitment"] != daily_commitment


def test_a_daily_game_cannot_go_on_once_its_day_is_over(client: TestClient, clock: Clock) -> None:
    """At midnight the day's seed is public (everyone may know the dice to come): a game of
    that day not finished then is refused every further move, and stays unfinished."""
    created = start(client, "Ana")
    seat = Seat(client, created["id"], created["token"])
    try:
        seat.act("roll")
        clock.next_day()
        seat.ws.send_json({"type": "act", "action": "keep 0", "seq": seat.seq})
        refused = seat.ws.receive_json()
        assert refused["type"] == "error" and refused["code"] == "day_over", refused
        seat.ws.send_json({"type": "keep", "keep": [0], "seq": seat.seq})
        assert seat.ws.receive_json()["code"] == "day_over"
    finally:
        seat.close()
    game = ok(client.get(f"/api/games/{created['id']}"))
    assert game["status"] == "running" and game["seq"] == 1
    assert "seed" not in game["fair_dice"]  # its game is not over: no seed in its record
    past = ok(client.get(f"/api/daily/{PRESET}?date={DAY}"))
    assert past["seed"] is not None and past["over"] is True
    board = ok(client.get(f"/api/daily/{PRESET}/leaderboard?date={DAY}"))
    assert board["playing"] == 1 and board["finished"] == 0


# --- the par ------------------------------------------------------------------------------------


def test_the_par_is_the_experts_score_on_the_days_dice(client: TestClient, clock: Clock) -> None:
    """The expert plays a daily game through the server (each of its choices made on the game's
    record, sent over the WebSocket): its score there is the par the server computed."""
    preset = "school"
    created = start(client, "Edu", preset)
    path = f"/api/games/{created['id']}/record"
    seat = Seat(client, created["id"], created["token"])
    bot = make_bot("expert")
    try:
        while not seat.state["finished"]:
            state = replay(ok(client.get(path, headers=created["headers"]))).state
            seat.act(str(bot.choose(state)))
    finally:
        seat.close()
    record = ok(client.get(path, headers=created["headers"]))
    score = totals(replay(record).state)[0]
    assert wait_par(client, preset) == score
    board = ok(client.get(f"/api/daily/{preset}/leaderboard"))
    assert board["par"] == score
    assert [(g["name"], g["score"], g["to_par"]) for g in board["ranked"]] == [("Edu", score, 0)]
    # After the day, anyone can recompute it from the revealed seed.
    clock.next_day()
    seed = ok(client.get(f"/api/daily/{preset}?date={DAY}"))["seed"]
    rules = preset_rules(preset)
    assert par(rules.variant, dict(rules.option_dict), seed) == score


# --- the leaderboard ----------------------------------------------------------------------------


def test_the_leaderboard_lists_finished_games_against_par(client: TestClient, clock: Clock) -> None:
    games = [start(client, name) for name in ("Ana", "Bea", "Caio")]
    play(client, games[0], same_keeps)
    play(client, games[1], other_keeps)
    par_score = wait_par(client, PRESET)
    board = ok(client.get(f"/api/daily/{PRESET}/leaderboard"))
    assert board["date"] == DAY and board["par"] == par_score and board["over"] is False
    assert board["unranked"] == [] and board["playing"] == 1  # Caio has not played yet
    assert board["finished"] == 2
    first = ok(client.get(f"/api/daily/{PRESET}/leaderboard?limit=1"))
    assert first["ranked"] == board["ranked"][:1] and first["finished"] == 2
    listed = board["ranked"]
    assert {g["name"] for g in listed} == {"Ana", "Bea"}
    scores = [g["score"] for g in listed]
    assert scores == sorted(scores, reverse=True)
    for entry in listed:
        game = next(g for g in games if g["id"] == entry["id"])
        record = ok(client.get(f"/api/games/{game['id']}/record", headers=game["headers"]))
        assert entry["score"] == totals(replay(record).state)[0]
        assert entry["to_par"] == entry["score"] - par_score
        assert entry["place"] in (1, 2) and entry["ranked"] is True
        assert entry["status"] == "finished"
        assert entry["replay"] == f"/replay/g/{game['id']}"
        # The games behind the board open when the day is over.
        assert client.get(entry["analysis"]).json()["error"]["code"] == "daily_private"
    assert ok(client.get(f"/api/daily/{PRESET}"))["games"] == 3
    clock.next_day()
    for entry in listed:
        assert ok(client.get(entry["analysis"]))["players"][0]["name"] == entry["name"]


def test_an_account_plays_each_challenge_once_a_day(client: TestClient, clock: Clock) -> None:
    ana = sign_up(client, "Ana_1")
    with logged_in(client, ana):
        assert ok(client.get(f"/api/daily/{PRESET}"))["mine"] is None
        created = ok(client.post(f"/api/daily/{PRESET}", headers=ORIGIN), 201)
        assert created["ranked"] is True and created["date"] == DAY
        game = ok(client.get(f"/api/games/{created['id']}"))
        assert game["seats"][0]["name"] == "Ana_1"  # the account's name; a body's is not read
        mine = ok(client.get(f"/api/daily/{PRESET}"))["mine"]
        assert mine["id"] == created["id"] and mine["ranked"] is True
        assert mine["status"] == "running" and mine["score"] is None
        # A second game of the same challenge on the same day: refused, and nothing changes.
        before = ok(client.get("/api/games?limit=200"))["games"]
        again = client.post(f"/api/daily/{PRESET}", json={"name": "Other"}, headers=ORIGIN)
        assert again.status_code == 409, again.text
        assert again.json()["error"]["code"] == "daily_played"
        assert again.json()["error"]["game"] == created["id"]
        assert ok(client.get("/api/games?limit=200"))["games"] == before
        assert ok(client.get(f"/api/daily/{PRESET}"))["games"] == 1
        # Another preset's challenge the same day is another challenge.
        other = ok(client.post("/api/daily/school", headers=ORIGIN), 201)
        assert other["ranked"] is True
        # Played to the end, the account's game says its result against par.
        play(client, created, same_keeps)
        par_score = wait_par(client, PRESET)
        mine = ok(client.get(f"/api/daily/{PRESET}"))["mine"]
        assert mine["status"] == "finished" and mine["to_par"] == mine["score"] - par_score
    # Nobody else plays today's dice: no game is made for them, and nobody's game is "mine".
    anonymous = client.post(f"/api/daily/{PRESET}", headers=ORIGIN)
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.json()["error"]["code"] == "log_in_for_daily"
    assert ok(client.get(f"/api/daily/{PRESET}"))["games"] == 1
    assert ok(client.get(f"/api/daily/{PRESET}"))["mine"] is None
    # The next day the account plays the next challenge.
    clock.next_day()
    with logged_in(client, ana):
        assert ok(client.get(f"/api/daily/{PRESET}"))["mine"] is None
        assert ok(client.get(f"/api/daily/{PRESET}?date={DAY}"))["mine"]["id"] == created["id"]
        ok(client.post(f"/api/daily/{PRESET}", headers=ORIGIN), 201)
        # A session cookie from another site's page is refused (and starts nothing).
        forged = client.post(f"/api/daily/{PRESET}", headers={"origin": "https://evil.example"})
        assert forged.status_code == 403 and forged.json()["error"]["code"] == "bad_origin"
    assert ok(client.get(f"/api/daily/{PRESET}"))["games"] == 1


def test_accounts_are_ranked_with_ties_sharing_a_place(client: TestClient) -> None:
    players = {name: sign_up(client, name) for name in ("Ana", "Bea", "Caio", "Duda")}
    plans = {"Ana": same_keeps, "Bea": same_keeps, "Caio": other_keeps, "Duda": other_keeps}
    for name, cookies in players.items():
        with logged_in(client, cookies):
            created = ok(client.post(f"/api/daily/{PRESET}", headers=ORIGIN), 201)
        if name != "Duda":  # Duda is still playing
            play(client, created, plans[name])
    board = ok(client.get(f"/api/daily/{PRESET}/leaderboard"))
    ranked = board["ranked"]
    assert board["unranked"] == [] and board["playing"] == 1
    assert {g["name"] for g in ranked} == {"Ana", "Bea", "Caio"}
    assert all(g["ranked"] for g in ranked)
    by_name = {g["name"]: g for g in ranked}
    assert by_name["Ana"]["score"] == by_name["Bea"]["score"]  # the same keeps: the same game
    assert by_name["Ana"]["place"] == by_name["Bea"]["place"]
    places = [g["place"] for g in ranked]
    scores = [g["score"] for g in ranked]
    assert scores == sorted(scores, reverse=True) and places[0] == 1
    for n in range(1, len(ranked)):
        assert places[n] == (places[n - 1] if scores[n] == scores[n - 1] else n + 1)
    # A deleted account's game stays on the board, unranked, under the neutral name.
    with logged_in(client, players["Caio"]):
        gone = client.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=ORIGIN)
        assert gone.status_code == 204, gone.text
    board = ok(client.get(f"/api/daily/{PRESET}/leaderboard"))
    assert {g["name"] for g in board["ranked"]} == {"Ana", "Bea"}
    assert [g["name"] for g in board["unranked"]] == [DELETED_NAME]
    assert board["unranked"][0]["place"] is None and board["unranked"][0]["ranked"] is False


# --- refusals -----------------------------------------------------------------------------------


def test_bad_presets_dates_and_bodies_are_refused_and_change_nothing(client: TestClient) -> None:
    def refused(response: Any, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == code, response.text

    for path in ("/api/daily/chess", "/api/daily/chess/leaderboard"):
        refused(client.get(path), 404, "not_found")
    refused(client.post("/api/daily/chess", headers=ORIGIN), 404, "not_found")
    for bad in ("2031-02-30", "14-03-2031", "2031-3-14", "yesterday", "2031-03-14T00:00", ""):
        refused(client.get(f"/api/daily/{PRESET}?date={bad}"), 400, "bad_request")
        refused(client.get(f"/api/daily/{PRESET}/leaderboard?date={bad}"), 400, "bad_request")
    # A day after today has no challenge yet; a past day nobody asked for has none either.
    refused(client.get(f"/api/daily/{PRESET}?date=2031-03-15"), 404, "not_found")
    refused(client.get(f"/api/daily/{PRESET}/leaderboard?date=2031-03-15"), 404, "not_found")
    refused(client.get(f"/api/daily/{PRESET}?date=2031-03-13"), 404, "not_found")
    # Today's challenge is played by accounts: a name given without one starts nothing.
    for body in (None, {"name": "Ana"}, {"name": 7}):
        refused(
            client.post(f"/api/daily/{PRESET}", json=body, headers=ORIGIN), 401, "log_in_for_daily"
        )
    assert ok(client.get("/api/games"))["games"] == []
    assert ok(client.get(f"/api/daily/{PRESET}"))["games"] == 0


# --- the terminal client ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_the_terminal_says_when_a_daily_seed_comes(lang: str) -> None:
    """The terminal checks a finished game's dice itself: a daily game's record has no seed yet,
    which is no failure, and it says so in the player's words."""
    withheld = VerifyResult(False, "the seed is not revealed", "no_seed", commitment="ab" * 32)
    table = TableState(Words(lang), {"finished": True}, commitment="ab" * 32, dice_check=withheld)
    text = " ".join(line.plain for line in fair_dice_lines(table, 200))
    said = i18n.gettext(lang, "The seed of a daily challenge is revealed when its day is over.")
    assert said in text and "could not be verified" not in text
