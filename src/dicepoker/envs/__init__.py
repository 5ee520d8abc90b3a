"""Reinforcement-learning environments on the engine (see `docs/research.md`).

Importing this package registers one Gymnasium environment per variant,
`dicepoker/<Name>-v0` (`dicepoker/School-v0`, `dicepoker/Yahtzee-v0`, ...: the variant's name
in CamelCase), whose keyword arguments are the variant's options:
`gymnasium.make("dicepoker/School-v0", columns=3)`; `gymnasium.make_vec` on an id gives the
compiled batch `DicePokerVectorEnv` (`dicepoker.envs.vector`, which also has the fast single
`FastDicePokerEnv`). Gymnasium is an optional dependency
(`pip install dicepoker[research]`): without it this import says so.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError:  # pragma: no cover - the dev install has it
    raise ImportError(
        "dicepoker.envs needs Gymnasium: pip install 'dicepoker[research]' (or gymnasium)"
    ) from None

from dicepoker.envs.solitaire import DicePokerEnv, InvalidActionError, flat_observation
from dicepoker.envs.yardsticks import ExpertPolicy, optimal_action_values
from dicepoker.rules import VARIANTS

#: The version in every environment id; raise it when the spaces or the rewards change.
VERSION = 0


def env_name(variant: str) -> str:
    """The CamelCase name of a variant in its environment id (`poker-dice` -> `PokerDice`)."""
    return "".join(part[:1].upper() + part[1:] for part in variant.replace("_", "-").split("-"))


def env_id(variant: str) -> str:
    """The Gymnasium id of a variant's solitaire environment."""
    return f"dicepoker/{env_name(variant)}-v{VERSION}"


#: Every registered environment id, with its variant.
ENV_IDS: dict[str, str] = {env_id(name): name for name in VARIANTS}


def _register() -> None:
    for env, variant in ENV_IDS.items():
        if env not in gymnasium.registry:
            gymnasium.register(
                id=env,
                entry_point="dicepoker.envs.solitaire:DicePokerEnv",
                vector_entry_point="dicepoker.envs.vector:DicePokerVectorEnv",
                kwargs={"variant": variant},
            )


_register()


__all__ = [
    "ENV_IDS",
    "VERSION",
    "DicePokerEnv",
    "ExpertPolicy",
    "InvalidActionError",
    "env_id",
    "flat_observation",
    "optimal_action_values",
]
