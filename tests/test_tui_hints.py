"""The hint panel reads as the sheet does: a cell move labelled as its cell would show it, every
label whole beside its value at 80 columns in every language, the list in the order of the
values it shows."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from dicepoker.dice import SeededDice
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.tui.choices import Choices
from dicepoker.tui.hints import ExpectedScoreAdvisor, ImmediateAdvisor
from dicepoker.tui.i18n import LANGS, Words
from dicepoker.tui.session import LocalSession, parse_seats
from dicepoker.tui.table_layout import plan_table
from dicepoker.tui.table_state import read_table
from dicepoker.tui.widgets import HintsPanel
from dicepoker.tui.widgets.hints_panel import hint_label
from dicepoker.view import game_view


def rolled(variant: str, seed: int, players: int = 2) -> Game:
    game = Game(get_rules(variant), [f"P{n + 1}" for n in range(players)], SeededDice(seed))
    game.play("roll")
    return game


def school_closing_with_gain() -> tuple[Game, dict[str, Any]]:
    """A first roll where a School row closes with dice to spare (a gain for the reserve)."""
    for seed in range(500):
        game = rolled("school", seed)
        view = game_view(game.state).to_data()
        school = {row["id"] for row in view["sheets"][0]["rows"] if row.get("school")}
        for option in view["turn"]["legal"]:
            if option["verb"] == "score" and option["row"] in school and option["gain"] > 0:
                return game, option
    raise AssertionError("no seed gives a School closing with a gain")


def test_a_school_closing_is_labelled_as_its_cell_shows_it() -> None:
    game, option = school_closing_with_gain()
    view = game_view(game.state).to_data()
    words = Words("en")
    label = hint_label(words, view, option["action"], 26)
    row = words.row("school", option["row"])
    assert label == f"{row} [✕+{option['gain']}]"
    # The same text the sheet writes in the cell's preview, on the row's line.
    (line,) = [line for line in _sheet(game, words, 80).splitlines() if f" {row} " in line]
    assert f"[✕+{option['gain']}]" in line


def _sheet(game: Game, words: Words, width: int) -> str:
    from dicepoker.tui.sheet import sheet_lines

    view = game_view(game.state).to_data()
    state = _table(game, words)
    plan = plan_table(state, width)
    legal = view["turn"]["legal"]
    lines = sheet_lines(view, 0, words, plan.sheet, legal=legal, room=plan.room)
    return "\n".join(line.plain for line in lines)


def _table(game: Game, words: Words, advisor: Any = None) -> Any:
    seats = ",".join(f"human:{name}" for name in game.state.players)
    session = LocalSession(game, parse_seats(seats), bot_delay=0)
    return read_table(session, Choices(), words, advisor=advisor)


def test_strikes_zeros_and_scores_read_as_cells() -> None:
    game = rolled("school", 4)
    view = game_view(game.state).to_data()
    words = Words("en")
    labels = {
        option["action"]: hint_label(words, view, option["action"], 26)
        for option in view["turn"]["legal"]
    }
    assert labels["strike two_pairs"] == "Two pairs [—]"
    # A School row that takes a zero shows what it costs the total, the web sheet's figure.
    (zero,) = [o for o in view["turn"]["legal"] if o["action"] == "zero twos"]
    assert zero["gain"] < 0
    assert labels["zero twos"] == f"School 2 [−{-zero['gain']}]"
    assert labels["score pair"] == "Pair [4×2]"
    assert hint_label(words, view, "keep 1 3 4", 26) == "hold 2 4 5"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(
    ("variant", "seed"), [("school", 4), ("school", 9), ("yahtzee", 4), ("poker-dice", 4)]
)
def test_every_label_fits_beside_its_value_at_80_columns(
    lang: str, variant: str, seed: int
) -> None:
    words = Words(lang)
    game = rolled(variant, seed)
    for advisor in (ExpectedScoreAdvisor(), ImmediateAdvisor()):
        state = _table(game, words, advisor)
        assert state.hints is not None and state.hints.hints
        plan = plan_table(state, 80)
        lines = HintsPanel().draw(state, plan).plain.splitlines()[1:]
        hints = state.hints.hints
        assert len(lines) >= len(hints)
        for line in lines[-len(hints) :]:
            assert len(line) <= plan.side_width, line
            assert "…" not in line, line  # no label cut short
            assert line.split()[-1][-1].isdigit(), line  # the value is there


def test_hints_give_the_web_hints_best_first() -> None:
    # Two players: the expert ranks by its chance-minded measure (`worth`), which here prefers
    # a roll to the hold of the highest expected score; the web's hint marks that roll best.
    from dicepoker.advisor import advise

    game = rolled("school", 4)
    state = _table(game, Words("en"), ExpectedScoreAdvisor())
    assert state.hints is not None
    advice = advise(game.state).as_json()
    worth = {o["action"]: o.get("worth", o["value"]) for o in advice["options"]}
    hints = state.hints.hints
    assert hints[0].action == advice["best"]["action"]
    assert max(hints, key=lambda hint: hint.value) is not hints[0]  # not the top score
    ranked = [worth[hint.action] for hint in hints]
    assert ranked == sorted(ranked, reverse=True)
    plan = plan_table(replace(state), 80)
    first = HintsPanel().draw(state, plan).plain.splitlines()[1]
    assert first.split()[-1] == f"{hints[0].value:.1f}"
