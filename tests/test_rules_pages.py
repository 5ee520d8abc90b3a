"""The rules pages for players, checked against the engine: each page names every row of its
game by the label the sheet shows, and has a worked sheet; the examples of the score cards and
the worked sheets are played through the engine, so a page never tells a rule it does not play."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dicepoker import i18n
from dicepoker.dice import FixedDice
from dicepoker.engine.scoring import breakdown
from dicepoker.record import Game
from dicepoker.rules import get_rules
from dicepoker.rules.model import Rules
from dicepoker.rules.variants import VARIANTS
from dicepoker.web import pages

LANGS = ("en", "es", "pt")
#: The games whose card table gives one example per row with its points (School's table names
#: its combination rows; tests/test_web_words.py checks it).
CARD_GAMES = ("yahtzee", "yahtzee15", "poker-dice")


def page_text(lang: str, variant: str) -> str:
    return (pages.RULES_DIR / lang / f"{variant}.md").read_text(encoding="utf-8")


def table_rows(text: str) -> list[list[str]]:
    """The cells of every table line of a page (header lines included, rule lines left out)."""
    rows = []
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def worked_sheet(text: str) -> list[list[str]]:
    """The lines of the worked sheet: the table lines whose first cell is a turn number."""
    return [row for row in table_rows(text) if row[0].isdigit()]


def labels(lang: str, variant: str) -> dict[str, str]:
    """Row label on the sheet in this language -> row id."""
    found = {
        i18n.gettext(lang, f"row.{variant}.{row.id}"): row.id for row in get_rules(variant).rows
    }
    assert len(found) == len(get_rules(variant).rows), (lang, variant)
    return found


def dice_of(rules: Rules, text: str) -> list[int]:
    """Dice as the page writes them (9 10 J Q K A for card faces) -> faces 1..6."""
    return [rules.face_labels.index(token) + 1 for token in text.split()]


def numbers(text: str) -> list[int]:
    return [int(number) for number in re.findall(r"\d+", text)]


def play(rules: Rules, turns: list[tuple[list[int], str]]) -> list[tuple[int, int]]:
    """One player's turns (final dice, row id) through the engine: (cell points, total) each."""
    game = Game(rules, ["Ana"])
    ids = [row.id for row in rules.rows]
    results = []
    for dice, row in turns:
        game.play("roll", FixedDice(dice))
        game.play(f"score {row}")
        cell = game.state.sheets[0].row_cells(rules, ids.index(row))[0]
        assert cell is not None
        results.append((cell.points, breakdown(game.state, 0).total))
    return results


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("lang", LANGS)
def test_each_rules_page_names_every_row_and_has_a_worked_sheet(variant: str, lang: str) -> None:
    text = page_text(lang, variant)
    for label in labels(lang, variant):
        assert re.search(rf"(?<!\w){re.escape(label)}(?!\w)", text), (lang, variant, label)
    turns = worked_sheet(text)
    assert len(turns) >= 5, (lang, variant)
    assert [int(row[0]) for row in turns] == list(range(1, len(turns) + 1))
    assert len({len(row) for row in turns}) == 1  # one table


@pytest.mark.parametrize("variant", CARD_GAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_the_card_table_gives_each_row_an_example_the_engine_scores_so(
    variant: str, lang: str
) -> None:
    rules = get_rules(variant)
    names = labels(lang, variant)
    examples = {row[0]: row for row in table_rows(page_text(lang, variant)) if row[0] in names}
    assert set(examples) == set(names), (lang, variant, set(names) - set(examples))
    for label, (_label, _what, dice, points) in examples.items():
        [(scored, _total)] = play(rules, [(dice_of(rules, dice), names[label])])
        assert scored == int(points), (lang, variant, label, dice)


def worked_sheet_errors(variant: str, lang: str, text: str) -> list[int]:
    """The turns of a page's worked sheet whose points or total are not the engine's."""
    rules = get_rules(variant)
    names = labels(lang, variant)
    turns = worked_sheet(text)
    assert turns, (lang, variant)
    played = play(rules, [(dice_of(rules, dice), names[box]) for _n, dice, box, _p, _t in turns])
    wrong, before = [], 0
    for (number, _dice, _box, points, total), (scored, engine_total) in zip(
        turns, played, strict=True
    ):
        # "25 + 100 ...": the cell first, then any bonus the move earned.
        if (
            numbers(points)[0] != scored
            or sum(numbers(points)) != engine_total - before
            or int(total) != engine_total
        ):
            wrong.append(int(number))
        before = engine_total
    return wrong


@pytest.mark.parametrize("variant", CARD_GAMES)
@pytest.mark.parametrize("lang", LANGS)
def test_the_worked_sheet_is_what_the_engine_scores(variant: str, lang: str) -> None:
    assert worked_sheet_errors(variant, lang, page_text(lang, variant)) == []


def test_the_worked_sheet_check_sees_a_wrong_total_and_a_missing_bonus() -> None:
    """The check above is not blind."""
    text = page_text("en", "yahtzee")
    assert "| 1 | 3 3 3 5 5 | Full house | 25 | 25 |" in text
    off_by_one = text.replace(
        "| 1 | 3 3 3 5 5 | Full house | 25 | 25 |", "| 1 | 3 3 3 5 5 | Full house | 25 | 26 |"
    )
    assert worked_sheet_errors("yahtzee", "en", off_by_one)[0] == 1
    no_bonus = re.sub(r"\| 25 \+ 100 [^|]*\|", "| 25 |", text)
    assert no_bonus != text
    assert worked_sheet_errors("yahtzee", "en", no_bonus) == [5]


def test_a_throw_of_dice_in_a_rules_table_stays_on_one_line() -> None:
    app = FastAPI()
    app.include_router(pages.router)
    with TestClient(app) as client:
        page = client.get("/rules/poker-dice", params={"lang": "es"}).text
    assert '<td class="dice-cell">10 J Q K A</td>' in page  # white-space: nowrap in rules.css
    assert "<td>4 + 3 de bonificación</td>" in page  # points are not dice
    assert "<td>Jotas</td>" in page
