"""`greedy`: holds the dice of the best cell it could fill now, then takes the best immediate score.

A cell's worth is what filling it now adds to the total, measured against the worst way the row
could still be filled later (a zero in a School row costs 200, a stroke or a 0 costs nothing), so
closing a School row counts for what it saves. It reads only the engine's `preview` and the row's
own pattern (which dice form it), so it plays every variant without knowing its rules.
"""

from __future__ import annotations

from dicepoker.bots.base import Bot
from dicepoker.engine import ROLL, Action, GameState, MovePreview, Roll, preview, zero_penalty
from dicepoker.rules import Rules
from dicepoker.rules.combos import combo_positions


def worth(rules: Rules, option: MovePreview) -> int:
    """Immediate gain of a cell move over the row's worst possible filling."""
    row = rules.row(option.move.row)
    floor = -zero_penalty(rules) if row.school else 0
    return option.gain - floor


def best(rules: Rules, options: list[MovePreview]) -> MovePreview:
    """The move worth most now; ties go to the first in sheet order."""
    return max(options, key=lambda option: worth(rules, option))


class GreedyBot(Bot):
    level = "greedy"

    def choose(self, state: GameState) -> Action:
        if state.rolls == 0:
            return ROLL
        rules = state.rules
        options = preview(state)
        if state.rolls_left == 0:
            return best(rules, options).move
        scoring = [o for o in options if o.move.verb == "score" and worth(rules, o) > 0]
        if not scoring:
            return ROLL  # nothing worth keeping: throw all five again
        target = best(rules, scoring)
        keep = combo_positions(rules.row(target.move.row).combo, state.dice, rules.faces)
        if len(keep) >= rules.dice:
            return target.move  # every die already counts: nothing to improve by rolling
        return Roll(keep)
