"""The position view (`state` in every message and answer): what every interface draws.

Built by `dicepoker.view` from the engine's answers only (docs/api.md, "The view"). The models say
exactly what the JSON holds; a field that is sometimes absent is optional here and left unset when
absent (see `base.Wire`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from dicepoker.protocol.base import Absent, Wire, absent

Section = Literal["upper", "lower"]
StarKind = Literal["school_row", "combination_row", "column"]


# --- the rules ---------------------------------------------------------------------------------


class RuleRowView(Wire):
    """A row of the sheet: its section, kind, star, and the face it counts (face rows only)."""

    id: str
    section: Section
    school: bool
    star: bool
    face: int | None = Field(description="the face a face row counts (1..faces), else null")
    strike: bool
    doubles: bool


class SectionView(Wire):
    id: Section
    title: str = Field(description="a message id of the catalogs (English text)")


class UpperBonusRule(Wire):
    threshold: int
    points: int


class ClockRule(Wire):
    """The variant's own turn clock, if it has one, and what running out of time does."""

    option: str | None = Field(description="the variant's option that sets its clock, if any")
    online_default: int | None = Field(description="its value in games created online")
    on_timeout: Literal["lose", "autoplay"]


class RulesView(Wire):
    """Everything an interface needs to lay out and play a game of these rules, so that none
    branches on a variant's name or assumes a number of dice."""

    keeps_json = True  # the same for the whole game

    variant: str
    options: dict[str, bool | int]
    min_players: int
    max_players: int
    rows: list[RuleRowView]
    sections: list[SectionView]
    columns: int
    dice: int = Field(description="the number of dice")
    faces: int = Field(description="faces per die (values 1..faces)")
    face_labels: list[str]
    rolls_per_turn: int
    stars: bool
    column_stars: bool
    reserve: bool
    zero_penalty: int | None = Field(description="null when the variant has no zero")
    upper_bonus: UpperBonusRule | None
    yahtzee_bonus: bool
    autoplay: bool = Field(description="whether auto-play (the `auto` intent) is offered")
    clock: ClockRule
    turn_seconds: int = Field(description="the clock of these rules (0: none)")


# --- sheets ------------------------------------------------------------------------------------


class CellView(Wire):
    """A filled cell. `doubled` and `joker` appear only when true; `used_reserve`, `note` and
    `note_struck` only on a closed School cell (`note` and `note_struck` when it has a note)."""

    mark: Literal["score", "closed", "strike", "zero"]
    points: int
    doubled: bool = False
    joker: bool = False
    used_reserve: bool | Absent = absent()
    note: int | Absent = absent("the reserve total written in the cell")
    note_struck: bool | Absent = absent("whether a newer note exists")


class StarView(Wire):
    status: Literal["earned", "open", "struck"]
    value: int | None


class SheetRowView(Wire):
    keeps_json = True  # most rows stay as they are from one move to the next

    id: str
    section: Section
    school: bool
    cells: list[CellView | None] = Field(description="one per column; null: empty")
    star: StarView | None


class BreakdownView(Wire):
    """A total and its parts: total = cells + stars + upper_bonus + yahtzee_bonus + reserve -
    zero_penalty."""

    cells: int
    stars: int
    upper_bonus: int
    yahtzee_bonus: int
    reserve: int
    zeros: int
    zero_penalty: int
    strikes: int
    total: int


class UpperView(Wire):
    total: int
    threshold: int
    bonus: int


Bonus = tuple[StarKind, str | int, int]


class SheetView(Wire):
    """A player's sheet. `upper` only in variants with an upper-section bonus."""

    keeps_json = True  # sent again, unchanged, with every roll until the next move

    rows: list[SheetRowView]
    column_stars: list[StarView | None]
    breakdown: BreakdownView
    bonuses: list[Bonus] = Field(
        description="the stars earned, in order: [kind, key, value] (a column's key its index)"
    )
    jokers: int
    upper: UpperView | Absent = absent()


# --- players, the tie-break, the turn ----------------------------------------------------------


class PlayerView(Wire):
    seat: int
    name: str
    total: int
    place: int
    forfeited: bool


class TieBreakView(Wire):
    game: int
    seats: list[int]
    sheets: dict[str, SheetView] = Field(description="the tie-break sheets by seat (as text)")


class LegalMoveView(Wire):
    """A cell move allowed now, with what it would score (`points`) and add to the total."""

    keeps_json = True  # one model for every view that offers the same move (`view.py`)

    action: str
    verb: Literal["score", "strike", "zero"]
    row: str
    points: int
    doubled: bool
    gain: int


class TurnView(Wire):
    """The turn in progress. `kept` (the dice the last roll kept) is sent by the server."""

    seat: int
    dice: list[int]
    rolls: int
    rolls_left: int
    thrown_all: bool
    can_roll: bool
    can_keep: bool
    legal: list[LegalMoveView]
    kept: list[int] | Absent = absent("the positions the last roll kept")
    held: list[int] | Absent = absent(
        "the positions the roller holds now for the next roll (its live selection, else `kept`)"
    )


class LastMoveView(Wire):
    """A player's last move, as the table marks and tells it: the cell it filled (`row`, and the
    `column` of that row; both null for a timeout), what it scored (`points`, `doubled`), the
    change of the total (`gain`) and of the reserve (`reserve`), the stars it earned first, at
    which turn (`turn`, the view's `turn_number` then) and in which game (`stage`: 0 the main
    game, k the k-th tie-break game), and whether auto-play or the clock made it (`auto`)."""

    seat: int
    turn: int
    stage: int
    verb: Literal["score", "strike", "zero", "timeout"]
    row: str | None
    column: int | None
    points: int
    doubled: bool
    gain: int
    reserve: int = Field(description="the change of the reserve (School), else 0")
    stars: list[Bonus] = Field(description="the stars this move earned first: [kind, key, value]")
    auto: bool


class GameView(Wire):
    """The whole position. `tiebreak` only while a tie-break game is on; `turn` only until the
    game is over; `last_moves` where the caller knows the moves (the server does)."""

    rules: RulesView
    players: list[PlayerView]
    sheets: list[SheetView]
    finished: bool
    turn_number: int
    winner: int | None
    ranking: list[int]
    tiebreak: TieBreakView | Absent = absent()
    turn: TurnView | Absent = absent()
    last_moves: list[LastMoveView | None] | Absent = absent(
        "each seat's last move (null: none yet), in the server's messages and answers"
    )


Gone = Literal["turn", "tiebreak"]


class ViewChanges(Wire):
    """What an event changed in the view (the events of `dicepoker.v2`): each top-level field
    of `GameView` that changed, whole, except `sheets`, which holds only the sheets that changed,
    by seat (as text); `gone` names the fields the view no longer has. `turn` is there whenever
    the view has one (a roll changes it, a move passes it on). `rules` never changes. Applied to
    the view of the event before (`seq - 1`), it gives the view after (`apply_changes`)."""

    players: list[PlayerView] | Absent = absent()
    sheets: dict[str, SheetView] | Absent = absent("the sheets that changed, by seat (as text)")
    finished: bool | Absent = absent()
    turn_number: int | Absent = absent()
    winner: int | None = absent("the winner, or null again (a tie-break game began)")
    ranking: list[int] | Absent = absent()
    tiebreak: TieBreakView | Absent = absent()
    turn: TurnView | Absent = absent()
    last_moves: list[LastMoveView | None] | Absent = absent()
    gone: list[Gone] | Absent = absent(
        "the fields the view has no more: `turn` once the game is over, `tiebreak` once the"
        " tie-break game is decided"
    )


def apply_changes(view: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """The view after an event, as JSON data: `view` (the view of the event before, as JSON
    data) with the event's `changes` (`ViewChanges` as JSON data) applied. A new dict; `view`
    and its parts are not changed (a client may keep both, to tell what changed)."""
    after = dict(view)
    for key, value in changes.items():
        if key == "sheets":
            sheets = list(after["sheets"])
            for seat, sheet in value.items():
                index = int(seat)
                if not 0 <= index < len(sheets):
                    raise ValueError(f"changes name sheet {seat}, the view has {len(sheets)}")
                sheets[index] = sheet
            after["sheets"] = sheets
        elif key == "gone":
            for name in value:
                after.pop(name, None)
        else:
            after[key] = value
    return after
