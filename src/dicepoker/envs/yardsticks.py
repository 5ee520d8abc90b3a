"""Yardsticks for a learning agent: the expert's action and the exact solver's values.

`ExpertPolicy` plays the expert bot (`make_bot("expert")`: the exact solver in the single-sheet
games, the School value network in School) through the environment's action indices, so its
mean score is the target an agent is measured against. `optimal_action_values` gives the exact
solver's expected final score of every action index (NaN where illegal), from which a paper
reports regret: the best value minus the value of the action the agent took.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from dicepoker.bots import Bot, make_bot
from dicepoker.engine import GameState
from dicepoker.envs.codec import dice_order, encode, layout
from dicepoker.envs.solitaire import DicePokerEnv

FloatArray = npt.NDArray[np.float64]


def _inner(env: gym.Env[Any, Any]) -> DicePokerEnv:
    inner = env.unwrapped
    if not isinstance(inner, DicePokerEnv):
        raise TypeError(f"a dicepoker environment is needed, not {type(inner).__name__}")
    return inner


class ExpertPolicy:
    """A bot of `level` (the expert by default) choosing action indices.

    `policy(env)` reads the game from the environment (wrappers are looked through), and
    `policy.action_for(state)` from an engine state; both give the index of the bot's action."""

    def __init__(self, level: str = "expert", seed: int | None = None) -> None:
        self.bot: Bot = make_bot(level, seed)

    def action_for(self, state: GameState) -> int:
        return encode(layout(state.rules), state, self.bot.choose(state))

    def __call__(self, env: gym.Env[Any, Any]) -> int:
        return self.action_for(_inner(env).state)


def optimal_action_values(env: gym.Env[Any, Any]) -> FloatArray:
    """The exact solver's expected final score of each action index now (NaN where illegal);
    the environment must have been made with `optimal_value=True`."""
    inner = _inner(env)
    solver = inner.solver
    if solver is None:
        raise ValueError("make the environment with optimal_value=True to read the solver's values")
    lay = inner.layout
    state = inner.state
    values = np.full(lay.n_actions, np.nan, dtype=np.float64)
    order = dice_order(state)
    for action, value in solver.action_values(state):
        values[encode(lay, state, action, order)] = value
    return values
