"""Events that tell what changed (`dicepoker.v2`): applied to the view of the event before, an
event's `changes` give exactly the whole view a `dicepoker.v1` client is told, in every variant,
through a tie-break, across two processes and after the seats change; a roll's changes are its
turn alone; a client that missed an event is told the whole view again by a sync; and a socket
speaks the newest subprotocol its client offers (none offered: `dicepoker.v1`)."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import orjson
import pytest

from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import legal_actions
from dicepoker.master import GameMaster, LiveGame, MemoryStore, messages
from dicepoker.protocol import SUBPROTOCOL, SUBPROTOCOL_V1, apply_changes, server_message
from dicepoker.rules import VARIANTS
from live_server import LiveServer
from security_support import catch_up, create, humans
from support import POKER_ROWS
from test_master import run
from test_master_processes import two_masters
from ws_client import Player

GAMES = [(variant, players) for variant in VARIANTS for players in (1, 2)] + [("school", 4)]


def people(count: int) -> list[dict[str, Any]]:
    return [{"kind": "human", "name": f"P{n}"} for n in range(count)]


class Table:
    """A `dicepoker.v2` subscriber and a `dicepoker.v1` one of a live game, and the view the
    first holds, made only of the changes it is told."""

    def __init__(self, master: GameMaster, live: LiveGame) -> None:
        self.changed = master.broadcaster.subscribe(live)
        self.whole = master.broadcaster.subscribe(live, whole=True)
        self.view: dict[str, Any] = orjson.loads(messages.welcome(live, None).to_json())["state"]
        self.sizes = [0, 0]  # the text told to each, in all
        self.told: list[dict[str, Any]] = []

    def take(self) -> dict[str, Any]:
        """Read one event from each subscriber: the changes must make the whole view."""
        told_text, whole_text = self.changed.get_nowait(), self.whole.get_nowait()
        told: dict[str, Any] = orjson.loads(told_text)
        whole: dict[str, Any] = orjson.loads(whole_text)
        server_message.validate_json(told_text)  # a message of the schema
        assert told["type"] == whole["type"] == "event" and "changes" not in whole
        assert {k: v for k, v in told.items() if k != "changes"} == {
            k: v for k, v in whole.items() if k != "state"
        }
        assert "state" not in told, "the view before was built here: only what changed"
        self.view = apply_changes(self.view, told["changes"])
        assert self.view == whole["state"]
        self.sizes[0] += len(told_text)
        self.sizes[1] += len(whole_text)
        self.told.append(told)
        return told


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_the_changes_of_each_event_make_the_whole_view(variant: str, players: int) -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(players))
        live, _ = await master.create(variant, {}, people(players), None)
        table = Table(master, live)
        rng = random.Random(players)
        while not live.game.state.finished:
            state = live.game.state
            action = str(rng.choice(legal_actions(state)))
            await master.act(live, state.seat, action, live.seq)
            changes = table.take()["changes"]
            if action == "roll" or action.startswith(("keep", "hold")):
                assert set(changes) == {"turn"}  # a roll changes the dice, nothing else
            else:
                assert "last_moves" in changes and "sheets" in changes
        assert "turn" in table.told[-1]["changes"]["gone"]
        # Most of a view is the same from one event to the next.
        assert table.sizes[0] < 0.5 * table.sizes[1]
        await master.close()

    run(scenario)


class TieDice:
    """Straights for both players all game long (a tie), then seeded dice for the tie-break."""

    def __init__(self, rolls: int, seed: int) -> None:
        self.fixed, self.left, self.rest = FixedDice([1, 2, 3, 4, 6] * rolls), rolls, None
        self.seeded = SeededDice(seed)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        if self.left:
            self.left -= 1
            return self.fixed.roll(count, faces)
        return self.seeded.roll(count, faces)


def test_the_changes_carry_a_tie_break_as_it_begins_and_goes_on() -> None:
    async def scenario() -> None:
        turns = 2 * len(POKER_ROWS)
        master = GameMaster(MemoryStore(), dice=TieDice(turns, seed=4))
        live, _ = await master.create("poker-dice", {}, people(2), None)
        table = Table(master, live)
        for row in POKER_ROWS:
            for seat in (0, 1):
                await master.act(live, seat, "roll", live.seq)
                table.take()
                await master.act(live, seat, f"score {row}", live.seq)
                table.take()
        assert live.game.state.stage == 1 and "tiebreak" in table.told[-1]["changes"]
        rng = random.Random(4)
        while not live.game.state.finished:
            state = live.game.state
            await master.act(live, state.seat, str(rng.choice(legal_actions(state))), live.seq)
            table.take()
        assert sum("tiebreak" in told["changes"] for told in table.told) > 2
        await master.close()

    run(scenario)


def test_after_the_seats_change_the_next_event_tells_the_whole_view() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=SeededDice(2))
        live, _ = await master.create("yahtzee", {}, people(2), None)
        queue = master.broadcaster.subscribe(live)
        messages.welcome(live, None)
        live.set_seats([{**seat, "name": f"New {n}"} for n, seat in enumerate(live.seats)])
        await master.act(live, 0, "roll", live.seq)
        told = orjson.loads(queue.get_nowait())
        assert "changes" not in told and told["state"]["players"][0]["name"] == "New 0"
        await master.act(live, 0, "roll", live.seq)
        assert set(orjson.loads(queue.get_nowait())["changes"]) == {"turn"}
        await master.close()

    run(scenario)


def test_a_process_that_told_another_s_words_tells_what_changed_next() -> None:
    """The words of an event travel from the process that committed it; the process that told
    its clients those words notes the view they hold, so that the next event it commits itself
    tells them what changed, not the whole view."""

    async def scenario() -> None:
        store = MemoryStore()
        bus, first, second = await two_masters(store)
        live, _ = await first.create("school", {"columns": 1}, people(2), None)
        there = await second.load(live.id)
        assert there is not None
        table = Table(first, live)  # watched where the first moves are made
        watcher = second.broadcaster.subscribe(there)
        view = orjson.loads(messages.welcome(there, None).to_json())["state"]
        await first.act(live, 0, "roll", 0)
        await asyncio.gather(*bus.delivered)
        heard = orjson.loads(watcher.get_nowait())
        assert heard == table.take()  # the first's words, told as they are
        view = apply_changes(view, heard["changes"])
        move = str(legal_actions(there.game.state)[-1])
        await second.act(there, 0, move, 1)  # committed where the words were only passed on
        await asyncio.gather(*bus.delivered)
        mine = orjson.loads(watcher.get_nowait())
        assert "changes" in mine and "state" not in mine
        assert table.take() == mine  # the first told its clients the second's words
        assert apply_changes(view, mine["changes"]) == table.view
        for master in (first, second):
            await master.close()

    run(scenario)


def test_a_socket_speaks_the_newest_subprotocol_its_client_offers(server: LiveServer) -> None:
    body = create(server, humans("Ana", "Bea"))
    game_id, token = body["id"], body["seats"][0]["token"]
    newest = Player(server.ws_url, game_id, token, in_header=True)
    bea = Player(server.ws_url, game_id, body["seats"][1]["token"], in_header=True)
    both = Player(server.ws_url, game_id, None, subprotocol=None)
    first = Player(server.ws_url, game_id, None, subprotocol=SUBPROTOCOL_V1)
    assert newest.connection.subprotocol == SUBPROTOCOL == "dicepoker.v2"
    assert first.connection.subprotocol == SUBPROTOCOL_V1 and both.connection.subprotocol is None
    for _ in range(2):
        newest.play_turn()
        catch_up(bea, newest.seq)
        bea.play_turn()
        catch_up(newest, bea.seq)
    for spectator in (both, first):
        catch_up(spectator, bea.seq)
        events = [m for m in spectator.seen if m["type"] == "event"]
        assert len(events) == bea.seq and all("changes" not in m for m in events)
        assert spectator.state == newest.state == bea.state
    assert newest.changed == bea.changed == bea.seq  # every event came as changes
    for player in (newest, bea, both, first):
        player.close()


def test_a_socket_that_missed_an_event_gets_the_whole_view_from_a_sync(
    server: LiveServer,
) -> None:
    body = create(server, humans("Ana", "Bea"))
    game_id, token = body["id"], body["seats"][0]["token"]
    ana = Player(server.ws_url, game_id, token, in_header=True)
    watcher = Player(server.ws_url, game_id)
    ana.play_turn()
    watcher.until(lambda m: m["type"] == "event" and m["seq"] == ana.seq)
    watcher.seq -= 1  # as if it had missed the last event: the next cannot be applied
    missed_at = watcher.seq
    bea = Player(server.ws_url, game_id, body["seats"][1]["token"])
    bea.act("roll", bea.seq)
    answer = watcher.until(lambda m: m["type"] == "sync")
    assert watcher.sync_asked == missed_at and answer["seq"] == bea.seq
    assert [e["seq"] for e in answer["events"]] == list(range(missed_at + 1, bea.seq + 1))
    assert watcher.state == bea.state == json.loads(json.dumps(answer["state"]))
    for player in (ana, watcher, bea):
        player.close()
