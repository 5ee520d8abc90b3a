"""The engine's star primitives (`dicepoker.engine.stars`) on sheets written by hand, against the
School page (docs/rules/en/school.md): which cells keep a star, whether a star is still in reach
after strikes, zeros, the reserve and other players' claims, what a move puts at stake, and what
each star is worth."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from dicepoker.dice import SeededDice
from dicepoker.engine import (
    Bonus,
    Cell,
    GameState,
    Mark,
    Sheet,
    apply,
    broken_stars,
    claimed_stars,
    column_star_broken,
    column_star_key,
    column_star_open,
    column_star_value,
    earned_stars,
    keeps_column_star,
    keeps_row_star,
    legal_actions,
    new_game,
    row_star_broken,
    row_star_key,
    row_star_open,
    row_star_value,
    star_status,
    stars_at_stake,
)
from dicepoker.rules import get_rules

SCHOOL = get_rules("school")  # 3 columns
CLOSED = Cell(Mark.CLOSED)
USED = Cell(Mark.CLOSED, used_reserve=True, note=1)
ZERO = Cell(Mark.ZERO)
STRIKE = Cell(Mark.STRIKE)
NOBODY: dict[tuple[str, str | int], int] = {}


def score(points: int) -> Cell:
    return Cell(Mark.SCORE, points)


def sheet(cells: Mapping[tuple[str, int], Cell]) -> Sheet:
    """A School sheet with `cells` at (row id, column); each row filled from the left."""
    rules = SCHOOL
    out: list[Cell | None] = [None] * rules.cells
    fills = [0] * len(rules.rows)
    for (row, column), cell in cells.items():
        out[rules.row_index[row] * rules.columns + column] = cell
        fills[rules.row_index[row]] = max(fills[rules.row_index[row]], column + 1)
    for index, fill in enumerate(fills):
        row_cells = out[index * rules.columns : index * rules.columns + fill]
        assert None not in row_cells, "rows fill from the left"
    return Sheet(tuple(out), tuple(fills), filled=len(cells))


def column_but(column: int, *missing: str, **cells: Cell) -> dict[tuple[str, int], Cell]:
    """Every cell of `column` filled (School rows closed, combinations scored 10) but those of
    the rows `missing`, with `cells` instead where given; earlier columns filled the same way."""
    out: dict[tuple[str, int], Cell] = {}
    for row in SCHOOL.rows:
        for c in range(column + 1):
            if c == column and row.id in missing:
                continue
            default = CLOSED if row.school else score(10)
            out[(row.id, c)] = cells.get(row.id, default) if c == column else default
    return out


def i(row: str) -> int:
    return SCHOOL.row_index[row]


# --- keys and cells ----------------------------------------------------------------------------


def test_star_keys() -> None:
    assert row_star_key(SCHOOL, i("ones")) == ("school_row", "ones")
    assert row_star_key(SCHOOL, i("large_straight")) == ("combination_row", "large_straight")
    assert row_star_key(SCHOOL, i("sum")) is None  # sum has no row star
    assert column_star_key(SCHOOL, 2) == ("column", 2)
    yahtzee = get_rules("yahtzee")
    assert row_star_key(yahtzee, 0) is None and column_star_key(yahtzee, 0) is None


def test_which_cells_keep_a_row_star() -> None:
    """School row: closed without the reserve (fewer than three dice breaks it) and no zero;
    combination row: scored, not struck."""
    assert keeps_row_star(SCHOOL, i("fours"), CLOSED)
    assert not keeps_row_star(SCHOOL, i("fours"), USED)
    assert not keeps_row_star(SCHOOL, i("fours"), ZERO)
    assert keeps_row_star(SCHOOL, i("pair"), score(4))
    assert not keeps_row_star(SCHOOL, i("pair"), STRIKE)


def test_which_cells_keep_a_column_star() -> None:
    """Only a stroke or a zero breaks a column; using the reserve does not."""
    assert keeps_column_star(SCHOOL, CLOSED) and keeps_column_star(SCHOOL, USED)
    assert keeps_column_star(SCHOOL, score(12))
    assert not keeps_column_star(SCHOOL, STRIKE) and not keeps_column_star(SCHOOL, ZERO)


def test_star_values() -> None:
    """School row n: 5 x n; combination row: its best cell as scored (44, 44, 88 earn 88); a
    column: its best combination or sum (School cells do not count)."""
    assert row_star_value(SCHOOL, i("ones"), (CLOSED,) * 3) == 5
    assert row_star_value(SCHOOL, i("sixes"), (CLOSED,) * 3) == 30
    cells = (score(44), score(44), Cell(Mark.SCORE, 88, True))
    assert row_star_value(SCHOOL, i("four_of_a_kind"), cells) == 88
    column: list[Cell | None] = [CLOSED, CLOSED, CLOSED, CLOSED, CLOSED, CLOSED]
    column += [score(10)] * 8 + [score(23)]
    assert column_star_value(SCHOOL, column) == 23  # the sum may be the best
    column[i("pair")] = score(24)
    assert column_star_value(SCHOOL, column) == 24
    assert column_star_value(SCHOOL, [CLOSED] * 6 + [STRIKE] * 9) == 0


# --- a star's reach ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cells", "row", "open_"),
    [
        ({}, "fives", True),
        ({("fives", 0): CLOSED, ("fives", 1): CLOSED}, "fives", True),
        ({("fives", 0): CLOSED, ("fives", 1): USED}, "fives", False),  # used the reserve
        ({("fives", 0): ZERO}, "fives", False),  # a zero
        ({("fives", 0): CLOSED, ("fives", 1): CLOSED, ("fives", 2): CLOSED}, "fives", False),
        ({("pair", 0): score(4), ("pair", 1): score(12)}, "pair", True),
        ({("pair", 0): score(4), ("pair", 1): STRIKE}, "pair", False),  # a strike
        ({("pair", 0): STRIKE}, "three_of_a_kind", True),  # another row's strike
        ({}, "sum", False),  # no star at all
    ],
)
def test_row_star_reach(cells: dict[tuple[str, int], Cell], row: str, open_: bool) -> None:
    assert row_star_open(SCHOOL, sheet(cells), i(row), NOBODY) == open_


def test_a_row_star_someone_holds_is_out_of_reach() -> None:
    mine = sheet({("fives", 0): CLOSED})
    assert row_star_open(SCHOOL, mine, i("fives"), NOBODY)
    assert not row_star_open(SCHOOL, mine, i("fives"), {("school_row", "fives"): 1})
    assert row_star_open(SCHOOL, mine, i("fives"), {("school_row", "fours"): 1})
    assert not row_star_broken(SCHOOL, mine, i("fives"))


@pytest.mark.parametrize(
    ("cells", "column", "open_"),
    [
        ({}, 0, True),
        ({("ones", 0): USED}, 0, True),  # the reserve does not matter to a column
        ({("ones", 0): ZERO}, 0, False),
        ({("ones", 0): ZERO}, 1, True),  # only its own column
        ({("pair", 0): STRIKE}, 0, False),
        ({("pair", 0): score(4), ("pair", 1): STRIKE}, 1, False),
        ({("pair", 0): score(4), ("pair", 1): STRIKE}, 0, True),
    ],
)
def test_column_star_reach(cells: dict[tuple[str, int], Cell], column: int, open_: bool) -> None:
    assert column_star_open(SCHOOL, sheet(cells), column, NOBODY) == open_


def test_a_full_or_claimed_column_is_out_of_reach() -> None:
    full = sheet(column_but(0))
    assert not column_star_open(SCHOOL, full, 0, NOBODY)  # earned or lost already
    assert column_star_open(SCHOOL, full, 1, NOBODY)
    nearly = sheet(column_but(0, "sum"))
    assert column_star_open(SCHOOL, nearly, 0, NOBODY)
    assert not column_star_open(SCHOOL, nearly, 0, {("column", 0): 2})


# --- what a move puts at stake, and earns ------------------------------------------------------


def test_the_last_cell_of_a_row_puts_its_star_at_stake() -> None:
    two = sheet({("pair", 0): score(10), ("pair", 1): score(8)})
    assert stars_at_stake(SCHOOL, two, i("pair"), NOBODY) == (("combination_row", "pair"), None)
    one = sheet({("pair", 0): score(10)})
    assert stars_at_stake(SCHOOL, one, i("pair"), NOBODY) == (None, None)
    # its best cell, the new one included
    assert earned_stars(SCHOOL, two, i("pair"), score(12), NOBODY) == (
        Bonus("combination_row", "pair", 12),
    )
    assert earned_stars(SCHOOL, two, i("pair"), score(4), NOBODY) == (
        Bonus("combination_row", "pair", 10),
    )
    assert earned_stars(SCHOOL, two, i("pair"), STRIKE, NOBODY) == ()
    taken = {("combination_row", "pair"): 1}
    assert stars_at_stake(SCHOOL, two, i("pair"), taken) == (None, None)
    assert earned_stars(SCHOOL, two, i("pair"), score(12), taken) == ()


def test_a_school_row_star_needs_its_last_closing_without_the_reserve() -> None:
    two = sheet({("threes", 0): CLOSED, ("threes", 1): CLOSED})
    assert earned_stars(SCHOOL, two, i("threes"), CLOSED, NOBODY) == (
        Bonus("school_row", "threes", 15),
    )
    assert earned_stars(SCHOOL, two, i("threes"), USED, NOBODY) == ()


def test_the_last_cell_of_a_column_puts_its_star_at_stake() -> None:
    nearly = sheet(column_but(0, "sum", pair=score(24)))
    assert stars_at_stake(SCHOOL, nearly, i("sum"), NOBODY) == (None, ("column", 0))
    assert earned_stars(SCHOOL, nearly, i("sum"), score(17), NOBODY) == (Bonus("column", 0, 24),)
    assert earned_stars(SCHOOL, nearly, i("sum"), score(30), NOBODY) == (Bonus("column", 0, 30),)
    assert earned_stars(SCHOOL, nearly, i("sum"), STRIKE, NOBODY) == ()
    # a zero elsewhere in the column puts nothing at stake
    broken = sheet(column_but(0, "sum", ones=ZERO))
    assert stars_at_stake(SCHOOL, broken, i("sum"), NOBODY) == (None, None)
    # nor does a column with two cells left
    two_left = sheet(column_but(0, "sum", "pair"))
    assert stars_at_stake(SCHOOL, two_left, i("sum"), NOBODY) == (None, None)
    assert stars_at_stake(SCHOOL, two_left, i("pair"), NOBODY) == (None, None)


def test_one_move_earns_a_row_star_and_a_column_star_row_first() -> None:
    """On a 1-column sheet a row's only cell completes the row and, as the column's last, the
    column: both stars, the row star first."""
    rules = get_rules("school", {"columns": 1})
    cells: list[Cell | None] = [CLOSED if row.school else score(10) for row in rules.rows]
    pair = rules.row_index["pair"]
    cells[pair] = None
    fills = tuple(0 if r == pair else 1 for r in range(len(rules.rows)))
    nearly = Sheet(tuple(cells), fills, filled=len(rules.rows) - 1)
    assert earned_stars(rules, nearly, pair, score(12), NOBODY) == (
        Bonus("combination_row", "pair", 12),
        Bonus("column", 0, 12),
    )


# --- the shortcuts, against the definitions, on played sheets ---------------------------------


def _played(columns: int, players: int, seed: int) -> list[GameState]:
    """Every position of a seeded random School game: a stroke or a zero one move in four when
    another move is legal, so that some stars stay in reach to the last cell."""
    rules = get_rules("school", {"columns": columns})
    rng, dice = random.Random(seed), SeededDice(seed)
    state = new_game(rules, [f"P{n}" for n in range(players)])
    out = [state]
    while not state.finished:
        actions = legal_actions(state)
        kept = [a for a in actions if getattr(a, "verb", None) not in ("strike", "zero")]
        state = apply(state, rng.choice(kept if kept and rng.random() < 0.75 else actions), dice)
        out.append(state)
    return out


@pytest.mark.parametrize(("columns", "players", "seed"), [(3, 2, 1), (1, 3, 2), (2, 4, 3)])
def test_the_one_pass_over_a_sheet_agrees_with_each_row_and_column(
    columns: int, players: int, seed: int
) -> None:
    """`broken_stars` (what a sheet's view reads) names exactly the rows and columns that
    `row_star_broken` and `column_star_broken` say are broken, and `stars_at_stake` puts a column
    star at stake exactly where every other row is past the column."""
    broken_seen = stake_seen = 0
    for state in _played(columns, players, seed):
        rules = state.rules
        claimed = claimed_stars(state)
        for sheet_ in state.sheets:
            rows, cols = broken_stars(rules, sheet_)
            assert rows == {r for r in range(len(rules.rows)) if row_star_broken(rules, sheet_, r)}
            assert cols == {c for c in range(columns) if column_star_broken(rules, sheet_, c)}
            broken_seen += len(rows) + len(cols)
            for index, fill in enumerate(sheet_.row_fill):
                if fill == columns:
                    continue
                others = [f for r, f in enumerate(sheet_.row_fill) if r != index]
                last = all(f > fill for f in others)
                row_key, column_key = stars_at_stake(rules, sheet_, index, claimed)
                stake_seen += (row_key is not None) + last
                if column_key is not None:
                    assert last
                elif last and column_star_open(rules, sheet_, fill, claimed):
                    raise AssertionError(f"column {fill} at stake for row {index}, not found")
        for seat in range(players):
            struck = {(s.kind, s.key) for s in star_status(state, seat) if s.status == "struck"}
            assert {("column", c) for c in broken_stars(rules, state.sheets[seat])[1]} <= struck
    # (the games broke stars, and reached last cells of rows and columns)
    assert broken_seen and stake_seen


def test_a_stroke_or_a_zero_earns_nothing_even_with_a_star_at_stake() -> None:
    """A stroke or a zero in the last cell of a row and of a column earns neither star."""
    rules = get_rules("school", {"columns": 1})
    cells: list[Cell | None] = [CLOSED if row.school else score(10) for row in rules.rows]
    ones = rules.row_index["ones"]
    pair = rules.row_index["pair"]
    for index, cell in ((pair, STRIKE), (ones, ZERO)):
        nearly = list(cells)
        nearly[index] = None
        fills = tuple(0 if r == index else 1 for r in range(len(rules.rows)))
        sheet_ = Sheet(tuple(nearly), fills, filled=len(rules.rows) - 1)
        assert stars_at_stake(rules, sheet_, index, NOBODY) != (None, None)
        assert earned_stars(rules, sheet_, index, cell, NOBODY) == ()
