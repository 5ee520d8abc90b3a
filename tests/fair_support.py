"""Fair-dice games for the tests: played through the engine with a seed's dice, exactly as
the game master derives them."""

from __future__ import annotations

import hashlib
from typing import Any

from dicepoker.bots import make_bot
from dicepoker.engine import FORFEIT
from dicepoker.fair import (
    RECORD_KEY,
    FairDice,
    commitment,
    record_entry,
    thrown_positions,
)
from dicepoker.record import Game
from dicepoker.rules import get_rules


def play_fair(
    variant: str, levels: list[str], number: int, *, forfeit_turn: int | None = None
) -> dict[str, Any]:
    """A bot game whose dice come from a seed exactly as the game master derives them."""
    seed = hashlib.sha256(f"test-{variant}-{number}".encode()).hexdigest()
    options = {"turn_seconds": 60} if forfeit_turn else {}
    rules = get_rules(variant, options)
    bots = [make_bot(level, number + seat) for seat, level in enumerate(levels)]
    names = [f"P{seat + 1}" for seat in range(len(levels))]
    game = Game(rules, names, extra={RECORD_KEY: record_entry(commitment(seed))})
    dice = FairDice(seed)
    while not game.state.finished:
        state = game.state
        action = bots[state.seat].choose(state)
        if forfeit_turn is not None and state.turn + 1 == forfeit_turn and state.rolls == 1:
            action = FORFEIT
        game.play(action, dice.for_action(state, action))
    game.extra[RECORD_KEY] = record_entry(commitment(seed), seed)
    return game.to_record()


def rolls_in(record: dict[str, Any]) -> int:
    return sum(len(turn.get("rolls", [])) for turn in record["turns"])


def first_thrown(record: dict[str, Any], at_least_turn: int = 3) -> tuple[int, int, int]:
    """(turn, roll, position), 1-based turn and roll: a thrown die of a later roll."""
    for t, turn in enumerate(record["turns"], start=1):
        if t < at_least_turn:
            continue
        for r, roll in enumerate(turn["rolls"], start=1):
            if r >= 2 and roll.get("keep"):
                return t, r, thrown_positions(roll["keep"])[0]
    raise AssertionError("no roll with held dice")
