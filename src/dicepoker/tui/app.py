"""The Textual app of `dicepoker play`: the setup screen when no game is given, then the table.

The screens live in their own modules: `setup_screen` (variant, options, seats, language),
`game_screen` (the table, its keys and moves), `save_screen` (where to write the record); the
table's widgets in `widgets/`, drawing the state of `table_state` laid out by `table_layout`.
Keys at the table: 1-N (or clicks) keep dice, R rolls, the arrows choose a cell (left/right:
score, strike or zero in that row), Enter fills it, X strikes it, H shows the hints, S saves the
record, L changes the language, Tab shows the other sheets, Q quits; in a game of the web app,
G sends a quick reaction and, at the end, N joins the rematch.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import App
from textual.reactive import var

from dicepoker.dice import DiceSource
from dicepoker.tui.game_screen import GameScreen
from dicepoker.tui.hints import Advisor, current_advisor
from dicepoker.tui.i18n import LANGS, Words
from dicepoker.tui.session import LocalSession, SeatError, Session
from dicepoker.tui.setup_screen import SetupChoice, SetupDefaults, SetupScreen


class PlayApp(App[None]):
    """`dicepoker play`: the setup screen when no game is given, then the table.

    `lang` is reactive: the screens watch it and draw themselves again in the new words."""

    TITLE = "dicepoker"
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    Screen { background: $background; }
    """

    lang: var[str] = var("en")

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
        self.set_reactive(PlayApp.lang, lang if lang in LANGS else "en")
        self.defaults = defaults or SetupDefaults()
        self.dice_factory = dice or (lambda: None)
        self.bot_delay = bot_delay
        self.save_dir = save_dir or Path(".")
        self.advisor: Advisor = advisor or current_advisor()
        self.show_hints = show_hints

    @property
    def words(self) -> Words:
        return Words(self.lang)

    def set_lang(self, lang: str) -> None:
        self.lang = lang if lang in LANGS else "en"

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
                person=words.person_name,
                bot=words.bot_name,
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
        for screen in (self.screen, *reversed(self.screen_stack)):
            if isinstance(screen, GameScreen):
                return screen
        return None

    async def on_unmount(self) -> None:
        if self.session is not None:
            await self.session.close()

    def screen_text(self) -> str:
        """The screen as plain text, line by line (for tests and checks)."""
        strips = self.screen._compositor.render_strips()
        return "\n".join(strip.text.rstrip() for strip in strips)


__all__ = ["GameScreen", "PlayApp", "SetupChoice", "SetupDefaults", "SetupScreen"]
