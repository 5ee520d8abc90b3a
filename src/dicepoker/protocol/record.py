"""The game record's shape (docs/record.md): the interchange format of the rules contract.

This is what `POST /api/records` takes and what a record download or `GET /api/records/{id}`
answers. The model checks the types; whether the turns are legal is the engine's to say
(`dicepoker.record.replay`). Keys it does not know are kept, everywhere: tools may add their own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, JsonValue

from dicepoker.protocol.base import Wire
from dicepoker.protocol.view import Bonus, GameView, PlayerView


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
    forfeit: Literal["timeout", "absent"] | None = Field(
        default=None,
        description="in place of a move, the player lost: timeout, their clock ran out (a"
        " variant whose rules say so); absent, they missed turns in a row of a rated game",
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
    as the example records' `NAME.expected.json` give them, the result's facts at the top level
    (variant, options, whether the game is over, and per seat in seat order the totals, reserve,
    zeros, strikes, stars earned, upper and Yahtzee bonuses and Joker uses), so that a script
    compares a replay with an expected result key by key, and `players`, each seat's name, total
    and place as the view gives them. A fact that does not apply to a variant is 0 (or no stars)
    for every seat."""

    record: Record
    state: GameView
    variant: str
    options: dict[str, JsonValue]
    finished: bool
    players: list[PlayerView] = Field(description="per seat: name, total, place (the view's)")
    totals: list[int]
    reserve: list[int]
    zeros: list[int]
    strikes: list[int]
    bonuses: list[list[Bonus]] = Field(
        description="per seat, the stars earned in order: [kind, key, value]"
    )
    upper_bonus: list[int]
    yahtzee_bonus: list[int]
    jokers: list[int] = Field(description="per seat, the Joker uses")

    @classmethod
    def of(cls, record: Record, view: GameView) -> Replayed:
        """The facts of where a replayed record ends, read off its view (the API's shape)."""
        sheets = view.sheets
        parts = [sheet.breakdown for sheet in sheets]
        return cls(
            record=record,
            state=view,
            variant=view.rules.variant,
            options=dict(view.rules.options),
            finished=view.finished,
            players=list(view.players),
            totals=[player.total for player in view.players],
            reserve=[part.reserve for part in parts],
            zeros=[part.zeros for part in parts],
            strikes=[part.strikes for part in parts],
            bonuses=[list(sheet.bonuses) for sheet in sheets],
            upper_bonus=[part.upper_bonus for part in parts],
            yahtzee_bonus=[part.yahtzee_bonus for part in parts],
            jokers=[sheet.jokers for sheet in sheets],
        )
