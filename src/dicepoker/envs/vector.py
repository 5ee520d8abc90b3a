"""Fast environments: a whole batch of games stepped by one compiled call, and a fast single game.

`DicePokerVectorEnv` is a `gymnasium.vector.VectorEnv` of `num_envs` solitaire games of one
variant, held as numpy arrays (one int64 row of state per game) and stepped by the numba kernels
of `vector_kernels.py`, with no Python loop over the games. `FastDicePokerEnv` is one game on the
same kernels, for a single-environment step in microseconds. Both have the action indices, masks,
observations and rewards of `DicePokerEnv` (the tests replay their games through the engine and
compare every step); the rules reach the kernels as tables derived from the engine's primitives
(`vector_tables.py`). Their dice come from a splitmix64 generator per game seeded from
`reset(seed=...)`, not from the engine's `SeededDice`: the same seed gives the same games here,
but not the games `DicePokerEnv` deals for that seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsInt

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from dicepoker.engine import GameState, breakdown, upper_total
from dicepoker.envs import vector_kernels as kernels
from dicepoker.envs.codec import IntArray, Layout, MaskArray, describe, observation
from dicepoker.envs.solitaire import (
    INVALID_ACTION_MODES,
    InvalidActionError,
    Observation,
    observation_space,
)
from dicepoker.envs.vector_tables import VectorTables, vector_tables
from dicepoker.rules import Rules, get_rules
from dicepoker.solver.dice import dice_space

Info = dict[str, Any]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]
UIntArray = npt.NDArray[np.uint64]


def _seeds(generator: np.random.Generator, count: int) -> UIntArray:
    """Generator states for `count` games, drawn from `generator`."""
    return generator.integers(0, 2**64, size=count, dtype=np.uint64)


class _Core:
    """The batch the kernels step: the state matrix, the generators, the masks and the outputs."""

    def __init__(self, rules: Rules, invalid_action: str, count: int) -> None:
        if invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action must be 'refuse' or 'raise', not {invalid_action!r}")
        self.invalid_action = invalid_action
        self.tables: VectorTables = vector_tables(rules)
        self.n_actions = self.tables.layout.n_actions
        self.state: IntArray = np.zeros((count, self.tables.width), dtype=np.int64)
        self.state[:, kernels.C_DONE] = 1
        self.rng: UIntArray = np.zeros(count, dtype=np.uint64)
        self.mask: MaskArray = np.zeros((count, self.n_actions), dtype=np.int8)
        self.reward: FloatArray = np.zeros(count, dtype=np.float64)
        self.terminated: BoolArray = np.zeros(count, dtype=np.bool_)
        self.refused: BoolArray = np.zeros(count, dtype=np.bool_)
        self.started = False

    def reset(self, which: BoolArray) -> None:
        kernels.reset(which, self.state, self.rng, self.mask, self.tables.table)
        self.started = True

    def step(self, actions: IntArray) -> None:
        kernels.step(
            actions,
            self.state,
            self.rng,
            self.mask,
            self.reward,
            self.terminated,
            self.refused,
            self.tables.table,
        )

    def refusal(self, index: int) -> str:
        """Why action `index` is refused (the mask rules it out), in words."""
        return f"action {index} ({describe(self.tables.layout, index)}) is not legal now"


def _options(render_mode: str | None, optimal_value: bool) -> None:
    if render_mode is not None:
        raise ValueError(f"the fast environments do not render: render_mode {render_mode!r}")
    if optimal_value:
        raise ValueError("optimal_value is given by DicePokerEnv, not by the fast environments")


class DicePokerVectorEnv(VectorEnv[dict[str, IntArray], IntArray, npt.NDArray[Any]]):
    """`num_envs` solitaire games of `variant` with `options`, stepped together.

    Observations are `DicePokerEnv`'s batched (`gymnasium.vector.utils.batch_space`): each key
    gains a first axis of `num_envs`. `infos` holds `action_mask` (`num_envs x actions`, int8),
    `total` and `refused` (a bool per game), each with Gymnasium's `_key` companion. Autoreset is
    Gymnasium's next-step mode: the step after a game ends starts a new one in that slot (reward
    0, the action ignored; the ended game's mask is all zeros). An action the mask rules out is
    refused (`invalid_action="refuse"`: that game is unchanged, reward 0, `refused` True) or
    raises `InvalidActionError` before any game moves (`"raise"`); an index outside the action
    space always raises.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        variant: str,
        num_envs: int = 1,
        *,
        invalid_action: str = "refuse",
        render_mode: str | None = None,
        optimal_value: bool = False,
        **options: object,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        _options(render_mode, optimal_value)
        self.rules: Rules = get_rules(variant, options)
        self._core = _Core(self.rules, invalid_action, num_envs)
        self.layout = self._core.tables.layout
        self.num_envs = num_envs
        self.render_mode = None
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.layout.n_actions)
        self.single_observation_space: spaces.Dict = observation_space(self.layout)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._every = np.ones(num_envs, dtype=np.bool_)
        self._every.setflags(write=False)
        self._rows = np.arange(num_envs)

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[dict[str, IntArray], dict[str, Any]]:
        """New games in every slot (or in those of `options["reset_mask"]`), their dice seeded
        from `seed` (an int for the whole batch, or one per game) so that the same seed gives the
        same games."""
        which = self._every
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"])
            if which.shape != (self.num_envs,) or which.dtype != np.bool_:
                raise ValueError(f"reset_mask must be {self.num_envs} booleans")
            if not self._core.started and not which.all():
                raise ValueError("the first reset starts every game: no reset_mask")
        if seed is None or isinstance(seed, int):
            super().reset(seed=seed)
            self._core.rng[which] = _seeds(self.np_random, int(which.sum()))
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"give one seed per game ({self.num_envs}), not {len(seeds)}")
            for g in np.flatnonzero(which):
                self._core.rng[g] = _seeds(seeding.np_random(seeds[g])[0], 1)[0]
        self._core.reset(np.array(which, dtype=np.bool_))  # writable: one compiled signature
        return self._observation(), self._info()

    def step(
        self, actions: IntArray | Sequence[SupportsInt]
    ) -> tuple[dict[str, IntArray], npt.NDArray[Any], npt.NDArray[Any], npt.NDArray[Any], Info]:
        """Every game plays its action (see the class for ended games and illegal actions)."""
        core = self._core
        if not core.started:
            raise InvalidActionError("call reset() before step()")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or chosen.dtype.kind not in "iu":
            raise InvalidActionError(
                f"actions must be {self.num_envs} integer indices, not {chosen.dtype} "
                f"of shape {chosen.shape}"
            )
        if ((chosen < 0) | (chosen >= core.n_actions)).any():
            raise InvalidActionError(
                f"an action is outside the action space 0..{core.n_actions - 1}"
            )
        chosen = chosen.astype(np.int64, copy=False)
        if core.invalid_action == "raise":
            live = core.state[:, kernels.C_DONE] == 0
            bad = np.flatnonzero(live & (core.mask[self._rows, chosen] == 0))
            if bad.size:
                g = int(bad[0])
                raise InvalidActionError(f"game {g}: {core.refusal(int(chosen[g]))}")
        core.step(np.ascontiguousarray(chosen))
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        info = self._info()
        info["refused"] = core.refused.copy()
        info["_refused"] = self._every
        return self._observation(), core.reward.copy(), core.terminated.copy(), truncated, info

    def set_game(self, g: int, state: GameState) -> None:
        """Put the engine's `state` (a solitaire game of these rules, between a turn's first roll
        and its end) in slot `g`: play continues from that position, with this slot's dice."""
        if not self._core.started:
            raise ValueError("call reset() before set_game()")
        if not 0 <= g < self.num_envs:
            raise ValueError(f"slot {g} is not in 0..{self.num_envs - 1}")
        if state.rules != self.rules or len(state.players) != 1:
            raise ValueError(f"a position is a solitaire game of {self.rules.variant}'s rules")
        if state.finished or state.rolls == 0 or state.stage != 0:
            raise ValueError("a position is a game in progress whose turn has rolled")
        core, tables = self._core, self._core.tables
        row = core.state[g]
        row[:] = 0
        for part, value in zip(tables.parts, _parts(self.layout, state), strict=True):
            row[part.start : part.stop] = value
        sheet = state.sheet
        table = tables.table
        start = int(table[kernels.S_ROW_FILL])
        row[start : start + len(self.rules.rows)] = sheet.row_fill
        row[kernels.C_HAND] = dice_space(self.rules.dice, self.rules.faces).outcome_index(
            state.dice
        )
        row[kernels.C_ROLLS] = state.rolls
        row[kernels.C_RESERVE] = sheet.reserve
        row[kernels.C_UPPER] = min(upper_total(self.rules, sheet), int(table[kernels.UPPER_CAP]))
        row[kernels.C_TOTAL] = breakdown(state, 0).total
        row[kernels.C_FILLED] = sheet.filled
        which = np.zeros(self.num_envs, dtype=np.bool_)
        which[g] = True
        kernels.refresh(which, core.state, core.mask, table)

    def action_masks(self) -> MaskArray:
        """The legal actions of every game now (`num_envs x actions`, 1 for legal)."""
        return self._core.mask.copy()

    @property
    def totals(self) -> IntArray:
        """Every game's total now, as the engine counts it."""
        return self._core.state[:, kernels.C_TOTAL].copy()

    def describe_action(self, action: SupportsInt) -> str:
        """What action index `action` does, in words."""
        return describe(self.layout, _index(action, self.layout.n_actions))

    def _observation(self) -> dict[str, IntArray]:
        state = self._core.state
        out: dict[str, IntArray] = {}
        for part in self._core.tables.parts:
            if part.scalar:
                out[part.key] = state[:, part.start].copy()
            else:
                out[part.key] = state[:, part.start : part.stop].copy()
        return out

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._core.mask.copy(),
            "_action_mask": self._every,
            "total": self._core.state[:, kernels.C_TOTAL].copy(),
            "_total": self._every,
        }


def _parts(lay: Layout, state: GameState) -> list[IntArray | int]:
    """The engine's observation of `state`, in the order of the observation's keys."""
    found = observation(lay, state)
    return [found[key] for key in sorted(found)]


def _index(action: SupportsInt, n_actions: int) -> int:
    try:
        index = int(action)
    except (TypeError, ValueError):
        raise InvalidActionError(f"an action is an integer index, not {action!r}") from None
    if isinstance(action, bool) or not 0 <= index < n_actions:
        raise InvalidActionError(
            f"action {action!r} is outside the action space 0..{n_actions - 1}"
        )
    return index


class FastDicePokerEnv(gym.Env[Observation, np.int64]):
    """One solitaire game of `variant` on the compiled kernels: `DicePokerEnv`'s spaces, masks,
    rewards and refusals (`info["refused"]` names the action; the engine's reason is
    `DicePokerEnv`'s), at a fraction of its step time. No `optimal_value`, no rendering."""

    metadata = {"render_modes": []}  # noqa: RUF012 (Gymnasium's own)

    def __init__(
        self,
        variant: str,
        *,
        invalid_action: str = "refuse",
        render_mode: str | None = None,
        optimal_value: bool = False,
        **options: object,
    ) -> None:
        _options(render_mode, optimal_value)
        self.rules: Rules = get_rules(variant, options)
        self._core = _Core(self.rules, invalid_action, 1)
        self.layout = self._core.tables.layout
        self.action_space: spaces.Discrete = spaces.Discrete(self.layout.n_actions)
        self.observation_space: spaces.Dict = observation_space(self.layout)
        self._action = np.zeros(1, dtype=np.int64)
        self._all = np.ones(1, dtype=np.bool_)
        self._parts = [(p.key, p.start, p.stop, p.scalar) for p in self._core.tables.parts]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """A new game, its dice seeded from the environment's generator (`seed` makes the whole
        game reproducible: the same as `DicePokerVectorEnv` with one game and that seed)."""
        super().reset(seed=seed)
        self._core.rng[:] = _seeds(self.np_random, 1)
        self._core.reset(self._all)
        return self._observation(), self._info()

    def step(self, action: SupportsInt) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play action index `action` (as `DicePokerEnv.step`)."""
        core = self._core
        index = _index(action, core.n_actions)
        state = core.state
        if state[0, kernels.C_DONE]:
            raise InvalidActionError(
                "the game is over: call reset() first"
                if core.started
                else "call reset() before step()"
            )
        if not core.mask[0, index]:
            reason = core.refusal(index)
            if core.invalid_action == "raise":
                raise InvalidActionError(reason)
            info = self._info()
            info["refused"] = reason
            return self._observation(), 0.0, False, False, info
        self._action[0] = index
        core.step(self._action)
        return (
            self._observation(),
            float(core.reward[0]),
            bool(core.terminated[0]),
            False,
            self._info(),
        )

    def action_masks(self) -> MaskArray:
        """The legal actions now, 1 for legal (the method sb3-contrib's MaskablePPO calls)."""
        mask: MaskArray = self._core.mask[0].copy()
        return mask

    @property
    def total(self) -> int:
        """The player's total now, as the engine counts it."""
        return int(self._core.state[0, kernels.C_TOTAL])

    def describe_action(self, action: SupportsInt) -> str:
        """What action index `action` does, in words."""
        return describe(self.layout, _index(action, self.layout.n_actions))

    def _observation(self) -> Observation:
        row = self._core.state[0]
        return {
            key: int(row[start]) if scalar else row[start:stop].copy()
            for key, start, stop, scalar in self._parts
        }

    def _info(self) -> dict[str, Any]:
        core = self._core
        return {"action_mask": core.mask[0].copy(), "total": int(core.state[0, kernels.C_TOTAL])}


__all__ = ["DicePokerVectorEnv", "FastDicePokerEnv"]
