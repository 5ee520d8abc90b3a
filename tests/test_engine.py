"""The engine's contract with its callers: legal actions, refusals, turn order, the end of the
game, hashable states and the action notation."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import pytest

from dicepoker.dice import FixedDice, SeededDice
from dicepoker.engine import (
    FORFEIT,
    ROLL,
    Action,
    Forfeit,
    GameOverError,
    GameState,
    IllegalActionError,
    Move,
    MoveError,
    NotationError,
    NotYourTurnError,
    Roll,
    RollError,
    apply,
    cell_moves,
    keep,
    legal_actions,
    parse_action,
)
from dicepoker.rules import get_rules
from support import (
    VARIANT_CASES,
    action_universe,
    all_rolls,
    case_id,
    random_play,
    roll,
    start,
)


def _positions(name: str, options: dict[str, object]) -> list[GameState]:
    """A handful of positions of a 2-player game: before a roll, after one, two and three rolls,
    the second player's turn, and a Joker position where the variant has one."""
    state = start(name, 2, **options)
    out = [state]
    first = roll(state, [1, 2, 3, 4, 6])
    out.append(first)
    second = apply(first, keep(0, 1), FixedDice([3, 3, 3]))
    out.append(second)
    if state.rules.rolls_per_turn > 2:
        out.append(apply(second, keep(0, 1, 2, 3), FixedDice([5])))
    moved = apply(first, cell_moves(first)[0])
    out.append(moved)
    out.append(roll(moved, [5, 5, 5, 5, 5]))
    return out


POSITION_PARAMS = [
    pytest.param(name, options, index, id=f"{case_id((name, options))}-{index}")
    for name, options in VARIANT_CASES
    for index in range(6)
]


def _position(name: str, options: dict[str, object], index: int) -> GameState:
    positions = _positions(name, options)
    return positions[min(index, len(positions) - 1)]


@pytest.mark.parametrize("case", VARIANT_CASES, ids=case_id)
def test_only_roll_before_the_first_roll(case: tuple[str, dict[str, object]]) -> None:
    name, options = case
    state = start(name, 2, **options)
    assert legal_actions(state) == (ROLL,)
    assert cell_moves(state) == ()
    later = apply(roll(state, [1, 2, 3, 4, 6]), cell_moves(roll(state, [1, 2, 3, 4, 6]))[0])
    assert legal_actions(later) == (ROLL,)


@pytest.mark.parametrize("case", VARIANT_CASES, ids=case_id)
def test_rolls_and_holds_while_rolls_remain(case: tuple[str, dict[str, object]]) -> None:
    name, options = case
    state = roll(start(name, 2, **options), [1, 2, 3, 4, 6])
    actions = legal_actions(state)
    rolls = [a for a in actions if isinstance(a, Roll)]
    moves = [a for a in actions if isinstance(a, Move)]
    assert len(rolls) == 31
    assert set(rolls) == set(all_rolls())
    assert len(set(actions)) == len(actions)
    assert len(rolls) + len(moves) == len(actions)
    assert tuple(moves) == cell_moves(state)
    assert moves  # a legal move always exists
    # After the last roll only cell moves remain.
    last = state
    while last.rolls < last.rules.rolls_per_turn:
        last = apply(last, keep(0), FixedDice([6, 6, 6, 6]))
    assert legal_actions(last) == cell_moves(last)
    assert not any(isinstance(a, Roll) for a in legal_actions(last))


@pytest.mark.parametrize(("name", "options", "index"), POSITION_PARAMS)
def test_every_listed_action_applies(name: str, options: dict[str, object], index: int) -> None:
    state = _position(name, options, index)
    for action in legal_actions(state):
        after = apply(state, action, SeededDice(index))
        assert after != state
        if isinstance(action, Move):
            assert after.turn == state.turn + 1
            assert after.sheets[state.seat].filled == state.sheets[state.seat].filled + 1
        elif isinstance(action, Roll):
            assert after.rolls == state.rolls + 1
            assert all(after.dice[p] == state.dice[p] for p in action.keep)


@pytest.mark.parametrize(("name", "options", "index"), POSITION_PARAMS)
def test_actions_not_listed_are_refused(name: str, options: dict[str, object], index: int) -> None:
    state = _position(name, options, index)
    copy = _position(name, options, index)
    legal = set(legal_actions(state))
    refused = 0
    for action in action_universe(state.rules):
        if action in legal:
            continue
        with pytest.raises(IllegalActionError) as info:
            apply(state, action, SeededDice(0))
        assert info.value.reason
        refused += 1
    assert refused > 0
    assert state == copy
    assert hash(state) == hash(copy)


def test_refusal_kinds() -> None:
    state = start("school", 2)
    with pytest.raises(MoveError):
        apply(state, Move("score", "sum"))  # no roll yet
    with pytest.raises(RollError):
        apply(state, keep(0), SeededDice(0))  # nothing to hold before the first roll
    rolled = roll(state, [1, 2, 3, 4, 6])
    with pytest.raises(RollError):
        apply(rolled, keep(0, 1, 2, 3, 4), SeededDice(0))  # every die held
    with pytest.raises(RollError):
        apply(rolled, Roll((0, 5)), SeededDice(0))  # no die 5
    with pytest.raises(RollError):
        apply(rolled, Roll((-1, 0)), SeededDice(0))
    with pytest.raises(MoveError):
        apply(rolled, Move("score", "no_such_row"))
    with pytest.raises(IllegalActionError):
        apply(rolled, FORFEIT)


@pytest.mark.parametrize("keep", [(5, 0), (2, -1), (9, 1, 0)])
def test_unsorted_hold_with_a_bad_position_is_refused(keep: tuple[int, ...]) -> None:
    """`Roll` is a public value: a hold built by hand with a position outside 0..4 must be
    refused like any other bad hold, whatever the order of its positions."""
    state = roll(start("school"), [1, 2, 3, 4, 6])
    with pytest.raises(RollError):
        apply(state, Roll(keep), SeededDice(0))


def test_out_of_turn_is_refused() -> None:
    state = start("yahtzee", 3)
    with pytest.raises(NotYourTurnError):
        apply(state, ROLL, SeededDice(0), seat=1)
    state = apply(state, ROLL, FixedDice([1, 2, 3, 4, 6]), seat=0)
    with pytest.raises(NotYourTurnError):
        apply(state, Move("score", "chance"), seat=2)
    state = apply(state, Move("score", "chance"), seat=0)
    assert state.seat == 1
    with pytest.raises(NotYourTurnError):
        apply(state, ROLL, SeededDice(0), seat=0)
    state = apply(state, ROLL, FixedDice([1, 2, 3, 4, 6]), seat=1)
    assert state.rolls == 1


@pytest.mark.parametrize("case", VARIANT_CASES, ids=case_id)
def test_game_over_is_refused(case: tuple[str, dict[str, object]]) -> None:
    name, options = case
    last = start(name, 1, **options)
    for _, _, after in random_play(last, random.Random(11)):
        last = after
    assert last.finished
    assert legal_actions(last) == ()
    assert cell_moves(last) == ()
    for action in action_universe(last.rules)[:50]:
        with pytest.raises(GameOverError):
            apply(last, action, SeededDice(0))
    with pytest.raises(GameOverError):
        apply(last, ROLL, SeededDice(0))


def test_rounds_go_round_robin() -> None:
    state = start("yahtzee", 3)
    seats = []
    for _ in range(7):
        seats.append(state.seat)
        state = apply(roll(state, [1, 2, 3, 4, 6]), cell_moves(roll(state, [1, 2, 3, 4, 6]))[0])
    assert seats == [0, 1, 2, 0, 1, 2, 0]


def _history(seed: int, steps: int) -> GameState:
    state = start("school", 2)
    for count, (_, _, after) in enumerate(random_play(state, random.Random(seed)), start=1):
        state = after
        if count == steps:
            break
    return state


def test_state_is_hashable_and_equal_for_equal_histories() -> None:
    one = _history(5, 40)
    two = _history(5, 40)
    assert one is not two
    assert one == two
    assert hash(one) == hash(two)
    other = _history(6, 40)
    assert other != one
    table = {one: "a", other: "b"}
    assert table[two] == "a"
    assert len({one, two, other}) == 2


def test_rules_hash_as_they_compare() -> None:
    """Rules are hashed by their variant and options (every view looks its rules up): equal
    rules hash equal, and rules that differ only in a row are still told apart as keys."""
    school = get_rules("school", {"columns": 3})
    assert school is not get_rules("school", {"columns": 2})
    assert hash(school) == hash(dataclasses.replace(school))
    changed = dataclasses.replace(school, rows=school.rows[:-1])
    assert changed != school
    assert len({school: 1, changed: 2, dataclasses.replace(school): 3}) == 2
    assert hash(get_rules("school", {"columns": 2})) != hash(school)


def test_state_does_not_change_when_applying() -> None:
    state = roll(start("school"), [6, 6, 6, 6, 2])
    copy = roll(start("school"), [6, 6, 6, 6, 2])
    after = apply(state, Move("score", "four_of_a_kind"))
    assert state == copy
    assert state.sheets[0].filled == 0
    assert after.sheets[0].filled == 1


# --- notation ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("roll", ROLL),
        ("keep 0 1", keep(0, 1)),
        ("keep 0 1", Roll((0, 1))),
        ("keep 4", Roll((4,))),
        ("keep 0 1 2 3", Roll((0, 1, 2, 3))),
        ("score full_house", Move("score", "full_house")),
        ("strike pair", Move("strike", "pair")),
        ("zero threes", Move("zero", "threes")),
        ("timeout", Forfeit()),
        ("timeout", FORFEIT),
    ],
)
def test_notation_round_trip(text: str, action: Action) -> None:
    assert parse_action(text) == action
    assert str(action) == text
    assert parse_action(str(action)) == action


def test_keep_positions_in_any_order() -> None:
    assert parse_action("keep 3 1") == Roll((1, 3))
    assert str(parse_action("keep 3 1")) == "keep 1 3"
    assert keep(4, 0, 2) == Roll((0, 2, 4))


def test_hold_is_read_as_keep() -> None:
    """`hold`, the word of earlier versions (and of old servers' stored events), still reads."""
    assert parse_action("hold 3 1") == Roll((1, 3)) == parse_action("keep 1 3")
    assert str(parse_action("hold 0")) == "keep 0"


@pytest.mark.parametrize("case", VARIANT_CASES, ids=case_id)
def test_every_legal_action_round_trips(case: tuple[str, dict[str, object]]) -> None:
    name, options = case
    state = roll(start(name, 1, **options), [1, 2, 3, 4, 6])
    for action in legal_actions(state):
        assert parse_action(str(action)) == action


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "hold",
        "hold x",
        "hold 1 1",
        "hold -1",
        "hold 1,2",
        "score",
        "score a b",
        "strike",
        "jump pair",
        "roll 2",
        "timeout now",
        "Roll",
        "SCORE pair",
    ],
)
def test_bad_notation(text: str) -> None:
    with pytest.raises(NotationError):
        parse_action(text)


def test_notation_must_be_text() -> None:
    bad: object = 5
    with pytest.raises(NotationError):
        parse_action(bad)  # type: ignore[arg-type]


def test_what_is_derived_from_rules_is_built_once_and_kept_with_them() -> None:
    from dataclasses import replace

    from dicepoker.engine.tables import tables
    from dicepoker.rules import Rules, get_rules

    built: list[str] = []

    def build(rules: Rules) -> tuple[str, int]:
        built.append(rules.variant)
        return (rules.variant, rules.cells)

    yahtzee = replace(get_rules("yahtzee"), memo={})  # rules of this test's own
    school = replace(get_rules("school", {"columns": 2}), memo={})
    assert yahtzee.memoized("test_derived", build) == ("yahtzee", 13)
    assert yahtzee.memoized("test_derived", build) is yahtzee.memoized("test_derived", build)
    assert school.memoized("test_derived", build) == ("school", school.cells)
    assert built == ["yahtzee", "school"]  # once per rules, whatever the calls
    assert tables(yahtzee) is tables(yahtzee)  # the engine's own lookups are kept the same way


def observer(states: list[GameState]) -> Callable[[GameState, Action], None]:
    """A replay's observer that keeps each state an action is applied to."""
    return lambda state, _action: states.append(state)


def test_a_state_travels_to_a_worker_and_back_whole() -> None:
    """The server's workers get a state's fields by pickling (`server.work`): every cell of
    every position of the golden games comes back equal, of its own types, and equal cells as
    one object (`Cell.__reduce__`)."""
    import json
    import pickle
    from pathlib import Path

    from dicepoker.engine import Cell, Mark
    from dicepoker.record import replay

    kinds: set[tuple[Mark, bool, bool, bool]] = set()
    for path in sorted((Path(__file__).parent / "golden" / "spec_examples").glob("*p.json")):
        states: list[GameState] = []
        game = replay(json.loads(path.read_text()), observer(states))
        for state in [*states, game.state]:
            fields = tuple(state)[1:]
            back = pickle.loads(pickle.dumps(fields, pickle.HIGHEST_PROTOCOL))
            assert back == fields, path.name
            assert GameState(state.rules, *back) == state
            cells = [cell for sheet in back[1] for cell in sheet.cells if cell is not None]
            assert all(type(cell) is Cell and type(cell.mark) is Mark for cell in cells)
            for cell in cells:
                assert pickle.loads(pickle.dumps(cell)) is pickle.loads(pickle.dumps(cell))
                kinds.add((cell.mark, cell.doubled, cell.note is not None, cell.joker))
    # Every mark, doubled cells and reserve notes came through.
    assert {kind[0] for kind in kinds} == set(Mark)
    assert any(kind[1] for kind in kinds) and any(kind[2] for kind in kinds)
