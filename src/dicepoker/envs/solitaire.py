"""`DicePokerEnv`: one player's game of any variant as a Gymnasium environment.

One step is one decision: the first roll of every turn is thrown by the environment (it is never
a choice), so each observation shows dice and each step is a hold (a reroll) or a cell move.
The engine plays every rule (`dicepoker.engine.apply`); the reward is the change of the player's
total as the engine counts it (`breakdown`: cells, bonuses when they are earned, the School
reserve and zeros). See `docs/research.md` for the spaces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, SupportsInt

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from dicepoker.dice import SeededDice
from dicepoker.engine import (
    ROLL,
    GameState,
    IllegalActionError,
    apply,
    breakdown,
    new_game,
)
from dicepoker.envs.codec import (
    N_MARKS,
    STAR_CODES,
    IntArray,
    Layout,
    MaskArray,
    action_mask,
    decode,
    describe,
    layout,
    observation,
)
from dicepoker.render import game_text
from dicepoker.rules import Rules, get_rules

if TYPE_CHECKING:
    from dicepoker.solver import Solver

Observation = dict[str, Any]
#: The seeds of the games an environment deals (an int the engine's `SeededDice` takes).
_SEED_BOUND = 2**63 - 1


#: What `step` does with an action the mask rules out.
INVALID_ACTION_MODES = ("refuse", "raise")


class InvalidActionError(ValueError):
    """An action outside the action space, or one the mask rules out now; nothing changed."""


def observation_space(lay: Layout) -> spaces.Dict:
    """The observation space of a game laid out as `lay` (keys sorted, as `spaces.Dict` does)."""
    rules = lay.rules
    parts: dict[str, spaces.Space[Any]] = {
        "dice": spaces.MultiDiscrete([rules.faces + 1] * rules.dice),
        "face_counts": spaces.MultiDiscrete([rules.dice + 1] * rules.faces),
        "marks": spaces.MultiDiscrete([N_MARKS] * rules.cells),
        "points": spaces.Box(0, lay.max_points, shape=(rules.cells,), dtype=np.int64),
        "rolls_left": spaces.Discrete(rules.rolls_per_turn + 1),
    }
    if lay.doubles:
        parts["thrown_all"] = spaces.Discrete(2)
    if rules.reserve is not None:
        parts["reserve"] = spaces.Box(0, lay.max_reserve, shape=(1,), dtype=np.int64)
    if lay.stars:
        parts["stars"] = spaces.MultiDiscrete([len(STAR_CODES)] * lay.stars)
    return spaces.Dict(parts)


class DicePokerEnv(gym.Env[Observation, np.int64]):
    """A solitaire game of `variant` with `options` (the variant's own: `columns=3`, ...).

    `optimal_value=True` (games the exact solver covers) adds `info["optimal_value"]`, the
    expected final score from the position with optimal play. `info["action_mask"]` and
    `action_masks()` say which actions are legal. An illegal action is refused
    (`invalid_action="refuse"`, the default, as Gymnasium's checker samples unmasked actions):
    nothing changes, the reward is 0 and `info["refused"]` says why; with
    `invalid_action="raise"` it raises `InvalidActionError` instead, changing nothing. An index
    outside the action space always raises.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (Gymnasium's own)

    def __init__(
        self,
        variant: str,
        *,
        render_mode: str | None = None,
        optimal_value: bool = False,
        invalid_action: str = "refuse",
        **options: object,
    ) -> None:
        self.rules: Rules = get_rules(variant, options)
        if invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action must be 'refuse' or 'raise', not {invalid_action!r}")
        self.invalid_action = invalid_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.layout = layout(self.rules)
        self.action_space: spaces.Discrete = spaces.Discrete(self.layout.n_actions)
        self.observation_space: spaces.Dict = observation_space(self.layout)
        self.solver: Solver | None = None
        if optimal_value:
            from dicepoker import solver

            reason = solver.unsupported_reason(self.rules)
            if reason is not None:
                raise ValueError(f"optimal_value needs the exact solver, which cannot: {reason}")
            self.solver = solver.Solver.for_rules(self.rules)
        self.state: GameState = new_game(self.rules, ["agent"])
        self._dice = SeededDice(0)
        self._mask: MaskArray = action_mask(self.layout, self.state)
        self._total = 0
        self.game_seed: int | None = None

    # --- the Gymnasium API ---------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game, its dice seeded from the environment's generator (so `seed` makes the
        whole game reproducible); `info["game_seed"]` is the engine's `SeededDice` seed."""
        super().reset(seed=seed)
        self.game_seed = int(self.np_random.integers(0, _SEED_BOUND))
        self._dice = SeededDice(self.game_seed)
        state = new_game(self.rules, ["agent"])
        self._set(apply(state, ROLL, self._dice))
        self._total = 0
        info = self._info()
        info["game_seed"] = self.game_seed
        return self._observation(), info

    def step(self, action: SupportsInt) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play action index `action`; a cell move that ends a turn also throws the next turn's
        first roll. An illegal action is refused or raised (see the class), changing nothing."""
        index = self._in_space(action)
        if self.state.finished:
            raise InvalidActionError("the game is over: call reset() first")
        if not self._mask[index]:
            reason = self._refusal(index)
            if self.invalid_action == "raise":
                raise InvalidActionError(reason)
            info = self._info()
            info["refused"] = reason
            return self._observation(), 0.0, False, False, info
        state = apply(self.state, decode(self.layout, self.state, index), self._dice)
        if not state.finished and state.rolls == 0:
            state = apply(state, ROLL, self._dice)
        self._set(state)
        total = breakdown(state, 0).total
        reward = float(total - self._total)
        self._total = total
        return self._observation(), reward, state.finished, False, self._info()

    def action_masks(self) -> MaskArray:
        """The legal actions now, 1 for legal (the method sb3-contrib's MaskablePPO calls)."""
        return self._mask.copy()

    def render(self) -> str | None:
        """The sheet and the dice as text (`render_mode="ansi"`); None without a render mode."""
        if self.render_mode is None:
            return None
        return game_text(self.state)

    # --- helpers -------------------------------------------------------------------------------

    @property
    def total(self) -> int:
        """The player's total now, as the engine counts it."""
        return self._total

    def describe_action(self, action: SupportsInt) -> str:
        """What action index `action` does, in words."""
        return describe(self.layout, self._in_space(action))

    def _in_space(self, action: SupportsInt) -> int:
        try:
            index = int(action)
        except (TypeError, ValueError):
            raise InvalidActionError(f"an action is an integer index, not {action!r}") from None
        if isinstance(action, bool) or not 0 <= index < self.layout.n_actions:
            raise InvalidActionError(
                f"action {action!r} is outside the action space 0..{self.layout.n_actions - 1}"
            )
        return index

    def _refusal(self, index: int) -> str:
        """Why action `index` is refused now, in the engine's words."""
        why = ""
        try:
            apply(self.state, decode(self.layout, self.state, index), self._dice_refusing())
        except IllegalActionError as error:
            why = f": {error}"
        return f"action {index} ({describe(self.layout, index)}) is not legal now{why}"

    def _dice_refusing(self) -> SeededDice:
        """Dice for asking the engine why an action is refused: never those of the game."""
        return SeededDice(0)

    def _set(self, state: GameState) -> None:
        self.state = state
        self._mask = action_mask(self.layout, state)

    def _observation(self) -> Observation:
        return observation(self.layout, self.state)

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy(), "total": self._total}
        if self.solver is not None:
            info["optimal_value"] = self.solver.value(self.state)
        return info


def flat_observation(env: DicePokerEnv, obs: Observation) -> IntArray:
    """`obs` as one flat array (`gymnasium.spaces.flatten`: the Discrete and MultiDiscrete parts
    one-hot, the Box parts as they are, keys in sorted order)."""
    return np.asarray(spaces.flatten(env.observation_space, obs), dtype=np.int64)
