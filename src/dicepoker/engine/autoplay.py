"""Auto-play (variants with an `AutoPlay` rule): the action a player's turn takes without them."""

from __future__ import annotations

from dicepoker.engine.actions import ROLL, Action, Roll
from dicepoker.engine.errors import GameOverError, IllegalActionError
from dicepoker.engine.moves import dice_counts
from dicepoker.engine.semantics import upper_rows, yahtzee_face
from dicepoker.engine.state import GameState
from dicepoker.engine.tables import tables
from dicepoker.rules.combos import combo_value


def autoplay_action(state: GameState) -> Action:
    """The action auto-play takes now: keep the largest group (the higher face on a tie) while
    rolls remain and the dice are not all equal, then score the first open row of the rule's
    priority that the dice make, else the open upper row with most matching dice, else the first
    open row."""
    rules = state.rules
    if rules.autoplay is None:
        raise IllegalActionError(f"{rules.variant} has no auto-play rule")
    if state.finished:
        raise GameOverError("the game is over")
    if state.rolls == 0:
        return ROLL
    counts = dice_counts(state)
    if state.rolls < rules.rolls_per_turn and yahtzee_face(rules, counts) is None:
        face = max(range(1, rules.faces + 1), key=lambda f: (counts[f], f))
        return Roll(tuple(p for p, die in enumerate(state.dice) if die == face))
    sheet = state.sheet
    found = tables(rules)
    open_rows = sheet.open_rows(rules)
    for index in found.autoplay:
        if index in open_rows and combo_value(rules.rows[index].combo, counts) is not None:
            return found.score[index]
    upper = [i for i in upper_rows(rules) if i in open_rows and counts[rules.rows[i].combo.n] > 0]
    if upper:
        best = max(upper, key=lambda i: (counts[rules.rows[i].combo.n], rules.rows[i].combo.n))
        return found.score[best]
    return found.score[open_rows[0]]
