"""What the table tells of each turn: the roller's live selection of dice (`keep` -> `held`),
and each seat's last move in the view (`last_moves`), from the master's side."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest

from dicepoker.dice import FixedDice
from dicepoker.engine import FORFEIT, new_game, parse_action
from dicepoker.engine import apply as engine_apply
from dicepoker.master import GameMaster, LiveGame, MemoryStore, Refusal, events
from dicepoker.protocol import GameView, LastMoveView, server_message
from dicepoker.rules import get_rules
from dicepoker.view import last_move_view

T = TypeVar("T")
HUMANS = [{"kind": "human", "name": "Ana"}, {"kind": "human", "name": "Bea"}]


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())


async def _game(
    faces: list[int], options: dict[str, Any] | None = None
) -> tuple[GameMaster, LiveGame, asyncio.Queue[str]]:
    master = GameMaster(MemoryStore(), dice=FixedDice(faces))
    await master.start()
    live, _ = await master.create("school", options or {"columns": 1}, HUMANS, None)
    return master, live, master.broadcaster.subscribe(live)


def _told(queue: asyncio.Queue[str]) -> list[dict[str, Any]]:
    out = []
    while not queue.empty():
        out.append(json.loads(queue.get_nowait()))
    return out


def _view(live: LiveGame) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(live.state_view.to_json())
    GameView.model_validate(data)
    return data


# --- the roller's live selection ----------------------------------------------------------------


def test_a_selection_is_told_to_the_table_and_shown_in_the_state_until_the_next_event() -> None:
    async def scenario() -> None:
        master, live, queue = await _game([1, 2, 3, 4, 5, 6, 6, 6])
        await master.act(live, 0, "roll", 0)
        _told(queue)
        assert _view(live)["turn"]["held"] == []
        await master.hold(live, 0, 1, [3, 1])
        told = _told(queue)
        assert told == [{"type": "held", "seq": 1, "seat": 0, "held": [1, 3]}]
        server_message.validate_python(told[0])
        # A spectator arriving now sees the selection in the state it is welcomed with.
        assert _view(live)["turn"]["held"] == [1, 3]
        assert _view(live)["turn"]["kept"] == []
        await master.hold(live, 0, 1, [])
        assert _told(queue)[0]["held"] == [] and _view(live)["turn"]["held"] == []
        await master.hold(live, 0, 1, [0, 4])
        # The roll keeps other dice than the selection: the state says what that roll kept.
        await master.act(live, 0, "keep 0 1 2", 1)
        turn = _view(live)["turn"]
        assert turn["kept"] == [0, 1, 2] and turn["held"] == [0, 1, 2]
        await master.close()

    run(scenario)


@pytest.mark.parametrize(
    ("seat", "seq", "positions", "rolls", "code"),
    [
        (1, 1, [0], 1, "not_your_turn"),
        (0, 0, [0], 1, "stale"),
        (0, 2, [0], 1, "stale"),
        (0, 0, [0], 0, "bad_roll"),  # before the turn's first roll
        (0, 3, [0], 3, "bad_roll"),  # after the last roll: nothing left to hold for
        (0, 1, [5], 1, "bad_move"),  # five dice: positions 0..4
        (0, 1, [2, 2], 1, "bad_move"),
    ],
)
def test_a_selection_that_does_not_fit_the_position_is_refused_and_told_to_nobody(
    seat: int, seq: int, positions: list[int], rolls: int, code: str
) -> None:
    async def scenario() -> None:
        master, live, queue = await _game([1, 2, 3, 4, 5] * 3)
        for n in range(rolls):
            await master.act(live, 0, "roll" if n == 0 else "keep 0", n)
        _told(queue)
        before = _view(live)
        with pytest.raises(Refusal) as refused:
            await master.hold(live, seat, seq, positions)
        assert refused.value.code == code and refused.value.message
        assert _told(queue) == [] and live.held is None and _view(live) == before
        assert len(await master.store.events(live.id)) == rolls  # never a stored event
        await master.close()

    run(scenario)


def test_a_selection_waits_for_the_game_to_start() -> None:
    async def scenario() -> None:
        master = GameMaster(MemoryStore(), dice=FixedDice([]))
        await master.start()
        live, _ = await master.create("school", {}, [HUMANS[0], {"kind": "human"}], None)
        with pytest.raises(Refusal) as refused:
            await master.hold(live, 0, 0, [0])
        assert refused.value.code == "waiting"
        await master.close()

    run(scenario)


def test_a_selection_made_in_another_process_is_told_here_at_the_same_seq_only() -> None:
    async def scenario() -> None:
        master, live, queue = await _game([1, 2, 3, 4, 5])
        await master.act(live, 0, "roll", 0)
        _told(queue)
        told = '{"type":"held","seq":1,"seat":0,"held":[2]}'
        old = events.Held(origin="there", seq=0, seat=0, held=(1,), told="old")
        await master.follow(live.id, old)
        assert _told(queue) == [] and live.held is None
        await master.follow(
            live.id, events.Held(origin="there", seq=1, seat=0, held=(2,), told=told)
        )
        assert _told(queue) == [json.loads(told)] and _view(live)["turn"]["held"] == [2]
        await master.close()

    run(scenario)


# --- each seat's last move ----------------------------------------------------------------------


def test_the_last_move_of_each_seat_stays_until_its_next_move() -> None:
    async def scenario() -> None:
        # Ana closes fours with five of them (the reserve +8, the row's star with one column);
        # Bea rolls nothing she can close and takes a zero.
        master, live, queue = await _game([4, 4, 4, 4, 4, 1, 2, 3, 5, 6, 2, 2, 2, 3, 3])
        assert _view(live)["last_moves"] == [None, None]
        await master.act(live, 0, "roll", 0)
        await master.act(live, 0, "score fours", 1)
        ana = _view(live)["last_moves"][0]
        assert ana == {
            "seat": 0,
            "turn": 0,
            "stage": 0,
            "verb": "score",
            "row": "fours",
            "column": 0,
            "points": 0,
            "doubled": False,
            "gain": ana["gain"],
            "reserve": 8,
            "stars": [["school_row", "fours", 20]],
            "auto": False,
        }
        assert ana["gain"] == 8 + 20  # the reserve and the star: what the total shows
        assert _view(live)["sheets"][0]["breakdown"]["total"] == ana["gain"]
        await master.act(live, 1, "roll", 2)
        assert _view(live)["last_moves"][0] == ana  # Bea's roll changes nothing of Ana's
        await master.act(live, 1, "zero sixes", 3)
        bea = _view(live)["last_moves"][1]
        zero_penalty = get_rules("school", {"columns": 1}).reserve
        assert zero_penalty is not None
        assert (bea["verb"], bea["row"], bea["gain"]) == (
            "zero",
            "sixes",
            -zero_penalty.zero_penalty,
        )
        event = _told(queue)[-1]
        assert event["type"] == "event" and event["changes"]["last_moves"][1] == bea
        # A process that loads the game from the store tells the same.
        other = GameMaster(master.store)
        again = await other.load(live.id)
        assert again is not None and _view(again)["last_moves"] == [ana, bea]
        await master.close()

    run(scenario)


def test_a_move_in_a_later_column_and_a_timeout() -> None:
    rules = get_rules("school", {"columns": 3})
    state = new_game(rules, ["Ana", "Bea"])
    state = engine_apply(state, parse_action("roll"), FixedDice([6, 6, 6, 1, 2]))
    first = last_move_view(state, parse_action("score sixes"))
    assert first is not None and (first.column, first.reserve, first.stars) == (0, 0, [])
    state = engine_apply(state, parse_action("score sixes"), FixedDice([]))
    state = engine_apply(state, parse_action("roll"), FixedDice([6, 6, 6, 6, 2]))
    state = engine_apply(state, parse_action("score sixes"), FixedDice([]))
    state = engine_apply(state, parse_action("roll"), FixedDice([6, 6, 6, 1, 2]))
    second = last_move_view(state, parse_action("score sixes"), auto=True)
    assert second is not None and (second.seat, second.turn, second.column) == (0, 2, 1)
    assert second.auto
    assert last_move_view(state, parse_action("roll")) is None
    timeout = last_move_view(state, FORFEIT, auto=True)
    assert isinstance(timeout, LastMoveView)
    assert (timeout.verb, timeout.row, timeout.column, timeout.gain) == ("timeout", None, None, 0)
