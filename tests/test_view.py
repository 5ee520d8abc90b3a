"""The typed view (dicepoker.view, dicepoker.protocol.GameView): every view of real games
validates and reads back exactly, absent parts stay absent, and the cache changes nothing."""

from __future__ import annotations

import gc
import itertools
import json
import random
import tracemalloc
from typing import Any

import pytest
from pydantic import ValidationError

from dicepoker.dice import SeededDice
from dicepoker.engine import GameState, apply, claimed_stars, legal_actions, new_game, preview
from dicepoker.protocol import GameView, RulesView, SheetView, TurnView
from dicepoker.record import replay
from dicepoker.rules import VARIANTS, get_rules
from dicepoker.view import ViewCache, game_view, rules_view
from support import POKER_ROWS


def states(variant: str, players: int, seed: int) -> list[GameState]:
    """Every position of a seeded random game, from the empty sheets to the end."""
    rules = get_rules(variant)
    rng, dice = random.Random(seed), SeededDice(seed)
    state = new_game(rules, [f"P{n}" for n in range(players)])
    out = [state]
    while not state.finished:
        state = apply(state, rng.choice(legal_actions(state)), dice)
        out.append(state)
    return out


GAMES = [(variant, players) for variant in VARIANTS for players in (1, 2)] + [("school", 4)]


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_every_view_validates_and_reads_back_exactly(variant: str, players: int) -> None:
    cache = ViewCache()
    for state in states(variant, players, seed=players):
        view = game_view(state, cache)
        text = view.to_json()
        again = GameView.model_validate_json(text)
        assert again == view
        assert again.to_json() == text
        # Built without validation, the view is what validation makes of its own data.
        assert GameView.model_validate(view.to_data()) == view
        # pydantic's own writer and the fast one write the same JSON.
        assert view.model_dump_json() == text
        # The cache changes nothing.
        assert view == game_view(state)


def _keys(node: Any, name: str) -> int:
    if isinstance(node, dict):
        return (name in node) + sum(_keys(value, name) for value in node.values())
    if isinstance(node, list):
        return sum(_keys(value, name) for value in node)
    return 0


def test_absent_parts_stay_absent() -> None:
    game = states("school", 2, seed=5)
    first, last = game[0], game[-1]
    start = json.loads(game_view(first).to_json())
    assert "turn" in start and "tiebreak" not in start
    assert "kept" not in start["turn"]
    assert _keys(start, "doubled") == 0 and _keys(start, "note") == 0
    end = json.loads(game_view(last).to_json())
    assert "turn" not in end and end["finished"] is True
    assert game_view(last).turn is None
    # Cells: `doubled` and `joker` only when true, the reserve's keys only on School crosses.
    for sheet in end["sheets"]:
        for row in sheet["rows"]:
            for cell in row["cells"]:
                assert cell is not None
                assert cell.get("doubled", True) is True and cell.get("joker", True) is True
                assert ("used_reserve" in cell) == (cell["mark"] == "closed")
                assert ("note" in cell) == ("note_struck" in cell)
    assert _keys(end, "used_reserve") > 0


def test_kept_is_written_when_the_caller_knows_it() -> None:
    state = states("yahtzee", 1, seed=2)[1]
    turn = game_view(state, kept=[0, 2]).turn
    assert turn is not None and turn.kept == [0, 2]
    assert json.loads(game_view(state, kept=[]).to_json())["turn"]["kept"] == []


def test_a_tie_break_is_in_the_view() -> None:
    turns = [
        {"rolls": [{"dice": [1, 2, 3, 4, 6]}], "move": f"score {row}"}
        for row in POKER_ROWS
        for _ in range(2)
    ]
    state = replay({"variant": "poker-dice", "players": ["A", "B"], "turns": turns}).state
    view = game_view(state)
    assert view.tiebreak is not None
    assert (view.tiebreak.game, view.tiebreak.seats) == (1, [0, 1])
    assert set(view.tiebreak.sheets) == {"0", "1"}
    assert GameView.model_validate_json(view.to_json()) == view


def test_rules_views_are_made_once_and_cannot_change() -> None:
    rules = get_rules("school", {"columns": 2})
    view = rules_view(rules)
    assert rules_view(get_rules("school", {"columns": 2})) is view
    assert isinstance(view, RulesView) and view.columns == 2
    with pytest.raises(ValidationError):
        view.columns = 3
    assert view.columns == 2


def test_a_move_renders_only_the_mover_s_sheet_again() -> None:
    game = states("school", 3, seed=9)
    cache = ViewCache()
    moves = 0
    for before, after in itertools.pairwise(game):
        old = game_view(before, cache)
        new = game_view(after, cache)
        changed = [n for n, sheet in enumerate(after.sheets) if sheet is not before.sheets[n]]
        reused = [n for n, sheet in enumerate(new.sheets) if sheet is old.sheets[n]]
        if not changed:  # a roll: the whole sheet part is the same
            assert reused == list(range(3))
            continue
        moves += 1
        others = set(range(3)) - set(changed)
        if claimed_stars(after) == claimed_stars(before):
            assert set(reused) == others
        else:  # a star was earned: it is struck on the others' sheets, drawn again
            assert not set(reused) & set(changed)
        assert new == game_view(after)  # and nothing reused is out of date
    assert moves > 30


def test_sheets_are_written_once_and_the_same_each_time() -> None:
    view = game_view(states("school", 2, seed=3)[40])
    first = view.to_json()
    assert view.to_json() == first
    sheet = view.sheets[0]
    assert isinstance(sheet, SheetView)
    assert json.loads(sheet.to_json()) == json.loads(first)["sheets"][0]


def test_a_game_s_kept_views_take_tens_of_kilobytes_not_hundreds() -> None:
    """What a server keeps per game between events (its `ViewCache`, with the JSON of each sheet
    and row written once): a 2-player School game of 3 columns, midway. The JSON kept is copied
    to its own size (orjson's bytes keep a buffer of 4 KiB or more: 190 KiB a game), and models
    given every field share one set of their names."""
    positions = [states("school", 2, seed=seed)[60] for seed in range(40)]
    assert all(position.rules.columns == 3 for position in positions)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        caches = []
        for position in positions:
            cache = ViewCache()
            game_view(position, cache).to_json()
            caches.append(cache)
        gc.collect()
        per_game = (tracemalloc.get_traced_memory()[0] - before) / len(positions)
    finally:
        tracemalloc.stop()
    assert 10_000 < per_game < 80_000


def test_equal_rows_and_stars_are_one_object_in_every_game() -> None:
    """A server keeps every live game's last view, and its collector walks each object of
    them: rows, stars and cells with the same values are shared between sheets and games (40
    School games midway keep about 48 tracked objects a game, 153 before the rows and stars
    were shared), and a row that changes is a new object, equal to one made afresh."""
    games = [states("school", 2, seed=seed) for seed in range(40)]
    first = [game_view(game[0]) for game in games[:2]]
    assert all(
        row is other
        for row, other in zip(first[0].sheets[0].rows, first[1].sheets[1].rows, strict=True)
    )
    gc.collect()
    gc.freeze()
    try:
        caches = []
        for game in games:
            cache = ViewCache()
            game_view(game[60], cache).to_json()
            caches.append(cache)
        gc.collect()
        assert len(gc.get_objects()) / len(games) < 80
    finally:
        gc.unfreeze()
    for before, after in itertools.pairwise(games[0][:80]):
        old, new = game_view(before).sheets, game_view(after).sheets
        for sheet, was in zip(new, old, strict=True):
            for row, old_row in zip(sheet.rows, was.rows, strict=True):
                assert (row is old_row) == (row == old_row)


def test_a_legal_move_with_the_same_numbers_is_one_model_in_every_view() -> None:
    """The legal moves' views are shared between views and games (and each written as JSON
    once), and what each says is the engine's preview of that position, not another's."""
    offered: dict[tuple[str, int, bool, int], Any] = {}
    shared = 0
    for seed in range(6):
        for state in states("school", 2, seed=seed)[:120]:
            turn = game_view(state).turn
            if not isinstance(turn, TurnView):
                continue
            previews = preview(state)
            assert [option.action for option in turn.legal] == [str(p.move) for p in previews]
            for option, expected in zip(turn.legal, previews, strict=True):
                assert (option.points, option.doubled, option.gain) == (
                    expected.points,
                    expected.doubled,
                    expected.gain,
                )
                assert json.loads(option.to_json()) == option.model_dump(mode="json")
                key = (option.action, option.points, option.doubled, option.gain)
                if key in offered:
                    assert offered[key] is option
                    shared += 1
                offered[key] = option
    assert shared > 100
