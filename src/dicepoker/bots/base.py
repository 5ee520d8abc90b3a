"""The one interface every bot implements, from `random` to the solver-backed `expert`."""

from __future__ import annotations

from abc import ABC, abstractmethod

from dicepoker.engine import Action, GameState


class Bot(ABC):
    """Chooses an action for the player to move. Bots read the state; they never change it."""

    level: str = "bot"

    @abstractmethod
    def choose(self, state: GameState) -> Action:
        """One legal action for `state.seat` (the caller applies it through the engine)."""
