"""The game record: the one interchange format (export, import, replay, analysis, tests).

`Game` is the thin mutable wrapper around the pure engine that keeps the record while a game is
played; `replay` reads a record back through the same engine and refuses a bad one with the
1-based number of its first bad turn and the reason. `load_record` reads record text strictly
(`dicepoker.protocol.jsontext`: no duplicate keys, NaN, lone surrogates or deep nesting) and
cleans its players' names as the web cleans a seat's, and `check_record` is the whole check of a
record from outside: strict values, the engine's replay, an end where the record says the game
is over, then the typed shape (`dicepoker.protocol.Record`), so that what passes can always be
stored and sent back.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from dicepoker.dice import DiceSource, FixedDice
from dicepoker.engine import (
    Action,
    Forfeit,
    GameState,
    IllegalActionError,
    Move,
    NotationError,
    Roll,
    apply,
    new_game,
    parse_action,
    totals,
)
from dicepoker.engine.actions import FORFEIT_REASONS
from dicepoker.protocol import JSONTextError, Record, check_value, clean_name, strict_loads
from dicepoker.rules import Rules, RulesError, get_rules, variant_names

MAX_RECORD_BYTES = 4 * 1024 * 1024


class RecordError(ValueError):
    """A record that cannot be replayed."""


class RecordFormatError(RecordError):
    """Not a record at all: not JSON, wrong types, unknown variant or option."""


class RecordTurnError(RecordError):
    """A well-formed record whose turn `turn` (1-based) breaks the rules."""

    def __init__(self, turn: int, reason: str) -> None:
        super().__init__(f"turn {turn}: {reason}")
        self.turn = turn
        self.reason = reason


class Game:
    """A game being played: the current state plus the record of every roll and move so far."""

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        dice: DiceSource | None = None,
        *,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.state: GameState = new_game(rules, players)
        self.dice = dice
        self.extra: dict[str, Any] = dict(extra or {})
        # Each finished turn as its JSON text: a server holds the record of every live game,
        # and a turn's dicts and lists took about 650 bytes, its text about 100 (a School game
        # of 3 columns has 78 turns: benchmarks/memory.py). `turns` reads them back.
        self._turns: list[str] = []
        self._current: dict[str, Any] = {"rolls": []}
        # Called with the state and the action before each action is applied (analysis, logs).
        self.observer: Callable[[GameState, Action], None] | None = None

    @property
    def rules(self) -> Rules:
        return self.state.rules

    def play(
        self,
        action: Action | str,
        dice: DiceSource | None = None,
        *,
        seat: int | None = None,
        auto: bool = False,
    ) -> GameState:
        """Apply `action` (or its notation) for the player to move and record it."""
        if isinstance(action, str):
            action = parse_action(action)
        if self.observer is not None:
            self.observer(self.state, action)
        after = apply(self.state, action, dice or self.dice, seat=seat)
        self.advance(action, after, auto=auto)
        return after

    def advance(self, action: Action, after: GameState, *, auto: bool = False) -> None:
        """Record `action`, which the engine already applied to this game's state giving `after`
        (for callers that must commit it elsewhere before the game moves on)."""
        before = self.state
        current = self._current
        if isinstance(action, Roll):
            roll: dict[str, Any] = {"dice": list(after.dice)}
            if before.rolls:
                roll = {"keep": list(action.keep), **roll}
            current["rolls"].append(roll)
        else:
            if isinstance(action, Forfeit):
                current["forfeit"] = action.reason
            else:
                current["move"] = str(action)
            self._current = {"rolls": []}
        if auto:
            current["auto"] = True
        if current is not self._current:  # the turn ended
            self._turns.append(json.dumps(current, separators=(",", ":")))
        self.state = after

    @property
    def turns(self) -> list[dict[str, Any]]:
        """The finished turns, as in the record (copies: changing them changes nothing)."""
        return [json.loads(turn) for turn in self._turns]

    @property
    def current_rolls(self) -> list[dict[str, Any]]:
        """The rolls of the turn in progress, as in the record (empty before its first roll)."""
        return [dict(roll) for roll in self._current["rolls"]]

    def to_record(self) -> dict[str, Any]:
        """The game as a record (a turn in progress is the last turn, without a move)."""
        turns = list(self._turns)
        if self._current["rolls"]:
            turns.append(json.dumps(self._current, separators=(",", ":")))
        return {
            "variant": self.rules.variant,
            "options": self.rules.option_dict,
            "players": list(self.state.players),
            **self.extra,
            "turns": json.loads("[" + ",".join(turns) + "]"),
        }


# --- reading records ---------------------------------------------------------------------------


def load_record(source: str | Path | bytes) -> dict[str, Any]:
    """Parse a record from a path or JSON text (strictly: see the module's docstring), its
    players' names cleaned (`clean_players`); a `RecordFormatError` says what is wrong."""
    if isinstance(source, Path):
        try:
            size = source.stat().st_size
        except OSError as exc:
            raise RecordFormatError(f"cannot read {source}: {exc.strerror or exc}") from None
        if size > MAX_RECORD_BYTES:
            raise RecordFormatError(f"{source} is too large for a record ({size} bytes)")
        try:
            source = source.read_bytes()
        except OSError as exc:
            raise RecordFormatError(f"cannot read the file: {exc.strerror or exc}") from None
    if len(source) > MAX_RECORD_BYTES:
        raise RecordFormatError(f"record too large ({len(source)} bytes)")
    try:
        data = strict_loads(source)
    except JSONTextError as exc:
        raise RecordFormatError(f"not a JSON record: {exc}") from None
    if not isinstance(data, dict):
        raise RecordFormatError(f"a record is a JSON object, not {_json_type(data)}")
    clean_players(data)
    return data


@cache
def _most_players() -> int:
    return max(get_rules(name).max_players for name in variant_names())


def clean_players(record: dict[str, Any]) -> None:
    """Clean the players' names of a record from outside, in place, as the web cleans a seat's
    name (`dicepoker.protocol.clean_name`: no control or invisible characters such as a
    right-to-left override, trimmed, at most MAX_NAME characters). A name left empty is refused:
    a seat of a record is always someone's. Anything but a list of at most as many names as a
    variant seats is left to `rules_of` to refuse."""
    players = record.get("players")
    if not isinstance(players, list) or len(players) > _most_players():
        return
    if not all(isinstance(name, str) for name in players):
        return
    cleaned: list[str] = []
    for seat, name in enumerate(players, start=1):
        text = clean_name(name)
        if text is None:
            raise RecordFormatError(
                f"player {seat}'s name is empty without its control and invisible characters"
            )
        cleaned.append(text)
    record["players"] = cleaned


def _json_type(value: object) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number"}
    return names.get(type(value), "a number" if isinstance(value, float) else "null")


def rules_of(record: Mapping[str, Any]) -> tuple[Rules, list[str]]:
    """The rules and players a record names, checked; `RecordFormatError` when they are bad."""
    variant = record.get("variant")
    if not isinstance(variant, str):
        raise RecordFormatError("the record's 'variant' must be text (school, yahtzee, ...)")
    options = record.get("options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordFormatError(
            f"the record's 'options' must be an object, not {_json_type(options)}"
        )
    try:
        rules = get_rules(variant, options)
    except RulesError as exc:
        raise RecordFormatError(str(exc)) from None
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(name, str) for name in players):
        raise RecordFormatError("the record's 'players' must be a list of names (text)")
    if not rules.min_players <= len(players) <= rules.max_players:
        raise RecordFormatError(
            f"{variant} is played by {rules.min_players} to {rules.max_players} players, "
            f"not {len(players)}"
        )
    return rules, players


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _roll_action(state: GameState, index: int, roll: object) -> tuple[Roll, list[int]]:
    """Check one recorded roll against the dice in play; return it and the freshly thrown faces."""
    rules = state.rules
    label = f"roll {index + 1}"
    if not isinstance(roll, dict):
        raise ValueError(f"{label} is not an object")
    keep = roll.get("keep")
    if keep is None:
        keep = []
    if not isinstance(keep, list) or not all(_is_int(p) for p in keep):
        raise ValueError(f"{label}: 'keep' must be a list of die positions")
    if len(set(keep)) != len(keep):
        raise ValueError(f"{label}: a die position is held twice in {keep}")
    if any(not 0 <= p < rules.dice for p in keep):
        raise ValueError(f"{label}: die positions are 0..{rules.dice - 1}, not {keep}")
    if index == 0 and keep:
        raise ValueError(f"{label}: the first roll of a turn cannot hold dice")
    if len(keep) == rules.dice:
        raise ValueError(f"{label}: all {rules.dice} dice held; a roll must throw at least one")
    if index >= rules.rolls_per_turn:
        raise ValueError(f"{label}: at most {rules.rolls_per_turn} rolls a turn")
    dice = roll.get("dice")
    if (
        not isinstance(dice, list)
        or len(dice) != rules.dice
        or not all(_is_int(d) and 1 <= d <= rules.faces for d in dice)
    ):
        raise ValueError(f"{label}: 'dice' must be {rules.dice} integers from 1 to {rules.faces}")
    held = set(keep)
    for position in sorted(held):
        if dice[position] != state.dice[position]:
            raise ValueError(
                f"{label}: held die {position} changed from {state.dice[position]} "
                f"to {dice[position]}"
            )
    thrown = [dice[p] for p in range(rules.dice) if p not in held]
    return Roll(tuple(sorted(keep))), thrown


def _play_turn(game: Game, number: int, turn: object, last: bool) -> None:
    if game.state.finished:
        raise ValueError("the game is already over")
    if not isinstance(turn, dict):
        raise ValueError("a turn is an object with 'rolls' and 'move'")
    rolls = turn.get("rolls")
    if rolls is None:
        rolls = []
    if not isinstance(rolls, list):
        raise ValueError("'rolls' must be a list")
    for index, roll in enumerate(rolls):
        action, thrown = _roll_action(game.state, index, roll)
        game.play(action, FixedDice(thrown))
    move = turn.get("move")
    forfeit = turn.get("forfeit")
    if move is not None and forfeit is not None:
        raise ValueError("a turn has either a move or a forfeit, not both")
    if forfeit is not None:
        if forfeit not in FORFEIT_REASONS:
            known = " or ".join(repr(reason) for reason in FORFEIT_REASONS)
            raise ValueError(f"unknown forfeit {forfeit!r} ({known})")
        game.play(Forfeit(forfeit), auto=turn.get("auto") is True)
        return
    if move is None:
        if not last:
            raise ValueError("the turn has no move (only the last turn may be in progress)")
        return
    if not isinstance(move, str):
        raise ValueError("'move' must be text such as 'score pair'")
    try:
        parsed = parse_action(move)
    except NotationError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(parsed, Move):
        raise ValueError(f"{move!r} is not a move (score ROW, strike ROW or zero ROW)")
    game.play(parsed, auto=turn.get("auto") is True)


def replay(
    record: Mapping[str, Any], observer: Callable[[GameState, Action], None] | None = None
) -> Game:
    """Replay a parsed record through the engine (`observer` sees each action before it is
    applied, with the state it is applied to).

    Raises `RecordFormatError` when the record is malformed and `RecordTurnError` with the first
    bad turn otherwise.
    """
    rules, players = rules_of(record)
    turns = record.get("turns")
    if turns is None:
        turns = []
    if not isinstance(turns, list):
        raise RecordFormatError("the record's 'turns' must be a list")
    known = {"variant", "options", "players", "turns"}
    extra = {key: value for key, value in record.items() if key not in known}
    game = Game(rules, players, extra=extra)
    game.observer = observer
    for number, turn in enumerate(turns, start=1):
        try:
            _play_turn(game, number, turn, number == len(turns))
        except (ValueError, IllegalActionError) as exc:
            reason = exc.reason if isinstance(exc, IllegalActionError) else str(exc)
            raise RecordTurnError(number, reason) from None
    return game


#: The record's fair-dice key (`dicepoker.fair`): its `seed` is revealed only once the game is over.
FAIR_DICE = "fair_dice"


class RecordEndError(RecordError):
    """A record that says its game is over (or gives final totals) where the replay disagrees."""


def _claims_over(record: Mapping[str, Any]) -> str | None:
    """Why a record says its game is over, if it does: the fair-dice seed is revealed only at the
    end, and tools may write the result's `finished` and `totals` (the names of `dicepoker replay
    --json` and of the example records' expected results)."""
    entry = record.get(FAIR_DICE)
    if isinstance(entry, dict) and entry.get("seed") is not None:
        return "its fair-dice seed is revealed"
    if record.get("finished") is True:
        return "it says finished"
    if "totals" in record:
        return "it gives final totals"
    return None


def check_ending(record: Mapping[str, Any], game: Game) -> None:
    """Refuse a record that says its game is over (`_claims_over`) when its replay (`game`) does
    not reach the engine's game over, or whose `totals` are not the replay's; the engine alone
    says when a game ends and what it scored. Raises `RecordEndError`."""
    claim = _claims_over(record)
    if claim is None:
        return
    state = game.state
    if not state.finished:
        played = len(record.get("turns") or [])
        raise RecordEndError(
            f"the record says the game is over ({claim}), but after its {played} turns it is "
            f"not: {state.players[state.seat]} is still to play, turns are missing"
        )
    given = record.get("totals")
    if given is None:
        return
    if not isinstance(given, list) or not all(_is_int(total) for total in given):
        raise RecordEndError("the record's 'totals' must be a list of integers, one per player")
    replayed = list(totals(state))
    if given != replayed:
        raise RecordEndError(f"the record's totals are not the replay's ({replayed})")


def check_record(record: Mapping[str, Any]) -> tuple[Record, Game]:
    """The whole check of a record from outside (an import, a file): the engine replays it (the
    first bad turn and why) and the replay must end as the record says it does (`check_ending`),
    then its shape is checked against the `Record` model (types the
    replay does not read, such as a turn's `auto`). Returns the typed record and the game.

    Raises `RecordFormatError`, `RecordTurnError` for a problem inside a turn, or
    `RecordEndError`.
    """
    try:
        check_value(record)  # what load_record refuses, for records that did not come through it
    except JSONTextError as exc:
        raise RecordFormatError(f"not a JSON record: {exc}") from None
    game = replay(record)
    check_ending(record, game)
    try:
        typed = Record.model_validate(record, strict=True)
    except ValidationError as exc:
        problem = exc.errors(include_url=False, include_input=False)[0]
        where = list(problem["loc"])
        if len(where) >= 2 and where[0] == "turns" and isinstance(where[1], int):
            inside = ".".join(str(part) for part in where[2:])
            raise RecordTurnError(where[1] + 1, f"{inside}: {problem['msg']}") from None
        path = ".".join(str(part) for part in where)
        raise RecordFormatError(f"the record's {path}: {problem['msg']}") from None
    return typed, game
