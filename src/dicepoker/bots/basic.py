"""`basic`: the exact within-turn expectimax on the immediate score, for every variant.

It plays each turn perfectly for the points the turn itself brings (the gain `preview` reports,
zeros, stars and bonuses included) and gives no thought to the rest of the game: the planner of
`dicepoker.bots.planner` with an after-value of 0.
"""

from __future__ import annotations

from dicepoker.bots.base import Bot
from dicepoker.bots.planner import Planner, ZeroAfter
from dicepoker.engine import Action, GameState


class BasicBot(Bot):
    level = "basic"

    def __init__(self) -> None:
        self.planner = Planner(ZeroAfter())

    def choose(self, state: GameState) -> Action:
        return self.planner.choose(state)
