"""Property tests: random legal play of every variant always ends, refusals change nothing, totals
always add up, and any record (finished or mid-turn) replays to the identical state."""

from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from dicepoker.dice import SeededDice
from dicepoker.engine import (
    FORFEIT,
    Action,
    Bonus,
    GameState,
    IllegalActionError,
    Mark,
    Move,
    Sheet,
    apply,
    legal_actions,
    new_game,
    ranking,
    star_status,
)
from dicepoker.record import Game, replay
from dicepoker.rules import Rules, get_rules
from support import (
    VARIANT_CASES,
    action_universe,
    check_parts,
    check_sheet_shape,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

# Every variant (with its option switches), school with any number of columns, 1 to 4 players;
# poker-dice also with the turn clock (random players then sometimes run out of time).
GAMES = st.one_of(
    st.tuples(st.sampled_from(VARIANT_CASES), st.integers(1, 4)),
    st.tuples(
        st.builds(lambda c: ("school", {"columns": c}), st.integers(1, 6)),
        st.integers(1, 4),
    ),
    st.tuples(st.just(("poker-dice", {"turn_seconds": 60})), st.integers(1, 4)),
)


def _new(game: tuple[tuple[str, dict[str, object]], int]) -> GameState:
    (name, options), players = game
    return new_game(get_rules(name, options), [f"P{i}" for i in range(players)])


def _choose(state: GameState, rng: random.Random) -> Action:
    """A random legal action; with a clock, now and then the clock runs out."""
    if state.rules.turn_seconds and rng.random() < 0.01:
        return FORFEIT
    return rng.choice(legal_actions(state))


@settings(max_examples=100, deadline=None)
@given(game=GAMES, seed=SEEDS)
def test_random_play_always_ends(
    game: tuple[tuple[str, dict[str, object]], int], seed: int
) -> None:
    state = _new(game)
    rules = state.rules
    players = len(state.players)
    rng = random.Random(seed)
    dice = SeededDice(seed)
    moves = 0
    limit = 50 * rules.cells * players * 4
    for _ in range(limit):
        if state.finished:
            break
        actions = legal_actions(state)
        assert actions, "an unfinished game always has a legal action"
        assert any(isinstance(a, Move) for a in actions) or state.rolls == 0
        action = _choose(state, rng)
        after = apply(state, action, dice)
        if isinstance(action, Move):
            moves += 1
            assert after.turn == state.turn + 1
        check_parts(after)
        check_sheet_shape(after)
        state = after
    assert state.finished, "the game did not end"
    assert legal_actions(state) == ()
    if not state.forfeited:
        # Every main sheet is full; the main game lasted one turn per cell per player.
        assert all(sheet.is_full(rules) for sheet in state.final_sheets)
        assert moves >= rules.cells * players
        if state.stage == 0:
            assert moves == rules.cells * players
            assert state.turn == moves
    else:
        # Those who forfeited rank last, after everybody else.
        order = [s.seat for s in ranking(state)]
        tail = order[len(order) - len(state.forfeited) :]
        assert set(tail) == set(state.forfeited)


@settings(max_examples=60, deadline=None)
@given(game=GAMES, seed=SEEDS)
def test_illegal_actions_change_nothing(
    game: tuple[tuple[str, dict[str, object]], int], seed: int
) -> None:
    state = _new(game)
    universe = action_universe(state.rules)
    rng = random.Random(seed)
    dice = SeededDice(seed)
    while not state.finished:
        if rng.random() < 0.05:
            legal = set(legal_actions(state))
            if state.rules.turn_seconds:
                legal.add(FORFEIT)
            illegal = [a for a in universe if a not in legal]
            action = rng.choice(illegal)
            snapshot = copy.deepcopy(state)
            before_hash = hash(state)
            try:
                apply(state, action, dice)
            except IllegalActionError as error:
                assert error.reason
            else:
                raise AssertionError(f"{action} was accepted but is not a legal action")
            assert state == snapshot
            assert hash(state) == before_hash
            still = set(legal_actions(state))
            if state.rules.turn_seconds:
                still.add(FORFEIT)
            assert still == legal
        state = apply(state, _choose(state, rng), dice)


def _play(game: Game, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.state.finished:
            return
        game.play(_choose(game.state, rng))


@settings(max_examples=100, deadline=None)
@given(game=GAMES, seed=SEEDS, stop=st.integers(0, 2000))
def test_record_replays_to_the_identical_state(
    game: tuple[tuple[str, dict[str, object]], int], seed: int, stop: int
) -> None:
    (name, options), players = game
    played = Game(
        get_rules(name, options),
        [f"P{i}" for i in range(players)],
        SeededDice(seed),
        extra={"seed": seed},
    )
    _play(played, random.Random(seed), stop)
    record = played.to_record()
    again = replay(record)
    assert again.state == played.state
    assert hash(again.state) == hash(played.state)
    assert again.to_record() == record
    text = json.dumps(record)
    from_json = replay(json.loads(text))
    assert from_json.state == played.state
    assert json.loads(json.dumps(from_json.to_record())) == json.loads(text)


@settings(max_examples=80, deadline=None)
@given(game=GAMES, seed=SEEDS, stop=st.integers(1, 400))
def test_mid_turn_record_replays(
    game: tuple[tuple[str, dict[str, object]], int], seed: int, stop: int
) -> None:
    """Stop right after a roll: the last record turn has rolls and no move."""
    (name, options), players = game
    played = Game(get_rules(name, options), [f"P{i}" for i in range(players)], SeededDice(seed))
    rng = random.Random(seed)
    _play(played, rng, stop)
    if played.state.finished:
        return
    if played.state.rolls == 0:
        played.play("roll")
    assert played.state.rolls >= 1
    record = played.to_record()
    last = record["turns"][-1]
    assert "move" not in last
    assert len(last["rolls"]) == played.state.rolls
    assert last["rolls"][-1]["dice"] == list(played.state.dice)
    state = replay(json.loads(json.dumps(record))).state
    assert state == played.state
    assert not state.finished
    assert state.rolls == played.state.rolls
    assert state.thrown_all == played.state.thrown_all


# --- School stars, checked against a direct reading of the contract ------------------------------


def _eager(state: GameState, rng: random.Random) -> Action:
    """A random player that mostly scores (so that stars happen) and sometimes rolls again."""
    actions = legal_actions(state)
    moves = [a for a in actions if isinstance(a, Move)]
    scores = [m for m in moves if m.verb == "score"]
    roll_again = state.rolls_left > 0 and (not scores or rng.random() < 0.3)
    if state.rolls == 0 or roll_again:
        return rng.choice([a for a in actions if not isinstance(a, Move)])
    if scores and rng.random() < 0.98:
        return rng.choice(scores)
    return rng.choice(moves)


def _expected_stars(before: GameState, sheet: Sheet, row: int, column: int) -> list[Bonus]:
    rules = before.rules
    claimed = {(b.kind, b.key) for s in before.sheets for b in s.stars}
    earned: list[Bonus] = []
    spec = rules.rows[row]
    cells = sheet.row_cells(rules, row)
    if spec.star and all(c is not None for c in cells):
        if spec.school:
            if all(c is not None and c.mark is Mark.CLOSED and not c.used_reserve for c in cells):
                earned.append(Bonus("school_row", spec.id, 5 * spec.combo.n))
        elif all(c is not None and c.mark is Mark.SCORE for c in cells):
            earned.append(Bonus("combination_row", spec.id, max(c.points for c in cells if c)))
    col = sheet.column_cells(rules, column)
    if all(c is not None and c.mark not in (Mark.STRIKE, Mark.ZERO) for c in col):
        best = max(c.points for c in col[6:] if c is not None)
        earned.append(Bonus("column", column, best))
    return [b for b in earned if (b.kind, b.key) not in claimed]


@settings(max_examples=60, deadline=None)
@given(columns=st.integers(1, 3), players=st.integers(1, 4), seed=SEEDS)
def test_school_stars_follow_the_contract(columns: int, players: int, seed: int) -> None:
    rules = get_rules("school", {"columns": columns})
    state = new_game(rules, [f"P{i}" for i in range(players)])
    rng = random.Random(seed)
    dice = SeededDice(seed)
    while not state.finished:
        action = _eager(state, rng)
        after = apply(state, action, dice)
        if isinstance(action, Move):
            seat = state.seat
            sheet = after.sheets[seat]
            row = rules.row_index[action.row]
            column = state.sheets[seat].row_fill[row]
            new = _expected_stars(state, sheet, row, column)
            assert sheet.stars == (*state.sheets[seat].stars, *new)
            for other in range(players):
                if other != seat:
                    assert after.sheets[other].stars == state.sheets[other].stars
            owners = [(b.kind, b.key) for s in after.sheets for b in s.stars]
            assert len(owners) == len(set(owners))
            _check_star_status(after)
        state = after


def _check_star_status(state: GameState) -> None:
    rules = state.rules
    owner = {(b.kind, b.key): seat for seat, s in enumerate(state.sheets) for b in s.stars}
    for seat, sheet in enumerate(state.sheets):
        for status in star_status(state, seat):
            key = (status.kind, status.key)
            if owner.get(key) == seat:
                assert status.status == "earned"
                assert status.value == next(b.value for b in sheet.stars if (b.kind, b.key) == key)
                continue
            if status.kind == "column":
                assert isinstance(status.key, int)
                cells = sheet.column_cells(rules, status.key)
                broken = any(c is not None and c.mark in (Mark.STRIKE, Mark.ZERO) for c in cells)
            else:
                assert isinstance(status.key, str)
                cells = sheet.row_cells(rules, rules.row_index[status.key])
                broken = any(
                    c is not None and (c.mark in (Mark.STRIKE, Mark.ZERO) or c.used_reserve)
                    for c in cells
                )
            full = all(c is not None for c in cells)
            if key in owner or broken:
                assert status.status == "struck", (seat, key)
            else:
                # Still reachable: the cells are not all filled yet (else it would be earned).
                assert status.status == "open", (seat, key)
                assert not full, (seat, key)


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["school", "yahtzee", "poker-dice"]),
    st.integers(0, 2**32),
    st.integers(1, 3),
)
def test_cached_views_equal_fresh_views(variant: str, seed: int, players: int) -> None:
    """The server's view cache (sheets reused while unchanged) never shows a stale sheet."""
    from dicepoker.bots import make_bot
    from dicepoker.view import ViewCache, game_view

    rules = get_rules(variant)
    state = new_game(rules, [f"p{n}" for n in range(min(players, rules.max_players))])
    dice, bot, cache = SeededDice(seed), make_bot("random"), ViewCache()
    while not state.finished:
        state = apply(state, bot.choose(state), dice)
        assert game_view(state, cache) == game_view(state)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["school", "yahtzee", "yahtzee15", "poker-dice"]),
    st.integers(0, 2**32),
)
def test_preview_gains_are_the_totals_after_each_move(variant: str, seed: int) -> None:
    """`preview` computes each candidate's total from the current one; it must equal the engine's
    own total of the sheet after the move, for every move of whole random games."""
    from dicepoker.bots import make_bot
    from dicepoker.engine import preview, sheet_breakdown

    rules = get_rules(variant)
    state = new_game(rules, ["a", "b"])
    dice, bot = SeededDice(seed), make_bot("random")
    while not state.finished:
        before = sheet_breakdown(rules, state.sheet).total
        for option in preview(state):
            after = apply(state, option.move, dice)
            sheet = after.sheets[state.seat] if after.main_sheets is None else None
            if sheet is not None and after.sheets is not state.sheets:
                assert sheet_breakdown(rules, sheet).total - before == option.gain, option
        state = apply(state, bot.choose(state), dice)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["school", "yahtzee", "poker-dice"]), st.integers(0, 2**32))
def test_one_move_s_preview_is_its_entry_of_the_whole_preview(variant: str, seed: int) -> None:
    """`preview_move` (a played move's mark, after every event) tells exactly what `preview`
    tells of that move, and None of a move that is not legal now."""
    from dicepoker.bots import make_bot
    from dicepoker.engine import cell_moves, preview, preview_move

    rules = get_rules(variant)
    state = new_game(rules, ["a", "b"])
    dice, bot = SeededDice(seed), make_bot("random")
    every = {move for index in range(len(rules.rows)) for move in _row_moves(rules, index)}
    while not state.finished:
        shown = {option.move: option for option in preview(state)}
        for move in every:
            assert preview_move(state, move) == shown.get(move), move
        assert set(shown) == set(cell_moves(state))
        state = apply(state, bot.choose(state), dice)


def _row_moves(rules: Rules, index: int) -> list[Move]:
    """Every cell move of row `index` (score, strike, zero), legal or not."""
    from dicepoker.engine.tables import tables

    found = tables(rules)
    return [m for m in (found.score[index], found.strike[index], found.zero[index]) if m]
