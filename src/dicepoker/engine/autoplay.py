"""Auto-play (variants with an `AutoPlay` rule): the action a player's turn takes without them.

Auto-play is a way of choosing, not a rule of the game: it chooses among the cell moves that
`moves.cell_moves` allows, as the bots choose among the legal actions, so that whatever the rules
allow or refuse (the forced Joker of a further Yahtzee, a School row's closing, an unmade row
that is struck rather than scored) is decided by the engine alone and auto-play can never take a
move that the engine would refuse.
"""

from __future__ import annotations

from dicepoker.engine.actions import ROLL, Action, Roll
from dicepoker.engine.errors import GameOverError, IllegalActionError
from dicepoker.engine.moves import cell_moves, dice_counts, legal_actions
from dicepoker.engine.semantics import upper_rows, yahtzee_face
from dicepoker.engine.state import GameState
from dicepoker.engine.tables import tables
from dicepoker.rules.combos import combo_value


def autoplay_action(state: GameState) -> Action:
    """The action auto-play takes now, always a legal one: keep the largest group (the higher
    face on a tie) while rolls remain and the dice are not all equal; then, of the rows the
    engine lets the dice be scored in, the first of the rule's priority that the dice make, else
    the upper row with most matching dice; else the first cell move the engine allows, in sheet
    order."""
    rules = state.rules
    if rules.autoplay is None:
        raise IllegalActionError(f"{rules.variant} has no auto-play rule")
    if state.finished:
        raise GameOverError("the game is over")
    if state.rolls == 0:
        return ROLL
    counts = dice_counts(state)
    if state.rolls < rules.rolls_per_turn and yahtzee_face(rules, counts) is None:
        # Dice not all equal: the largest group is a proper hold, which the engine allows
        # whenever a roll is left.
        face = max(range(1, rules.faces + 1), key=lambda f: (counts[f], f))
        return Roll(tuple(p for p, die in enumerate(state.dice) if die == face))
    allowed = cell_moves(state)
    found = tables(rules)
    scorable = {rules.row_index[move.row] for move in allowed if move.verb == "score"}
    for index in found.autoplay:
        if index in scorable and combo_value(rules.rows[index].combo, counts) is not None:
            return found.score[index]
    upper = [i for i in upper_rows(rules) if i in scorable and counts[rules.rows[i].combo.n] > 0]
    if upper:
        best = max(upper, key=lambda i: (counts[rules.rows[i].combo.n], rules.rows[i].combo.n))
        return found.score[best]
    if allowed:
        return allowed[0]
    # Rules that refuse an unmade row and let none be struck may allow no cell move with these
    # dice: then the turn goes on by what the engine does allow (a roll, while one is left).
    rest = legal_actions(state)
    if not rest:
        raise IllegalActionError(f"{rules.variant} allows no action with these dice")
    return rest[0]
