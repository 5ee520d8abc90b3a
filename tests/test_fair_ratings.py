"""Ratings that mean something (issue 54, item 3), played through the game master with the real
store, clock, results and ratings: a rated game always has a turn clock; a player who stops
playing a rated game loses it (two missed turns in a row: absent) and both ratings change,
instead of the game being closed unrated; a second account losing on purpose moves its owner's
rating only in the first games of the day; a new account's rating is provisional and listed
after the established ones.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import select

from dicepoker.engine import (
    Forfeit,
    GameState,
    IllegalActionError,
    Move,
    apply,
    legal_actions,
    new_game,
    parse_action,
    totals,
)
from dicepoker.master import GameMaster, LiveGame, TurnClock
from dicepoker.master.newgame import RATED_TURN_SECONDS, rules_with_clock
from dicepoker.protocol import Record
from dicepoker.ratings import (
    ESTABLISHED_GAMES,
    RATED_GAMES_A_DAY_TOGETHER,
    Rating,
    anchored_levels,
    default_rating,
    shown,
)
from dicepoker.record import replay
from dicepoker.rules import get_rules
from dicepoker.server.community.accounts import Accounts
from dicepoker.server.community.analysis import AnalysisCache
from dicepoker.server.community.players import leaderboard_answer, player_answer
from dicepoker.server.community.ratings import REPEATED_OPPONENTS, RatingBook
from dicepoker.server.community.results import Results
from dicepoker.server.storage.models import RatingChangeRow, RatingRow, utcnow
from dicepoker.server.storage.store import Store
from live_server import fresh_postgres_database

T = TypeVar("T")
PASSWORD = "fair ratings password"
CASUAL_SECONDS = 60  # a casual game's clock (a rated one's is RATED_TURN_SECONDS)


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())


@dataclass
class Site:
    """The server's parts that play and rate games, on a SQLite file; the turn clock runs out
    only when the test says so (`tick`)."""

    store: Store
    master: GameMaster
    ratings: RatingBook
    results: Results
    accounts: Accounts
    ticks: defaultdict[float, asyncio.Queue[None]]

    def tick(self, seconds: float = RATED_TURN_SECONDS) -> None:
        """The turn clock of `seconds` a turn that runs now runs out (one game at a time may
        wait for it: the clock of another game, started meanwhile, could take it first)."""
        self.ticks[seconds].put_nowait(None)

    async def account_seat(self, name: str) -> dict[str, Any]:
        account = await self.accounts.create(name, PASSWORD)
        return {"kind": "human", "name": account.name, "account": account.id}

    async def rated_game(self, seats: list[dict[str, Any]]) -> LiveGame:
        live, _ = await self.master.create("yahtzee", {}, seats, None, rated=True)
        assert live.turn_seconds > 0, "a rated game is never played without a turn clock"
        return live

    async def rated(self, live: LiveGame) -> None:
        """Wait until the finished game's results (and ratings) are written."""
        for _ in range(10_000):
            if not self.results.holds(live.id):
                return
            await asyncio.sleep(0.01)  # polling a condition: the write is on this loop
        raise AssertionError(f"the results of {live.id} were never written")

    async def shown_rating(self, account_id: int) -> tuple[int, int]:
        """The account's shown rating in the yahtzee pool and its rated games there."""
        async with self.store.sessions() as session:
            row = await session.get(RatingRow, (account_id, "yahtzee"))
        if row is None:
            return shown(default_rating()), 0
        return shown(Rating(row.mu, row.sigma)), row.games


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the site keeps its games and ratings: both databases count a day's games."""
    if request.param == "sqlite":
        return str(tmp_path / "fair.db")
    return fresh_postgres_database()


@contextlib.asynccontextmanager
async def site(
    database: str, now: Callable[[], datetime] = utcnow, abandon_after: float = 0
) -> AsyncIterator[Site]:
    store = Store(database)
    await store.migrate()
    master = GameMaster(store, now=now, abandon_after=abandon_after)
    ticks: defaultdict[float, asyncio.Queue[None]] = defaultdict(asyncio.Queue)

    async def sleep(seconds: float) -> None:
        await ticks[seconds].get()

    TurnClock(master, sleep=sleep)
    ratings = RatingBook(store)
    results = Results(store, master, ratings, AnalysisCache())
    results.most_waiting = 0  # the games' accuracy is another test's: no analysis here
    await master.start()
    try:
        yield Site(store, master, ratings, results, Accounts(store), ticks)
    finally:
        await master.close()
        await results.close()
        await store.close()


async def until(live: LiveGame, master: GameMaster, done: Callable[[], bool]) -> None:
    """Wait, event by event, until `done()` (the game's events are what can change it)."""
    queue = master.broadcaster.subscribe(live)
    try:
        while not done():
            await asyncio.wait_for(queue.get(), timeout=30)
    finally:
        master.broadcaster.unsubscribe(live, queue)


def worst_move(state: GameState) -> Move:
    """The cell move that adds least to the mover's total: losing on purpose."""
    moves = [action for action in legal_actions(state) if isinstance(action, Move)]
    return min(moves, key=lambda move: (totals(apply(state, move))[state.seat], str(move)))


async def lose_a_turn(master: GameMaster, live: LiveGame, seat: int) -> None:
    """`seat` plays its turn as badly as it can (one roll, the fewest points)."""
    await master.act(live, seat, "roll", live.seq)
    await master.act(live, seat, worst_move(live.game.state), live.seq)


# --- a rated game always has a clock -----------------------------------------------------------


def test_a_rated_game_without_a_clock_gets_the_default_one() -> None:
    assert rules_with_clock("yahtzee", {}, None, rated=True)[1] == RATED_TURN_SECONDS
    assert rules_with_clock("yahtzee", {}, 0, rated=True)[1] == RATED_TURN_SECONDS
    assert rules_with_clock("yahtzee", {}, 45, rated=True)[1] == 45
    assert rules_with_clock("yahtzee", {}, None)[1] == 0  # a casual game: as asked
    # A variant whose rules have a clock of their own takes its online default.
    policy = get_rules("poker-dice").clock
    assert policy is not None
    rules, clock = rules_with_clock("poker-dice", {"turn_seconds": 0}, None, rated=True)
    assert clock == rules.turn_seconds == policy.online_default
    assert rules_with_clock("poker-dice", {"turn_seconds": 0}, None)[1] == 0


def test_the_master_makes_a_rated_game_with_a_clock(database: str) -> None:
    async def scenario() -> None:
        async with site(database) as here:
            seats = [await here.account_seat("Clocked"), {"kind": "bot", "level": "greedy"}]
            live = await here.rated_game(seats)
            assert live.turn_seconds == RATED_TURN_SECONDS
            assert live.deadline is not None  # the person's turn is timed from the start

    run(scenario)


# --- leaving a rated game loses it ------------------------------------------------------------


def test_an_absent_forfeit_is_the_engine_s_and_needs_someone_to_lose_to() -> None:
    rules = get_rules("school", {"columns": 1})
    state = new_game(rules, ["Ana", "Bea", "Caio"])
    after = apply(state, Forfeit("absent"))
    assert after.forfeited == (0,) and not after.finished and after.seat == 1
    final = apply(after, Forfeit("absent"))
    assert final.finished and final.winner == 2
    with pytest.raises(IllegalActionError):
        apply(new_game(rules, ["Solo"]), Forfeit("absent"))
    # A timeout is still the variant's own rule: School has none.
    with pytest.raises(IllegalActionError):
        apply(state, Forfeit("timeout"))
    assert parse_action("absent") == Forfeit("absent") and str(Forfeit("absent")) == "absent"


def test_the_record_keeps_an_absent_forfeit() -> None:
    turns: list[dict[str, Any]] = [
        {"rolls": [{"dice": [6, 6, 6, 2, 1]}], "move": "score sixes"},
        {"rolls": [{"dice": [1, 2, 3, 4, 5]}], "forfeit": "absent", "auto": True},
    ]
    record = {"variant": "school", "options": {"columns": 1}, "players": ["Ana", "Bea"]}
    game = replay({**record, "turns": turns})
    assert game.state.finished and game.state.winner == 0
    assert game.to_record()["turns"] == turns
    Record.model_validate({**record, "turns": turns}, strict=True)
    unknown = {**record, "turns": [turns[0], {"forfeit": "bored"}]}
    with pytest.raises(ValueError, match="unknown forfeit"):
        replay(unknown)


def test_a_player_who_stops_playing_a_rated_game_loses_it_and_both_ratings_change(
    database: str,
) -> None:
    """The review's escape: trailing, the second player stops playing. One missed turn is
    auto-played; at the second in a row they are absent, the game ends with them last, rated."""

    async def scenario() -> None:
        async with site(database) as here:
            leader, trailer = await here.account_seat("Leader"), await here.account_seat("Gone")
            live = await here.rated_game([leader, trailer])
            master = here.master
            await master.auto(live, 0, person=True)  # the leader plays a turn
            await lose_a_turn(master, live, 1)
            assert totals(live.game.state)[0] > totals(live.game.state)[1]
            await master.auto(live, 0, person=True)
            # The trailer stops playing: their clock runs out, and the turn is auto-played.
            assert live.clock_key == (live.game.state.turn, 1)
            here.tick()
            await until(live, master, lambda: live.game.state.seat == 0)
            assert not live.game.state.finished and live.game.state.forfeited == ()
            await master.auto(live, 0, person=True)
            # The second turn in a row runs out: absent.
            here.tick()
            await until(live, master, lambda: live.game.state.finished)
            state = live.game.state
            assert state.forfeited == (1,) and state.winner == 0
            assert live.status == "finished"
            last = live.game.turns[-1]
            assert last["forfeit"] == "absent" and last["auto"] is True
            replayed = replay(live.game.to_record())
            assert replayed.state.finished and replayed.state.winner == 0

            await here.rated(live)
            assert await here.ratings.why_unrated(live) is None
            start = shown(default_rating())
            leader_now, leader_games = await here.shown_rating(leader["account"])
            gone_now, gone_games = await here.shown_rating(trailer["account"])
            assert leader_games == gone_games == 1
            assert leader_now > start > gone_now

    run(scenario)


def test_the_abandonment_sweep_leaves_a_rated_game_its_clock_plays(database: str) -> None:
    """The clock's moves stand in for an absent person in a rated game: the sweep, which
    closes games without a person's action since a moment, does not close one whose clock
    played after that moment (a casual game's clock does not count)."""
    hour = 3600.0
    moment: list[datetime] = []

    def clock() -> datetime:
        return moment[0] + timedelta(seconds=hour) if moment else utcnow()

    async def scenario() -> None:
        async with site(database, now=clock, abandon_after=hour) as here:
            seats = [await here.account_seat("Stays"), await here.account_seat("Leaves")]
            rated = await here.rated_game(seats)
            casual, _ = await here.master.create("yahtzee", {}, seats, CASUAL_SECONDS)
            for live in (rated, casual):
                await here.master.auto(live, 0, person=True)
            moment.append(utcnow())  # the people's last action was before this
            for live, seconds in ((rated, RATED_TURN_SECONDS), (casual, CASUAL_SECONDS)):
                here.tick(seconds)  # the second seat's clock runs out: auto-played
                await until(live, here.master, lambda: live.game.state.seat == 0)  # noqa: B023
            assert await here.master.upkeep.abandon_idle() == [casual.id]
            assert rated.status == "running" and casual.status == "abandoned"

    run(scenario)


def test_a_rated_game_idle_through_an_outage_is_not_closed_unrated(database: str) -> None:
    """Every process stopped for longer than `--abandon-after`: nobody's clock played, yet the
    sweep leaves the rated game to its clock (resumed at the start) instead of closing it with
    no result, which would let its loser escape; a casual game idle as long is closed."""
    hour = 3600.0
    later: list[datetime] = []

    def clock() -> datetime:
        return later[0] if later else utcnow()

    async def scenario() -> None:
        async with site(database, now=clock, abandon_after=hour) as here:
            seats = [await here.account_seat("Waits"), await here.account_seat("Gone")]
            rated = await here.rated_game(seats)
            casual, _ = await here.master.create("yahtzee", {}, seats, CASUAL_SECONDS)
            later.append(utcnow() + timedelta(seconds=2 * hour))
            assert await here.master.upkeep.abandon_idle() == [casual.id]
            assert rated.status == "running" and casual.status == "abandoned"

    run(scenario)


def test_a_returning_player_is_forgiven_one_missed_turn(database: str) -> None:
    async def scenario() -> None:
        async with site(database) as here:
            seats = [await here.account_seat("Back"), await here.account_seat("Other")]
            live = await here.rated_game(seats)
            master = here.master
            await master.auto(live, 0, person=True)
            here.tick()  # Other misses a turn
            await until(live, master, lambda: live.game.state.seat == 0)
            await master.auto(live, 0, person=True)
            await lose_a_turn(master, live, 1)  # and comes back
            await master.auto(live, 0, person=True)
            here.tick()  # a missed turn again, but not two in a row
            await until(live, master, lambda: live.game.state.seat == 0)
            assert live.game.state.forfeited == () and not live.game.state.finished

    run(scenario)


# --- farming does not pay ----------------------------------------------------------------------


def test_losing_on_purpose_to_a_friend_does_not_make_a_champion(database: str) -> None:
    """The review's farming: four rated games against a second account that loses on purpose
    moved one account from 1500 to 1874, above the advanced bot (and first on the board)."""

    async def scenario() -> None:
        async with site(database) as here:
            farmer, mule = await here.account_seat("Farmer"), await here.account_seat("Mule")
            master = here.master
            games = []
            for _ in range(RATED_GAMES_A_DAY_TOGETHER + 1):
                live = await here.rated_game([farmer, mule])
                while not live.game.state.finished:
                    if live.game.state.seat == 0:
                        await master.auto(live, 0, person=True)
                    else:
                        await lose_a_turn(master, live, 1)
                assert totals(live.game.state)[0] > totals(live.game.state)[1]
                await here.rated(live)
                games.append(live)

            rating, played = await here.shown_rating(farmer["account"])
            assert played == RATED_GAMES_A_DAY_TOGETHER
            assert rating < anchored_levels("yahtzee")["advanced"]
            for live in games[:-1]:
                assert await here.ratings.why_unrated(live) is None
            assert await here.ratings.why_unrated(games[-1]) == REPEATED_OPPONENTS
            async with here.store.sessions() as session:
                changes = await session.scalars(
                    select(RatingChangeRow).where(RatingChangeRow.game_id == games[-1].id)
                )
                assert list(changes) == []

            # Three games make a provisional rating, listed after an established one.
            page = await player_answer(here.accounts, "Farmer")
            (pool,) = page.ratings
            assert pool.provisional and pool.rating == rating and pool.games == played
            steady = await here.accounts.create("Steady", PASSWORD)
            async with here.store.sessions() as session, session.begin():
                session.add(
                    RatingRow(
                        account_id=steady.id,
                        pool="yahtzee",
                        mu=default_rating().mu + 3.0,
                        sigma=3.0,
                        games=ESTABLISHED_GAMES * 3,
                    )
                )
            board = await leaderboard_answer(here.accounts, "yahtzee")
            entries = [(entry.name, entry.provisional) for entry in board.entries]
            assert entries == [("Steady", False), ("Farmer", True), ("Mule", True)]
            assert board.entries[0].rating < rating  # below the farmer's number, above him
            assert [entry.rank for entry in board.entries] == [1, 2, 3]

    run(scenario)


def test_the_pair_rule_counts_a_day_and_lets_others_play(database: str) -> None:
    """The limit is per pair of accounts and per UTC day: a third account still moves the
    farmer's rating, and the next day the pair's games count again."""

    async def scenario() -> None:
        async with site(database) as here:
            one, two = await here.account_seat("Uno"), await here.account_seat("Dos")
            three = await here.account_seat("Tres")
            day = [here.ratings.now()]
            here.ratings.now = lambda: day[0]

            async def play(seats: list[dict[str, Any]]) -> LiveGame:
                live = await here.rated_game(seats)
                while not live.game.state.finished:
                    await lose_a_turn(here.master, live, live.game.state.seat)
                await here.rated(live)
                return live

            for _ in range(RATED_GAMES_A_DAY_TOGETHER):
                assert await here.ratings.why_unrated(await play([one, two])) is None
            held = await play([two, one])  # the same pair, in other seats
            assert await here.ratings.why_unrated(held) == REPEATED_OPPONENTS
            assert await here.ratings.why_unrated(await play([one, three])) is None
            day[0] += timedelta(days=1)
            assert await here.ratings.why_unrated(await play([one, two])) is None

    run(scenario)
