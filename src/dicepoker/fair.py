"""Fair dice you can verify: every die of a game comes from a secret seed committed to up front.

At creation a game draws a secret seed (32 random bytes) and publishes its commitment, the
SHA-256 of those bytes. Each die is then derived from the seed, the 1-based turn and roll of the
record and the 0-based die position with HMAC-SHA256; at the end the seed is revealed and added to
the record, and `verify_record` (`dicepoker verify FILE`) recomputes every roll. The scheme is
described precisely, with a worked example, in docs/fair-dice.md.

This module is pure: the seed is the only secret, and nothing here keeps state.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from dicepoker.engine import Action, GameState, Roll
from dicepoker.record import (
    FAIR_DICE,
    Game,
    RecordError,
    RecordTurnError,
    check_ending,
    replay,
    rules_of,
)

SCHEME = "hmac-sha256-v1"
#: The record's top-level key: {"scheme": SCHEME, "commitment": hex, "seed": hex (at the end)}.
RECORD_KEY = FAIR_DICE
SEED_BYTES = 32
_HEX = frozenset("0123456789abcdef")


class SeedError(ValueError):
    """A seed or a commitment that is not 32 bytes written as 64 hexadecimal digits."""


def new_seed() -> str:
    """A fresh secret seed: 32 bytes from the operating system's secure generator, as 64 hex."""
    return secrets.token_hex(SEED_BYTES)


def _is_hex64(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and len(value) == 2 * SEED_BYTES and set(value) <= _HEX


def seed_bytes(seed_hex: str) -> bytes:
    """The 32 bytes of a seed written as 64 lowercase hexadecimal digits."""
    if not _is_hex64(seed_hex):
        raise SeedError("a seed is 64 lowercase hexadecimal digits (32 bytes)")
    return bytes.fromhex(seed_hex)


def commitment(seed_hex: str) -> str:
    """The public commitment to a seed: SHA-256 of its 32 bytes, as 64 lowercase hex digits."""
    return hashlib.sha256(seed_bytes(seed_hex)).hexdigest()


def _die(key: bytes, turn: int, roll: int, position: int, faces: int) -> int:
    limit = 256 - 256 % faces  # the largest multiple of `faces` <= 256: 252 for six faces
    message = f"{turn}:{roll}:{position}"
    counter = 0
    while True:
        text = message if counter == 0 else f"{message}:{counter}"
        for byte in hmac.new(key, text.encode("ascii"), hashlib.sha256).digest():
            if byte < limit:
                return byte % faces + 1
        counter += 1  # all 32 bytes rejected (probability (4/256)**32 for six faces)


def die(seed_hex: str, turn: int, roll: int, position: int, faces: int = 6) -> int:
    """The face (1..faces) of die `position` (0-based) on roll `roll` (1-based) of turn `turn`
    (1-based, the index of the turn in the record's `turns` list)."""
    if not 1 <= faces <= 256:
        raise ValueError(f"faces must be 1..256, not {faces}")
    if turn < 1 or roll < 1 or position < 0:
        raise ValueError("turn and roll count from 1, positions from 0")
    return _die(seed_bytes(seed_hex), turn, roll, position, faces)


def thrown_positions(keep: Iterable[int], dice: int = 5) -> tuple[int, ...]:
    """The positions a roll throws: those not held, in increasing order (the order in which the
    engine puts freshly thrown faces into the free positions)."""
    held = set(keep)
    return tuple(position for position in range(dice) if position not in held)


class RollDice:
    """A `DiceSource` for one roll: hands the engine the derived faces of the thrown positions."""

    def __init__(self, key: bytes, turn: int, roll: int, positions: Sequence[int]) -> None:
        self._key = key
        self.turn = turn
        self.roll_number = roll
        self.positions = tuple(positions)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        if count != len(self.positions):
            raise ValueError(f"fair dice for positions {list(self.positions)}: {count} dice asked")
        return tuple(
            _die(self._key, self.turn, self.roll_number, position, faces)
            for position in self.positions
        )


class FairDice:
    """The dice of one game, derived from its secret seed."""

    def __init__(self, seed_hex: str) -> None:
        self._key = seed_bytes(seed_hex)

    def __repr__(self) -> str:  # never show the seed
        return "FairDice(<secret>)"

    def for_roll(self, turn: int, roll: int, keep: Iterable[int], dice: int = 5) -> RollDice:
        """The source for roll `roll` (1-based) of turn `turn` (1-based) holding `keep`."""
        return RollDice(self._key, turn, roll, thrown_positions(keep, dice))

    def for_action(self, state: GameState, action: Action) -> RollDice | None:
        """The source for `action` played in `state` (None when it throws no dice): the roll is
        recorded as roll `state.rolls + 1` of turn `state.turn + 1`, since `state.turn` counts the
        turns already recorded (moves and forfeits, tie-break turns included)."""
        if not isinstance(action, Roll):
            return None
        return self.for_roll(state.turn + 1, state.rolls + 1, action.keep, state.rules.dice)


def record_entry(commitment_hex: str, seed_hex: str | None = None) -> dict[str, str]:
    """The record's `fair_dice` object; the seed only once the game is over."""
    entry = {"scheme": SCHEME, "commitment": commitment_hex}
    if seed_hex is not None:
        entry["seed"] = seed_hex
    return entry


# --- verification -------------------------------------------------------------------------------


@dataclass(frozen=True)
class VerifyResult:
    """The verdict on a record's dice. `reason` is None when `ok`, else one of: `bad_record`,
    `no_fair_dice`, `unknown_scheme`, `bad_commitment`, `no_seed`, `bad_seed`,
    `commitment_mismatch`, `dice_differ`. `turn` and `roll` (1-based) point at the first
    differing roll (`dice_differ`) or the first bad turn (`bad_record`)."""

    ok: bool
    message: str
    reason: str | None = None
    turn: int | None = None
    roll: int | None = None
    position: int | None = None
    expected: tuple[int, ...] | None = None
    rolls: int = 0
    dice: int = 0
    commitment: str | None = None
    seed: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "reason": self.reason,
            "message": self.message,
            "scheme": SCHEME,
            "commitment": self.commitment,
            "seed": self.seed,
            "rolls": self.rolls,
            "dice": self.dice,
            "turn": self.turn,
            "roll": self.roll,
            "position": self.position,
            "expected": list(self.expected) if self.expected is not None else None,
        }


@dataclass(frozen=True)
class _Mismatch:
    turn: int
    roll: int
    position: int
    expected: tuple[int, ...]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_dice(
    key: bytes, turns: Sequence[Any], dice: int, faces: int
) -> tuple[_Mismatch | None, int, int]:
    """Compare every roll's thrown dice with the derived ones: the first mismatch, the rolls and
    the dice checked. Stops quietly at the first roll it cannot read (replay reports those)."""
    rolls_checked = dice_checked = 0
    for turn_number, turn in enumerate(turns, start=1):
        rolls = turn.get("rolls") if isinstance(turn, dict) else None
        if rolls is None:
            continue
        if not isinstance(rolls, list):
            break
        for roll_number, roll in enumerate(rolls, start=1):
            if not isinstance(roll, dict):
                return None, rolls_checked, dice_checked
            keep = roll.get("keep") or []
            shown = roll.get("dice")
            if (
                not isinstance(keep, list)
                or not all(_is_int(p) for p in keep)
                or not isinstance(shown, list)
                or len(shown) != dice
            ):
                return None, rolls_checked, dice_checked
            positions = thrown_positions(keep, dice)
            expected = tuple(
                _die(key, turn_number, roll_number, position, faces) for position in positions
            )
            for position, face in zip(positions, expected, strict=True):
                if shown[position] != face:
                    derived = list(shown)
                    for p, f in zip(positions, expected, strict=True):
                        derived[p] = f
                    return (
                        _Mismatch(turn_number, roll_number, position, tuple(derived)),
                        rolls_checked,
                        dice_checked,
                    )
            rolls_checked += 1
            dice_checked += len(positions)
    return None, rolls_checked, dice_checked


def verify_record(record: Mapping[str, Any]) -> VerifyResult:
    """Check that a record's dice are the ones its commitment promised.

    In order: the record names valid rules; it has a `fair_dice` object of a known scheme with a
    commitment and a revealed seed; the commitment is SHA-256 of the seed; every roll's dice at the
    thrown positions equal the derived faces; and the record replays to the end of the game (a
    revealed seed says it is over: `dicepoker.record.check_ending`). When both a differing roll
    and a bad turn are found, the earlier one is reported (the roll, when in the same turn).
    """
    try:
        rules, _players = rules_of(record)
    except RecordError as exc:
        return VerifyResult(False, f"not a valid record: {exc}", "bad_record")
    entry = record.get(RECORD_KEY)
    if not isinstance(entry, dict):
        return VerifyResult(
            False,
            f"the record has no '{RECORD_KEY}' commitment: its dice cannot be verified",
            "no_fair_dice",
        )
    scheme = entry.get("scheme")
    if scheme != SCHEME:
        return VerifyResult(
            False,
            f"unknown fair-dice scheme {scheme!r} (this version knows {SCHEME})",
            "unknown_scheme",
        )
    committed = entry.get("commitment")
    if not _is_hex64(committed):
        return VerifyResult(
            False,
            "the commitment is missing or is not 64 lowercase hexadecimal digits",
            "bad_commitment",
        )
    seed = entry.get("seed")
    if seed is None:
        return VerifyResult(
            False,
            "the seed is not revealed (the game is not over): nothing to verify yet",
            "no_seed",
            commitment=committed,
        )
    if not _is_hex64(seed):
        return VerifyResult(
            False,
            "the seed is not 64 lowercase hexadecimal digits",
            "bad_seed",
            commitment=committed,
        )
    if commitment(seed) != committed:
        return VerifyResult(
            False,
            "the seed does not match the commitment (SHA-256 of the seed differs)",
            "commitment_mismatch",
            commitment=committed,
            seed=seed,
        )
    turns = record.get("turns")
    if turns is None:
        turns = []
    mismatch, rolls, dice = (None, 0, 0)
    if isinstance(turns, list):
        mismatch, rolls, dice = _check_dice(seed_bytes(seed), turns, rules.dice, rules.faces)
    bad_turn: RecordError | None = None
    game: Game | None = None
    try:
        game = replay(record)
    except RecordError as exc:
        bad_turn = exc
    if bad_turn is not None and not isinstance(bad_turn, RecordTurnError):
        return VerifyResult(
            False, f"not a valid record: {bad_turn}", "bad_record", commitment=committed, seed=seed
        )
    if mismatch is not None and (bad_turn is None or mismatch.turn <= bad_turn.turn):
        return VerifyResult(
            False,
            f"turn {mismatch.turn} roll {mismatch.roll}: dice differ from the commitment",
            "dice_differ",
            turn=mismatch.turn,
            roll=mismatch.roll,
            position=mismatch.position,
            expected=mismatch.expected,
            rolls=rolls,
            dice=dice,
            commitment=committed,
            seed=seed,
        )
    if bad_turn is not None:
        return VerifyResult(
            False,
            f"not a valid record: {bad_turn}",
            "bad_record",
            turn=bad_turn.turn,
            commitment=committed,
            seed=seed,
        )
    assert game is not None  # it replayed
    try:
        check_ending(record, game)  # a revealed seed says the game is over: no turn may be missing
    except RecordError as exc:
        return VerifyResult(
            False, f"not a valid record: {exc}", "bad_record", commitment=committed, seed=seed
        )
    return VerifyResult(
        True,
        f"dice verified: {rolls} rolls match commitment {committed}",
        rolls=rolls,
        dice=dice,
        commitment=committed,
        seed=seed,
    )
