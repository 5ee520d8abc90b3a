"""The top of the side panel (`InfoPanel`): the game, the turn, the clock, every player's total
(the ranking at the end) and, for a game of the web app, the dice commitment and its check."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.content import Content

from dicepoker.tui.hints import badge_words
from dicepoker.tui.sheet import EARNED, MUTED, TITLE, sheet_of
from dicepoker.tui.table_layout import TableLayout
from dicepoker.tui.table_state import TableState
from dicepoker.tui.widgets.base import TablePart

#: The badge of a game without hints (gold, as on the web table).
BADGE = "bold black on yellow"


class InfoPanel(TablePart):
    """The game and its players, each line cut to the side panel's width."""

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        view = table.view
        if view is None or plan is None:
            return Content("")
        width = self.line_width(plan)
        lines = game_lines(table, view) + player_lines(table, view, width)
        if table.finished:
            lines += [Content(""), Content.styled(table.result_words(), EARNED)]
            lines += rematch_lines(table, width)
        lines += fair_dice_lines(table, width, short=plan.short)
        return Content("\n").join(line.truncate(width, ellipsis=True) for line in lines)


def game_lines(table: TableState, view: Mapping[str, Any]) -> list[Content]:
    """The variant (and its columns), the title, the turn, waiting or watching, the clock."""
    words = table.words
    rules = view["rules"]
    columns = int(rules["columns"])
    name = words.variant(str(rules["variant"]))
    if columns > 1:
        name += " · " + words("Columns: {n}", n=columns)
    lines = [Content.styled(name, TITLE)]
    if table.competition is not None:
        # The web table's badge: the game is played without the expert's help, and why.
        lines.append(Content.styled(f" {badge_words(words, table.competition)} ", BADGE))
    if table.title:
        lines.append(Content.styled(table.title, MUTED))
    tiebreak = view.get("tiebreak")
    if table.finished:
        lines.append(Content.styled(words("Game over"), EARNED))
    elif tiebreak:
        lines.append(Content(words("Tie-break game {n}", n=tiebreak.get("game", 1))))
    else:
        count = turn_count(view)
        if count is not None:
            lines.append(Content(words("Turn {n} of {total}", n=count[0], total=count[1])))
    if table.status == "open":
        lines.append(Content.styled(words("Waiting for players"), "bold yellow"))
    elif table.status == "reconnecting":
        lines.append(Content.styled(words("Reconnecting…"), "bold yellow"))
    if not table.local and table.spectator:
        lines.append(Content.styled(words("You are watching as a spectator."), MUTED))
    if table.clock is not None:
        seat, left = table.clock
        style = "bold red" if left <= 10 else "bold yellow"
        text = words("{n} seconds left for {name}", n=left, name=table.name(seat))
        lines.append(Content.styled(text, style))
    return [*lines, Content("")]


def player_lines(table: TableState, view: Mapping[str, Any], width: int) -> list[Content]:
    """A line per player: `▶` the mover (places at the end), the name, the total, the tags."""
    words = table.words
    players = view["players"]
    finished = table.finished
    order = view.get("ranking") if finished else range(len(players))
    names = [words.shown_name(str(p["name"])) for p in players]
    name_width = max(6, min(16, max(len(name) for name in names), width - 9))
    lines: list[Content] = []
    for seat in order or []:
        player = players[seat]
        marker = "▶" if seat == table.mover else (f"{player['place']}." if finished else " ")
        tags = []
        if table.is_bot(seat):
            tags.append(words("Bot"))
        if table.is_mine(seat):
            tags.append(words("you"))
        name_text = names[seat][:name_width].ljust(name_width)
        style = "bold" if seat == table.mover else ""
        if seat == table.shown and seat != table.mover:
            style = "italic"
        line = Content.assemble(
            (f"{marker:<2} ", "bold"), (name_text, style), (f" {player['total']:>5}", TITLE)
        )
        tag = Content.styled(" " + ",".join(tags), MUTED)
        if tags and line.cell_length + tag.cell_length <= width:
            line += tag
        lines.append(line)
    return lines


def rematch_lines(table: TableState, width: int) -> list[Content]:
    """At the end of a game of the web app: the rematch on offer, and the key that joins it
    (or asks for it)."""
    words = table.words
    step = table.rematch
    if step is None:
        return []
    lines: list[Content] = []
    if step != "ask":
        lines += wrapped(words("A rematch is ready: same players, same rules."), width, EARNED)
    label = {"ask": "Rematch", "join": "Join the rematch", "watch": "Watch the rematch"}[step]
    return [*lines, Content.styled(f" N: {words(label)} ", "bold reverse")]


def wrapped(text: str, width: int, style: str = "") -> list[Content]:
    """`text` in lines of at most `width` cells, broken at spaces, and inside a word (a token, a
    path) only where it is longer than a line."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > width:
            room = width - len(line) - (1 if line else 0)
            if room < 8:
                lines.append(line)
                line, room = "", width
            line += (" " if line else "") + word[:room]
            word = word[room:]
            lines.append(line)
            line = ""
        if not word:
            continue
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line += (" " if line else "") + word
    if line:
        lines.append(line)
    return [Content.styled(piece, style) for piece in lines if piece]


def home_relative(path: str) -> str:
    """`path` with the home folder written `~` (as a shell reads it; shorter in a narrow panel)."""
    home = str(Path.home())
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


class RejoinPanel(TablePart):
    """Under the dice, in a game of the web app played here: the command that comes back to
    this seat (with its token: whoever closes the terminal can take the seat again), and the
    file that keeps it."""

    def watch_table(self, table: TableState | None) -> None:
        # Once the game is over there is no seat to come back to: the room is the end's.
        self.display = table is not None and table.rejoin is not None and not table.finished

    def draw(self, table: TableState, plan: TableLayout | None) -> Content:
        if table.rejoin is None or plan is None or table.finished:
            return Content("")
        words = table.words
        cut = max(8, self.line_width(plan))
        lines = [Content.styled(words("To come back to it:"), TITLE)]
        lines += wrapped(table.rejoin, cut, MUTED)
        if table.rejoin_path is not None:
            path = home_relative(table.rejoin_path)
            lines += wrapped(words("Kept in {path}", path=path), cut, MUTED)
        return Content("\n").join(lines)


def fair_dice_lines(table: TableState, width: int, *, short: bool = False) -> list[Content]:
    """The dice commitment while playing (on one line, cut, in a short window: the terminal
    checks it by itself at the end); the check of the dice, made here, at the end."""
    words = table.words
    commitment = table.commitment
    if commitment is None:
        return []
    if short and not table.finished:
        line = Content.assemble((words("Dice commitment"), TITLE), " ", (commitment, MUTED))
        return [Content(""), line.truncate(width, ellipsis=True)]
    cut = max(8, width - 2)
    lines = [Content(""), Content.styled(words("Dice commitment"), TITLE)]
    lines += [
        Content.styled(commitment[start : start + cut], MUTED)
        for start in range(0, len(commitment), cut)
    ]
    check = table.dice_check
    if not table.finished:
        return lines
    if check is None:
        lines.append(Content.styled(words("Checking the dice…"), MUTED))
    elif check.ok:
        lines.append(Content.styled(words("Dice verified"), EARNED))
        lines += wrapped(words("All {n} rolls match the commitment.", n=check.rolls), cut)
    elif check.reason == "dice_differ":
        lines.append(Content.styled(words("The dice do not match the commitment"), "bold red"))
        differ = words(
            "Turn {turn}, roll {roll}: the dice differ from the commitment.",
            turn=check.turn,
            roll=check.roll,
        )
        lines += wrapped(differ, cut)
    elif check.reason == "no_seed":
        # A daily challenge's game: its seed, everyone's dice that day, comes when the day ends.
        withheld = words("The seed of a daily challenge is revealed when its day is over.")
        lines += wrapped(withheld, cut, MUTED)
    else:
        lines.append(Content.styled(words("The dice could not be verified"), "bold red"))
        lines.append(Content.styled(check.message, MUTED))
    return lines


def turn_count(view: Mapping[str, Any]) -> tuple[int, int] | None:
    """The round of the player to move and the game's rounds, as every page counts them
    (`dicepoker.view.turn_count`, the web's turns.js): the cells the mover has filled on the
    sheet they play now, plus one, of as many rounds as a sheet has cells. None between turns."""
    turn = view.get("turn")
    if not isinstance(turn, Mapping) or view.get("finished"):
        return None
    rules = view["rules"]
    rounds = len(rules["rows"]) * int(rules["columns"])
    sheet, _ = sheet_of(view, int(turn.get("seat", 0)))
    filled = sum(1 for row in sheet["rows"] for cell in row["cells"] if cell)
    return min(filled + 1, rounds), rounds
