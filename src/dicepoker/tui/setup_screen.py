"""The setup screen (`SetupScreen`): the variant and its options, 1-4 seats and the language.

It gives back a `SetupChoice` (the rules and who sits where). The options form follows the
variant chosen (`OptionsForm.variant`, a reactive that composes the form again); a new language
composes the whole screen again in its words, keeping every choice made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.reactive import reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select

from dicepoker.bots import LEVELS
from dicepoker.rules import DEFAULT_VARIANT, VARIANTS, Rules, RulesError, get_rules
from dicepoker.tui.i18n import LANG_CYCLE, LANG_NAMES, Words
from dicepoker.tui.session import SeatChoice

if TYPE_CHECKING:
    from dicepoker.tui.app import PlayApp

#: Seats offered by the setup screen.
MAX_SEATS = 4
#: Options that only make sense on a server (a turn clock needs someone to keep time).
SERVER_ONLY_OPTIONS = frozenset({"turn_seconds"})
#: The kind of an empty seat in the form.
NOBODY = "none"

OptionValues = dict[str, bool | int]


@dataclass
class SetupChoice:
    """What the setup screen gives back: the rules and who sits where."""

    rules: Rules
    seats: list[SeatChoice]


@dataclass
class SetupDefaults:
    """What the setup screen shows first (from the command line)."""

    variant: str = DEFAULT_VARIANT
    options: OptionValues = field(default_factory=dict)
    seats: list[SeatChoice] = field(
        default_factory=lambda: [SeatChoice("human"), SeatChoice("bot", None, "greedy")]
    )


def kind_value(seat: SeatChoice | None) -> str:
    """A seat as the form's kind field says it: `human`, `bot:LEVEL` or `none`."""
    if seat is None:
        return NOBODY
    return f"bot:{seat.level}" if seat.kind == "bot" else "human"


def seat_of(kind: object, name: str | None) -> SeatChoice | None:
    """The seat of a kind field's value (None for an empty seat)."""
    if kind == "human":
        return SeatChoice("human", name)
    if isinstance(kind, str) and kind.startswith("bot:"):
        return SeatChoice("bot", name, kind.split(":", 1)[1])
    return None


class OptionsForm(Vertical):
    """The options of `variant`: a checkbox per yes/no option, a number field per number."""

    DEFAULT_CSS = """
    OptionsForm { height: auto; }
    OptionsForm Horizontal { height: auto; }
    OptionsForm .wide-field { width: 28; padding: 0 1 0 0; }
    OptionsForm .opt-input { width: 8; }
    OptionsForm Checkbox { margin: 0 2 0 0; }
    """

    variant: reactive[str] = reactive(DEFAULT_VARIANT, recompose=True)

    def __init__(self, words: Words, variant: str, values: Mapping[str, bool | int]) -> None:
        super().__init__(id="options")
        self.words = words
        #: The values to show first, and the variant they belong to.
        self.given: tuple[str, OptionValues] = (variant, dict(values))
        self.set_reactive(OptionsForm.variant, variant)

    def compose(self) -> ComposeResult:
        words = self.words
        variant, given = self.given
        values = given if variant == self.variant else {}
        shown = False
        for spec in VARIANTS[self.variant].options:
            if spec.name in SERVER_ONLY_OPTIONS:
                continue
            shown = True
            value = values.get(spec.name, spec.default)
            if spec.kind is bool:
                yield Horizontal(
                    Checkbox(
                        words.option(spec.name), bool(value), compact=True, id=f"opt-{spec.name}"
                    )
                )
                continue
            limits = f" ({spec.minimum}–{spec.maximum})" if spec.maximum is not None else ""
            yield Horizontal(
                Label(words.option(spec.name) + limits + " ", classes="wide-field"),
                Input(
                    "" if value is None else str(value),
                    type="integer",
                    compact=True,
                    id=f"opt-{spec.name}",
                    classes="opt-input",
                ),
            )
        if not shown:
            yield Horizontal(Label(words("No options."), classes="wide-field"))

    def values(self) -> OptionValues:
        """The options as filled in; `RulesError` for a number field that is not a number."""
        values: OptionValues = {}
        for spec in VARIANTS[self.variant].options:
            widgets = self.query(f"#opt-{spec.name}")
            if spec.name in SERVER_ONLY_OPTIONS or not widgets:
                continue
            widget = widgets.first()
            if isinstance(widget, Checkbox):
                values[spec.name] = widget.value
            elif isinstance(widget, Input) and (text := widget.value.strip()):
                try:
                    values[spec.name] = int(text)
                except ValueError:
                    raise RulesError(f"{self.words.option(spec.name)}: {text!r}") from None
        return values


class FormError(Widget):
    """Why the game cannot start (empty when it can)."""

    DEFAULT_CSS = """
    FormError { height: auto; color: $error; }
    """

    message: reactive[str] = reactive("", layout=True)

    def render(self) -> Content:
        return Content(self.message)


class SetupScreen(Screen[SetupChoice]):
    """Choose a variant and its options, 1-4 seats (people or bots) and the language."""

    DEFAULT_CSS = """
    SetupScreen { align: center top; }
    SetupScreen > VerticalScroll { width: 78; max-width: 100%; height: 1fr; padding: 0 1; }
    SetupScreen .title { text-style: bold; margin: 1 0 0 0; }
    SetupScreen .heading { text-style: bold; color: $accent; margin: 1 0 0 0; }
    SetupScreen Horizontal { height: auto; margin: 0 0 0 0; }
    SetupScreen .field { width: 12; padding: 0 1 0 0; }
    SetupScreen Select { width: 26; margin: 0 1 0 0; }
    SetupScreen #variant { width: 26; }
    SetupScreen #lang { width: 16; }
    SetupScreen .num { width: 3; }
    SetupScreen Input { width: 26; }
    SetupScreen #start { margin: 1 0 0 0; }
    SetupScreen #setup-help { color: $text-muted; }
    /* The field with the focus: a bar at its left and a brighter ground, so that it shows in
       any theme, in 16 colours, and in a terminal's text (the bar is a character). */
    SetupScreen Select, SetupScreen Input, SetupScreen Checkbox, SetupScreen Button {
        border-left: blank;
    }
    SetupScreen Select:focus-within, SetupScreen Input:focus, SetupScreen Checkbox:focus,
    SetupScreen Button:focus {
        border-left: thick $accent !important;
        background: $accent 25%;
        text-style: bold;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "start", show=False),
        Binding("escape", "app.quit", show=False),
    ]

    #: The variant chosen (the options form is bound to it).
    variant: var[str] = var(DEFAULT_VARIANT)
    #: Why the game cannot start, shown under the button.
    error: var[str] = var("")

    def __init__(self, defaults: SetupDefaults) -> None:
        super().__init__()
        self.defaults = defaults
        self.set_reactive(SetupScreen.variant, defaults.variant)
        #: The seats' fields (kind, name), kept when the screen is composed again.
        self.seats = [
            (kind_value(seat), (seat.name or "") if seat else "")
            for seat in (
                defaults.seats[n] if n < len(defaults.seats) else None for n in range(MAX_SEATS)
            )
        ]

    @property
    def play_app(self) -> PlayApp:
        return cast("PlayApp", self.app)

    @property
    def words(self) -> Words:
        return self.play_app.words

    def compose(self) -> ComposeResult:
        words = self.words
        with VerticalScroll():
            yield Label(words("Dice poker") + " — " + words("New game"), classes="title")
            with Horizontal():
                yield Label(words("Game"), classes="field")
                yield Select(
                    [(words.variant(name), name) for name in VARIANTS],
                    value=self.variant,
                    allow_blank=False,
                    compact=True,
                    id="variant",
                )
                yield Label(words("Language"), classes="field")
                yield Select(
                    [(LANG_NAMES[lang], lang) for lang in LANG_CYCLE],
                    value=self.play_app.lang,
                    allow_blank=False,
                    compact=True,
                    id="lang",
                )
            yield Label(words("Options"), classes="heading")
            yield OptionsForm(words, self.variant, self.defaults.options).data_bind(
                SetupScreen.variant
            )
            yield Label(words("Players"), classes="heading")
            for n, (kind, name) in enumerate(self.seats):
                with Horizontal():
                    yield Label(f"{n + 1}.", classes="num")
                    yield Select(
                        self._kind_options(n),
                        value=kind,
                        allow_blank=False,
                        compact=True,
                        id=f"kind-{n}",
                    )
                    yield Input(
                        name,
                        placeholder=words("Name of player {n}", n=n + 1),
                        compact=True,
                        id=f"name-{n}",
                        max_length=40,
                    )
            yield Button(words("Start the game"), variant="primary", compact=True, id="start")
            yield FormError(id="setup-error").data_bind(message=SetupScreen.error)
            yield Label(words("Tab moves between fields; Enter starts the game."), id="setup-help")

    def on_mount(self) -> None:
        self.watch(self.app, "lang", self._relabel, init=False)
        self.query_one("#name-0", Input).focus()

    def _kind_options(self, n: int) -> list[tuple[str, str]]:
        words = self.words
        options = [(words("Person"), "human")]
        options += [(f"{words('Bot')}: {words.level(level)}", f"bot:{level}") for level in LEVELS]
        if n > 0:
            options.append((words("Nobody"), NOBODY))
        return options

    @on(Select.Changed, "#variant")
    def _variant_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str):
            self.variant = event.value

    @on(Select.Changed, "#lang")
    def _lang_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value != self.play_app.lang:
            self.play_app.set_lang(event.value)

    async def _relabel(self) -> None:
        """Compose the screen again in the new language, keeping every choice made."""
        try:
            options = self.query_one(OptionsForm).values()
        except RulesError:
            options = {}
        self.seats = [
            (
                str(self.query_one(f"#kind-{n}", Select).value),
                self.query_one(f"#name-{n}", Input).value,
            )
            for n in range(MAX_SEATS)
        ]
        self.defaults = SetupDefaults(self.variant, options, self.defaults.seats)
        await self.recompose()
        self.query_one("#lang", Select).focus()

    @on(Button.Pressed, "#start")
    def _start_pressed(self) -> None:
        self.action_start()

    @on(Input.Submitted)
    def _field_submitted(self) -> None:
        self.action_start()

    def action_start(self) -> None:
        variant = self.variant
        try:
            rules = get_rules(variant, self.query_one(OptionsForm).values())
        except RulesError as exc:
            self.error = str(exc)
            return
        seats: list[SeatChoice] = []
        for n in range(MAX_SEATS):
            kind = self.query_one(f"#kind-{n}", Select).value
            seat = seat_of(kind, self.query_one(f"#name-{n}", Input).value.strip() or None)
            if seat is not None:
                seats.append(seat)
        if not rules.min_players <= len(seats) <= rules.max_players:
            self.error = self.words(
                "{game} is played by {low} to {high} players.",
                game=self.words.variant(variant),
                low=rules.min_players,
                high=rules.max_players,
            )
            return
        self.dismiss(SetupChoice(rules, seats))
