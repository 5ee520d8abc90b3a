"""Score sheets drawn from the view, as `spec/sheet.md` shows them, for a terminal.

Everything here reads the JSON view of `dicepoker.view.game_view` (docs/api.md) and returns lines
of Textual `Content`: no rule is computed here. Marks: `✕` a closed School cell with the reserve
note written there (dim and struck through once a newer note exists), `0` a zero, `—` a struck
cell, `×2` a doubled score, `★ n` an earned star, `★` one still to win, `·` one out of reach.
The cells that may be filled now show in brackets what they would do (`[12 ×2]`, `[✕+4]`, `[—]`,
and a zero as what it costs the total, `[−200]`, the web sheet's figure), and are clickable
(`@click=play_cell(row, choice)`, an action of the widget that draws the sheet). Every mark is a
glyph of its own, never markup: a terminal that draws no struck-through text, or a copy of the
screen, still tells a lost star from one to win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from textual.content import Content

from dicepoker.tui.i18n import Words

ROMAN = ("I", "II", "III", "IV", "V", "VI")

# Styles (named colours, so the sheet reads on any theme and in 16-colour terminals).
LEGAL = "bold green"
SELECTED = "bold reverse green"
STRUCK = "strike dim"
EARNED = "bold yellow"
OPEN_STAR = "yellow"
DOUBLED = "magenta"
ZERO = "bold red"
CROSS = "cyan"
MUTED = "dim"
TITLE = "bold"
CURRENT = "bold reverse"

#: A star still to win, and one out of reach (an earned one is `★` with its value).
OPEN_STAR_MARK = "★"
LOST_STAR = "·"


@dataclass(frozen=True, slots=True)
class SheetLayout:
    """Widths of one drawn sheet: the selection mark, label, each cell and the star column."""

    label: int
    cell: int
    star: int
    columns: int
    compact: bool = False

    @property
    def width(self) -> int:
        star = self.star + 1 if self.star else 0
        return 1 + self.label + (self.cell + 1) * self.columns + star

    @property
    def mini_width(self) -> int:
        star = 4 if self.star else 0
        return (self.cell + 1) * self.columns + star


#: The widest label of a compact sheet (longer ones take their short form).
COMPACT_LABEL = 10


def _labels(view: Mapping[str, Any], words: Words, width: int | None = None) -> list[str]:
    rules = view["rules"]
    if width is None:
        return [words.row(rules["variant"], row["id"]) for row in rules["rows"]]
    return [words.short_row(rules["variant"], row["id"], width) for row in rules["rows"]]


def choose_layout(
    view: Mapping[str, Any], words: Words, width: int, *, squeeze: bool = False
) -> SheetLayout:
    """The roomiest layout of the sheet that fits in `width` cells: normal, else compact (narrower
    cells, labels in their short forms of at most 10 characters). With `squeeze`, labels are cut
    further (never under 8) to fit; without it the compact layout may be wider than `width`."""
    rules = view["rules"]
    columns = int(rules["columns"])
    stars = bool(rules.get("stars"))
    longest = max((cell_len(label) for label in _labels(view, words)), default=8)
    normal = SheetLayout(min(longest, 16), 8, 6 if stars else 0, columns)
    if normal.width <= width:
        return normal
    shortest = max(cell_len(label) for label in _labels(view, words, COMPACT_LABEL))
    compact = SheetLayout(shortest, 6, 4 if stars else 0, columns, True)
    if compact.width <= width or not squeeze:
        return compact
    room = width - (compact.width - compact.label)
    return SheetLayout(max(8, min(shortest, room)), 6, 4 if stars else 0, columns, True)


def _fit(content: Content, width: int) -> Content:
    """`content` cut or padded to exactly `width` cells."""
    if content.cell_length > width:
        content = content.truncate(width, ellipsis=True)
    return content.pad_right(max(0, width - content.cell_length))


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else (f"−{-value}" if value < 0 else "0")


def cell_content(cell: Mapping[str, Any] | None, layout: SheetLayout) -> Content:
    """A filled cell as the sheet writes it (empty cells are blank)."""
    if not cell:
        return Content("")
    mark = cell.get("mark")
    gap = "" if layout.compact else " "
    if mark == "closed":
        if cell.get("note") is None:
            return Content.styled("✕", CROSS)
        if cell.get("note_struck"):
            return Content.assemble(("✕", CROSS), gap, (str(cell["note"]), STRUCK))
        return Content.assemble(("✕", CROSS), gap, (str(cell["note"]), "bold"))
    if mark == "strike":
        return Content.styled("—", MUTED)
    if mark == "zero":
        return Content.styled("0", ZERO)
    parts: list[tuple[str, str] | str] = [str(cell.get("points", 0))]
    if cell.get("doubled"):
        parts += [gap, ("×2", DOUBLED)]
    if cell.get("joker"):
        parts += [gap, ("J", DOUBLED)]
    return Content.assemble(*parts)


def star_content(
    star: Mapping[str, Any] | None, layout: SheetLayout, *, mini: bool = False
) -> Content:
    """A star cell: `★ 88` earned, `★` still to win, `·` out of reach."""
    if not star:
        return Content("")
    status = star.get("status")
    if status == "earned":
        if mini:
            return Content.styled(f"★{star.get('value') or 0}", EARNED)
        gap = "" if layout.compact else " "
        return Content.styled(f"★{gap}{star.get('value') or 0}", EARNED)
    if status == "struck":
        return Content.styled(LOST_STAR, MUTED)
    return Content.styled(OPEN_STAR_MARK, OPEN_STAR)


def option_content(option: Mapping[str, Any], row: Mapping[str, Any], layout: SheetLayout) -> str:
    """What a cell that may be filled now would hold: its points (×2 when doubled), a cross and
    the reserve change for a School row, `—` for a strike, and for a zero what it changes in
    the total (`−200` where the rules charge a zero, as the web sheet writes it), else `0`."""
    verb = option.get("verb")
    if verb == "strike":
        return "—"
    if verb == "zero":
        return _signed(int(option.get("gain") or 0))
    if row.get("school"):
        gain = int(option.get("gain") or 0)
        return "✕" + (_signed(gain) if gain else "")
    text = str(option.get("points", 0))
    if option.get("doubled"):
        text += "×2" if layout.compact else " ×2"
    return text


def options_by_row(legal: Sequence[Mapping[str, Any]] | None) -> dict[str, list[Mapping[str, Any]]]:
    """The legal cell moves grouped by row, each row's main choice first (score, zero, strike)."""
    rank = {"score": 0, "zero": 1, "strike": 2}
    rows: dict[str, list[Mapping[str, Any]]] = {}
    for option in legal or ():
        if option.get("verb") in rank:
            rows.setdefault(str(option["row"]), []).append(option)
    for options in rows.values():
        options.sort(key=lambda option: rank[str(option["verb"])])
    return rows


@dataclass(frozen=True, slots=True)
class Selection:
    """The cell chosen with the arrow keys: a row and which of its moves (index into the row's
    options, main choice first)."""

    row: str
    choice: int = 0


def sheet_of(view: Mapping[str, Any], seat: int) -> tuple[Mapping[str, Any], str | None]:
    """The sheet to draw for `seat`: its tie-break sheet while it plays one, else its sheet."""
    tiebreak = view.get("tiebreak")
    if isinstance(tiebreak, Mapping):
        live = tiebreak.get("sheets", {}).get(str(seat))
        if live is not None:
            return live, str(tiebreak.get("game", 1))
    sheet: Mapping[str, Any] = view["sheets"][seat]
    return sheet, None


def summary_lines(
    sheet: Mapping[str, Any], view: Mapping[str, Any], words: Words, width: int
) -> list[Content]:
    """The sheet's foot: reserve, zeros, cells, bonuses and the total with its sum (School), or
    the total alone."""
    rules = view["rules"]
    b = sheet["breakdown"]
    if not (rules.get("reserve") or rules.get("stars")):
        return [Content.assemble((words("Total"), TITLE), " ", (str(b["total"]), TITLE))]
    formula = str(b["cells"])
    if b.get("stars"):
        formula += f" + {b['stars']}"
    if b.get("reserve"):
        formula += f" + {b['reserve']}"
    if b.get("zero_penalty"):
        formula += f" − {b['zero_penalty']}"
    items = [
        Content.assemble((words("reserve"), MUTED), " ", str(b["reserve"])),
        Content.assemble(
            (words("zeros"), MUTED), " ", (str(b["zeros"]), ZERO if b["zeros"] else "")
        ),
        Content.assemble((words("cells"), MUTED), " ", str(b["cells"])),
        Content.assemble(
            (words("bonuses"), MUTED), " ", (str(b["stars"]), EARNED if b["stars"] else "")
        ),
    ]
    total = Content.assemble(
        (words("total"), MUTED),
        " ",
        f"{formula} = " if formula != str(b["total"]) else "",
        (str(b["total"]), TITLE),
    )
    lines: list[Content] = []
    line = Content("")
    for item in [*items, total]:
        candidate = item if not line.cell_length else line + Content("  ") + item
        if candidate.cell_length > width and line.cell_length:
            lines.append(line)
            line = item
        else:
            line = candidate
    lines.append(line)
    return [_fit(line, width) for line in lines]


def sheet_lines(
    view: Mapping[str, Any],
    seat: int,
    words: Words,
    layout: SheetLayout,
    *,
    legal: Sequence[Mapping[str, Any]] | None = None,
    selection: Selection | None = None,
    current: bool = False,
    mine: bool = False,
    click: bool = True,
    room: int | None = None,
    summary: bool = True,
) -> list[Content]:
    """One player's sheet, full size: a title, the column heads, every row with its star, the
    sections' subtotals and bonuses, the column stars and (with `summary`) the summary. The grid
    is `layout.width` wide; the lines of words may use up to `room` cells (at least that width).
    """
    rules = view["rules"]
    sheet, tiebreak = sheet_of(view, seat)
    columns = layout.columns
    player = view["players"][seat]
    name = words.shown_name(str(player["name"]))
    width = max(layout.width, room or 0)
    lines: list[Content] = []

    title = Content.styled(words("Score sheet of {name}", name=name), TITLE)
    tags: list[str] = []
    if mine and not current:
        tags.append(words("you"))
    if tiebreak:
        tags.append(words("Tie-break game {n}", n=tiebreak))
    if player.get("forfeited"):
        tags.append(words("out of time"))
    if tags:
        title += Content.styled(" · " + " · ".join(tags), MUTED)
    if current:
        title = Content.assemble(("▶ ", CURRENT), title, "  ", (words("to move"), CURRENT))
    if title.cell_length > width and current:
        title = Content.assemble(("▶ ", CURRENT), (name, TITLE), "  ", (words("to move"), CURRENT))
    if title.cell_length > width:
        title = Content.styled(("▶ " if current else "") + name, TITLE)
    lines.append(title.truncate(width, ellipsis=True))

    heads = [
        (ROMAN[c] if c < len(ROMAN) else str(c + 1)) if columns > 1 else words("Points")
        for c in range(columns)
    ]
    head = Content(" " * (1 + layout.label))
    for heading in heads:
        head += Content(" ") + _fit(Content.styled(heading, MUTED), layout.cell)
    if layout.star:
        head += Content(" ") + _fit(Content.styled("★", MUTED), layout.star)
    lines.append(head)

    by_row = options_by_row(legal)
    labels = _labels(view, words, layout.label if layout.compact else None)
    rows = sheet["rows"]
    for index, row in enumerate(rows):
        row_id = str(row["id"])
        options = by_row.get(row_id, [])
        selected = selection is not None and selection.row == row_id and bool(options)
        marker = Content.styled("▸", SELECTED) if selected else Content(" ")
        label_style = "bold" if selected else ("" if options or not legal else MUTED)
        line = marker + _fit(Content.styled(labels[index], label_style), layout.label)
        cells = row["cells"]
        first_empty = next((c for c, cell in enumerate(cells) if not cell), None)
        for column, cell in enumerate(cells):
            if options and column == first_empty:
                choice = selection.choice % len(options) if selected and selection else 0
                option = options[choice]
                style = SELECTED if selected else LEGAL
                if click:
                    style += f" @click=play_cell('{row_id}',{choice})"
                text = Content.styled(f"[{option_content(option, row, layout)}]", style)
            else:
                text = cell_content(cell, layout)
            line += Content(" ") + _fit(text, layout.cell)
        if layout.star:
            line += Content(" ") + _fit(star_content(row.get("star"), layout), layout.star)
        lines.append(line)
        following = rows[index + 1]["section"] if index + 1 < len(rows) else None
        if row["section"] == "upper" and following != "upper" and sheet.get("upper"):
            lines.append(_upper_line(sheet, words, width))

    if layout.star and sheet.get("column_stars"):
        label = Content.styled("★ " + words("column bonus"), MUTED)
        line = Content(" ") + _fit(label, layout.label)
        for star in sheet["column_stars"]:
            line += Content(" ") + _fit(star_content(star, layout), layout.cell)
        lines.append(line)
    if rules.get("yahtzee_bonus"):
        bonus = sheet["breakdown"].get("yahtzee_bonus") or 0
        text = Content.assemble(
            " ", (words("Yahtzee bonus"), MUTED), " ", (str(bonus), EARNED if bonus else "")
        )
        if sheet.get("jokers"):
            text += Content.styled(" · " + words("Jokers: {n}", n=sheet["jokers"]), MUTED)
        lines.append(_fit(text, width))
    if summary:
        lines.extend(summary_lines(sheet, view, words, width))
    return lines


def row_line(view: Mapping[str, Any], seat: int, row_id: str) -> int | None:
    """The index of `row_id`'s line among `sheet_lines` of `seat` (to keep it in sight)."""
    sheet, _ = sheet_of(view, seat)
    rows = sheet["rows"]
    line = 2  # the title and the column heads
    for index, row in enumerate(rows):
        if row["id"] == row_id:
            return line
        line += 1
        following = rows[index + 1]["section"] if index + 1 < len(rows) else None
        if row["section"] == "upper" and following != "upper" and sheet.get("upper"):
            line += 1
    return None


def _upper_line(sheet: Mapping[str, Any], words: Words, width: int) -> Content:
    """The upper section's subtotal and its bonus (what it pays and where, until earned)."""
    upper = sheet["upper"]
    bonus = sheet["breakdown"].get("upper_bonus") or 0
    subtotal = Content.assemble(
        " ", (words("Subtotal"), MUTED), f" {upper['total']}/{upper['threshold']}"
    )
    pays = words("{points} at {threshold}", points=upper["bonus"], threshold=upper["threshold"])
    full = subtotal + Content.assemble(
        "  ", (words("Bonus"), MUTED), " ", (str(bonus), EARNED) if bonus else (pays, MUTED)
    )
    if full.cell_length <= width:
        return full
    short = subtotal + Content.styled(f" +{bonus}", EARNED if bonus else MUTED)
    return short.truncate(width, ellipsis=True)


def mini_sheet_lines(
    view: Mapping[str, Any], seat: int, words: Words, layout: SheetLayout, *, current: bool = False
) -> list[Content]:
    """Another player's sheet, small: the same lines as `sheet_lines` (so rows line up beside a
    full sheet) without labels, previews or wording."""
    rules = view["rules"]
    sheet, _ = sheet_of(view, seat)
    player = view["players"][seat]
    width = layout.mini_width
    name = Content.styled(
        ("▶ " if current else "") + words.shown_name(str(player["name"])),
        CURRENT if current else TITLE,
    )
    lines = [_fit(name, width)]
    head = Content("")
    for c in range(layout.columns):
        text = (ROMAN[c] if c < len(ROMAN) else str(c + 1)) if layout.columns > 1 else "·"
        head += _fit(Content.styled(text, MUTED), layout.cell) + Content(" ")
    lines.append(_fit(head, width))
    small = SheetLayout(0, layout.cell, 3, layout.columns, True)
    rows = sheet["rows"]
    for index, row in enumerate(rows):
        line = Content("")
        for cell in row["cells"]:
            line += _fit(cell_content(cell, small), layout.cell) + Content(" ")
        if layout.star:
            line += _fit(star_content(row.get("star"), small, mini=True), 4)
        lines.append(_fit(line, width))
        following = rows[index + 1]["section"] if index + 1 < len(rows) else None
        if row["section"] == "upper" and following != "upper" and sheet.get("upper"):
            upper = sheet["upper"]
            bonus = sheet["breakdown"].get("upper_bonus") or 0
            lines.append(_fit(Content(f"{upper['total']}/{upper['threshold']} +{bonus}"), width))
    if layout.star and sheet.get("column_stars"):
        line = Content("")
        for star in sheet["column_stars"]:
            line += _fit(star_content(star, small, mini=True), layout.cell) + Content(" ")
        lines.append(_fit(line, width))
    if rules.get("yahtzee_bonus"):
        lines.append(_fit(Content(f"+{sheet['breakdown'].get('yahtzee_bonus') or 0}"), width))
    total = sheet["breakdown"]["total"]
    lines.append(_fit(Content.assemble(("Σ ", MUTED), (str(total), TITLE)), width))
    return lines


def dice_line(
    view: Mapping[str, Any], held: set[int] | frozenset[int], *, click: bool = True, slot: int = 4
) -> Content:
    """The dice in play: `[5]` held, ` 5 ` free, `·` before the first roll; each clickable
    (`@click=toggle_die(n)`, an action of the widget that draws them). As many dice as the
    rules throw, each written with its face's label (`9`, `10`, `J`… in poker dice)."""
    rules = view["rules"]
    turn = view.get("turn") or {}
    labels = rules["face_labels"]
    dice = turn.get("dice") or []
    count = int(rules["dice"])
    parts = Content("")
    for position in range(count):
        if position < len(dice):
            face = str(labels[int(dice[position]) - 1])
            is_held = position in held
            text = f"[{face}]" if is_held else f" {face} "
            style = "bold reverse" if is_held else "bold"
        else:
            text, style = " · ", MUTED
        if click and position < len(dice):
            style += f" @click=toggle_die({position})"
        parts += Content.styled(text.center(slot), style)
        if slot > 3:
            parts += Content(" ")
    return parts.rstrip()


def keys_line(count: int, slot: int = 4) -> Content:
    """The key under each of `count` dice: 1 2 3 4 5."""
    gap = " " if slot > 3 else ""
    return Content.styled(gap.join(str(n + 1).center(slot) for n in range(count)), MUTED)
