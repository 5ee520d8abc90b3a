"""The terminal's table in pieces: the layout maths, the choices of a turn, the state read from a
session, and each widget drawing the state it is bound to (Textual's `App.run_test()` pilot).

The widgets are mounted in a small host app that has the game screen's two reactives, `table`
and `plan`, and binds them as the game screen does; the tests set the host's state and read what
the widgets draw, or click them and read the messages they post.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import replace
from typing import Any

from textual.app import App, ComposeResult
from textual.message import Message
from textual.reactive import var

from dicepoker.dice import SeededDice
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui.choices import Choices, best_row
from dicepoker.tui.hints import Hint
from dicepoker.tui.i18n import Words
from dicepoker.tui.session import LocalSession, parse_seats
from dicepoker.tui.sheet import Selection, options_by_row, sheet_lines
from dicepoker.tui.table_layout import SIDE_MIN, TableLayout, plan_table
from dicepoker.tui.table_state import HintsState, Notice, TableState, read_table
from dicepoker.tui.widgets import (
    DiceBar,
    DicePanel,
    DiceView,
    HintsPanel,
    KeysLine,
    OtherSheets,
    SheetBoard,
    StatusLine,
)
from dicepoker.view import game_view

EN = Words("en")


def position(variant: str, *, players: int = 2, rolled: bool = True, seed: int = 4) -> Game:
    """A game at its first turn, the dice thrown once (or not yet)."""
    game = Game(get_rules(variant), [f"P{n + 1}" for n in range(players)], SeededDice(seed))
    if rolled:
        game.play("roll")
    return game


def state_of(game: Game, viewing: int | None = None, **changes: Any) -> TableState:
    """The table of a local hot-seat game of `game` (everyone plays here), with `changes`."""
    seats = ",".join(f"human:{name}" for name in game.state.players)
    session = LocalSession(game, parse_seats(seats), bot_delay=0)
    return replace(read_table(session, Choices(viewing=viewing), EN), **changes)


class Host(App[None]):
    """Mounts the widgets bound to its `table` and `plan`, and keeps the messages they post."""

    table: var[TableState | None] = var(None)
    plan: var[TableLayout | None] = var(None)

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        for part in (SheetBoard, OtherSheets, DicePanel, DiceBar, HintsPanel, StatusLine, KeysLine):
            yield part().data_bind(Host.table, Host.plan)

    def on_dice_view_toggled(self, message: DiceView.Toggled) -> None:
        self.messages.append(message)

    def on_dice_view_roll_pressed(self, message: DiceView.RollPressed) -> None:
        self.messages.append(message)

    def on_sheet_board_cell_picked(self, message: SheetBoard.CellPicked) -> None:
        self.messages.append(message)

    def show(self, state: TableState, width: int = 80) -> None:
        self.plan = plan_table(state, width)
        self.table = state


def with_host(
    scenario: Callable[[Host, Any], Coroutine[Any, Any, None]], size: tuple[int, int] = (80, 60)
) -> None:
    async def main() -> None:
        host = Host()
        async with host.run_test(size=size) as pilot:
            await scenario(host, pilot)

    asyncio.run(main())


def drawn(host: Host, part: type[Any]) -> str:
    widget = host.query_one(part)
    return str(widget.render().plain)


# --- pure pieces ----------------------------------------------------------------------------------


def test_plan_puts_the_side_panel_below_a_sheet_that_leaves_no_room() -> None:
    state = state_of(position("school", players=3))
    wide = plan_table(state, 80)
    assert not wide.narrow and not wide.show_others and not wide.sheet.compact
    assert wide.side_width >= SIDE_MIN
    narrow = plan_table(state, 56)
    assert narrow.narrow and narrow.sheet.width <= 54 and narrow.room == 54
    assert narrow.side_width == 55
    roomy = plan_table(state, 170)
    assert roomy.show_others and not roomy.narrow


def test_plan_gives_the_sheet_its_drawn_width() -> None:
    sizes = [("school", 80), ("school", 56), ("yahtzee", 100), ("poker-dice", 60)]
    for (variant, width), seat in itertools.product([*sizes, ("poker-dice", 170)], (0, 1)):
        state = state_of(position(variant), viewing=seat)
        view = state.view
        assert view is not None
        plan = plan_table(state, width)
        lines = sheet_lines(
            view,
            seat,
            EN,
            plan.sheet,
            legal=state.legal,
            selection=state.selection,
            current=seat == state.mover,
            room=plan.room,
        )
        assert max(line.cell_length for line in lines) == plan.sheet_width, (variant, width)
        assert plan.sheet_width <= max(plan.sheet.width, plan.room)


def test_choices_start_afresh_each_turn_and_after_each_roll() -> None:
    game = position("yahtzee")
    view = game_view(game.state).to_data()
    rows = options_by_row(view["turn"]["legal"])
    choices = Choices()
    choices.follow(view, rows)
    assert choices.selection is not None and choices.selection.row == best_row(rows)
    first = choices.selection.row
    choices.move_cursor(rows, 1)
    assert choices.selection is not None and choices.selection.row != first
    choices.move_cursor(rows, -1)
    assert choices.selection is not None and choices.selection.row == first
    choices.held.update({0, 2})
    choices.follow(view, rows)  # the same position: nothing forgotten
    assert choices.held == {0, 2}
    game.play("keep 0 2")
    view = game_view(game.state).to_data()
    choices.move_cursor(rows, 1)
    choices.follow(view, options_by_row(view["turn"]["legal"]))  # a roll: the cursor goes back
    assert choices.selection is not None
    assert choices.selection.row == best_row(options_by_row(view["turn"]["legal"]))
    assert choices.held == {0, 2}
    game.play(view["turn"]["legal"][0]["action"])
    view = game_view(game.state).to_data()
    choices.follow(view, {})  # the next player's turn, not rolled yet
    assert choices.held == set() and choices.selection is None


def test_table_state_draws_what_the_mover_kept_for_the_others() -> None:
    game = position("school")
    game.play("keep 1 3")
    state = state_of(game)
    assert state.my_turn and state.shown == 0 and state.dice == 5
    session = LocalSession(game, parse_seats("bot:greedy,human:Bea"), bot_delay=0)
    session.last_action = (0, "keep 1 3")  # as after its bot kept those dice
    watching = read_table(session, Choices(held={4}), EN)
    assert not watching.my_turn and watching.held == frozenset({1, 3})
    assert watching.is_bot(0) and not watching.is_bot(1) and watching.legal == ()


# --- widgets ---------------------------------------------------------------------------------


def test_the_dice_follow_the_state_and_their_clicks_go_to_the_parent() -> None:
    async def scenario(host: Host, pilot: Any) -> None:
        game = position("school")
        dice = game.state.dice
        host.show(state_of(game))
        await pilot.pause()
        text = drawn(host, DicePanel)
        assert "Dice · roll 1 of 3" in text and "R: Roll" in text
        assert [int(face) for face in text.splitlines()[1].split()] == list(dice)
        assert text.splitlines()[2].split() == ["1", "2", "3", "4", "5"]
        host.table = replace(host.table, held=frozenset({1}))  # type: ignore[type-var]
        await pilot.pause()
        assert drawn(host, DicePanel).splitlines()[1].split()[1] == f"[{dice[1]}]"
        line = drawn(host, DicePanel).splitlines()[1]
        x = line.index(f"[{dice[1]}]") + 1
        await pilot.click(DicePanel, offset=(x, 1))
        await pilot.click(DicePanel, offset=(2, 3))
        assert [type(m) for m in host.messages] == [DiceView.Toggled, DiceView.RollPressed]
        toggled = host.messages[0]
        assert isinstance(toggled, DiceView.Toggled) and toggled.position == 1

    with_host(scenario)


def test_poker_dice_are_drawn_with_their_faces_labels() -> None:
    async def scenario(host: Host, pilot: Any) -> None:
        game = position("poker-dice")
        host.show(state_of(game))
        await pilot.pause()
        labels = game.state.rules.face_labels
        faces = drawn(host, DicePanel).splitlines()[1].split()
        assert faces == [labels[value - 1] for value in game.state.dice]

    with_host(scenario)


def six_dice(view: Mapping[str, Any]) -> dict[str, Any]:
    """`view` as if its rules threw six dice (no variant does: the widgets must not care)."""
    changed = copy.deepcopy(dict(view))
    changed["rules"]["dice"] = 6
    changed["turn"]["dice"] = [*changed["turn"]["dice"], 6]
    return changed


def test_widgets_draw_as_many_dice_as_the_rules_throw() -> None:
    async def scenario(host: Host, pilot: Any) -> None:
        state = state_of(position("school"))
        assert state.view is not None
        host.show(replace(state, view=six_dice(state.view)), width=56)
        await pilot.pause()
        panel = drawn(host, DicePanel).splitlines()
        assert len(panel[1].split()) == 6 and panel[2].split() == ["1", "2", "3", "4", "5", "6"]
        assert "1-6 hold dice" in drawn(host, StatusLine)
        assert "1-6 hold dice" in drawn(host, KeysLine)
        assert host.query_one(DiceBar).display  # narrow: the dice on a line of their own
        assert len(drawn(host, DiceBar).split()) == 1 + 6 + 1  # "Dice", six dice, "1/3"

    with_host(scenario)


def test_the_sheet_posts_the_cell_clicked_and_redraws_the_selection() -> None:
    async def scenario(host: Host, pilot: Any) -> None:
        state = state_of(position("yahtzee"))
        host.show(state)
        await pilot.pause()
        lines = drawn(host, SheetBoard).splitlines()
        assert "▶ Score sheet of P1" in lines[0]
        y = next(n for n, line in enumerate(lines) if line.startswith(" Chance"))
        await pilot.click(SheetBoard, offset=(lines[y].index("[") + 1, y))
        picked = host.messages[-1]
        assert isinstance(picked, SheetBoard.CellPicked) and picked.row == "chance"
        assert picked.choice == 0
        host.table = replace(state, selection=Selection("chance"))
        await pilot.pause()
        assert drawn(host, SheetBoard).splitlines()[y].startswith("▸Chance")

    with_host(scenario)


def test_panels_show_and_hide_with_the_state() -> None:
    async def scenario(host: Host, pilot: Any) -> None:
        state = state_of(position("school", players=3))
        host.show(state, width=80)
        await pilot.pause()
        assert not host.query_one(HintsPanel).display
        assert not host.query_one(OtherSheets).display and not host.query_one(DiceBar).display
        hints = HintsState("gain now", True, (Hint("score sum", 12.0, points=12), Hint("roll", 0)))
        host.table = replace(state, hints=hints, notice=Notice("Not saved."))
        host.plan = plan_table(state, 170)
        await pilot.pause()
        assert host.query_one(HintsPanel).display
        text = drawn(host, HintsPanel)
        # A cell move reads as its cell on the sheet (`[16×2]`), beside its value.
        assert "Hints · gain now" in text and "Sum [16×2]" in text and "+12" in text
        assert host.query_one(OtherSheets).display
        assert drawn(host, OtherSheets).count("Σ") == 2
        assert drawn(host, StatusLine) == "Not saved."
        host.table = replace(state, notice=None)
        await pilot.pause()
        assert drawn(host, StatusLine).startswith("P1, your turn")
        assert not host.query_one(HintsPanel).display

    with_host(scenario)


def test_without_a_view_the_table_says_why() -> None:
    async def scenario(host: Host, pilot: Any) -> None:
        host.table = TableState(EN, None, status="reconnecting")
        await pilot.pause()
        assert drawn(host, SheetBoard) == "Reconnecting…"
        assert drawn(host, StatusLine) == "Reconnecting…"
        assert drawn(host, DicePanel) == ""
        host.table = TableState(
            Words("es"), None, status="closed", fatal="The seat token was refused."
        )
        await pilot.pause()
        assert drawn(host, SheetBoard) == Words("es")("The seat token was refused.")
        assert "R" not in drawn(host, KeysLine).split()  # no rolling without a game

    with_host(scenario)
