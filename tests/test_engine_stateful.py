"""Whole games driven through the pure engine by a hypothesis state machine, every variant.

Rules apply random legal actions (dice drawn by hypothesis, so it can aim for five of a kind,
straights and jokers and shrink a failure to its dice) and random illegal ones: out of turn,
bad holds, filled cells, unknown rows, anything once the game is over. A refusal must be an
`IllegalActionError` and leave the state equal to what it was (states are immutable values). The
invariants: totals add up and match `totals`, whose turn it is follows the seat order, the game
ends exactly when every sheet in play is full (or the clock decided it), and the record of the
game so far replays to the very same state.
"""

from __future__ import annotations

import json
from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from dicepoker.engine import (
    FORFEIT,
    Action,
    GameOverError,
    GameState,
    IllegalActionError,
    Move,
    MoveError,
    NotYourTurnError,
    Roll,
    RollError,
    apply,
    legal_actions,
    new_game,
    sheet_breakdown,
    totals,
)
from dicepoker.engine.actions import VERBS
from dicepoker.record import Game, replay
from dicepoker.rules import get_rules
from support import VARIANT_CASES, check_parts, check_sheet_shape

# Every variant and option switch, School with 1 to 6 columns, poker-dice with its turn clock.
CASES: list[tuple[str, dict[str, Any]]] = [
    *VARIANT_CASES,
    *(("school", {"columns": columns}) for columns in (1, 2, 6)),
    ("poker-dice", {"turn_seconds": 60}),
]


class DrawnDice:
    """Dice whose faces hypothesis chooses."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        values = self.data.draw(
            st.lists(st.integers(1, faces), min_size=count, max_size=count), label="dice"
        )
        return tuple(values)


class EngineGame(RuleBasedStateMachine):
    state: GameState
    game: Game

    @initialize(case=st.sampled_from(CASES), players=st.integers(1, 4))
    def start(self, case: tuple[str, dict[str, Any]], players: int) -> None:
        name, options = case
        rules = get_rules(name, options)
        count = max(rules.min_players, min(players, rules.max_players))
        names = [f"P{n}" for n in range(count)]
        self.state = new_game(rules, names)
        self.game = Game(rules, names)

    # --- legal play ----------------------------------------------------------------------------

    def _apply(self, action: Action, data: st.DataObject) -> None:
        before = self.state
        after = apply(before, action, DrawnDice(data), seat=before.seat)
        assert after != before
        self.game.advance(action, after)
        self.state = after
        self._check_step(before, action, after)

    def _check_step(self, before: GameState, action: Action, after: GameState) -> None:
        rules = before.rules
        if isinstance(action, Roll):
            assert (after.seat, after.turn, after.rolls) == (
                before.seat,
                before.turn,
                before.rolls + 1,
            )
            assert len(after.dice) == rules.dice
            assert all(1 <= die <= rules.faces for die in after.dice)
            for position in action.keep:
                assert after.dice[position] == before.dice[position]
            assert after.thrown_all == (not action.keep)
            assert after.sheets == before.sheets
            return
        # A move or a forfeit ends the turn: the next turn starts afresh.
        assert after.turn == before.turn + 1
        assert (after.dice, after.rolls) == ((), 0)
        if isinstance(action, Move):
            mover = before.sheets[before.seat]
            if after.stage == before.stage:
                assert after.sheets[before.seat].filled == mover.filled + 1
                others = [s for n, s in enumerate(after.sheets) if n != before.seat]
                assert others == [s for n, s in enumerate(before.sheets) if n != before.seat]
        if after.finished or after.stage != before.stage or after.forfeited:
            return
        # Turn order: the next seat round the table (everyone's sheet fills at the same pace).
        seats = before.contenders
        assert after.seat == seats[(seats.index(before.seat) + 1) % len(seats)]

    @precondition(lambda self: not self.state.finished)
    @rule(data=st.data())
    def legal_action(self, data: st.DataObject) -> None:
        actions = legal_actions(self.state)
        assert actions, "an unfinished game always has a legal action"
        self._apply(data.draw(st.sampled_from(actions), label="action"), data)

    @precondition(lambda self: not self.state.finished)
    @rule(data=st.data())
    def whole_turn(self, data: st.DataObject) -> None:
        """Play random legal actions until the turn passes (so games get to their end)."""
        turn = self.state.turn
        while not self.state.finished and self.state.turn == turn:
            self._apply(data.draw(st.sampled_from(legal_actions(self.state))), data)

    @precondition(lambda self: not self.state.finished)
    @rule(data=st.data(), turns=st.integers(1, 60))
    def several_turns(self, data: st.DataObject, turns: int) -> None:
        """Whole turns in a row: even a 4-player, 6-column School game reaches its end."""
        for _ in range(turns):
            if self.state.finished:
                return
            self.whole_turn(data)

    @precondition(
        lambda self: (
            not self.state.finished
            and self.state.rules.timeout_loses
            and self.state.rules.turn_seconds > 0
        )
    )
    @rule(data=st.data())
    def clock_runs_out(self, data: st.DataObject) -> None:
        before = self.state
        self._apply(FORFEIT, data)
        assert self.state.forfeited == (*before.forfeited, before.seat)

    # --- refusals ------------------------------------------------------------------------------

    def _refused(
        self,
        action: Action,
        data: st.DataObject,
        *,
        seat: int | None = None,
        expected: type[IllegalActionError] = IllegalActionError,
    ) -> None:
        """`action` must be refused with `expected` (the game over trumps every other reason)
        and change nothing."""
        before = self.state
        fingerprint = hash(before)
        legal = legal_actions(before)
        if before.finished:
            expected = GameOverError
        try:
            apply(before, action, DrawnDice(data), seat=before.seat if seat is None else seat)
        except IllegalActionError as error:
            assert isinstance(error, expected), (action, error)
            assert error.reason
            assert error.code
        else:
            raise AssertionError(f"{action} was accepted in a position that refuses it")
        assert self.state == before and hash(self.state) == fingerprint
        assert legal_actions(self.state) == legal

    @precondition(lambda self: len(self.state.players) > 1)
    @rule(data=st.data())
    def out_of_turn(self, data: st.DataObject) -> None:
        state = self.state
        seat = data.draw(st.sampled_from([n for n in range(len(state.players)) if n != state.seat]))
        action = data.draw(st.sampled_from(legal_actions(state) or (Roll(),)))
        self._refused(action, data, seat=seat, expected=NotYourTurnError)

    @rule(data=st.data())
    def bad_hold(self, data: st.DataObject) -> None:
        """Holds the position refuses: before the first roll, every die, positions out of range,
        no rolls left; any other hold must be exactly one of the legal actions."""
        rules = self.state.rules
        keep = data.draw(
            st.lists(st.integers(-2, rules.dice + 1), max_size=rules.dice + 1), label="keep"
        )
        positions = tuple(sorted(keep))
        valid = (
            len(set(positions)) == len(positions)
            and all(0 <= p < rules.dice for p in positions)
            and len(positions) < rules.dice
        )
        action = Roll(positions)
        if valid and action in legal_actions(self.state):
            self._apply(action, data)
            return
        self._refused(action, data, expected=RollError)

    @rule(data=st.data())
    def filled_or_unknown_cell(self, data: st.DataObject) -> None:
        """A cell move on a full row, on a row the variant does not have, or a verb the row
        does not allow: a `MoveError` (or `GameOverError` once the game is over)."""
        state = self.state
        rules = state.rules
        full = [
            row.id for i, row in enumerate(rules.rows) if state.sheet.row_fill[i] >= rules.columns
        ]
        row = data.draw(st.sampled_from([*full, "no_such_row", "pair ", "ONES"]))
        action = Move(data.draw(st.sampled_from(VERBS)), row)
        self._refused(action, data, expected=MoveError)

    @rule(data=st.data())
    def any_action(self, data: st.DataObject) -> None:
        """Any well-formed action is accepted exactly when `legal_actions` lists it (a forfeit
        when the variant's clock can run out)."""
        rules = self.state.rules
        universe: list[Action] = [
            Roll(keep)
            for size in range(rules.dice)
            for keep in combinations(range(rules.dice), size)
        ]
        universe += [Move(v, row.id) for row in rules.rows for v in ("score", "strike", "zero")]
        universe.append(FORFEIT)
        action = data.draw(st.sampled_from(universe), label="any")
        clock = rules.timeout_loses and rules.turn_seconds > 0
        allowed = action in legal_actions(self.state) or (
            action == FORFEIT and clock and not self.state.finished
        )
        if allowed:
            self._apply(action, data)
        elif isinstance(action, Roll):
            self._refused(action, data, expected=RollError)
        elif isinstance(action, Move):
            self._refused(action, data, expected=MoveError)
        else:
            self._refused(action, data)

    @precondition(lambda self: self.state.finished)
    @rule(data=st.data())
    def after_the_end(self, data: st.DataObject) -> None:
        moves: list[Action] = [Move("score", row.id) for row in self.state.rules.rows]
        action = data.draw(st.sampled_from([Roll(), Roll((0,)), FORFEIT, *moves]))
        self._refused(action, data, expected=GameOverError)

    # --- invariants ----------------------------------------------------------------------------

    @invariant()
    def totals_add_up(self) -> None:
        state = self.state
        check_parts(state)
        check_sheet_shape(state)
        rules = state.rules
        expected = tuple(sheet_breakdown(rules, sheet).total for sheet in state.final_sheets)
        assert totals(state) == expected

    @invariant()
    def turn_and_end(self) -> None:
        state = self.state
        rules = state.rules
        assert self.game.state == state
        if state.finished:
            assert legal_actions(state) == ()
            if not state.forfeited:
                # The main game ended with every sheet full; a tie-break game ends with a
                # complete round (every contender has filled as many cells).
                assert all(sheet.is_full(rules) for sheet in state.final_sheets)
                filled = {state.sheets[seat].filled for seat in state.contenders}
                if state.stage == 0:
                    assert filled == {rules.cells}
                else:
                    assert len(filled) == 1 and state.winner is not None
            return
        active = [seat for seat in state.contenders if seat not in state.forfeited]
        assert state.seat in active
        assert not state.sheet.is_full(rules)
        assert 0 <= state.rolls <= rules.rolls_per_turn
        assert len(state.dice) == (rules.dice if state.rolls else 0)
        # Unfinished means some sheet in play still has room: exactly the engine's end rule.
        assert any(not state.sheets[seat].is_full(rules) for seat in active)
        if state.stage == 0 and not state.forfeited:
            # Everyone moves in seat order: seat n has made turn // players (+1) moves so far.
            players = len(state.players)
            assert state.seat == state.turn % players
            for seat, sheet in enumerate(state.sheets):
                assert sheet.filled == state.turn // players + (seat < state.turn % players)

    def teardown(self) -> None:
        if not hasattr(self, "state"):
            return
        event("game finished" if self.state.finished else "game in progress")
        # The record of the game so far (mid-turn or finished) replays to the same state.
        record = json.loads(json.dumps(self.game.to_record()))
        assert replay(record).state == self.state


EngineGame.TestCase.settings = settings(
    max_examples=250,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_engine_state_machine = EngineGame.TestCase
