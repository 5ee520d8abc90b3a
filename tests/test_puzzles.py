"""Puzzles from real games, on SQLite and PostgreSQL: a finished game's blunder (a Yahtzee scored
as Chance) becomes a puzzle, once, whichever process harvests it; `GET /api/puzzles/next` gives
the position without any value; `POST /api/puzzles/{id}` is judged by the advisor at that moment
(never by what is stored); the refusals; the sweep at start-up; a game played to its end over the
WebSocket; a daily game's puzzle waits for its day's end; migration 0005."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import create_async_engine

from daily_support import Seat, call, ok, services_of
from dicepoker import winprob
from dicepoker.advisor import advise
from dicepoker.master.tasks import Recent
from dicepoker.master.watcher import settled
from dicepoker.record import replay
from dicepoker.rules import get_rules
from dicepoker.server.community import analysis as analysis_module
from dicepoker.server.community import puzzles as puzzles_module
from dicepoker.server.community.puzzles import (
    GOOD_CHANCE,
    GOOD_SHARE,
    THRESHOLD_SHARE,
    cut,
    find_puzzles,
    good_within,
    points_per_turn,
    threshold,
)
from dicepoker.server.settings import Settings
from dicepoker.server.storage.models import PuzzleHarvestRow, PuzzleRow
from dicepoker.server.storage.store import Store, alembic_config, database_url
from dicepoker.site import create_app
from puzzle_support import BEST, BLUNDER, PEOPLE, blunder_game, store_game

GAME = "blunder1"
RULES = get_rules("yahtzee")


def _settings(database: str) -> Settings:
    return Settings(
        database=database,
        bot_delay=0,
        bot_workers=0,
        ws_rate=0,
        http_rate=0,
        analysis_rate=0,
        login_rate=0,
        login_name_rate=0,
    )


@contextmanager
def app_client(database: str) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(database))) as client:
        yield client


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    found: dict[str, Any] = blunder_game().to_record()
    return found


def put_game(
    client: TestClient,
    game_id: str,
    record: dict[str, Any],
    seats: list[dict[str, Any]] | None = None,
    reveal_at: datetime | None = None,
) -> None:
    async def work() -> None:
        await store_game(services_of(client).store, game_id, record, seats, reveal_at=reveal_at)

    call(client, work)


def harvest(client: TestClient, game_id: str) -> int:
    """Harvest the game in the app's process (as its end, or the sweep, would)."""
    services = services_of(client)

    async def work() -> int:
        live = await services.master.load(game_id)
        assert live is not None and live.game.state.finished
        return await services.puzzles.harvest(live)

    made: int = call(client, work)
    return made


def rows(client: TestClient, game_id: str) -> tuple[int, int]:
    """The game's puzzles and harvest rows in the database."""
    store = services_of(client).store

    async def work() -> tuple[int, int]:
        async with store.sessions() as session:
            puzzles = await session.scalar(
                select(func.count()).select_from(PuzzleRow).where(PuzzleRow.game_id == game_id)
            )
            harvests = await session.scalar(
                select(func.count())
                .select_from(PuzzleHarvestRow)
                .where(PuzzleHarvestRow.game_id == game_id)
            )
            return int(puzzles or 0), int(harvests or 0)

    found: tuple[int, int] = call(client, work)
    return found


def keys_of(value: Any) -> set[str]:
    """Every key of a JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value).union(*(keys_of(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_of(item) for item in value))
    return set()


# --- the thresholds and the harvest itself ------------------------------------------------------


def test_the_thresholds_are_shares_of_a_turns_points() -> None:
    per_turn = points_per_turn(RULES)
    assert 19 < per_turn < 20  # 254.59 over 13 cells
    assert threshold(RULES) == pytest.approx(THRESHOLD_SHARE * per_turn)
    assert good_within(RULES) == pytest.approx(GOOD_SHARE * per_turn)
    dice = get_rules("poker-dice")
    assert threshold(dice) < 1 < threshold(RULES)  # poker dice's points are small


def test_find_puzzles_takes_the_blunder_of_a_person_only(record: dict[str, Any]) -> None:
    from dicepoker.review import analyse

    analysis = analyse(record).as_json()
    found = find_puzzles(record, [0, 1], analysis)
    assert [(item.turn, item.roll, item.seat, item.played) for item in found] == [
        (1, 1, 0, BLUNDER)
    ]
    assert found[0].loss >= threshold(RULES)
    assert find_puzzles(record, [1], analysis) == []  # Bea's decisions were all the best
    # The position: Ana's first throw, five sixes, and nobody's name.
    position = found[0].position
    assert position == cut(record, 0, 1)
    assert position["players"] == ["Player 1", "Player 2"]
    assert set(position) == {"variant", "options", "players", "turns"}
    state = replay(position).state
    assert state.dice == (6, 6, 6, 6, 6) and state.rolls == 1 and state.seat == 0


# --- the API ------------------------------------------------------------------------------------


def test_a_blunder_becomes_a_puzzle_judged_by_the_advisor(
    database: str, record: dict[str, Any]
) -> None:
    # The chances of winning loaded (as a warm server has them): a guess with a rival is graded
    # by them, every time (tests/test_puzzle_grading.py checks both measures).
    winprob.prepare(RULES)
    with app_client(database) as client:
        put_game(client, GAME, record)
        assert harvest(client, GAME) == 1
        assert harvest(client, GAME) == 0  # once
        assert rows(client, GAME) == (1, 1)

        puzzle = ok(client.get("/api/puzzles/next", params={"preset": "yahtzee"}))
        assert puzzle["url"] == f"/puzzles/{puzzle['id']}"
        assert (puzzle["preset"], puzzle["pool"], puzzle["seat"]) == ("yahtzee", "yahtzee", 0)
        assert (puzzle["turn"], puzzle["roll"]) == (1, 1)
        assert puzzle["state"]["turn"]["dice"] == [6, 6, 6, 6, 6]
        assert [p["name"] for p in puzzle["state"]["players"]] == ["Player 1", "Player 2"]
        assert BEST in puzzle["actions"] and BLUNDER in puzzle["actions"]
        assert "keep 0 1" in puzzle["actions"] and "roll" in puzzle["actions"]
        # Nothing of the options' values, nor what the player chose, is given before a guess.
        assert not {"value", "worth", "loss", "best", "played", "win"} & keys_of(puzzle)
        assert ok(client.get(puzzle["url"].replace("/puzzles", "/api/puzzles"))) == puzzle
        # The only one: asked for another, it is given again rather than nothing.
        after = {"preset": "yahtzee", "after": puzzle["id"]}
        assert ok(client.get("/api/puzzles/next", params=after))["id"] == puzzle["id"]

        url = f"/api/puzzles/{puzzle['id']}"
        best = ok(client.post(url, json={"action": BEST}))
        assert (best["verdict"], best["loss"], best["action"]) == ("best", 0.0, BEST)
        assert best["best"]["action"] == BEST and best["chosen"] == best["best"]
        assert best["method"] == "solver"
        assert {o["action"] for o in best["options"]} == set(puzzle["actions"])
        losses = [o["loss"] for o in best["options"]]
        assert losses == sorted(losses) and losses[0] == 0.0
        # The player's choice, valued now, in chance of winning: a mistake there too.
        played = best["played"]
        assert played["action"] == BLUNDER and played["loss"] > best["good_within"]
        assert best["good_within"] == GOOD_CHANCE
        assert played["loss"] == pytest.approx(best["best"]["win"] - played["win"], abs=2e-4)

        # The blunder itself, and the same hold named two ways.
        blunder = ok(client.post(url, json={"action": BLUNDER}))
        assert blunder["verdict"] == "mistake" and blunder["loss"] == played["loss"]
        assert blunder["chosen"]["action"] == BLUNDER
        one = ok(client.post(url, json={"action": "keep 0 1 2 3"}))
        other = ok(client.post(url, json={"action": "keep 4 3 1 2"}))  # read as "keep 1 2 3 4"
        assert other["action"] == "keep 1 2 3 4"
        assert one["loss"] == other["loss"] > 0
        assert one["chosen"]["value"] == other["chosen"]["value"]
        good = [o for o in best["options"] if 0 < o["loss"] <= best["good_within"]]
        for option in good[:1]:
            assert ok(client.post(url, json={"action": option["action"]}))["verdict"] == "good"
        # The advisor's own values, option by option.
        state = replay(cut(record, 0, 1)).state
        advice = advise(state)
        assert best["best"]["value"] == pytest.approx(advice.best.value, abs=1e-3)
        for option in best["options"]:
            assert option["value"] == pytest.approx(
                advice.option(_parse(option["action"])).value, abs=1e-3
            )
        assert 0 <= played["win"] < best["best"]["win"] <= 1

        # Refusals: not legal here (with the engine's reason), not an action, not a body.
        struck = client.post(url, json={"action": "strike chance"})
        assert struck.status_code == 400, struck.text
        error = struck.json()["error"]
        assert error["code"] == "bad_move" and error["reason"] == "no_strike"
        for action in ("keep 0 1 2 3 4", "timeout", "dance", "keep 7"):
            refused = client.post(url, json={"action": action})
            assert refused.status_code == 400, (action, refused.text)
            assert refused.json()["error"]["code"] == "bad_move", action
        for body in ({"act": "roll"}, {"action": ""}, {"action": 3}, {"action": "x" * 65}):
            refused = client.post(url, json=body)
            assert refused.status_code == 400, (body, refused.text)
            assert refused.json()["error"]["code"] == "bad_request", body
        assert client.post(url, content=b"{not json").status_code == 400
        missing = client.post("/api/puzzles/nope", json={"action": "roll"})
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
        assert client.get("/api/puzzles/nope").status_code == 404
        none = client.get("/api/puzzles/next", params={"preset": "school"})
        assert (none.status_code, none.json()["error"]["code"]) == (404, "no_puzzle")
        unknown = client.get("/api/puzzles/next", params={"preset": "chess"})
        assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "bad_request")
        assert client.get("/api/puzzles/next").status_code == 400  # no preset


def _parse(action: str) -> Any:
    from dicepoker.engine import parse_action

    return parse_action(action)


def test_the_answer_never_comes_from_what_is_stored(tmp_path: Path, record: dict[str, Any]) -> None:
    """A stored row that says the blunder was nothing changes no answer: the advisor judges."""
    with app_client(str(tmp_path / "p.db")) as client:
        put_game(client, GAME, record)
        assert harvest(client, GAME) == 1
        store = services_of(client).store

        async def tamper() -> None:
            async with store.transaction() as session:
                await session.execute(update(PuzzleRow).values(loss=0.0, played=BEST))

        call(client, tamper)
        puzzle = ok(client.get("/api/puzzles/next", params={"preset": "yahtzee"}))
        answer = ok(client.post(f"/api/puzzles/{puzzle['id']}", json={"action": BLUNDER}))
        assert answer["verdict"] == "mistake" and answer["loss"] > answer["good_within"]
        assert answer["best"]["action"] == BEST


def test_two_processes_harvest_a_game_once(database: str, record: dict[str, Any]) -> None:
    with app_client(database) as first, app_client(database) as second:
        put_game(first, GAME, record)
        with ThreadPoolExecutor(2) as pool:
            made = list(pool.map(lambda client: harvest(client, GAME), [first, second]))
        assert sorted(made) == [0, 1]
        assert rows(first, GAME) == (1, 1) == rows(second, GAME)


def test_people_only_bots_never_and_the_sweep_at_start(
    database: str, record: dict[str, Any]
) -> None:
    """Games stored before the server starts are harvested by its sweep: a person's blunder is a
    puzzle, a bot's is not; a game of bots only is marked harvested with none; a daily game's
    puzzle is made but shown only once its day is over."""
    bot = {"kind": "bot", "name": "Bot 1", "level": "greedy"}
    with app_client(database) as client:
        put_game(client, "people", record)
        put_game(client, "botfirst", record, seats=[bot, PEOPLE[1]])
        put_game(client, "bots", record, seats=[bot, {**bot, "name": "Bot 2"}])
        put_game(client, "daily", record, reveal_at=datetime(2999, 1, 1, tzinfo=UTC))
    with app_client(database) as client:
        for game_id in ("people", "botfirst", "bots", "daily"):
            call(client, settled, [services_of(client).puzzles], game_id)
        deadline = time.monotonic() + 60
        while rows(client, "daily")[1] == 0 or rows(client, "people")[1] == 0:
            assert time.monotonic() < deadline, "the sweep did not harvest the games"
            time.sleep(0.05)  # polling a condition: the sweep's harvests run in the background
        assert rows(client, "people") == (1, 1)
        assert rows(client, "botfirst") == (0, 1)  # the blunder was the bot's
        assert rows(client, "bots") == (0, 1)
        assert rows(client, "daily") == (1, 1)
        shown = {
            ok(client.get("/api/puzzles/next", params={"preset": "yahtzee", "after": after}))["id"]
            for after in ("", "x")
        }
        assert len(shown) == 1  # the daily game's puzzle is not shown yet

        async def daily_id() -> str:
            async with services_of(client).store.sessions() as session:
                found = await session.scalar(
                    select(PuzzleRow.id).where(PuzzleRow.game_id == "daily")
                )
                assert found is not None
                return found

        hidden = call(client, daily_id)
        assert client.get(f"/api/puzzles/{hidden}").status_code == 404
        assert client.post(f"/api/puzzles/{hidden}", json={"action": BEST}).status_code == 404


def test_a_game_played_to_its_end_gives_its_puzzle(tmp_path: Path) -> None:
    """A person plays a whole game over the WebSocket and scratches Yahtzee at once: when the
    game ends, this process harvests it."""
    with app_client(str(tmp_path / "live.db")) as client:
        created = ok(
            client.post(
                "/api/games",
                json={"variant": "yahtzee", "seats": [{"kind": "human", "name": "Ana"}]},
            ),
            201,
        )
        seat = Seat(client, created["id"], created["seats"][0]["token"])
        try:
            seat.act("roll")
            dice = seat.state["turn"]["dice"]
            seat.act("score chance" if len(set(dice)) == 1 else "score yahtzee")
            seat.play(lambda _turn, _roll: None)
        finally:
            seat.close()
        deadline = time.monotonic() + 60
        while True:
            answer = client.get("/api/puzzles/next", params={"preset": "yahtzee"})
            if answer.status_code == 200:
                break
            assert answer.json()["error"]["code"] == "no_puzzle"
            assert time.monotonic() < deadline, "the finished game was not harvested"
            time.sleep(0.05)  # polling a condition: the harvest runs in the background
        puzzles, harvests = rows(client, created["id"])
        assert harvests == 1 and 1 <= puzzles <= 8


# --- the migration ------------------------------------------------------------------------------


def _tables(url: str) -> set[str]:
    async def read() -> set[str]:
        from sqlalchemy import inspect

        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                names: set[str] = await connection.run_sync(
                    lambda sync: set(inspect(sync).get_table_names())
                )
                return names
        finally:
            await engine.dispose()

    return asyncio.run(read())


def test_migration_0005_adds_and_removes_the_puzzle_tables(tmp_path: Path) -> None:
    url = database_url(str(tmp_path / "old.db"))
    command.upgrade(alembic_config(url), "0004")
    assert not {"puzzles", "puzzle_harvests"} & _tables(url)
    command.upgrade(alembic_config(url), "head")
    assert {"puzzles", "puzzle_harvests"} <= _tables(url)
    command.downgrade(alembic_config(url), "0004")
    tables = _tables(url)
    assert not {"puzzles", "puzzle_harvests"} & tables and "daily" in tables
    command.upgrade(alembic_config(url), "head")

    async def migrated() -> None:
        store = Store(url)
        try:
            await store.migrate()  # at head already: nothing to do
        finally:
            await store.close()

    asyncio.run(migrated())
    assert json.dumps(sorted(_tables(url)))


def test_games_that_end_while_harvests_wait_are_not_harvested(
    tmp_path: Path, record: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most HARVESTS_WAITING harvests wait in a process (each holds its game, and its analysis
    is seconds of CPU): a game that ends meanwhile is left unharvested and not held, so that a
    server at its capacity keeps neither a growing queue of analyses nor their games; the
    waiting ones are harvested once the analyses go on."""
    monkeypatch.setattr(puzzles_module, "HARVESTS_WAITING", 2)
    release = threading.Event()
    real = analysis_module.analyse

    def held(record: dict[str, Any], levels: Any = None) -> dict[str, Any]:
        assert release.wait(60), "the test never let the analysis go on"
        return real(record, levels)

    monkeypatch.setattr(analysis_module, "analyse", held)
    games = ["first", "second", "third", "fourth"]
    with app_client(str(tmp_path / "waiting.db")) as client:
        services = services_of(client)
        for game_id in games:
            put_game(client, game_id, record)

        async def end_all() -> None:
            for game_id in games:
                live = await services.master.load(game_id)
                assert live is not None and live.game.state.finished
                services.puzzles.look(live)
                services.puzzles.look(live)  # seen again: nothing more

        call(client, end_all)
        puzzles = services.puzzles
        assert [puzzles.holds(game_id) for game_id in games] == [True, True, False, False]
        assert puzzles.skipped == 2
        assert harvest_figures(services) == {"waiting": 2.0, "skipped_total": 2.0}
        release.set()
        for game_id in games:
            call(client, settled, [puzzles], game_id)
        assert harvest_figures(services) == {"waiting": 0.0, "skipped_total": 2.0}
        assert [rows(client, game_id) for game_id in games] == [(1, 1), (1, 1), (0, 0), (0, 0)]


def harvest_figures(services: Any) -> dict[str, float]:
    """The process's `/metrics` figures of the harvests, read with Prometheus's own parser."""
    text = services.metrics.exposition().decode()
    prefix = "dicepoker_puzzle_harvests_"
    return {
        sample.name.removeprefix(prefix): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith(prefix) and not sample.name.endswith("_created")
    }


def test_the_games_a_watcher_has_seen_end_are_the_latest_only() -> None:
    seen = Recent(3)
    for game_id in ("a", "b", "c", "a", "d"):
        seen.add(game_id)
    assert [game_id in seen for game_id in "abcd"] == [True, False, True, True]
    assert len(seen) == 3
    seen.discard("a")
    seen.discard("zzz")
    assert "a" not in seen and len(seen) == 2
