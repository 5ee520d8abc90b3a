"""The ladder's lower levels: the expert's values of every option, chosen by chance.

A person does not play a random move now and then: they play a slightly worse move often and a
much worse one rarely. A fallible level reads the advisor's value of every legal option (the
expert's own measure: the exact solver's expected final score, or in School the expectimax over
the fitted sheet value, with its race margin against rivals) and picks option `o` with a chance
proportional to `exp(-(best - worth(o)) / T)`: a softmax whose temperature `T` is the level's
temperature (`bots/ladder.py`, data per variant) times the points a turn brings the expert in
these rules (`points_per_turn`), so that a temperature means about the same in every variant. A
smaller temperature is a stronger level; 0 would be the expert.

Holds that keep the same dice are one option (the advisor values them alike): a choice is never
more likely because the dice it keeps can be picked out in more ways.
"""

from __future__ import annotations

import functools
import math
import random

from dicepoker.bots.base import Bot
from dicepoker.bots.ladder import temperature
from dicepoker.engine import Action, GameState, Roll, new_game
from dicepoker.rules import Rules

# Below this many points per turn (a game of the expert's that scores little or nothing) the
# temperature's scale is taken as this, so that a level still errs in proportion.
MIN_SCALE = 1.0


@functools.lru_cache(maxsize=32)
def points_per_turn(rules: Rules) -> float:
    """The expert's expected final score at the start of a game of `rules` over the turns a
    sheet takes: the size of one turn's points, the scale of a level's temperature."""
    from dicepoker.advisor import advise

    players = [f"p{seat + 1}" for seat in range(rules.min_players)]
    start = advise(new_game(rules, players)).best.worth
    return max(MIN_SCALE, abs(start) / max(1, rules.cells))


def _choice_key(state: GameState, action: Action) -> object:
    """Actions that are the same choice: holds of the same dice, else the action itself."""
    if isinstance(action, Roll):
        return ("keep", tuple(sorted(state.dice[p] for p in action.keep)))
    return action


class FallibleBot(Bot):
    """A ladder level below the expert: errs by the expert's own values, at the level's
    temperature (or at `fixed`, a temperature for every variant, for experiments)."""

    def __init__(self, level: str, seed: int | None = None, fixed: float | None = None) -> None:
        if fixed is not None and fixed <= 0:
            raise ValueError("a fallible level has a positive temperature (0 is the expert)")
        self.level = level
        self.fixed = fixed
        self._random = random.Random(seed)

    def temperature(self, rules: Rules) -> float:
        return self.fixed if self.fixed is not None else temperature(rules, self.level)

    def choose(self, state: GameState) -> Action:
        from dicepoker.advisor import advise

        options = advise(state).options
        if len(options) == 1:
            return options[0].action
        distinct: dict[object, tuple[Action, float]] = {}
        for option in options:
            distinct.setdefault(_choice_key(state, option.action), (option.action, option.worth))
        choices = list(distinct.values())
        best = max(worth for _, worth in choices)
        heat = self.temperature(state.rules) * points_per_turn(state.rules)
        weights = [math.exp((worth - best) / heat) for _, worth in choices]
        (action, _), *_ = self._random.choices(choices, weights=weights, k=1)
        return action
