"""Each seat's chances are judged at the strength it is known to play at (dicepoker.winprob
.strength): a bot at its level, a person at the ladder level their rating says, a newcomer at a
newcomer's; the table tells whose play it assumes, and the analysis (server and `dicepoker
analyse`) judges a position exactly as the live bar does."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from dicepoker.bots import make_bot
from dicepoker.cli import app
from dicepoker.dice import SeededDice
from dicepoker.engine import new_game
from dicepoker.master import GameMaster, LiveGame, MemoryStore
from dicepoker.ratings import SHOWN_BASE, Rating, anchored_levels, pool_of, shown
from dicepoker.review import analyse
from dicepoker.rules import Rules, get_rules
from dicepoker.server.community.accounts import Accounts
from dicepoker.server.community.analysis import analyse as server_analyse
from dicepoker.server.community.strength import (
    STRENGTH_KEY,
    account_strength,
    joining_strength,
    judged_requests,
)
from dicepoker.server.storage.models import RatingRow
from dicepoker.server.storage.store import Store
from dicepoker.simulate import play_game
from dicepoker.winprob import win_probability
from dicepoker.winprob.strength import (
    LADDER_LEVELS,
    Strength,
    newcomer_level,
    person_strength,
    rated_level,
    record_levels,
)

YAHTZEE = get_rules("yahtzee")
RIVALS = ("casual", "intermediate")


def first_turn_chance(rules: Rules, level: str | None) -> float:
    """The first seat's chance at turn 1, judged at `level`, against a Casual and an
    Intermediate bot."""
    state = new_game(rules, ["Ana", "Casual", "Intermediate"])
    chances = win_probability(state, (level, *RIVALS))
    assert chances is not None
    return chances[0]


@pytest.mark.parametrize(
    "rules", [YAHTZEE, get_rules("school", {"columns": 3})], ids=["yahtzee", "school-3"]
)
def test_a_newcomer_against_casual_and_intermediate_bots_is_judged_far_below_the_expert(
    rules: Rules,
) -> None:
    newcomer = first_turn_chance(rules, newcomer_level(pool_of(rules)))
    as_expert = first_turn_chance(rules, None)
    assert newcomer < as_expert - 0.25  # what the bar showed a newcomer is not what it shows now
    assert newcomer < 1 / 3  # no better than an equal share against the two bots
    # ordered by strength: each level up the ladder is judged likelier to win
    ladder = [first_turn_chance(rules, level) for level in LADDER_LEVELS]
    assert ladder == sorted(ladder)
    assert ladder[-1] == pytest.approx(as_expert)


@pytest.mark.parametrize("pool", ["yahtzee", "yahtzee15", "poker-dice", "school-3"])
def test_a_newcomer_plays_like_the_weaker_level_bracketing_a_new_account_s_rating(
    pool: str,
) -> None:
    anchors = anchored_levels(pool)
    level = newcomer_level(pool)
    stronger = LADDER_LEVELS[LADDER_LEVELS.index(level) + 1]
    assert anchors[level] <= SHOWN_BASE < anchors[stronger]
    assert person_strength(pool, None, 0) == Strength(level, "newcomer")
    assert person_strength(pool, 1900, 0).basis == "newcomer"  # no rated game: no rating yet


def test_a_rated_person_plays_like_the_ladder_level_nearest_their_rating() -> None:
    anchors = anchored_levels("yahtzee")
    for level in LADDER_LEVELS:
        assert rated_level("yahtzee", anchors[level]) == level
        assert person_strength("yahtzee", anchors[level] + 5, 3) == Strength(
            level, "rating", anchors[level] + 5
        )
    ratings = range(600, 2300, 50)
    judged = [LADDER_LEVELS.index(rated_level("yahtzee", rating)) for rating in ratings]
    assert judged == sorted(judged) and judged[0] == 0 and judged[-1] == len(LADDER_LEVELS) - 1


async def table(seats: list[dict[str, Any]]) -> tuple[GameMaster, LiveGame]:
    master = GameMaster(MemoryStore(), dice=SeededDice(11))
    await master.start()
    live, _ = await master.create("yahtzee", {}, seats, None)
    return master, live


PERSON_AND_BOTS = [
    {"kind": "human", "name": "Ana"},
    {"kind": "bot", "level": "casual"},
    {"kind": "bot", "level": "intermediate"},
]


def test_the_table_judges_a_person_from_the_strength_on_their_seat_and_says_so() -> None:
    async def scenario() -> None:
        master, live = await table(PERSON_AND_BOTS)
        newcomer = newcomer_level("yahtzee")
        assert live.levels() == (newcomer, "casual", "intermediate")
        seen = [seat.to_data()["plays_like"] for seat in live.public_seats()]
        assert seen == [
            {"level": newcomer, "basis": "newcomer", "rating": None},
            {"level": "casual", "basis": "bot", "rating": None},
            {"level": "intermediate", "basis": "bot", "rating": None},
        ]
        judged = person_strength("yahtzee", 1950, 12).as_json()
        live.set_seats([{**live.seats[0], STRENGTH_KEY: judged}, *live.seats[1:]])
        assert live.levels() == ("expert", "casual", "intermediate")
        assert live.public_seats()[0].to_data()["plays_like"] == judged
        await master.close()

    asyncio.run(scenario())


def test_the_analysis_of_a_table_judges_each_position_as_the_live_bar() -> None:
    async def scenario() -> None:
        master, live = await table(PERSON_AND_BOTS)
        for action in ("roll", "keep 0 1", "roll"):
            await master.act(live, 0, action, live.seq)
        live_chances = win_probability(live.game.state, live.levels())
        record = live.record()
        # the server's analysis of a record names no levels: it reads the record's `bots`
        for levels in (None, live.levels()):
            curve = server_analyse(record, levels)["curve"]
            assert curve[-1]["chances"] == pytest.approx(live_chances, abs=1e-3)
        await master.close()

    asyncio.run(scenario())


def expert_against_greedy(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    levels = ["expert", "greedy"]
    bots = [make_bot(level, 7 + seat) for seat, level in enumerate(levels)]
    game = play_game(YAHTZEE, bots, SeededDice(7), extra={"seed": 7, "bots": levels})
    record = game.to_record()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    return path, record


def test_dicepoker_analyse_reads_the_record_s_bots(tmp_path: Path) -> None:
    path, record = expert_against_greedy(tmp_path)
    result = CliRunner().invoke(app, ["analyse", str(path), "--json"])
    assert result.exit_code == 0, result.output
    start = json.loads(result.output)["curve"][0]["chances"]
    judged = win_probability(new_game(YAHTZEE, record["players"]), ("expert", "greedy"))
    assert judged is not None and judged[0] > 0.6  # the expert is favoured against greedy
    assert start == pytest.approx(judged, abs=1e-3)
    as_equals = analyse(record).curve[0].chances  # what it said before it read them
    assert as_equals == pytest.approx((0.5, 0.5))


def test_dicepoker_analyse_judges_a_rated_person_at_their_rating(tmp_path: Path) -> None:
    path, record = expert_against_greedy(tmp_path)
    record["bots"] = [None, "greedy"]  # the expert's seat was a person's
    path.write_text(json.dumps(record))
    anchors = anchored_levels("yahtzee")

    def start(*options: str) -> float:
        result = CliRunner().invoke(app, ["analyse", str(path), "--json", *options])
        assert result.exit_code == 0, result.output
        return float(json.loads(result.output)["curve"][0]["chances"][0])

    newcomer, strong = start(), start("--rating", f"1={anchors['expert']}")
    assert record_levels(record) == (newcomer_level("yahtzee"), "greedy")
    assert record_levels(record, {0: anchors["expert"]}) == ("expert", "greedy")
    assert newcomer < strong
    bad = CliRunner().invoke(app, ["analyse", str(path), "--rating", "3=1600"])
    assert bad.exit_code != 0 and "no seat 3" in bad.output


def test_the_server_reads_a_person_s_strength_from_their_rating(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store(str(tmp_path / "strength.db"))
        await store.migrate()
        try:
            ana = await Accounts(store).create("Ana", "a long enough password")
            bea = await Accounts(store).create("Bea", "a long enough password")
            rating = Rating(28.0, 5.0)
            async with store.sessions() as session, session.begin():
                session.add(
                    RatingRow(account_id=ana.id, pool="yahtzee", mu=28.0, sigma=5.0, games=4)
                )
            found = await account_strength(store, ana.id, "yahtzee")
            assert found == {
                "level": rated_level("yahtzee", shown(rating)),
                "basis": "rating",
                "rating": shown(rating),
            }
            assert (await account_strength(store, bea.id, "yahtzee"))["basis"] == "newcomer"
            assert (await account_strength(store, None, "yahtzee"))["basis"] == "newcomer"
            requests: list[dict[str, Any]] = [
                {"kind": "human", "name": "Ana", "account": ana.id},
                {"kind": "human", "name": "Carla"},
                {"kind": "bot", "level": "casual"},
                {"kind": "human", "name": None},
            ]
            judged = await judged_requests(store, "yahtzee", {}, requests)
            assert [seat.get(STRENGTH_KEY, {}).get("basis") for seat in judged] == [
                "rating",
                "newcomer",
                None,
                None,
            ]
            assert STRENGTH_KEY not in requests[0]  # the caller's requests are left as they were
            assert await judged_requests(store, "no such game", {}, requests) == requests
            master, live = await table(PERSON_AND_BOTS)
            assert await joining_strength(store, live, ana.id) == found
            await master.close()
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_rated_account_is_judged_at_its_rating_when_it_makes_or_joins_a_game(
    tmp_path: Path,
) -> None:
    """Through the API: an account with a rating in the pool is judged from it, whether it makes
    the game or takes an open seat, and a guest is a newcomer (each seat's `plays_like`)."""
    from daily_support import (
        ORIGIN,
        account,
        app_client,
        call,
        clock_fixture,
        logged_in,
        ok,
        services_of,
    )

    with app_client(str(tmp_path / "api.db"), clock_fixture()) as client:
        ana, bea = account(client, "Ana"), account(client, "Bea")
        store = services_of(client).store

        async def rate(name: str) -> None:
            found = await Accounts(store).by_name(name)
            assert found is not None
            async with store.sessions() as session, session.begin():
                session.add(
                    RatingRow(account_id=found.id, pool="yahtzee", mu=28.0, sigma=5.0, games=12)
                )

        call(client, rate, "Ana")
        call(client, rate, "Bea")
        seats = [
            {"kind": "human", "account": True},
            {"kind": "human"},
            {"kind": "human", "name": "Caio"},
        ]
        with logged_in(client, ana):
            made = ok(
                client.post(
                    "/api/games", json={"variant": "yahtzee", "seats": seats}, headers=ORIGIN
                ),
                201,
            )
        with logged_in(client, bea):
            ok(client.post(f"/api/games/{made['id']}/join", json={}, headers=ORIGIN))
        judged = [
            seat["plays_like"] for seat in ok(client.get(f"/api/games/{made['id']}"))["seats"]
        ]
        rated = rated_level("yahtzee", shown(Rating(28.0, 5.0)))
        assert [(j["basis"], j["level"]) for j in judged[:2]] == [("rating", rated)] * 2
        assert judged[2]["basis"] == "newcomer"
