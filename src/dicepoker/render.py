"""Plain-text sheets, drawn like `spec/sheet.md`: for the command line, logs and tests.

Marks: `✕` a closed School cell (with the reserve note written there, in parentheses once a newer
note exists), `0` a zero, `—` a struck cell, `×2` a doubled score, `★ n` an earned star, `★` one
still to win, `·` one out of reach. Plain text has no struck-through letters, so every mark is a
glyph of its own (never Markdown's tildes, which a terminal prints as they are). Rows are named as
the sheets of the web app and the terminal name them, in English (the command line's language).
"""

from __future__ import annotations

from dicepoker.engine import (
    Cell,
    GameState,
    Mark,
    Sheet,
    breakdown,
    ranking,
    sheet_breakdown,
    star_status,
    upper_total,
)
from dicepoker.i18n import DEFAULT_LANG, gettext
from dicepoker.rules import Rules

ROMAN = ("I", "II", "III", "IV", "V", "VI")


def row_label(rules: Rules, row_id: str) -> str:
    """The row's label from the catalog (`row.school.ones` -> School 1), its id where none."""
    msgid = f"row.{rules.variant}.{row_id}"
    text = gettext(DEFAULT_LANG, msgid)
    return row_id.replace("_", " ") if text == msgid else text


def dice_text(rules: Rules, dice: tuple[int, ...]) -> str:
    """Dice as the variant shows them (9 10 J Q K A for poker dice)."""
    return " ".join(rules.face_labels[die - 1] for die in dice)


def cell_text(sheet: Sheet, index: int, cell: Cell | None) -> str:
    if cell is None:
        return ""
    if cell.mark is Mark.CLOSED:
        if cell.note is None:
            return "✕"
        note = str(cell.note) if sheet.note_at == index else f"({cell.note})"
        return f"✕ {note}"
    if cell.mark is Mark.STRIKE:
        return "—"
    if cell.mark is Mark.ZERO:
        return "0"
    text = str(cell.points)
    if cell.doubled:
        text += " ×2"
    if cell.joker:
        text += " J"
    return text


def _table(lines: list[list[str]]) -> list[str]:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return [
        "  ".join(text.ljust(width) for text, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    ]


def sheet_lines(state: GameState, seat: int) -> list[str]:
    """One player's sheet as text lines (the main game's sheet when a tie-break is on)."""
    rules = state.rules
    sheet = state.final_sheets[seat]
    parts = breakdown(state, seat)
    stars = {(s.kind, s.key): s for s in star_status(state, seat)} if rules.stars else {}

    def star_text(kind: str, key: str | int) -> str:
        status = stars.get((kind, key))
        if status is None:
            return ""
        if status.status == "earned":
            return f"★ {status.value}"
        return "·" if status.status == "struck" else "★"

    header = [""] + [ROMAN[c] if c < len(ROMAN) else str(c + 1) for c in range(rules.columns)]
    if rules.stars:
        header.append("★ row")
    lines = [header]
    for index, row in enumerate(rules.rows):
        line = [row_label(rules, row.id)]
        for column in range(rules.columns):
            cell_index = index * rules.columns + column
            line.append(cell_text(sheet, cell_index, sheet.cells[cell_index]))
        if rules.stars:
            kind = "school_row" if row.school else "combination_row"
            line.append(star_text(kind, row.id) if row.star else "")
        lines.append(line)
    if rules.stars and rules.stars.columns:
        lines.append(["★ column", *(star_text("column", c) for c in range(rules.columns)), ""])
    out = _table(lines)
    if rules.reserve:
        out.append(
            f"reserve {parts.reserve}    zeros {parts.zeros}    cells {parts.cells}    "
            f"bonuses {parts.bonuses}    total {parts.total}"
        )
    else:
        extras = []
        if rules.upper_bonus:
            extras.append(
                f"upper {upper_total(rules, sheet)}/{rules.upper_bonus.threshold} "
                f"bonus {parts.upper_bonus}"
            )
        if rules.extra_yahtzee:
            extras.append(f"yahtzee bonus {parts.yahtzee_bonus} (jokers {sheet.jokers})")
        out.append("    ".join([*extras, f"total {parts.total}"]))
    return out


def game_text(state: GameState) -> str:
    """Every player's sheet, the standings and, mid-game, whose turn it is and the dice."""
    rules = state.rules
    blocks = []
    for seat, name in enumerate(state.players):
        title = f"{name} (seat {seat + 1})"
        if seat in state.forfeited:
            title += " — lost on the clock"
        blocks.append("\n".join([title, *sheet_lines(state, seat)]))
    if state.stage:
        tie = ", ".join(
            f"{state.players[s]} {sheet_breakdown(rules, state.sheets[s]).total}"
            for s in state.contenders
        )
        blocks.append(f"tie-break game {state.stage}: {tie}")
    standings = "  ".join(
        f"{standing.place}. {standing.name} {standing.total}" for standing in ranking(state)
    )
    status = "finished" if state.finished else f"turn {state.turn + 1}"
    blocks.append(f"{rules.variant} — {status} — {standings}")
    if not state.finished:
        dice = dice_text(rules, state.dice) if state.dice else "not rolled"
        blocks.append(
            f"to move: {state.players[state.seat]}  dice: {dice}  rolls left: {state.rolls_left}"
        )
    return "\n\n".join(blocks)
