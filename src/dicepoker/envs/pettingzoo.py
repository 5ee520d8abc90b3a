"""A game of any variant for 1-4 players as a PettingZoo AEC environment.

`env(preset="school", players=3, columns=2)` makes one (the preset's options as keywords). The
agents are `player_0`, ... in seat order, and the engine says whose turn it is (`state.seat`):
the environment never decides the order, nor any rule. As in `DicePokerEnv`, the first roll of
each turn is thrown by the environment, so every step is a hold or a cell move.

Each observation is `{"observation": ..., "action_mask": ...}` as in PettingZoo's classic games.
The `observation` is the solitaire observation of the agent's own sheet and the dice in play
(`dicepoker.envs.codec.observation`) plus the whole table: every rival's sheet, the totals and
whose turn it is, rivals ordered from the agent's left (the next seat first). The reward of a step
is the change of each agent's total as the engine counts it (the School stars are a race: the
engine gives each to the first to earn it, and the others see it struck); `infos[agent]["place"]`
gives the final placing. See `docs/research.md` ("PettingZoo").
"""

from __future__ import annotations

from typing import Any, SupportsInt

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from dicepoker.dice import SeededDice
from dicepoker.engine import (
    ROLL,
    GameState,
    IllegalActionError,
    apply,
    breakdown,
    new_game,
    ranking,
    sheet_breakdown,
    winner,
)
from dicepoker.envs.codec import (
    N_MARKS,
    STAR_CODES,
    Layout,
    MaskArray,
    action_mask,
    decode,
    describe,
    layout,
    observation,
)
from dicepoker.envs.solitaire import INVALID_ACTION_MODES, InvalidActionError, observation_space
from dicepoker.render import game_text
from dicepoker.rules import DEFAULT_VARIANT, Rules, get_rules

Observation = dict[str, Any]
#: How many players a game may seat here.
MAX_PLAYERS = 4
#: The seeds of the games an environment deals (an int the engine's `SeededDice` takes).
_SEED_BOUND = 2**63 - 1
#: The bounds of a total in the observation: the engine has no closed form for a total's range,
#: so the int32 range (far beyond any sheet) stands in rather than a second copy of the rules.
_TOTAL_BOUND = 2**31 - 1
#: The keys of a rival's sheet in the observation, from the codec's own-sheet keys.
_RIVAL_KEYS = {"marks": "rival_marks", "points": "rival_points"}


def table_space(lay: Layout, players: int) -> spaces.Dict:
    """The `observation` part of an agent's observation space for `players` players."""
    rules = lay.rules
    parts: dict[str, spaces.Space[Any]] = dict(observation_space(lay).spaces)
    parts["totals"] = spaces.Box(-_TOTAL_BOUND, _TOTAL_BOUND, shape=(players,), dtype=np.int64)
    parts["to_move"] = spaces.Discrete(players)
    rivals = players - 1
    if rivals:
        parts["rival_marks"] = spaces.MultiDiscrete(np.full((rivals, rules.cells), N_MARKS))
        parts["rival_points"] = spaces.Box(
            0, lay.max_points, shape=(rivals, rules.cells), dtype=np.int64
        )
        if rules.reserve is not None:
            parts["rival_reserve"] = spaces.Box(0, lay.max_reserve, shape=(rivals,), dtype=np.int64)
        if lay.stars:
            parts["rival_stars"] = spaces.MultiDiscrete(
                np.full((rivals, lay.stars), len(STAR_CODES))
            )
    return spaces.Dict(parts)


class DicePokerAEC(AECEnv):  # type: ignore[misc]  # PettingZoo ships no type information
    """A game of `preset` with `options` between `players` agents (1-4).

    An illegal action is refused (`invalid_action="refuse"`, the default, as in `DicePokerEnv`):
    nothing changes, the same agent is still to move, every reward is 0 and
    `infos[agent]["refused"]` says why; with `invalid_action="raise"` it raises
    `InvalidActionError` instead, changing nothing. An index outside the action space always
    raises.
    """

    metadata = {  # noqa: RUF012 (PettingZoo's own)
        "render_modes": ["ansi"],
        "name": "dicepoker_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self,
        preset: str = DEFAULT_VARIANT,
        players: int = 2,
        *,
        render_mode: str | None = None,
        invalid_action: str = "refuse",
        **options: object,
    ) -> None:
        super().__init__()
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players must be a whole number from 1 to {MAX_PLAYERS}")
        if not 1 <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be from 1 to {MAX_PLAYERS}, not {players}")
        if invalid_action not in INVALID_ACTION_MODES:
            raise ValueError(f"invalid_action must be 'refuse' or 'raise', not {invalid_action!r}")
        if render_mode is not None and render_mode != "ansi":
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        self.rules: Rules = get_rules(preset, options)
        self.render_mode = render_mode
        self.invalid_action = invalid_action
        self.layout = layout(self.rules)
        self.possible_agents: list[str] = [f"player_{seat}" for seat in range(players)]
        self.agents: list[str] = []
        self.seats: dict[str, int] = {name: seat for seat, name in enumerate(self.possible_agents)}
        mask_space = spaces.Box(0, 1, shape=(self.layout.n_actions,), dtype=np.int8)
        self.observation_spaces: dict[str, spaces.Dict] = {
            agent: spaces.Dict(
                {"observation": table_space(self.layout, players), "action_mask": mask_space}
            )
            for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(self.layout.n_actions) for agent in self.possible_agents
        }
        self.np_random, _ = seeding.np_random(None)
        self.state: GameState = new_game(self.rules, self.possible_agents)
        self._dice = SeededDice(0)
        self._mask: MaskArray = action_mask(self.layout, self.state)
        self._totals = [0] * players
        self.game_seed: int | None = None

    # --- the PettingZoo API --------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game, its dice seeded from the environment's generator (so `seed` makes the whole
        game reproducible); `infos[agent]["game_seed"]` is the engine's `SeededDice` seed."""
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.game_seed = int(self.np_random.integers(0, _SEED_BOUND))
        self._dice = SeededDice(self.game_seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._totals = [0] * len(self.possible_agents)
        self._set(apply(new_game(self.rules, self.possible_agents), ROLL, self._dice))
        self.infos = {agent: self._info(agent) for agent in self.agents}
        for info in self.infos.values():
            info["game_seed"] = self.game_seed

    def step(self, action: SupportsInt | None) -> None:
        """Play action index `action` for the agent to move; a cell move that ends a turn also
        throws the next player's first roll. An illegal action is refused or raised (see the
        class), changing nothing; a finished agent's step takes None (PettingZoo's dead step)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        index = self._in_space(action)
        self._cumulative_rewards[agent] = 0.0
        if not self._mask[index]:
            reason = self._refusal(index)
            if self.invalid_action == "raise":
                raise InvalidActionError(reason)
            self._clear_rewards()
            self.infos = {name: self._info(name) for name in self.agents}
            self.infos[agent]["refused"] = reason
            return
        state = apply(self.state, decode(self.layout, self.state, index), self._dice)
        if not state.finished and state.rolls == 0:
            state = apply(state, ROLL, self._dice)
        self._set(state)
        for name in self.agents:
            seat = self.seats[name]
            total = breakdown(state, seat).total
            self.rewards[name] = float(total - self._totals[seat])
            self._totals[seat] = total
        if state.finished:
            self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {name: self._info(name) for name in self.agents}
        self._accumulate_rewards()

    def observe(self, agent: str) -> Observation:
        """`agent`'s view of the table and its action mask (all zeros when it is not to move)."""
        seat = self.seats[agent]
        mine = seat == self.state.seat and not self.state.finished
        mask = self._mask.copy() if mine else np.zeros(self.layout.n_actions, dtype=np.int8)
        return {"observation": self._table(seat), "action_mask": mask}

    def render(self) -> str | None:
        """The sheets and the dice as text (`render_mode="ansi"`); None without a render mode."""
        if self.render_mode is None:
            return None
        return game_text(self.state)

    def close(self) -> None:
        """Nothing to release: the game is plain values."""

    # --- helpers -------------------------------------------------------------------------------

    def total(self, agent: str) -> int:
        """`agent`'s total now, as the engine counts it."""
        return self._totals[self.seats[agent]]

    def describe_action(self, action: SupportsInt) -> str:
        """What action index `action` does, in words."""
        return describe(self.layout, self._in_space(action))

    def _in_space(self, action: SupportsInt | None) -> int:
        if action is None:
            raise InvalidActionError("the agent to move must act: None is only for a finished one")
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
        """Why action `index` is refused now, in the engine's words (asked with other dice)."""
        why = ""
        try:
            apply(self.state, decode(self.layout, self.state, index), SeededDice(0))
        except IllegalActionError as error:
            why = f": {error}"
        return f"action {index} ({describe(self.layout, index)}) is not legal now{why}"

    def _set(self, state: GameState) -> None:
        self.state = state
        self._mask = action_mask(self.layout, state)
        self.agent_selection = self.possible_agents[state.seat]

    def _order(self, seat: int) -> list[int]:
        """Every seat from `seat`'s point of view: itself, then the next seats round the table."""
        players = len(self.possible_agents)
        return [(seat + offset) % players for offset in range(players)]

    def _table(self, seat: int) -> Observation:
        state = self.state
        out: Observation = {
            key: np.int64(value) if isinstance(value, int) else value
            for key, value in observation(self.layout, state, seat).items()
        }
        order = self._order(seat)
        sheets = state.final_sheets if state.finished else state.sheets
        out["totals"] = np.array(
            [sheet_breakdown(self.rules, sheets[other]).total for other in order], dtype=np.int64
        )
        out["to_move"] = np.int64(order.index(state.seat))
        rivals = [observation(self.layout, state, other) for other in order[1:]]
        if rivals:
            for key, name in _RIVAL_KEYS.items():
                out[name] = np.stack([np.asarray(rival[key]) for rival in rivals])
            for key in ("reserve", "stars"):
                if key in rivals[0]:
                    out[f"rival_{key}"] = np.stack([np.asarray(rival[key]) for rival in rivals])
            if "rival_reserve" in out:
                out["rival_reserve"] = out["rival_reserve"].reshape(len(rivals))
        return out

    def _info(self, agent: str) -> dict[str, Any]:
        """`total` always; at the end `place` (1 for first, shared places on equal totals unless
        the engine's tie-break decided) and `winner` (the agent that won, None when shared)."""
        info: dict[str, Any] = {"total": self.total(agent)}
        if self.state.finished:
            seat = self.seats[agent]
            standing = next(item for item in ranking(self.state) if item.seat == seat)
            info["place"] = standing.place
            won = winner(self.state)
            info["winner"] = None if won is None else self.possible_agents[won]
        return info


def raw_env(preset: str = DEFAULT_VARIANT, players: int = 2, **options: Any) -> DicePokerAEC:
    """The environment without PettingZoo's wrappers."""
    return DicePokerAEC(preset, players, **options)


def env(preset: str = DEFAULT_VARIANT, players: int = 2, **options: Any) -> Any:
    """The environment in PettingZoo's `OrderEnforcingWrapper` (as its classic games are)."""
    return wrappers.OrderEnforcingWrapper(raw_env(preset, players, **options))


__all__ = ["MAX_PLAYERS", "DicePokerAEC", "env", "raw_env", "table_space"]
