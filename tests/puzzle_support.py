"""Helpers of the puzzles' tests: a finished game with a known blunder, built with the engine,
put in a store as the server would have stored it (its events, their thrown dice), and a
server started on such a store once its puzzles are made.

The blunder: Ana's first throw is a Yahtzee (five sixes) and she scores it as Chance. Every other
decision of the game is the advisor's best, so that decision is the game's one puzzle.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import httpx

from dicepoker.advisor import advise
from dicepoker.dice import FixedDice
from dicepoker.engine import ROLL, Roll
from dicepoker.master.store import StoredEvent, StoredGame
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.server.storage.models import utcnow
from dicepoker.server.storage.store import Store
from live_server import LiveServer

BLUNDER = "score chance"
BEST = "score yahtzee"
#: A small slip of Bea's, played on purpose: too little to be a puzzle.
PEOPLE = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def blunder_game(seed: int = 7, *, bot_second: bool = False) -> Game:
    """A finished 2-player Yahtzee game: Ana scores her first throw, a Yahtzee, as Chance; every
    other decision is the advisor's best (so none loses anything)."""
    rules = get_rules("yahtzee")
    game = Game(rules, ["Ana", "Bot 2" if bot_second else "Bea"])
    dice = random.Random(seed)
    first = True
    while not game.state.finished:
        state = game.state
        if state.rolls == 0:
            thrown = [6] * 5 if first else [dice.randint(1, 6) for _ in range(5)]
            game.play(ROLL, FixedDice(thrown))
            continue
        if first:
            game.play(BLUNDER)
            first = False
            continue
        best = advise(state).best.action
        if isinstance(best, Roll):
            game.play(best, FixedDice([dice.randint(1, 6) for _ in range(5 - len(best.keep))]))
        else:
            game.play(best)
    return game


def events_of(record: dict[str, Any]) -> list[StoredEvent]:
    """The master's events of a record: each roll with the faces thrown (the dice not kept, in
    position order), each move; seats taking turns in order (no forfeits here)."""
    events: list[StoredEvent] = []
    players = len(record["players"])
    for number, turn in enumerate(record["turns"]):
        seat = number % players
        for index, roll in enumerate(turn["rolls"]):
            keep = roll.get("keep", [])
            thrown = [face for position, face in enumerate(roll["dice"]) if position not in keep]
            action = "roll" if not keep or index == 0 else "keep " + " ".join(map(str, keep))
            events.append(StoredEvent(len(events) + 1, seat, action, thrown, False))
        events.append(StoredEvent(len(events) + 1, seat, turn["move"], None, False))
    return events


async def store_game(
    store: Store,
    game_id: str,
    record: dict[str, Any],
    seats: list[dict[str, Any]] | None = None,
    *,
    reveal_at: datetime | None = None,
) -> None:
    """Put a finished game in the store as the master would have left it."""
    events = events_of(record)
    await store.create_game(
        StoredGame(
            id=game_id,
            variant=record["variant"],
            options=dict(record.get("options") or {}),
            seats=[dict(seat) for seat in seats or PEOPLE],
            status="running",
            reveal_at=reveal_at,
            created_at=utcnow(),
        )
    )
    for event in events:
        status = "finished" if event.seq == len(events) else "running"
        await store.append(game_id, event.seq - 1, event, status)


def puzzle_server(path: str, seeds: Sequence[int] = (7,)) -> LiveServer:
    """A started server on a new SQLite database at `path` that held, before it started, one
    finished blunder game per seed (one or two; different dice after the blunder): its sweep
    harvests them, one at a time, and the server is returned once each is a puzzle.

    A server of its own: on a server where other tests finish games, a puzzle waits behind
    their harvests, one at a time behind everything more urgent, longer than a test should
    wait on a loaded machine."""

    async def prepare() -> None:
        store = Store(path)
        try:
            await store.migrate()
            for number, seed in enumerate(seeds):
                await store_game(store, f"blunder{number}", blunder_game(seed).to_record())
        finally:
            await store.close()

    assert 1 <= len(seeds) <= 2, "the puzzles are told apart by `after`: one or two games"
    # In a thread of its own: Playwright's sync API runs an event loop in this one.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, prepare()).result()
    live = LiveServer(path).start()
    try:
        first = wait_for_puzzle(live.url)["id"]
        if len(seeds) == 2:
            wait_for_puzzle(live.url, after=first)
    except BaseException:
        live.stop()
        raise
    return live


def wait_for_puzzle(
    url: str, preset: str = "yahtzee", timeout: float = 60.0, after: str = ""
) -> dict[str, Any]:
    """A puzzle of the preset once the server has one (a condition polled, no fixed wait);
    with `after`, one other than the puzzle `after`."""
    deadline = time.monotonic() + timeout
    while True:
        answer = httpx.get(
            f"{url}/api/puzzles/next", params={"preset": preset, "after": after}, timeout=10
        )
        if answer.status_code == 200 and answer.json()["id"] != after:
            found: dict[str, Any] = answer.json()
            return found
        if answer.status_code == 200:
            assert time.monotonic() < deadline, "no other puzzle was made"
            time.sleep(0.05)  # polling a condition: the harvest runs in the background
            continue
        assert answer.json()["error"]["code"] == "no_puzzle", answer.text
        assert time.monotonic() < deadline, "no puzzle was made"
        time.sleep(0.05)  # polling a condition: the harvest runs in the background
