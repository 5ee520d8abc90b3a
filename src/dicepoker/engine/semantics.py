"""What the rule blocks of `Rules` mean, as small pure functions: the one source of rule semantics.

The engine plays with these primitives (`apply`, `cell_moves`, `preview`, ...), and the planner,
the School value and the exact solver build their tables by evaluating the same functions on every
hand, face or total they need, so a rule is written once. Star eligibility is in `stars.py`.

- a combination cell: whether the dice may score it, and the cell `score ROW` writes (its value,
  the Joker's value, doubling);
- the upper bonus: which rows count, and what a move's points add to the bonus;
- further Yahtzees: the box, whether the forced Joker applies, the rows it allows for a face in
  the order of preference, each row's points under it, and the bonus;
- the School reserve: what closing a row with `k` dice of its face costs or adds, whether that
  "used the reserve", why a closing is refused, and what a zero costs;
- the positions of the dice that hold a multiset of faces (what a `keep` of faces means).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from dicepoker.engine.errors import Reason
from dicepoker.engine.state import Cell, Mark, Sheet
from dicepoker.engine.tables import tables
from dicepoker.rules.combos import Counts, combo_value, positions_of
from dicepoker.rules.model import Rules

# --- a combination cell ------------------------------------------------------------------------


def scorable(rules: Rules, index: int, counts: Counts) -> bool:
    """Whether `score ROW` is allowed in combination row `index` with these dice (the forced
    Joker aside): unless the dice do not make the row and the rules refuse unmade rows."""
    return rules.unmade_scores_zero or combo_value(rules.rows[index].combo, counts) is not None


def score_refusal(rules: Rules, index: int, counts: Counts) -> str | None:
    """Why `score ROW` is refused in combination row `index` with these dice, or None: only where
    the dice do not make the row and the rules refuse unmade rows (School)."""
    row = rules.rows[index]
    if not scorable(rules, index, counts):
        if row.strike:
            text = f"the dice do not make {row.id} (strike it instead)"
            return Reason("not_made_strike", text, row=row.id, variant=rules.variant)
        return Reason(
            "not_made", f"the dice do not make {row.id}", row=row.id, variant=rules.variant
        )
    return None


def score_cell(
    rules: Rules, index: int, counts: Counts, *, thrown_all: bool, joker: bool = False
) -> Cell:
    """The cell `score ROW` writes in combination row `index`: the row's value for the dice (0
    when they do not make it), or under the forced Joker its `joker_points`; doubled (extra points
    included) when the row doubles, the value is not 0 and the dice were thrown all at once."""
    row = rules.rows[index]
    points = joker_points(rules, index, counts) if joker else combo_value(row.combo, counts) or 0
    if row.doubles and thrown_all and points > 0:
        return Cell(Mark.SCORE, points * 2, True, joker=joker)
    return Cell(Mark.SCORE, points, joker=joker)


# --- the upper bonus ---------------------------------------------------------------------------


def upper_rows(rules: Rules) -> tuple[int, ...]:
    """The rows whose points count toward the upper bonus (the upper section), in sheet order."""
    return tables(rules).upper


def upper_bonus_points(rules: Rules, total: int) -> int:
    """The upper bonus for an upper-section total: its points once the total reaches the
    threshold, else 0 (always 0 without an upper bonus)."""
    bonus = rules.upper_bonus
    return bonus.points if bonus is not None and total >= bonus.threshold else 0


def upper_bonus_gain(rules: Rules, before: int, points: int) -> int:
    """What adding `points` to an upper total of `before` adds in upper bonus: the bonus on the
    move that reaches the threshold, nothing before or after it."""
    return upper_bonus_points(rules, before + points) - upper_bonus_points(rules, before)


# --- further Yahtzees and the forced Joker -----------------------------------------------------


def yahtzee_face(rules: Rules, counts: Counts) -> int | None:
    """The face every die shows (a Yahtzee), or None."""
    return counts.index(rules.dice) if rules.dice in counts else None


def joker_box(rules: Rules) -> int | None:
    """The extra-Yahtzee box (the row a first Yahtzee goes to), or None without the rule."""
    return tables(rules).box


def joker_applies(rules: Rules, sheet: Sheet) -> bool:
    """Whether a Yahtzee thrown now is a further Yahtzee, placed by the forced Joker: the rules
    have the extra-Yahtzee rule and the sheet's box is filled (with its value or with 0)."""
    box = tables(rules).box
    return box is not None and sheet.cells[box * rules.columns] is not None


def joker_tiers(rules: Rules, face: int) -> tuple[tuple[int, ...], ...]:
    """The rows a further Yahtzee of `face` may fill, by preference: the upper row of its face;
    else any lower row; else any upper row. The first tier with an open row is the choice."""
    return rules.memoized("joker_tiers", _joker_tiers)[face]


def _joker_tiers(rules: Rules) -> dict[int, tuple[tuple[int, ...], ...]]:
    upper, lower = tables(rules).upper, tables(rules).lower
    return {
        f: (tuple(i for i in upper if rules.rows[i].combo.n == f), lower, upper)
        for f in range(1, rules.faces + 1)
    }


def joker_rows(rules: Rules, face: int, open_rows: Collection[int]) -> frozenset[int]:
    """The rows the forced Joker allows a further Yahtzee of `face` when `open_rows` have an empty
    cell: the open rows of the first tier of `joker_tiers` that has any."""
    for tier in joker_tiers(rules, face):
        rows = frozenset(i for i in tier if i in open_rows)
        if rows:
            return rows
    return frozenset()


def joker_points(rules: Rules, index: int, counts: Counts) -> int:
    """Row `index`'s value for a further Yahtzee under the forced Joker (before doubling): the
    rule's fixed Joker points where the row has them (full house, straights), else the dice as
    usual (0 where they do not make the row)."""
    fixed = tables(rules).joker_points.get(index)
    if fixed is not None:
        return fixed
    return combo_value(rules.rows[index].combo, counts) or 0


def further_yahtzee_bonus(rules: Rules, box: Cell | None) -> int:
    """The bonus a further Yahtzee earns with `box` in the extra-Yahtzee box: the rule's bonus
    while the box holds a non-zero score, else 0 (the Joker still places it)."""
    extra = rules.extra_yahtzee
    if extra is None or box is None or box.points <= 0:
        return 0
    return extra.bonus


# --- the School reserve ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Closing:
    """Closing a School row with `have` dice of its face: `change` to the reserve (each die over
    the target adds the face, each one short costs it) and whether it `used_reserve` (fewer dice
    than the target: the row's star is lost)."""

    have: int
    change: int
    used_reserve: bool


def _reserve_change(rules: Rules, index: int, have: int) -> int:
    """Each die over the School target adds the row's face to the reserve, each one short costs
    it."""
    reserve = rules.reserve
    assert reserve is not None, f"{rules.variant} has no School reserve"
    return (have - reserve.target) * rules.rows[index].combo.n


def school_closing(rules: Rules, index: int, have: int) -> Closing:
    """What closing School row `index` with `have` dice of its face does (whether it is allowed is
    `school_refusal`)."""
    reserve = rules.reserve
    assert reserve is not None, f"{rules.variant} has no School reserve"
    return Closing(have, _reserve_change(rules, index, have), have < reserve.target)


def school_closable(rules: Rules, index: int, have: int, reserve: int) -> bool:
    """Whether School row `index` can be closed with `have` dice of its face and `reserve` in
    the reserve: it needs one die at least, and the reserve never goes below 0."""
    return bool(have) and reserve + _reserve_change(rules, index, have) >= 0


def school_refusal(rules: Rules, index: int, have: int, reserve: int) -> str | None:
    """Why School row `index` cannot be closed with `have` dice of its face and `reserve` in the
    reserve (`school_closable`), or None when it can."""
    if school_closable(rules, index, have, reserve):
        return None
    row = rules.rows[index]
    label = rules.face_labels[row.combo.n - 1]
    if have == 0:
        text = f"no die shows {label}: closing row {row.id} needs at least one"
        return Reason("no_die", text, row=row.id, variant=rules.variant, face=label)
    target = rules.reserve
    assert target is not None
    cost = -_reserve_change(rules, index, have)
    missing = target.target - have
    text = f"the reserve ({reserve}) cannot cover {missing} missing {label}s ({cost} points)"
    return Reason(
        "reserve_short", text, row=row.id, variant=rules.variant, reserve=reserve, cost=cost
    )


def zero_penalty(rules: Rules) -> int:
    """What one zero in a School row costs (0 in rules without zeros)."""
    return rules.reserve.zero_penalty if rules.reserve is not None else 0


__all__ = [
    "Closing",
    "further_yahtzee_bonus",
    "joker_applies",
    "joker_box",
    "joker_points",
    "joker_rows",
    "joker_tiers",
    "positions_of",
    "school_closable",
    "school_closing",
    "school_refusal",
    "scorable",
    "score_cell",
    "score_refusal",
    "upper_bonus_gain",
    "upper_bonus_points",
    "upper_rows",
    "yahtzee_face",
    "zero_penalty",
]
