"""The game record's shape (docs/record.md): the interchange format of the rules contract.

This is what `POST /api/records` takes and what a record download or `GET /api/records/{id}`
answers. The model checks the types; whether the turns are legal is the engine's to say
(`dicepoker.record.replay`). Keys it does not know are kept, everywhere: tools may add their own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, JsonValue

from dicepoker.protocol.base import Wire
from dicepoker.protocol.view import GameView


class _Open(Wire):
    """Keys beyond the contract's are allowed and kept as they are; keys that were not given
    are not written (a record reads back as it was written)."""

    model_config = ConfigDict(extra="allow")


class RecordRoll(_Open):
    keep: list[int] | None = Field(
        default=None, description="positions kept from the previous roll; not on a first roll"
    )
    dice: list[int] = Field(description="the dice after this roll, by position")


class RecordTurn(_Open):
    rolls: list[RecordRoll] | None = None
    move: str | None = Field(default=None, description="score ROW, strike ROW or zero ROW")
    forfeit: Literal["timeout"] | None = Field(
        default=None, description="in place of a move: the player's clock ran out"
    )
    auto: bool | None = Field(default=None, description="true: played by auto-play")


class Record(_Open):
    """A game, complete or stopped mid-turn. `options` missing or null: the defaults."""

    variant: str
    options: dict[str, JsonValue] | None = None
    players: list[str]
    turns: list[RecordTurn] | None = None


class Replayed(Wire):
    """`dicepoker replay FILE --json`: the record as checked, and the view where it ends; with,
    as the example records' `NAME.expected.json` give it, whether the game is over and each
    seat's total (in seat order), so a script compares a replay with its expected result."""

    record: Record
    state: GameView
    finished: bool
    totals: list[int]
