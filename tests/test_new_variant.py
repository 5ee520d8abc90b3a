"""A throw-away variant beside the shipped ones, written in the test from the data model and
registered for the test only, goes the whole way a new variant goes: its definition is checked,
bots play it through the engine, and a person's rated game against a bot is rated by the server
on the bots' provisional anchors (its variant has no measured round-robin), with no KeyError
anywhere on the way.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import ranking, totals
from dicepoker.ratings import (
    ANCHOR_SIGMA,
    RatedSeat,
    _model,
    anchor,
    default_rating,
    level_ratings,
    pool_of,
    provisional,
    provisional_pools,
    rate_game,
    shown,
)
from dicepoker.record import _most_players
from dicepoker.rules import (
    VARIANTS,
    Combo,
    OptionSpec,
    Pattern,
    Row,
    Rules,
    Value,
    Variant,
    get_rules,
)
from dicepoker.rules.model import AutoPlay, UpperBonus
from dicepoker.server.community.pools import rating_pools
from dicepoker.server.settings import Settings
from dicepoker.simulate import play_game
from dicepoker.site import create_app

NAME = "practice"
ORIGIN = {"origin": "http://testserver"}
PASSWORD = "practice password"

ROWS = (
    Row("fives", Combo(Pattern.FACE, Value.MATCHING, n=5), "upper"),
    Row("sixes", Combo(Pattern.FACE, Value.MATCHING, n=6), "upper"),
    Row("pair", Combo(Pattern.OF_A_KIND, Value.ALL, n=2), "lower"),
    Row("full_house", Combo(Pattern.FULL_HOUSE, Value.FIXED, points=25), "lower"),
    Row(
        "straight",
        Combo(Pattern.STRAIGHT, Value.FIXED, points=40, runs=((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))),
        "lower",
    ),
    Row("yahtzee", Combo(Pattern.OF_A_KIND, Value.FIXED, n=5, points=50), "lower"),
    Row("chance", Combo(Pattern.ANY, Value.ALL), "lower"),
)


def _build(options: dict[str, bool | int]) -> Rules:
    return Rules(
        variant=NAME,
        options=tuple(options.items()),
        rows=ROWS,
        min_players=1,
        max_players=4,
        upper_bonus=UpperBonus(30, 15) if options["upper_bonus"] else None,
        autoplay=AutoPlay(("yahtzee", "full_house", "pair")),
    )


PRACTICE = Variant(
    NAME,
    "Practice dice",
    "none",
    (OptionSpec("upper_bonus", bool, True, help="15 points when fives and sixes total 30"),),
    _build,
)


def _clear_caches() -> None:
    """The caches that list every variant: built again with and without the practice game."""
    level_ratings.cache_clear()
    rating_pools.cache_clear()
    _most_players.cache_clear()


@pytest.fixture
def practice(monkeypatch: pytest.MonkeyPatch) -> Iterator[Variant]:
    """The practice variant, registered for this test only."""
    _clear_caches()
    monkeypatch.setitem(VARIANTS, NAME, PRACTICE)
    try:
        yield PRACTICE
    finally:
        monkeypatch.delitem(VARIANTS, NAME)
        _clear_caches()


def test_the_practice_variant_validates_and_is_listed(practice: Variant) -> None:
    for upper_bonus in (True, False):
        rules = get_rules(NAME, {"upper_bonus": upper_bonus})
        assert rules.variant == NAME and rules.cells == len(ROWS)
    assert get_rules(NAME) is get_rules(NAME, {"upper_bonus": True})
    assert pool_of(get_rules(NAME)) == NAME
    assert provisional(NAME) and provisional_pools() == [NAME]


def test_bots_play_a_whole_practice_game_through_the_engine(practice: Variant) -> None:
    rules = get_rules(NAME)
    bots = [make_bot("expert"), make_bot("casual", 1), make_bot("greedy")]
    game = play_game(rules, bots, SeededDice(7))
    state = game.state
    assert state.finished
    assert all(sheet.cells.count(None) == 0 for sheet in state.sheets)
    scores = totals(state)
    assert len(scores) == 3 and all(score > 0 for score in scores)
    assert sorted(standing.place for standing in ranking(state))[0] == 1


def test_the_bots_anchors_are_provisional_and_wider_than_measured_ones(practice: Variant) -> None:
    measured = anchor("yahtzee", "expert")
    borrowed = anchor(NAME, "expert")
    assert borrowed.sigma > ANCHOR_SIGMA == measured.sigma
    levels = level_ratings()[NAME]
    assert levels["beginner"] < levels["casual"] < levels["intermediate"] < levels["expert"]
    assert levels["points"] == levels["expert"]  # rated as the expert, as everywhere
    # a win against the provisional expert gains less than one against an expert of the same
    # strength measured: the anchor's uncertainty is part of the result's
    person = default_rating()
    won = [RatedSeat(place=1, rating=person), RatedSeat(place=2, level="expert")]
    gained = rate_game(NAME, won)[0].mu - person.mu
    model = _model()
    sure = model.rate(
        [
            [model.rating(mu=person.mu, sigma=person.sigma)],
            [model.rating(mu=borrowed.mu, sigma=ANCHOR_SIGMA)],
        ],
        ranks=[1.0, 2.0],
    )
    assert 0 < gained < float(sure[0][0].mu) - person.mu
    assert not provisional("yahtzee") and not provisional("school-5")


def _log_in_as(client: TestClient, name: str) -> None:
    client.cookies.clear()
    made = client.post("/api/accounts", json={"name": name, "password": PASSWORD})
    assert made.is_success, made.text


def test_a_rated_practice_game_against_a_bot_is_rated(practice: Variant, tmp_path: Any) -> None:
    settings = Settings(
        database=str(tmp_path / "practice.db"),
        bot_delay=0,
        bot_workers=0,
        http_rate=0,
        login_rate=0,
        ws_rate=0,
    )
    with TestClient(create_app(settings), headers=ORIGIN) as client:
        listing = client.get("/api/variants").json()
        assert NAME in [variant["name"] for variant in listing["variants"]]
        assert listing["level_ratings"][NAME]["casual"] == shown(anchor(NAME, "casual"))
        _log_in_as(client, "Practiser")
        seats = [{"kind": "human", "account": True}, {"kind": "bot", "level": "casual"}]
        made = client.post("/api/games", json={"variant": NAME, "seats": seats, "rated": True})
        assert made.status_code == 201, made.text
        game_id: str = made.json()["id"]
        assert made.json()["rated"] is True
        master = client.app.state.services.master  # type: ignore[attr-defined]

        async def play() -> None:
            live = await master.load(game_id)
            while not live.game.state.finished:
                await master.auto(live, live.game.state.seat)

        assert client.portal is not None
        client.portal.call(play)
        deadline = time.monotonic() + 60
        body: dict[str, Any] = client.get(f"/api/games/{game_id}/ratings").json()
        while body["status"] == "pending" and time.monotonic() < deadline:
            time.sleep(0.02)  # polling a condition: the results are written on the app's loop
            body = client.get(f"/api/games/{game_id}/ratings").json()
        assert body["status"] == "rated", body
        (change,) = body["changes"]
        assert change["pool"] == NAME and change["before"] == shown(default_rating())
        players = client.get(f"/api/games/{game_id}").json()["state"]["players"]
        expected, bot_after = rate_game(
            NAME,
            [
                RatedSeat(place=players[0]["place"], rating=default_rating()),
                RatedSeat(place=players[1]["place"], level="casual"),
            ],
        )
        assert change["after"] == shown(expected)
        assert bot_after == anchor(NAME, "casual")  # a provisional anchor never moves either
