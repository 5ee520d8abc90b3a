"""The table (`GameScreen`): the sheet shown, the others, the side panel, the status and keys.

The screen is the only part that talks to the session. It keeps the choices of the turn
(`Choices`), reads the session into its two reactives, `table` (a `TableState`) and `plan` (a
`TableLayout` for the window's width), and its widgets, bound to both with `data_bind`, draw
themselves from them. Keys are the screen's bindings; clicks come back from the widgets as
messages (`SheetBoard.CellPicked`, `DiceView.Toggled`, `DiceView.RollPressed`). Every move is
action text the session (the engine, or the server) accepts or refuses with a reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, ScrollableContainer, Vertical, VerticalScroll
from textual.events import Resize
from textual.geometry import Region
from textual.reactive import var
from textual.screen import Screen
from textual.scrollbar import ScrollBarRender
from textual.widget import Widget

from dicepoker.protocol import ReactionId
from dicepoker.tui.choices import Choices
from dicepoker.tui.hints import Advisor, ExpectedScoreAdvisor, hints_off_words
from dicepoker.tui.i18n import Words, action_words, next_lang
from dicepoker.tui.reactions import ReactionScreen
from dicepoker.tui.rematch import rematch_session
from dicepoker.tui.remote import RemoteError, RemoteSession
from dicepoker.tui.save_screen import SaveScreen, default_record_path, write_record
from dicepoker.tui.session import ActionRefused, LocalSession, Session, Update
from dicepoker.tui.sheet import Selection, options_by_row, row_line, sheet_of, summary_lines
from dicepoker.tui.table_layout import BOTTOM_LINES, TableLayout, plan_table
from dicepoker.tui.table_state import (
    Notice,
    NoticeKind,
    Phrase,
    TableState,
    auto_seat,
    legal_moves,
    read_table,
    rematch_step,
    shown_seat,
    waiting_words,
)
from dicepoker.tui.widgets import (
    DiceBar,
    DicePanel,
    DiceView,
    HintsPanel,
    InfoPanel,
    KeysLine,
    OtherSheets,
    RejoinPanel,
    SheetBoard,
    SheetFoot,
    StatusLine,
)
from dicepoker.tui.widgets.status import key_lines

if TYPE_CHECKING:
    from dicepoker.tui.app import PlayApp

#: Seconds a notice stays in the status line.
NOTICE_SECONDS = 6.0
#: Dice that have a key (1-9); more dice are kept with the mouse.
DIE_KEYS = 9


class WholeCellScrollBar(ScrollBarRender):
    """A scrollbar drawn in whole cells. Textual's draws the ends of its thumb with eighth-block
    glyphs (`▁▅▇`), which a terminal without its colours, a screen reader or a copy of the
    screen shows as stray blocks beside the dice and the hints; whole cells leave only the
    thumb's colour."""

    VERTICAL_BARS: ClassVar[list[str]] = [" "] * len(ScrollBarRender.VERTICAL_BARS)
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "] * len(ScrollBarRender.HORIZONTAL_BARS)


def draw_whole_cells(widget: Widget) -> None:
    """Give `widget`'s scrollbars the whole-cell drawing (per instance, as Textual's
    `ScrollBar.renderer` documents; its `ClassVar` annotation does not say so)."""
    widget.vertical_scrollbar.renderer = WholeCellScrollBar  # type: ignore[misc]
    widget.horizontal_scrollbar.renderer = WholeCellScrollBar  # type: ignore[misc]


class Pane(ScrollableContainer, can_focus=False):
    """A scrolling area that leaves every key to the table."""

    def on_mount(self) -> None:
        draw_whole_cells(self)


class SidePane(VerticalScroll, can_focus=False):
    """The side panel: players, dice, hints."""

    def on_mount(self) -> None:
        draw_whole_cells(self)


class GameScreen(Screen[None]):
    """The table: the sheet of the player to move (or yours), the others, the dice, the hints."""

    DEFAULT_CSS = """
    GameScreen { layout: vertical; }
    GameScreen #body { height: 1fr; layout: horizontal; }
    GameScreen.narrow #body { layout: vertical; overflow-y: auto; }
    GameScreen #sheet-column { width: auto; height: 1fr; }
    GameScreen.narrow #sheet-column { height: auto; width: 100%; }
    GameScreen #sheet-pane { width: auto; height: auto; }
    GameScreen.narrow #sheet-pane { height: auto; width: 100%; }
    GameScreen #sheet { width: auto; }
    GameScreen #others { width: auto; padding: 0 0 0 2; }
    GameScreen #side { width: 1fr; min-width: 20; height: 1fr; padding: 0 0 0 2; }
    GameScreen.narrow #side { height: auto; width: 100%; padding: 1 0 0 0; }
    GameScreen #dice { margin: 1 0 0 0; }
    GameScreen #hints { margin: 1 0 0 0; }
    GameScreen #rejoin { margin: 1 0 0 0; }
    GameScreen #status { padding: 0 1; background: $boost; }
    GameScreen #dicebar { padding: 0 1; }
    GameScreen #keys { padding: 0 1; color: $text-muted; background: $panel; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "roll", show=False),
        *[Binding(str(n + 1), f"toggle_die({n})", show=False) for n in range(DIE_KEYS)],
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
        Binding("n", "rematch", show=False),
        Binding("g", "react", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
    ]

    #: What the widgets draw (bound to theirs): the session read at one moment.
    table: var[TableState | None] = var(None)
    #: Where the widgets go for the window's width.
    plan: var[TableLayout | None] = var(None)

    def __init__(self, session: Session, *, show_hints: bool = False) -> None:
        super().__init__()
        self.session = session
        self.choices = Choices()
        self.show_hints = show_hints
        self.notice: Notice | None = None
        self._notice_serial = 0
        self._quit_armed = False

    @property
    def play_app(self) -> PlayApp:
        return cast("PlayApp", self.app)

    @property
    def words(self) -> Words:
        return self.play_app.words

    def compose(self) -> ComposeResult:
        bound = (GameScreen.table, GameScreen.plan)
        with Horizontal(id="body"):
            with Vertical(id="sheet-column"):
                with Pane(id="sheet-pane"):
                    yield SheetBoard(id="sheet").data_bind(*bound)
                yield SheetFoot(id="sheet-foot").data_bind(*bound)
            yield OtherSheets(id="others").data_bind(*bound)
            with SidePane(id="side"):
                yield InfoPanel(id="info").data_bind(*bound)
                yield DicePanel(id="dice").data_bind(*bound)
                yield RejoinPanel(id="rejoin").data_bind(*bound)
                yield HintsPanel(id="hints").data_bind(*bound)
        yield DiceBar(id="dicebar").data_bind(*bound)
        yield StatusLine(id="status").data_bind(*bound)
        yield KeysLine(id="keys").data_bind(*bound)

    async def on_mount(self) -> None:
        draw_whole_cells(self.query_one("#body"))  # it scrolls in a narrow window
        self.session.subscribe(self._session_update)
        self.watch(self.app, "lang", self.refresh_table, init=False)
        self.refresh_table()
        self.set_interval(1.0, self._tick)
        await self.session.start()

    def watch_plan(self, plan: TableLayout | None) -> None:
        self.set_class(plan is not None and plan.narrow, "narrow")

    def on_resize(self, event: Resize) -> None:
        self.refresh_table()

    def _tick(self) -> None:
        """Read the clock again once a second while a turn clock runs (a game of the web app)."""
        if self.session.clock is not None:
            self.refresh_table()

    # --- the session ------------------------------------------------------------------------------

    @property
    def view(self) -> dict[str, Any] | None:
        return self.session.view

    def refresh_table(self) -> None:
        """Read the session and the choices here into `table` and `plan`; the widgets follow."""
        if not self.is_mounted:
            return
        view = self.view
        if view is not None:
            self.choices.follow(view, self._legal_rows())
        # A server game without the expert's help never shows hints, though --hints asked.
        hinting = self.show_hints and self.session.competition is None
        advisor = self.play_app.advisor if hinting else None
        if advisor is not None and view is not None:
            self._ask_server_advice(advisor, view)
        table = read_table(
            self.session, self.choices, self.words, notice=self.notice, advisor=advisor
        )
        if view is not None:
            # The keys take a second line where one is too narrow for them: the body is shorter.
            keys = len(key_lines(table, max(20, self.size.width - 2)))
            height = self.size.height - (keys - 1)
            self.plan = plan_table(table, self.size.width, height)
            self._fit_sheet(table, height)
        self.table = table
        if table.selection is not None:
            self.call_after_refresh(self._keep_in_sight, table)

    def _ask_server_advice(self, advisor: Advisor, view: Mapping[str, Any]) -> None:
        """In a game of the web app, ask its server for the advice of the position (once per
        position, for the seat here on its turn): the web table's hint, which the terminal then
        shows as it is."""
        session = self.session
        if (
            not isinstance(advisor, ExpectedScoreAdvisor)
            or not isinstance(session, RemoteSession)
            or not session.my_turn
            or view.get("finished")
            or not advisor.awaits_advice(view)
        ):
            return
        advisor.asking(view)
        self.run_worker(self._fetch_advice(session, advisor, view), group="advice")

    async def _fetch_advice(
        self, session: RemoteSession, advisor: ExpectedScoreAdvisor, view: Mapping[str, Any]
    ) -> None:
        try:
            advice: dict[str, Any] | None = await session.advice()
        except RemoteError:
            advice = None  # the immediate gains, read from the view, stand in
        advisor.take_advice(view, advice)
        self.refresh_table()

    def _fit_sheet(self, table: TableState, height: int) -> None:
        """Leave the summary's lines under the sheet: the sheet scrolls in what is left of the
        window's height (the summary of a short window stays in sight; a tall one has it right
        under the sheet)."""
        view = table.view
        if view is None:
            return
        sheet, _ = sheet_of(view, table.shown)
        plan = self.plan
        width = max(plan.sheet.width, plan.room) if plan is not None else 80
        foot = len(summary_lines(sheet, view, table.words, width))
        pane = self.query_one("#sheet-pane")
        body = height - BOTTOM_LINES
        pane.styles.max_height = None if self.has_class("narrow") else max(3, body - foot)

    def _keep_in_sight(self, table: TableState) -> None:
        """Scroll the sheet (or, in a narrow window, the table) to the selected row's line."""
        view = table.view
        selection = table.selection
        if view is None or selection is None or table.shown != table.mover:
            return
        line = row_line(view, table.shown, selection.row)
        if line is None:
            return
        target: Widget = self.query_one("#body" if self.has_class("narrow") else "#sheet-pane")
        board = self.query_one(SheetBoard)
        top = board.region.y - target.content_region.y + round(target.scroll_y)
        target.scroll_to_region(Region(0, top + line, 1, 1), animate=False, immediate=True)

    def _session_update(self, update: Update) -> None:
        if update.kind == "error" and self.session.fatal and self.view is None:
            # Never joined (an unknown game, a refused token, no server): nothing to show;
            # `dicepoker play` says why in one line.
            self.app.exit(return_code=1)
            return
        if update.kind == "error":
            self.say(update.message, "error")
        elif update.kind == "notice":
            self.say(update.message, "notice")
        elif update.kind == "rematch":
            self.say("A rematch is ready: same players, same rules.")
        elif update.kind == "reaction":
            self._show_reaction(update.seat, update.message)
        self.refresh_table()

    def _show_reaction(self, seat: int | None, reaction: str) -> None:
        """A player's quick reaction in the status line: their name, the phrase in our words."""
        players = self.view["players"] if self.view is not None else []
        if seat is not None and 0 <= seat < len(players):
            name = str(players[seat]["name"])
            self.say(
                lambda words: words(
                    "{name}: {reaction}",
                    name=words.shown_name(name),
                    reaction=words.reaction(reaction),
                )
            )

    def say(self, said: str | Phrase, kind: NoticeKind = "notice") -> None:
        """Show `said` (a msgid, or a `Phrase` for words with values in them) in the status line
        for a while, in the table's language at each moment it is drawn."""
        self.notice = Notice(said, kind)
        self._notice_serial += 1
        serial = self._notice_serial

        def expire() -> None:
            if self._notice_serial == serial:
                self.notice = None
                self.refresh_table()

        if self.is_mounted:
            self.set_timer(NOTICE_SECONDS, expire)
            self.refresh_table()

    def _legal_rows(self) -> dict[str, list[Mapping[str, Any]]]:
        return options_by_row(legal_moves(self.session))

    def _waiting_words(self) -> Phrase:
        status, fatal = self.session.status, self.session.fatal
        return lambda words: waiting_words(words, status, fatal)

    def _why_not(self) -> str | Phrase:
        """Why the key just pressed does nothing now."""
        session = self.session
        view = self.view
        if view is None:
            return self._waiting_words()
        if view.get("finished"):
            return "The game is over."
        if not session.local and session.spectator:
            return "Spectators cannot play."
        if session.status == "open":
            return "The game starts when every seat is taken."
        if session.status != "running":
            return self._waiting_words()
        mover = session.seat_to_move
        if mover is not None and session.is_bot(mover):
            name = view["players"][mover]["name"]
            return lambda words: words("{name} (bot) is playing…", name=name)
        return "It is not your turn."

    # --- moves ------------------------------------------------------------------------------------

    async def _act(self, action: str) -> None:
        self.notice = None
        try:
            await self.session.act(action)
        except ActionRefused as exc:
            self.say(exc.message, "error")
        self.refresh_table()

    async def action_roll(self) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        turn = view["turn"]
        if not turn.get("can_roll"):
            self.say("You cannot roll now.", "error")
            return
        if not turn.get("rolls"):
            await self._act("roll")
            return
        keep = sorted(self.choices.held)
        if len(keep) >= int(view["rules"]["dice"]):
            self.say("Release at least one die to roll.", "error")
            return
        await self._act("keep " + " ".join(map(str, keep)) if keep else "roll")

    def action_toggle_die(self, position: int) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        turn = view["turn"]
        if position >= int(view["rules"]["dice"]):
            return
        if not turn.get("rolls"):
            self.say("R rolls the dice.", "error")
            return
        if not turn.get("can_keep"):
            self.say("No rolls left: choose a cell.", "error")
            return
        self.choices.held.symmetric_difference_update({position})
        self.notice = None
        self.refresh_table()

    def action_cursor(self, delta: int) -> None:
        rows = self._legal_rows()
        if not rows:
            if self.view is not None and not self.session.my_turn:
                self.say(self._why_not(), "error")
            return
        self.choices.move_cursor(rows, delta)
        self.refresh_table()

    def action_choice(self, delta: int) -> None:
        self.choices.switch_move(self._legal_rows(), delta)
        self.refresh_table()

    async def action_fill(self) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        if not view["turn"].get("rolls"):
            await self._act("roll")
            return
        rows = self._legal_rows()
        selection = self.choices.selection
        if selection is None or selection.row not in rows:
            self.say("Choose a cell first.", "error")
            return
        options = rows[selection.row]
        await self._play_option(options[selection.choice % len(options)])

    async def _play_option(self, option: Mapping[str, Any]) -> None:
        """Fill a cell; a zero (which costs points) waits for a second Enter or click."""
        action = str(option["action"])
        if option.get("verb") == "zero" and self.choices.armed != action:
            self.choices.armed = action
            view = self.view
            assert view is not None
            cost = -int(option.get("gain") or 0)
            self.say(
                lambda words: words(
                    "{move} costs {points} points: Enter again to confirm.",
                    move=action_words(words, view, action),
                    points=cost,
                ),
                "error",
            )
            return
        self.choices.armed = None
        await self._act(action)

    async def action_strike(self) -> None:
        view = self.view
        if view is None or not self.session.my_turn:
            self.say(self._why_not(), "error")
            return
        rows = self._legal_rows()
        selection = self.choices.selection
        if selection is None or selection.row not in rows:
            self.say("Choose a cell first.", "error")
            return
        strikes = [o for o in rows[selection.row] if o.get("verb") == "strike"]
        if not strikes:
            self.say("This row cannot be struck now.", "error")
            return
        await self._act(str(strikes[0]["action"]))

    async def play_cell(self, row: str, choice: int) -> None:
        """Fill the cell of `row` with its move `choice` (a click on a bracketed cell)."""
        rows = self._legal_rows()
        if row not in rows:
            self.say(self._why_not(), "error")
            return
        options = rows[row]
        self.choices.selection = Selection(row, choice % len(options))
        await self._play_option(options[choice % len(options)])

    @on(SheetBoard.CellPicked)
    async def _cell_picked(self, message: SheetBoard.CellPicked) -> None:
        await self.play_cell(message.row, message.choice)

    @on(DiceView.Toggled)
    def _die_clicked(self, message: DiceView.Toggled) -> None:
        self.action_toggle_die(message.position)

    @on(DiceView.RollPressed)
    async def _roll_clicked(self) -> None:
        await self.action_roll()

    # --- the table's other keys -------------------------------------------------------------------

    def action_hints(self) -> None:
        competition = self.session.competition
        if competition is not None:
            self.say(lambda words: hints_off_words(words, competition), "notice")
            return
        self.show_hints = not self.show_hints
        self.refresh_table()

    def action_language(self) -> None:
        self.play_app.set_lang(next_lang(self.play_app.lang))

    def action_next_sheet(self, delta: int) -> None:
        view = self.view
        if view is None:
            return
        seat = (shown_seat(self.session, self.choices.viewing) + delta) % len(view["players"])
        self.choices.viewing = None if seat == auto_seat(self.session) else seat
        self.refresh_table()

    def action_page(self, direction: int) -> None:
        """Scroll the table (useful when the side panel sits below the sheet)."""
        target = self.query_one("#body" if self.has_class("narrow") else "#side")
        if direction > 0:
            target.scroll_page_down()
        else:
            target.scroll_page_up()

    # --- after the game: the rematch; quick reactions -------------------------------------------

    async def action_rematch(self) -> None:
        """Join the rematch of a finished game of the web app (asking for it first when nobody
        has): the table of the new game takes this one's place."""
        session = self.session
        if not isinstance(session, RemoteSession) or rematch_step(session) is None:
            return
        try:
            following = await rematch_session(session)
        except RemoteError as exc:
            error = str(exc)
            self.say(lambda words: words("No rematch: {error}", error=words(error)), "error")
            return
        app = self.play_app
        app.session = following
        await app.switch_screen(GameScreen(following, show_hints=self.show_hints))
        await session.close()

    def action_react(self) -> None:
        """Choose a quick reaction to send to the table (a seat of a game of the web app)."""
        if isinstance(self.session, RemoteSession) and not self.session.spectator:
            self.app.push_screen(ReactionScreen(self.words), self._send_reaction)

    async def _send_reaction(self, reaction: ReactionId | None) -> None:
        session = self.session
        if reaction is None or not isinstance(session, RemoteSession):
            return
        try:
            await session.react(reaction)
        except ActionRefused as exc:
            self.say(exc.message, "error")

    # --- saving and quitting ----------------------------------------------------------------------

    def action_save(self) -> None:
        default = default_record_path(self.play_app.save_dir, self.view)
        self.app.push_screen(SaveScreen(self.words, str(default)), self._save_to)

    async def _save_to(self, path: str | None) -> None:
        if not path:
            self.say("Not saved.")
            return
        await self.save(Path(path).expanduser())

    async def save(self, path: Path) -> bool:
        """Write the record to `path`; says how it went in the status line."""
        try:
            record = await self.session.record()
        except ActionRefused as exc:
            refused = exc.message
            self.say(lambda words: words("Could not save: {error}", error=words(refused)), "error")
            return False
        try:
            write_record(record, path)
        except OSError as exc:
            failed = exc.strerror or str(exc)
            self.say(lambda words: words("Could not save: {error}", error=failed), "error")
            return False
        if isinstance(self.session, LocalSession):
            self.session.saved()
        self._quit_armed = False
        self.say(lambda words: words("Saved to {path}", path=str(path)))
        return True

    def action_quit_game(self) -> None:
        session = self.session
        unsaved = isinstance(session, LocalSession) and session.dirty and not session.state.finished
        if unsaved and not self._quit_armed:
            self._quit_armed = True
            self.say("Unsaved game: press Q again to quit, S to save.", "error")
            return
        self.app.exit()
