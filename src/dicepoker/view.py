"""The public view of a position as plain JSON data: what every interface draws.

The web page, the terminal client and the API all render this one structure, built only from the
engine's own answers (cells, star status, breakdowns, previews), so no interface re-implements a
rule. It holds nothing secret: seat tokens and dice seeds never appear here.
"""

from __future__ import annotations

from typing import Any

from dicepoker.engine import (
    Cell,
    GameState,
    Mark,
    Sheet,
    breakdown,
    preview,
    ranking,
    sheet_breakdown,
    star_status,
    upper_total,
    winner,
)
from dicepoker.rules import Rules


def cell_view(sheet: Sheet, index: int, cell: Cell | None) -> dict[str, Any] | None:
    """One cell: its mark and points, and for School cells the reserve note (struck or not)."""
    if cell is None:
        return None
    out: dict[str, Any] = {"mark": cell.mark.value, "points": cell.points}
    if cell.doubled:
        out["doubled"] = True
    if cell.joker:
        out["joker"] = True
    if cell.mark is Mark.CLOSED:
        out["used_reserve"] = cell.used_reserve
        if cell.note is not None:
            out["note"] = cell.note
            out["note_struck"] = sheet.note_at != index
    return out


def sheet_view(state: GameState, seat: int, sheet: Sheet | None = None) -> dict[str, Any]:
    """A player's sheet row by row, with stars, the legal cells highlighted by the caller."""
    rules = state.rules
    sheet = state.sheets[seat] if sheet is None else sheet
    stars = {(s.kind, s.key): s for s in star_status(state, seat)} if rules.stars else {}

    def star(kind: str, key: str | int) -> dict[str, Any] | None:
        status = stars.get((kind, key))
        if status is None:
            return None
        return {"status": status.status, "value": status.value}

    rows = []
    for index, row in enumerate(rules.rows):
        start = index * rules.columns
        rows.append(
            {
                "id": row.id,
                "section": row.section,
                "school": row.school,
                "cells": [
                    cell_view(sheet, start + column, sheet.cells[start + column])
                    for column in range(rules.columns)
                ],
                "star": star("school_row" if row.school else "combination_row", row.id)
                if row.star
                else None,
            }
        )
    parts = sheet_breakdown(rules, sheet)
    out: dict[str, Any] = {
        "rows": rows,
        "column_stars": [star("column", column) for column in range(rules.columns)]
        if rules.stars and rules.stars.columns
        else [],
        "breakdown": {
            "cells": parts.cells,
            "stars": parts.stars,
            "upper_bonus": parts.upper_bonus,
            "yahtzee_bonus": parts.yahtzee_bonus,
            "reserve": parts.reserve,
            "zeros": parts.zeros,
            "zero_penalty": parts.zero_penalty,
            "strikes": parts.strikes,
            "total": parts.total,
        },
        "bonuses": [bonus.as_list() for bonus in sheet.stars],
        "jokers": sheet.jokers,
    }
    if rules.upper_bonus:
        out["upper"] = {
            "total": upper_total(rules, sheet),
            "threshold": rules.upper_bonus.threshold,
            "bonus": rules.upper_bonus.points,
        }
    return out


def rules_view(rules: Rules) -> dict[str, Any]:
    """What a client needs to lay out a sheet: rows, columns, faces, rolls per turn."""
    return {
        "preset": rules.preset,
        "options": rules.option_dict,
        "rows": [
            {"id": row.id, "section": row.section, "school": row.school, "star": row.star}
            for row in rules.rows
        ],
        "columns": rules.columns,
        "dice": rules.dice,
        "face_labels": list(rules.face_labels),
        "rolls_per_turn": rules.rolls_per_turn,
        "stars": rules.stars is not None,
        "column_stars": bool(rules.stars and rules.stars.columns),
        "reserve": rules.reserve is not None,
        "upper_bonus": rules.upper_bonus is not None,
        "yahtzee_bonus": rules.extra_yahtzee is not None,
        "turn_seconds": rules.turn_seconds,
    }


class ViewCache:
    """The sheet part of the last view, reused while the position's sheets are the very same
    objects: a roll changes only the dice, so a server that sends the view after every event
    renders the sheets once per move instead of once per event."""

    __slots__ = ("key", "part")

    def __init__(self) -> None:
        self.key: tuple[Any, ...] | None = None
        self.part: dict[str, Any] = {}

    def matches(self, key: tuple[Any, ...]) -> bool:
        old = self.key
        return (
            old is not None
            and old[0] is key[0]  # the very same sheets (tuples are never changed in place)
            and old[1] is key[1]
            and old[2:] == key[2:]
        )


def _sheets_part(state: GameState) -> dict[str, Any]:
    """What depends on the sheets only: players with totals and places, the sheets, ranking."""
    places = {standing.seat: standing.place for standing in ranking(state)}
    players = []
    for seat, name in enumerate(state.players):
        parts = breakdown(state, seat)
        players.append(
            {
                "seat": seat,
                "name": name,
                "total": parts.total,
                "place": places[seat],
                "forfeited": seat in state.forfeited,
            }
        )
    part: dict[str, Any] = {
        "players": players,
        "sheets": [
            sheet_view(state, seat, state.final_sheets[seat]) for seat in range(len(state.players))
        ],
        "winner": winner(state),
        "ranking": [standing.seat for standing in ranking(state)],
    }
    if state.stage:
        part["tiebreak"] = {
            "game": state.stage,
            "seats": list(state.contenders),
            "sheets": {
                str(seat): sheet_view(state, seat, state.sheets[seat]) for seat in state.contenders
            },
        }
    return part


def game_view(state: GameState, cache: ViewCache | None = None) -> dict[str, Any]:
    """The whole position: rules, players with totals and places, sheets, the turn and its
    legal moves with what each would score now. With a `cache`, the sheet part of the previous
    call is reused when the sheets have not changed since."""
    rules = state.rules
    key = (
        state.sheets,
        state.main_sheets,
        state.players,
        state.forfeited,
        state.stage,
        state.contenders,
        state.winner,
        state.finished,
    )
    if cache is not None and cache.matches(key):
        part = cache.part
    else:
        part = _sheets_part(state)
        if cache is not None:
            cache.key, cache.part = key, part
    view: dict[str, Any] = {
        "rules": rules_view(rules),
        "players": part["players"],
        "sheets": part["sheets"],
        "finished": state.finished,
        "turn_number": state.turn,
        "winner": part["winner"],
        "ranking": part["ranking"],
    }
    if "tiebreak" in part:
        view["tiebreak"] = part["tiebreak"]
    if not state.finished:
        legal = [
            {
                "action": str(option.move),
                "verb": option.move.verb,
                "row": option.move.row,
                "points": option.points,
                "doubled": option.doubled,
                "gain": option.gain,
            }
            for option in preview(state)
        ]
        view["turn"] = {
            "seat": state.seat,
            "dice": list(state.dice),
            "rolls": state.rolls,
            "rolls_left": state.rolls_left,
            "thrown_all": state.thrown_all,
            "can_roll": state.rolls_left > 0,
            "can_hold": 0 < state.rolls < rules.rolls_per_turn,
            "legal": legal,
        }
    return view
