"""Every variant as an OpenSpiel game, played by the engine (see `docs/research.md`).

Importing this module registers one Python game per variant with `pyspiel.register_game`:
`python_dicepoker_school`, `python_dicepoker_yahtzee`, ... (the variant's name, `-` as `_`).
Load one with `pyspiel.load_game("python_dicepoker_yahtzee", {"players": 2})`; its parameters
are `players` (1-4, default 2), `returns` ("win" or "score") and the variant's options.

Every throw of the dice is one explicit chance node, whose outcomes are the sorted faces thrown
with their exact multinomial probabilities; the first roll of each turn is a chance node too.
Player actions have the indices of `dicepoker.envs.codec` (the Gymnasium and PettingZoo
environments' own): holds, then cell moves. The game has perfect information: the information
state and the observation are the whole state, as text and as a tensor. Returns come at the end:
"win" (zero-sum, from the engine's ranking) or "score" (the final totals).
"""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError:  # pragma: no cover - the dev install has it
    raise ImportError(
        "dicepoker.envs.openspiel needs OpenSpiel: pip install 'dicepoker[research]' "
        "(or open_spiel)"
    ) from None

from dicepoker.dice import FixedDice
from dicepoker.engine import ROLL, GameState, Move, Roll, apply, new_game
from dicepoker.envs.codec import decode, describe
from dicepoker.envs.openspiel_parts import (
    RETURNS,
    FloatArray,
    Setup,
    fill,
    legal_indices,
    max_length,
    pieces,
    score_bounds,
    score_returns,
    setup,
    thrown,
    win_returns,
)
from dicepoker.render import dice_text, game_text
from dicepoker.rules import DEFAULT_VARIANT, VARIANTS, OptionSpec, RulesError, Variant

#: How many players a game may seat here (as the PettingZoo environment).
MAX_PLAYERS = 4
DEFAULT_PLAYERS = 2
#: The prefix of every game's short name.
PREFIX = "python_dicepoker_"


def game_name(variant: str) -> str:
    """The OpenSpiel name of a variant's game (`poker-dice`: `python_dicepoker_poker_dice`)."""
    return PREFIX + variant.replace("-", "_").lower()


#: Every game's short name, with its variant.
GAME_NAMES: dict[str, str] = {game_name(name): name for name in VARIANTS}


def _unset(spec: OptionSpec) -> int:
    """The parameter value that leaves an option without a default unset (OpenSpiel parameters
    always have one): the option's least value, or 0."""
    return spec.minimum if spec.minimum is not None else 0


def parameters(variant: Variant) -> dict[str, Any]:
    """The game's parameters with their defaults: `players`, `returns`, then the options."""
    spec: dict[str, Any] = {"players": DEFAULT_PLAYERS, "returns": RETURNS[0]}
    for option in variant.options:
        spec[option.name] = option.default if option.default is not None else _unset(option)
    return spec


def game_type(variant: Variant, returns: str = RETURNS[0]) -> pyspiel.GameType:
    """The `GameType` of a variant's game; zero-sum with `returns="win"`, else general-sum."""
    utility = pyspiel.GameType.Utility
    return pyspiel.GameType(
        short_name=game_name(variant.name),
        long_name=f"Python dicepoker {variant.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=utility.ZERO_SUM if returns == "win" else utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters(variant),
    )


def _setup(variant: Variant, params: dict[str, Any]) -> Setup:
    """Check the parameters (clear errors, nothing named from Python's insides) and build the
    game's set-up; the options are checked by the rules."""
    known = parameters(variant)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(
            f"unknown parameter {unknown[0]!r} for {game_name(variant.name)} "
            f"(parameters: {', '.join(known)})"
        )
    given = {**known, **params}
    players, returns = given.pop("players"), given.pop("returns")
    if isinstance(players, bool) or not isinstance(players, int):
        raise ValueError(f"players must be a whole number from 1 to {MAX_PLAYERS}")
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be from 1 to {MAX_PLAYERS}, not {players}")
    if returns not in RETURNS:
        raise ValueError(f"returns must be 'win' or 'score', not {returns!r}")
    if returns == "win" and players == 1:
        raise ValueError(
            "returns='win' needs 2 players or more (one has nobody to beat): use returns='score'"
        )
    options: dict[str, bool | int] = {}
    for option in variant.options:
        value = given[option.name]
        if option.default is None and value == _unset(option):
            continue  # the option stays unset
        options[option.name] = value
    try:
        found = setup(variant.name, tuple(sorted(options.items())), players, returns)
    except RulesError as error:
        raise ValueError(str(error)) from None
    rules = found.rules
    if not rules.min_players <= players <= rules.max_players:
        raise ValueError(
            f"{variant.name} is played by {rules.min_players} to {rules.max_players} players, "
            f"not {players}"
        )
    return found


class DicePokerGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """A game of `variant` (a subclass per variant: `game_class`) for `players` players; the
    game's parameters are checked here, so a direct `game_class("school")({"columns": 9})`
    is refused as `pyspiel.load_game` is."""

    variant: ClassVar[str] = DEFAULT_VARIANT

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        found = VARIANTS[self.variant]
        self.setup = _setup(found, dict(params or {}))
        lay = self.setup.layout
        players = self.setup.players
        if self.setup.returns == "win":
            low, high, total = -1 / (players - 1), 1.0, 0.0
        else:
            (low, high), total = score_bounds(lay), None
        info = pyspiel.GameInfo(
            num_distinct_actions=lay.n_actions,
            max_chance_outcomes=self.setup.throws.count,
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=max_length(self.setup.rules, players),
        )
        given = {**parameters(found), **(params or {})}
        super().__init__(game_type(found, self.setup.returns), info, given)

    def new_initial_state(self) -> DicePokerState:
        """A game before its first throw (a chance node)."""
        return DicePokerState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        """The whole state, as text and as a tensor, for any player; a view of private
        information only sees nothing (the game has none)."""
        if iig_obs_type is None or iig_obs_type.public_info:
            return DicePokerObserver(self.setup, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class Position:
    """An engine state and the throw waiting for its chance outcome (None at a decision).

    Immutable, so a state's clone (OpenSpiel deep-copies a Python state's attributes) shares it
    rather than copying the rules and their tables; it pickles as its set-up's name and the
    engine state without the rules, so a serialized state stays small."""

    __slots__ = ("_mask", "game", "pending", "setup")

    def __init__(self, setup: Setup, game: GameState, pending: Roll | None) -> None:
        self.setup = setup
        self.game = game
        self.pending = pending
        self._mask: list[int] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        key = (self.setup.variant, self.setup.options, self.setup.players, self.setup.returns)
        return (_restore, (key, self.game._replace(rules=cast(Any, None)), self.pending))

    def legal(self) -> list[int]:
        """The legal action indices of the player to move (the engine's, kept once computed)."""
        if self._mask is None:
            self._mask = legal_indices(self.setup.layout, self.game)
        return self._mask


def _restore(
    key: tuple[str, tuple[tuple[str, bool | int], ...], int, str],
    game: GameState,
    pending: Roll | None,
) -> Position:
    found = setup(*key)
    return Position(found, game._replace(rules=found.rules), pending)


class DicePokerState(pyspiel.State):  # type: ignore[misc]  # pyspiel ships no type information
    """A position of a `DicePokerGame`: a decision of the player to move, a throw of the dice
    (a chance node) or the end."""

    def __init__(self, game: DicePokerGame) -> None:
        super().__init__(game)
        found = game.setup
        self.at = Position(found, new_game(found.rules, found.names), ROLL)

    @property
    def engine_state(self) -> GameState:
        """The engine's state (between a hold and its throw: before the throw)."""
        return self.at.game

    def current_player(self) -> int:
        at = self.at
        if at.game.finished:
            return int(pyspiel.PlayerId.TERMINAL)
        if at.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        return at.game.seat

    def is_terminal(self) -> bool:
        return self.at.game.finished

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal actions of the player to move, as action indices (sorted)."""
        return self.at.legal() if player == self.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every multiset of faces the waiting throw can show, with its probability."""
        at = self.at
        if at.pending is None:
            raise ValueError("chance outcomes exist only while the dice are being thrown")
        return at.setup.throws.by_count[thrown(at.setup.rules, at.pending)]

    def _apply_action(self, action: int) -> None:
        """A chance outcome throws its faces (the engine takes exactly those dice); a player's
        action is decoded and played, a hold waiting for its throw."""
        at = self.at
        if at.game.finished:
            raise ValueError("the game is over")
        if at.pending is not None:
            count = thrown(at.setup.rules, at.pending)
            faces = self._outcome(action, count)
            self.at = Position(at.setup, apply(at.game, at.pending, FixedDice(faces)), None)
            return
        if action not in at.legal():
            raise ValueError(
                f"action {action} ({describe(at.setup.layout, action)}) is not legal now"
                if 0 <= action < at.setup.layout.n_actions
                else f"action {action} is outside 0..{at.setup.layout.n_actions - 1}"
            )
        chosen = decode(at.setup.layout, at.game, action)
        if isinstance(chosen, Roll):
            self.at = Position(at.setup, at.game, chosen)
            return
        assert isinstance(chosen, Move)
        game = apply(at.game, chosen)
        throw = ROLL if not game.finished and game.rolls == 0 else None
        self.at = Position(at.setup, game, throw)

    def _outcome(self, action: int, count: int) -> tuple[int, ...]:
        throws = self.at.setup.throws
        faces = throws.faces[action] if 0 <= action < throws.count else ()
        if len(faces) != count:
            raise ValueError(f"chance outcome {action} is not a throw of {count} dice")
        return faces

    def _action_to_string(self, player: int, action: int) -> str:
        """A throw's faces (`throw 1 3 3 5 6`), or the action index's meaning."""
        setup = self.at.setup
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < setup.throws.count:
                return f"chance outcome {action}"
            return "throw " + dice_text(setup.rules, setup.throws.faces[action])
        if not 0 <= action < setup.layout.n_actions:
            return f"action {action}"
        return describe(setup.layout, action)

    def returns(self) -> list[float]:
        """Zeros until the end; then the game's returns ("win" or "score")."""
        at = self.at
        if not at.game.finished:
            return [0.0] * at.setup.players
        if at.setup.returns == "win":
            return win_returns(at.game)
        return score_returns(at.game)

    def __str__(self) -> str:
        """The whole state: the sheets, the standings, whose turn, the dice, and a throw that
        is waiting (the engine's text, plus what it leaves out that matters)."""
        at = self.at
        lines = [game_text(at.game)]
        if not at.game.finished:
            extra = f"rolls made: {at.game.rolls}"
            if at.setup.layout.doubles and at.game.rolls:
                extra += f"  thrown with every die: {'yes' if at.game.thrown_all else 'no'}"
            if at.pending is not None:
                held = dice_text(at.setup.rules, tuple(at.game.dice[i] for i in at.pending.keep))
                extra += f"  throwing {thrown(at.setup.rules, at.pending)} dice"
                extra += f", holding {held}" if held else ""
            lines.append(extra)
        return "\n".join(lines)


class DicePokerObserver:
    """The observation (and information state) of any player: the whole state, the sheets
    ordered from the player (see `dicepoker.envs.openspiel_parts.pieces`)."""

    def __init__(self, setup: Setup, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {sorted(params)}")
        self.setup = setup
        shapes = pieces(setup)
        self.tensor: FloatArray = np.zeros(
            sum(int(np.prod(shape)) for _, shape in shapes), np.float32
        )
        self.dict: dict[str, FloatArray] = {}
        start = 0
        for name, shape in shapes:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + size].reshape(shape)
            start += size

    def set_from(self, state: DicePokerState, player: int) -> None:
        """Write `state` as `player` sees it."""
        self.tensor.fill(0.0)
        fill(self.dict, self.setup, state.at.game, state.at.pending, player)

    def string_from(self, state: DicePokerState, player: int) -> str:
        """The whole state as text (the same for every player)."""
        return str(state)


#: The game class of each variant. pyspiel keeps the class it is given to make games with;
#: a class (rather than a closure) outlives the interpreter's shutdown without a crash.
_CLASSES: dict[str, type[DicePokerGame]] = {}


def game_class(variant: str) -> type[DicePokerGame]:
    """The `DicePokerGame` subclass that plays `variant` (one per variant)."""
    found = _CLASSES.get(variant)
    if found is None:
        name = "DicePoker" + "".join(part.title() for part in variant.split("-")) + "Game"
        found = type(name, (DicePokerGame,), {"variant": variant, "__module__": __name__})
        _CLASSES[variant] = found
    return found


def register() -> list[str]:
    """Register every variant's game with pyspiel (again is harmless); returns their names."""
    known = set(pyspiel.registered_names())
    for name, variant in GAME_NAMES.items():
        if name not in known:
            pyspiel.register_game(game_type(VARIANTS[variant]), game_class(variant))
    return list(GAME_NAMES)


register()


__all__ = [
    "GAME_NAMES",
    "MAX_PLAYERS",
    "DicePokerGame",
    "DicePokerObserver",
    "DicePokerState",
    "game_class",
    "game_name",
    "register",
]
