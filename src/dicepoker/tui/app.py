"""The Textual app of `dicepoker play`: a setup screen, the table, and the save dialog.

The table draws only the session's view (docs/api.md) and sends only action text, so it works
the same for a game played here and a game of the web app. Keys: 1-5 (or clicks) hold dice, R
rolls, the arrows choose a cell (left/right: score, strike or zero in that row), Enter fills it,
X strikes it, H shows the hints, S saves the record, L changes the language, Tab shows the other
sheets, Q quits.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, cast

from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.content import Content
from textual.events import Resize
from textual.reactive import Reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from dicepoker.bots import LEVELS
from dicepoker.dice import DiceSource
from dicepoker.rules import PRESETS, Rules, RulesError, get_rules
from dicepoker.tui.hints import Advisor, Hint, current_advisor
from dicepoker.tui.i18n import LANG_NAMES, LANGS, Words, next_lang
from dicepoker.tui.session import (
    ActionRefused,
    LocalSession,
    SeatChoice,
    SeatError,
    Session,
    Update,
)
from dicepoker.tui.sheet import (
    EARNED,
    MUTED,
    SELECTED,
    TITLE,
    Selection,
    SheetLayout,
    choose_layout,
    dice_line,
    keys_line,
    mini_sheet_lines,
    options_by_row,
    sheet_lines,
)

#: Narrowest side panel (players, dice, hints) beside the sheet; below it when narrower.
SIDE_MIN = 20
#: Width kept for the side panel when there is room to spare (for the other sheets, the words).
SIDE_WIDE = 34
#: Seats offered by the setup screen.
MAX_SEATS = 4
#: Seconds a notice stays in the status line.
NOTICE_SECONDS = 6.0
#: Options that only make sense on a server (a turn clock needs someone to keep time).
SERVER_ONLY_OPTIONS = frozenset({"turn_seconds"})


class Pane(ScrollableContainer, can_focus=False):
    """A scrolling area that leaves every key to the table."""


class SidePane(VerticalScroll, can_focus=False):
    """The side panel: players, dice, hints."""


class Board(Static):
    """Text with clickable parts that keep their own colours (no link styling)."""

    auto_links = Reactive(False)


@dataclass
class SetupChoice:
    """What the setup screen gives back: the rules and who sits where."""

    rules: Rules
    seats: list[SeatChoice]


@dataclass
class SetupDefaults:
    """What the setup screen shows first (from the command line)."""

    preset: str = "school"
    options: dict[str, bool | int] = field(default_factory=dict)
    seats: list[SeatChoice] = field(
        default_factory=lambda: [SeatChoice("human"), SeatChoice("bot", None, "greedy")]
    )


def action_words(words: Words, view: Mapping[str, Any], action: str) -> str:
    """An action in the player's words: `score pair` -> `score Pair`, `hold 0 1` -> `hold 1 2`."""
    preset = str(view["rules"]["preset"])
    verb, _, rest = action.partition(" ")
    if verb == "roll":
        return words("roll")
    if verb == "hold":
        return f"{words('hold')} " + " ".join(str(int(p) + 1) for p in rest.split())
    if verb == "score":
        return words("score {row}", row=words.row(preset, rest))
    if verb == "strike":
        return words("strike {row}", row=words.row(preset, rest))
    if verb == "zero":
        return words("zero in {row}", row=words.row(preset, rest))
    return action


def _number(value: float) -> str:
    if float(value).is_integer():
        number = int(value)
        return f"+{number}" if number > 0 else (f"−{-number}" if number < 0 else "0")
    return f"{value:+.1f}".replace("-", "−")


# --- the save dialog -----------------------------------------------------------------------------


class SaveScreen(ModalScreen[str | None]):
    """Asks where to write the record; Enter saves, Escape cancels."""

    DEFAULT_CSS = """
    SaveScreen { align: center middle; }
    SaveScreen > Vertical {
        width: 70; max-width: 100%; height: auto; padding: 1 2;
        border: round $accent; background: $surface;
    }
    SaveScreen Input { margin: 1 0 0 0; }
    SaveScreen #save-help { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, words: Words, default: str) -> None:
        super().__init__()
        self.words = words
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(self.words("Save the game as:"), id="save-title")
            yield Input(self.default, id="save-path", compact=True)
            yield Label(self.words("Enter saves, Escape cancels."), id="save-help")

    @on(Input.Submitted, "#save-path")
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


# --- the setup screen -----------------------------------------------------------------------------


class SetupScreen(Screen[SetupChoice]):
    """Choose a preset and its options, 1-4 seats (people or bots) and the language."""

    DEFAULT_CSS = """
    SetupScreen { align: center top; }
    SetupScreen > VerticalScroll { width: 78; max-width: 100%; height: 1fr; padding: 0 1; }
    SetupScreen .title { text-style: bold; margin: 1 0 0 0; }
    SetupScreen .heading { text-style: bold; color: $accent; margin: 1 0 0 0; }
    SetupScreen Horizontal { height: auto; margin: 0 0 0 0; }
    SetupScreen .field { width: 12; padding: 0 1 0 0; }
    SetupScreen .wide-field { width: 28; padding: 0 1 0 0; }
    SetupScreen Select { width: 26; margin: 0 1 0 0; }
    SetupScreen #preset { width: 26; }
    SetupScreen #lang { width: 16; }
    SetupScreen .num { width: 3; }
    SetupScreen Input { width: 26; }
    SetupScreen .opt-input { width: 8; }
    SetupScreen Checkbox { margin: 0 2 0 0; }
    SetupScreen #options { height: auto; }
    SetupScreen #start { margin: 1 0 0 0; }
    SetupScreen #setup-error { color: $error; height: auto; }
    SetupScreen #setup-help { color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", show=False),
        Binding("escape", "app.quit", show=False),
    ]

    def __init__(self, defaults: SetupDefaults) -> None:
        super().__init__()
        self.defaults = defaults

    @property
    def words(self) -> Words:
        return cast(PlayApp, self.app).words

    def compose(self) -> ComposeResult:
        words = self.words
        defaults = self.defaults
        with VerticalScroll():
            yield Label(
                words("Dice poker") + " — " + words("New game"), classes="title", id="setup-title"
            )
            with Horizontal():
                yield Label(words("Game"), classes="field", id="game-label")
                yield Select(
                    self._preset_options(),
                    value=defaults.preset,
                    allow_blank=False,
                    compact=True,
                    id="preset",
                )
                yield Label(words("Language"), classes="field", id="lang-label")
                yield Select(
                    [(LANG_NAMES[lang], lang) for lang in ("es", "pt", "en")],
                    value=cast(PlayApp, self.app).lang,
                    allow_blank=False,
                    compact=True,
                    id="lang",
                )
            yield Label(words("Options"), classes="heading", id="options-label")
            yield Vertical(id="options")
            yield Label(words("Players"), classes="heading", id="players-label")
            for n in range(MAX_SEATS):
                seat = defaults.seats[n] if n < len(defaults.seats) else None
                with Horizontal():
                    yield Label(f"{n + 1}.", classes="num")
                    yield Select(
                        self._kind_options(n),
                        value=self._kind_value(seat),
                        allow_blank=False,
                        compact=True,
                        id=f"kind-{n}",
                    )
                    yield Input(
                        (seat.name or "") if seat else "",
                        placeholder=words("Name of player {n}", n=n + 1),
                        compact=True,
                        id=f"name-{n}",
                        max_length=40,
                    )
            yield Button(words("Start the game"), variant="primary", compact=True, id="start")
            yield Static("", id="setup-error")
            yield Label(words("Tab moves between fields; Enter starts the game."), id="setup-help")

    def on_mount(self) -> None:
        self._build_options(self.defaults.preset, self.defaults.options)
        self.query_one("#name-0", Input).focus()

    # --- choices ------------------------------------------------------------------------------

    def _preset_options(self) -> list[tuple[str, str]]:
        return [(self.words.preset(name), name) for name in PRESETS]

    def _kind_options(self, n: int) -> list[tuple[str, str]]:
        words = self.words
        options = [(words("Person"), "human")]
        options += [(f"{words('Bot')}: {words.level(level)}", f"bot:{level}") for level in LEVELS]
        if n > 0:
            options.append((words("Nobody"), "none"))
        return options

    @staticmethod
    def _kind_value(seat: SeatChoice | None) -> str:
        if seat is None:
            return "none"
        return f"bot:{seat.level}" if seat.kind == "bot" else "human"

    def _build_options(self, preset: str, values: Mapping[str, bool | int]) -> None:
        box = self.query_one("#options", Vertical)
        box.remove_children()
        words = self.words
        rows: list[Horizontal] = []
        for spec in PRESETS[preset].options:
            if spec.name in SERVER_ONLY_OPTIONS:
                continue
            value = values.get(spec.name, spec.default)
            if spec.kind is bool:
                widget: Checkbox | Input = Checkbox(
                    words.option(spec.name), bool(value), compact=True, id=f"opt-{spec.name}"
                )
                rows.append(Horizontal(widget))
            else:
                limits = f" ({spec.minimum}–{spec.maximum})" if spec.maximum is not None else ""
                widget = Input(
                    "" if value is None else str(value),
                    type="integer",
                    compact=True,
                    id=f"opt-{spec.name}",
                    classes="opt-input",
                )
                rows.append(
                    Horizontal(
                        Label(words.option(spec.name) + limits + " ", classes="wide-field"), widget
                    )
                )
        if not rows:
            rows.append(Horizontal(Label(words("No options."), classes="wide-field")))
        box.mount_all(rows)

    def _options(self, preset: str) -> dict[str, bool | int]:
        values: dict[str, bool | int] = {}
        for spec in PRESETS[preset].options:
            if spec.name in SERVER_ONLY_OPTIONS:
                continue
            widgets = self.query(f"#opt-{spec.name}")
            if not widgets:
                continue
            widget = widgets.first()
            if isinstance(widget, Checkbox):
                values[spec.name] = widget.value
            elif isinstance(widget, Input):
                text = widget.value.strip()
                if text:
                    try:
                        values[spec.name] = int(text)
                    except ValueError:
                        raise RulesError(f"{self.words.option(spec.name)}: {text!r}") from None
        return values

    @on(Select.Changed, "#preset")
    def _preset_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self._build_options(event.value, {})

    @on(Select.Changed, "#lang")
    def _lang_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != cast(PlayApp, self.app).lang:
            cast(PlayApp, self.app).set_lang(event.value)

    def relabel(self) -> None:
        """Write every label again in the current language, keeping the choices made."""
        words = self.words
        self.query_one("#setup-title", Label).update(
            words("Dice poker") + " — " + words("New game")
        )
        self.query_one("#game-label", Label).update(words("Game"))
        self.query_one("#lang-label", Label).update(words("Language"))
        self.query_one("#options-label", Label).update(words("Options"))
        self.query_one("#players-label", Label).update(words("Players"))
        self.query_one("#start", Button).label = words("Start the game")
        self.query_one("#setup-help", Label).update(
            words("Tab moves between fields; Enter starts the game.")
        )
        preset = self.query_one("#preset", Select)
        value = preset.value
        with preset.prevent(Select.Changed):
            preset.set_options(self._preset_options())
            preset.value = value
        for n in range(MAX_SEATS):
            kind = self.query_one(f"#kind-{n}", Select)
            chosen = kind.value
            kind.set_options(self._kind_options(n))
            kind.value = chosen
            self.query_one(f"#name-{n}", Input).placeholder = words("Name of player {n}", n=n + 1)
        if isinstance(value, str):
            try:
                current = self._options(value)
            except RulesError:
                current = {}
            self._build_options(value, current)

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Input.Submitted)
    def _field_submitted(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        error = self.query_one("#setup-error", Static)
        preset = self.query_one("#preset", Select).value
        if not isinstance(preset, str):
            return
        try:
            rules = get_rules(preset, self._options(preset))
        except RulesError as exc:
            error.update(str(exc))
            return
        seats: list[SeatChoice] = []
        for n in range(MAX_SEATS):
            kind = self.query_one(f"#kind-{n}", Select).value
            name = self.query_one(f"#name-{n}", Input).value.strip() or None
            if kind == "human":
                seats.append(SeatChoice("human", name))
            elif isinstance(kind, str) and kind.startswith("bot:"):
                seats.append(SeatChoice("bot", name, kind.split(":", 1)[1]))
        if not rules.min_players <= len(seats) <= rules.max_players:
            error.update(
                self.words(
                    "{game} is played by {low} to {high} players.",
                    game=self.words.preset(preset),
                    low=rules.min_players,
                    high=rules.max_players,
                )
            )
            return
        self.dismiss(SetupChoice(rules, seats))


# --- the table ------------------------------------------------------------------------------------


class GameScreen(Screen[None]):
    """The table: the sheet of the player to move (or yours), the others, the dice, the hints."""

    DEFAULT_CSS = """
    GameScreen { layout: vertical; }
    GameScreen #body { height: 1fr; layout: horizontal; }
    GameScreen #body.narrow { layout: vertical; overflow-y: auto; }
    GameScreen #sheet-pane { width: auto; height: 1fr; }
    GameScreen #body.narrow #sheet-pane { height: auto; width: 100%; }
    GameScreen #sheet { width: auto; height: auto; }
    GameScreen #others { width: auto; height: auto; padding: 0 0 0 2; display: none; }
    GameScreen #others.shown { display: block; }
    GameScreen #side { width: 1fr; min-width: 20; height: 1fr; padding: 0 0 0 2; }
    GameScreen #body.narrow #side { height: auto; width: 100%; padding: 1 0 0 0; }
    GameScreen #info, GameScreen #dice, GameScreen #hints { height: auto; }
    GameScreen #dice { margin: 1 0 0 0; }
    GameScreen #hints { margin: 1 0 0 0; }
    GameScreen #status { height: 1; padding: 0 1; background: $boost; }
    GameScreen #dicebar { height: 1; padding: 0 1; display: none; }
    GameScreen #dicebar.shown { display: block; }
    GameScreen #keys { height: 1; padding: 0 1; color: $text-muted; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "roll", show=False),
        *[Binding(str(n + 1), f"toggle_die({n})", show=False) for n in range(6)],
        Binding("up,k", "cursor(-1)", show=False),
        Binding("down,j", "cursor(1)", show=False),
        Binding("left", "choice(-1)", show=False),
        Binding("right", "choice(1)", show=False),
        Binding("enter,space", "fill", show=False),
        Binding("x,delete", "strike", show=False),
        Binding("h,question_mark", "hints", show=False),
        Binding("s", "save", show=False),
        Binding("l", "language", show=False),
        Binding("tab", "next_sheet(1)", show=False),
        Binding("shift+tab", "next_sheet(-1)", show=False),
        Binding("q", "quit_game", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
    ]

    def __init__(self, session: Session, *, show_hints: bool = False) -> None:
        super().__init__()
        self.session = session
        self.held: set[int] = set()
        self.selection: Selection | None = None
        self.viewing: int | None = None
        self.show_hints = show_hints
        self.notice: tuple[str, str] | None = None
        self._notice_serial = 0
        self._turn_key: tuple[Any, ...] | None = None
        self._rolls: int | None = None
        self._quit_armed = False
        self._armed: str | None = None
        self.side_width = 30
        self.layout_info: tuple[SheetLayout, bool, bool] | None = None

    @property
    def play_app(self) -> PlayApp:
        return cast(PlayApp, self.app)

    @property
    def words(self) -> Words:
        return self.play_app.words

    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Pane(id="sheet-pane"):
                yield Board(id="sheet")
            yield Static(id="others")
            with SidePane(id="side"):
                yield Static(id="info")
                yield Board(id="dice")
                yield Static(id="hints")
        yield Board(id="dicebar")
        yield Static(id="status")
        yield Static(id="keys")

    async def on_mount(self) -> None:
        self.session.subscribe(self._session_update)
        self.render_all()
        self.set_interval(1.0, self._tick)
        await self.session.start()

    def _tick(self) -> None:
        """Redraw once a second while a turn clock runs (a game of the web app)."""
        if self.session.clock is not None:
            self.render_all()

    def on_resize(self, event: Resize) -> None:
        self.render_all()

    # --- updates from the session ---------------------------------------------------------------

    def _session_update(self, update: Update) -> None:
        if update.kind == "error":
            self.say(self.words(update.message), "error")
        elif update.kind == "notice":
            self.say(self.words(update.message), "notice")
        if self.is_mounted:
            self.render_all()

    def say(self, text: str, kind: str = "notice") -> None:
        """Show `text` in the status line for a while."""
        self.notice = (text, kind)
        self._notice_serial += 1
        serial = self._notice_serial

        def expire() -> None:
            if self._notice_serial == serial:
                self.notice = None
                if self.is_mounted:
                    self.render_all()

        if self.is_mounted:
            self.set_timer(NOTICE_SECONDS, expire)
            self.render_all()

    # --- state of the table -----------------------------------------------------------------------

    @property
    def view(self) -> dict[str, Any] | None:
        return self.session.view

    def _sync_turn(self, view: Mapping[str, Any]) -> None:
        turn = view.get("turn") or {}
        key = (view.get("turn_number"), turn.get("seat"), (view.get("tiebreak") or {}).get("game"))
        if key != self._turn_key:
            self._turn_key = key
            self.held.clear()
            self.selection = None
            self.viewing = None
            self._rolls = None
            self._armed = None
        rolls = turn.get("rolls")
        if rolls != self._rolls:
            self._rolls = rolls
            self.selection = None
            self._armed = None
            if not rolls:
                self.held.clear()
        rows = self._legal_rows()
        if rows and (self.selection is None or self.selection.row not in rows):
            self.selection = Selection(self._best_row(rows))
        elif not rows:
            self.selection = None

    @staticmethod
    def _best_row(rows: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
        """The row whose main move gains most now (the first such row in sheet order): where the
        cursor starts, so that Enter never throws points away by surprise."""
        best, best_gain = next(iter(rows)), float("-inf")
        for row, options in rows.items():
            gain = float(options[0].get("gain") or 0)
            if gain > best_gain:
                best, best_gain = row, gain
        return best

    def _legal(self) -> list[dict[str, Any]]:
        view = self.view
        if view is None or not self.session.my_turn:
            return []
        legal: list[dict[str, Any]] = view.get("turn", {}).get("legal", [])
        return legal

    def _legal_rows(self) -> dict[str, list[Mapping[str, Any]]]:
        return options_by_row(self._legal())

    def shown_seat(self) -> int:
        """Whose sheet is drawn full size."""
        view = self.view
        assert view is not None
        count = len(view["players"])
        if self.viewing is not None and 0 <= self.viewing < count:
            return self.viewing
        return self.auto_seat()

    def auto_seat(self) -> int:
        mover = self.session.seat_to_move
        home = self.session.home_seat
        if mover is not None and (home is None or self.session.local):
            return mover
        if home is not None:
            return home
        if mover is not None:
            return mover
        view = self.view
        ranking = view.get("ranking") if view else None
        return int(ranking[0]) if ranking else 0

    def _display_held(self) -> set[int]:
        """The dice drawn held: your choice on your turn, else what the mover kept last roll."""
        if self.session.my_turn:
            return self.held
        last = self.session.last_action
        mover = self.session.seat_to_move
        if last is not None and last[0] == mover and last[1].startswith("hold "):
            return {int(p) for p in last[1].split()[1:]}
        return set()

    # --- drawing --------------------------------------------------------------------------------

    def render_all(self) -> None:
        if not self.is_mounted:
            return
        view = self.view
        words = self.words
        sheet = self.query_one("#sheet", Board)
        if view is None:
            sheet.update(self._waiting_words())
            self.query_one("#status", Static).update(self._status_line())
            self.query_one("#keys", Static).update(self._keys_line())
            return
        self._sync_turn(view)
        width = max(self.size.width, 20)
        seat = self.shown_seat()
        mover = self.session.seat_to_move
        beside = width - SIDE_MIN - 2
        layout = choose_layout(view, words, beside)
        narrow = layout.width > beside
        others = [s for s in range(len(view["players"])) if s != seat]
        minis = len(others) * (layout.mini_width + 2)
        show_others = False
        if narrow:
            layout = choose_layout(view, words, width - 2, squeeze=True)
            room = width - 2
        else:
            show_others = bool(others) and width - layout.width - SIDE_WIDE - minis >= 0
            room = width - SIDE_WIDE - (minis if show_others else 0)
            room = max(layout.width, min(room, beside))
        self.layout_info = (layout, narrow, show_others)
        self.query_one("#body").set_class(narrow, "narrow")

        legal = self._legal() if seat == mover else []
        lines = sheet_lines(
            view,
            seat,
            words,
            layout,
            legal=legal,
            selection=self.selection,
            current=seat == mover,
            mine=not self.session.local and self.session.controls(seat),
            room=room,
        )
        sheet.update(Content("\n").join(lines))
        sheet_width = max(line.cell_length for line in lines)
        sheet.styles.width = sheet_width

        others_box = self.query_one("#others", Static)
        others_box.set_class(show_others, "shown")
        if show_others:
            blocks = [
                mini_sheet_lines(view, other, words, layout, current=other == mover)
                for other in others
            ]
            height = max(len(block) for block in blocks)
            rows = []
            for y in range(height):
                row = Content("")
                for block in blocks:
                    piece = block[y] if y < len(block) else Content("")
                    row += piece.pad_right(layout.mini_width + 2 - piece.cell_length)
                rows.append(row)
            others_box.update(Content("\n").join(rows))

        if narrow:
            self.side_width = width - 1
        else:
            used = sheet_width + (minis + 2 if show_others else 0)
            self.side_width = max(10, width - used - 2 - 1)
        side_width = self.side_width
        info = self._info(view, mover)
        self.query_one("#info", Static).update(
            Content("\n").join(line.truncate(side_width, ellipsis=True) for line in info)
        )
        self.query_one("#dice", Board).update(self._dice(view))
        dicebar = self.query_one("#dicebar", Board)
        bar = self._dice_bar(view) if narrow else None
        dicebar.set_class(bar is not None, "shown")
        if bar is not None:
            dicebar.update(bar)
        hints = self.query_one("#hints", Static)
        hints.display = self.show_hints
        if self.show_hints:
            hints.update(self._hints(view))
        self.query_one("#status", Static).update(self._status_line())
        self.query_one("#keys", Static).update(self._keys_line())

    def _waiting_words(self) -> str:
        status = self.session.status
        if status == "closed" and self.session.fatal:
            return self.words(self.session.fatal)
        return self.words("Reconnecting…" if status == "reconnecting" else "Connecting…")

    def _info(self, view: Mapping[str, Any], mover: int | None) -> list[Content]:
        words = self.words
        rules = view["rules"]
        preset = str(rules["preset"])
        lines: list[Content] = []
        name = words.preset(preset)
        if rules.get("columns", 1) > 1:
            name += " · " + words("Columns: {n}", n=rules["columns"])
        lines.append(Content.styled(name, TITLE))
        if self.session.title:
            lines.append(Content.styled(self.session.title, MUTED))
        players = view["players"]
        rows_per_sheet = len(rules["rows"]) * int(rules.get("columns", 1))
        tiebreak = view.get("tiebreak")
        if view.get("finished"):
            lines.append(Content.styled(words("Game over"), EARNED))
        elif tiebreak:
            lines.append(Content(words("Tie-break game {n}", n=tiebreak.get("game", 1))))
        else:
            n = int(view.get("turn_number", 0)) // max(1, len(players)) + 1
            lines.append(
                Content(
                    words("Turn {n} of {total}", n=min(n, rows_per_sheet), total=rows_per_sheet)
                )
            )
        if self.session.status == "open":
            lines.append(Content.styled(words("Waiting for players"), "bold yellow"))
        elif self.session.status == "reconnecting":
            lines.append(Content.styled(words("Reconnecting…"), "bold yellow"))
        if not self.session.local and self.session.spectator:
            lines.append(Content.styled(words("You are watching as a spectator."), MUTED))
        clock = self.session.clock
        if clock is not None and not view.get("finished"):
            left = max(0, int(float(clock.get("deadline", 0)) / 1000 - time.time() + 0.999))
            seat = int(clock.get("seat", 0))
            if 0 <= seat < len(view["players"]):
                who = view["players"][seat]["name"]
                style = "bold red" if left <= 10 else "bold yellow"
                lines.append(
                    Content.styled(words("{n} seconds left for {name}", n=left, name=who), style)
                )
        lines.append(Content(""))
        finished = bool(view.get("finished"))
        order = view.get("ranking") if finished else range(len(players))
        shown = self.shown_seat()
        name_width = max(6, min(16, max(len(str(p["name"])) for p in players), self.side_width - 9))
        for seat in order or []:
            player = players[seat]
            marker = "▶" if seat == mover else (f"{player['place']}." if finished else " ")
            tags = []
            if self.session.is_bot(seat):
                tags.append(words("Bot"))
            if not self.session.local and self.session.controls(seat):
                tags.append(words("you"))
            name_text = str(player["name"])[:name_width].ljust(name_width)
            style = "bold" if seat == mover else ""
            if seat == shown and seat != mover:
                style = "italic"
            line = Content.assemble(
                (f"{marker:<2} ", "bold"),
                (name_text, style),
                (f" {player['total']:>5}", TITLE),
            )
            tag = Content.styled(" " + ",".join(tags), MUTED)
            if tags and line.cell_length + tag.cell_length <= self.side_width:
                line += tag
            lines.append(line)
        if finished:
            lines.append(Content(""))
            lines.append(Content.styled(self._result_words(view), EARNED))
        lines += self._fair_dice_lines(finished)
        return lines

    def _fair_dice_lines(self, finished: bool) -> list[Content]:
        """The dice commitment while playing; the check of the dice, made here, at the end."""
        words = self.words
        fair = self.session.fair_dice
        if not fair or not isinstance(fair.get("commitment"), str):
            return []
        commitment = str(fair["commitment"])
        width = max(8, self.side_width - 2)
        lines = [Content(""), Content.styled(words("Dice commitment"), TITLE)]
        lines += [
            Content.styled(commitment[start : start + width], MUTED)
            for start in range(0, len(commitment), width)
        ]
        check = self.session.dice_check
        if not finished:
            return lines
        if check is None:
            lines.append(Content.styled(words("Checking the dice…"), MUTED))
        elif check.ok:
            lines.append(Content.styled(words("Dice verified"), EARNED))
            lines.append(Content(words("All {n} rolls match the commitment.", n=check.rolls)))
        elif check.reason == "dice_differ":
            lines.append(Content.styled(words("The dice do not match the commitment"), "bold red"))
            lines.append(
                Content(
                    words(
                        "Turn {turn}, roll {roll}: the dice differ from the commitment.",
                        turn=check.turn,
                        roll=check.roll,
                    )
                )
            )
        else:
            lines.append(Content.styled(words("The dice could not be verified"), "bold red"))
            lines.append(Content.styled(check.message, MUTED))
        return lines

    def _result_words(self, view: Mapping[str, Any]) -> str:
        winner = view.get("winner")
        if winner is None:
            return self.words("A tie for first place!")
        return self.words("{name} wins!", name=view["players"][winner]["name"])

    def _dice(self, view: Mapping[str, Any]) -> Content:
        words = self.words
        turn = view.get("turn")
        if view.get("finished") or not turn:
            return Content("")
        rules = view["rules"]
        lines: list[Content] = []
        rolls = int(turn.get("rolls", 0))
        total = int(rules.get("rolls_per_turn", 3))
        head = (
            words("roll {n} of {total}", n=rolls, total=total) if rolls else words("roll the dice")
        )
        lines.append(Content.styled(words("Dice"), TITLE) + Content.styled(" · " + head, MUTED))
        mine = self.session.my_turn
        slot = 4 if self.side_width >= 24 else 3
        lines.append(dice_line(view, self._display_held(), click=mine, slot=slot))
        if mine and rolls:
            lines.append(keys_line(int(rules.get("dice", 5)), slot))
        if mine and turn.get("can_roll"):
            button = Content.styled(f" R: {words('Roll')} ", "bold reverse @click=app.roll")
            lines.append(button)
        last = self.session.last_action
        if last is not None and last[0] < len(view["players"]):
            who = view["players"][last[0]]["name"]
            lines.append(
                Content.styled(f"{words('Last move')}: ", MUTED)
                + Content(f"{who}: {action_words(words, view, last[1])}")
            )
        return Content("\n").join(lines)

    def _dice_bar(self, view: Mapping[str, Any]) -> Content | None:
        """The dice on one line under the sheet, for windows too narrow for the side panel."""
        turn = view.get("turn")
        if view.get("finished") or not turn:
            return None
        rules = view["rules"]
        rolls = int(turn.get("rolls", 0))
        mine = self.session.my_turn
        head = Content.styled(f"{self.words('Dice')} ", TITLE)
        dice = dice_line(view, self._display_held(), click=mine, slot=3)
        count = f" {rolls}/{rules.get('rolls_per_turn', 3)}"
        return head + dice + Content.styled(count, MUTED)

    def action_page(self, direction: int) -> None:
        """Scroll the table (useful when the side panel sits below the sheet)."""
        body = self.query_one("#body")
        target = body if body.has_class("narrow") else self.query_one("#side")
        if direction > 0:
            target.scroll_page_down()
        else:
            target.scroll_page_up()

    def _hints(self, view: Mapping[str, Any]) -> Content:
        words = self.words
        advisor = self.play_app.advisor
        state = self.session.state if isinstance(self.session, LocalSession) else None
        hints: Sequence[Hint] = (
            advisor(dict(view), state) if self.session.seat_to_move is not None else []
        )
        lines = [
            Content.styled(words("Hints"), TITLE)
            + Content.styled(" · " + words(advisor.title), MUTED)
        ]
        if not hints:
            lines.append(
                Content.styled(words("Nothing to value now: roll the dice."), MUTED)
                if view.get("turn") and not view["turn"].get("rolls")
                else Content.styled(words("No hints now."), MUTED)
            )
        best = hints[0].value if hints else 0.0
        # Gains are signed (+12); an advisor with `signed = False` gives scores (247.1).
        signed = bool(getattr(advisor, "signed", True))
        for hint in hints:
            label = action_words(words, view, hint.action)
            points = ""
            if hint.points is not None and hint.action.startswith("score"):
                points = f" {hint.points}" + (" ×2" if hint.doubled else "")
            line = Content.assemble((label, "bold" if hint.value == best else ""), (points, MUTED))
            text = _number(hint.value) if signed else f"{hint.value:.1f}".replace("-", "−")
            value = Content.styled(text, EARNED if hint.value == best else "")
            column = max(2, min(26, self.side_width - len(text) - 3))  # room for a scrollbar
            line = line.truncate(column - 1, ellipsis=True)
            lines.append(line.pad_right(max(1, column - line.cell_length)) + value)
        return Content("\n").join(lines)

    def _status_line(self) -> Content:
        words = self.words
        if self.notice is not None:
            text, kind = self.notice
            return Content.styled(text, "bold red" if kind == "error" else "bold yellow")
        session = self.session
        view = self.view
        if view is None:
            return Content(self._waiting_words())
        if view.get("finished"):
            return Content.styled(
                self._result_words(view) + "  " + words("S saves the record, Q quits."), EARNED
            )
        if session.status == "open":
            return Content(words("The game starts when every seat is taken."))
        mover = session.seat_to_move
        if mover is None:
            return Content("")
        name = str(view["players"][mover]["name"])
        if session.my_turn:
            turn = view["turn"]
            if not turn.get("rolls"):
                help_text = words("R rolls the dice.")
            elif turn.get("can_roll"):
                help_text = words("1-5 hold dice, R rolls again, arrows and Enter fill a cell.")
            else:
                help_text = words("Arrows and Enter fill a cell, X strikes it.")
            return Content.assemble(
                (words("{name}, your turn", name=name), SELECTED), " ", help_text
            )
        if session.is_bot(mover):
            return Content(words("{name} (bot) is playing…", name=name))
        return Content(words("{name} is playing…", name=name))

    def _keys_line(self) -> Content:
        words = self.words
        width = max(20, self.size.width - 2)
        keys = [
            ("R", words("key.roll")),
            ("1-5", words("key.hold")),
            ("↑↓ ↵", words("key.fill")),
            ("X", words("key.strike")),
            ("H", words("key.hints")),
            ("S", words("key.save")),
            ("Q", words("key.quit")),
            ("L", words("key.language")),
            ("Tab", words("key.sheets")),
        ]
        view = self.view
        if view is None or view.get("finished") or not self.session.my_turn:
            keys = [key for key in keys if key[0] in {"S", "Q", "L", "Tab", "H"}]
        line = Content("")
        for key, label in keys:
            piece = Content.assemble((key, "bold"), " ", label)
            candidate = piece if not line.cell_length else line + Content("  ") + piece
            if candidate.cell_length > width:
                break
            line = candidate
        return line

    # --- actions ----------------------------------------------------------------------------------

    def _why_not(self) -> str:
        session = self.session
        view = self.view
        if view is None:
            return self._waiting_words()
        if view.get("finished"):
            return self.words("The game is over.")
        if not session.local and session.spectator:
            return self.words("Spectators cannot play.")
        if session.status == "open":
            return self.words("The game starts when every seat is taken.")
        if session.status != "running":
            return self._waiting_words()
        mover = session.seat_to_move
        if mover is not None and session.is_bot(mover):
            return self.words("{name} (bot) is playing…", name=view["players"][mover]["name"])
        return self.words("It is not your turn.")

    async def _act(self, action: str) -> None:
        self.notice = None
        try:
            await self.session.act(action)
        except ActionRefused as exc:
            self.say(self.words(exc.message), "error")
        self.render_all()

    async def action_roll(self) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        turn = view["turn"]
        if not turn.get("can_roll"):
            self.say(self.words("You cannot roll now."), "error")
            return
        if not turn.get("rolls"):
            await self._act("roll")
            return
        keep = sorted(self.held)
        if len(keep) >= int(view["rules"].get("dice", 5)):
            self.say(self.words("Release at least one die to roll."), "error")
            return
        await self._act("hold " + " ".join(map(str, keep)) if keep else "roll")

    def action_toggle_die(self, position: int) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        turn = view["turn"]
        if position >= int(view["rules"].get("dice", 5)):
            return
        if not turn.get("rolls"):
            self.say(self.words("R rolls the dice."), "error")
            return
        if not turn.get("can_hold"):
            self.say(self.words("No rolls left: choose a cell."), "error")
            return
        self.held.symmetric_difference_update({position})
        self.notice = None
        self.render_all()

    def action_cursor(self, delta: int) -> None:
        rows = list(self._legal_rows())
        if not rows:
            if self.view is not None and not self.session.my_turn:
                self.say(self._why_not(), "error")
            return
        self._armed = None
        index = (
            rows.index(self.selection.row)
            if self.selection and self.selection.row in rows
            else -delta
        )
        self.selection = Selection(rows[(index + delta) % len(rows)])
        self.render_all()

    def action_choice(self, delta: int) -> None:
        rows = self._legal_rows()
        if self.selection is None or self.selection.row not in rows:
            return
        self._armed = None
        count = len(rows[self.selection.row])
        self.selection = Selection(self.selection.row, (self.selection.choice + delta) % count)
        self.render_all()

    async def action_fill(self) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        if not view["turn"].get("rolls"):
            await self._act("roll")
            return
        rows = self._legal_rows()
        if self.selection is None or self.selection.row not in rows:
            self.say(self.words("Choose a cell first."), "error")
            return
        options = rows[self.selection.row]
        await self._play_option(options[self.selection.choice % len(options)])

    async def _play_option(self, option: Mapping[str, Any]) -> None:
        """Fill a cell; a zero (which costs points) waits for a second Enter or click."""
        action = str(option["action"])
        if option.get("verb") == "zero" and self._armed != action:
            self._armed = action
            view = self.view
            assert view is not None
            self.say(
                self.words(
                    "{move} costs {points} points: Enter again to confirm.",
                    move=action_words(self.words, view, action),
                    points=-int(option.get("gain") or 0),
                ),
                "error",
            )
            return
        self._armed = None
        await self._act(action)

    async def action_strike(self) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        rows = self._legal_rows()
        if self.selection is None or self.selection.row not in rows:
            self.say(self.words("Choose a cell first."), "error")
            return
        strikes = [o for o in rows[self.selection.row] if o.get("verb") == "strike"]
        if not strikes:
            self.say(self.words("This row cannot be struck now."), "error")
            return
        await self._act(str(strikes[0]["action"]))

    async def action_play_cell(self, row: str, choice: int) -> None:
        rows = self._legal_rows()
        if row not in rows:
            self.say(self._why_not(), "error")
            return
        options = rows[row]
        self.selection = Selection(row, choice % len(options))
        await self._play_option(options[choice % len(options)])

    def action_hints(self) -> None:
        self.show_hints = not self.show_hints
        self.render_all()

    def action_language(self) -> None:
        self.play_app.set_lang(next_lang(self.play_app.lang))

    def action_next_sheet(self, delta: int) -> None:
        view = self.view
        if view is None:
            return
        count = len(view["players"])
        seat = (self.shown_seat() + delta) % count
        self.viewing = None if seat == self.auto_seat() else seat
        self.render_all()

    def action_save(self) -> None:
        view = self.view
        preset = str(view["rules"]["preset"]) if view else "game"
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        default = str(self.play_app.save_dir / f"dicepoker-{preset}-{stamp}.json")
        self.app.push_screen(SaveScreen(self.words, default), self._save_to)

    async def _save_to(self, path: str | None) -> None:
        if not path:
            self.say(self.words("Not saved."))
            return
        await self.save(Path(path).expanduser())

    async def save(self, path: Path) -> bool:
        """Write the record to `path`; says how it went in the status line."""
        try:
            record = await self.session.record()
        except ActionRefused as exc:
            self.say(self.words("Could not save: {error}", error=exc.message), "error")
            return False
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(
                json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
            )
        except OSError as exc:
            self.say(self.words("Could not save: {error}", error=exc.strerror or str(exc)), "error")
            return False
        if isinstance(self.session, LocalSession):
            self.session.saved()
        self._quit_armed = False
        self.say(self.words("Saved to {path}", path=str(path)))
        return True

    def action_quit_game(self) -> None:
        session = self.session
        unsaved = isinstance(session, LocalSession) and session.dirty and not session.state.finished
        if unsaved and not self._quit_armed:
            self._quit_armed = True
            self.say(self.words("Unsaved game: press Q again to quit, S to save."), "error")
            return
        self.app.exit()


# --- the app ----------------------------------------------------------------------------------


class PlayApp(App[None]):
    """`dicepoker play`: the setup screen when no game is given, then the table."""

    TITLE = "dicepoker"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { background: $background; }
    """

    def __init__(
        self,
        session: Session | None = None,
        *,
        lang: str = "en",
        defaults: SetupDefaults | None = None,
        dice: Callable[[], DiceSource | None] | None = None,
        bot_delay: float = 0.6,
        save_dir: Path | None = None,
        advisor: Advisor | None = None,
        show_hints: bool = False,
    ) -> None:
        super().__init__()
        self.session = session
        self.lang = lang if lang in LANGS else "en"
        self.words = Words(self.lang)
        self.defaults = defaults or SetupDefaults()
        self.dice_factory = dice or (lambda: None)
        self.bot_delay = bot_delay
        self.save_dir = save_dir or Path(".")
        self.advisor: Advisor = advisor or current_advisor()
        self.show_hints = show_hints

    async def on_mount(self) -> None:
        if self.session is not None:
            await self.push_screen(GameScreen(self.session, show_hints=self.show_hints))
        else:
            await self.push_screen(SetupScreen(self.defaults), self._set_up)

    async def _set_up(self, choice: SetupChoice | None) -> None:
        if choice is None:
            self.exit()
            return
        words = self.words
        try:
            session = LocalSession.new(
                choice.rules,
                choice.seats,
                dice=self.dice_factory(),
                person=lambda n: words("Player {n}", n=n),
                bot_delay=self.bot_delay,
            )
        except SeatError as exc:
            self.notify(str(exc), severity="error")
            await self.push_screen(SetupScreen(self.defaults), self._set_up)
            return
        self.session = session
        await self.push_screen(GameScreen(session, show_hints=self.show_hints))

    @property
    def game_screen(self) -> GameScreen | None:
        screen = self.screen
        if isinstance(screen, GameScreen):
            return screen
        for candidate in self.screen_stack:
            if isinstance(candidate, GameScreen):
                return candidate
        return None

    def set_lang(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else "en"
        self.words = Words(self.lang)
        for screen in self.screen_stack:
            if isinstance(screen, GameScreen):
                screen.render_all()
            elif isinstance(screen, SetupScreen) and screen.is_mounted:
                screen.relabel()

    # Actions named by the clickable parts of the table (`@click=app.…`).

    async def action_play_cell(self, row: str, choice: int) -> None:
        screen = self.game_screen
        if screen is not None:
            await screen.action_play_cell(row, choice)

    def action_toggle_die(self, position: int) -> None:
        screen = self.game_screen
        if screen is not None:
            screen.action_toggle_die(position)

    async def action_roll(self) -> None:
        screen = self.game_screen
        if screen is not None:
            await screen.action_roll()

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()

    def screen_text(self) -> str:
        """The screen as plain text, line by line (for tests and checks)."""
        strips = self.screen._compositor.render_strips()
        return "\n".join(strip.text.rstrip() for strip in strips)


__all__ = ["GameScreen", "PlayApp", "SaveScreen", "SetupChoice", "SetupDefaults", "SetupScreen"]
