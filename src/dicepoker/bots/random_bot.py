"""`random`: uniform over the legal actions. The floor every other bot must beat."""

from __future__ import annotations

import random

from dicepoker.bots.base import Bot
from dicepoker.engine import Action, GameState, legal_actions


class RandomBot(Bot):
    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose(self, state: GameState) -> Action:
        return self._random.choice(legal_actions(state))
