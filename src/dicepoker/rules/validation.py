"""What makes a variant's definition well formed, checked once when its rules are built.

The engine trusts the rules it reads: a bonus naming no row fails deep in a table build, a Joker
row that does not exist fails on the first further Yahtzee, a row that no dice can make is
silently dead. So `Rules` checks its definition when it is built (`Rules.__post_init__`), and a
`Variant` checks its options and name when it is declared, each with a reason that names the
variant, the field and what is wrong. Rules are built rarely (`get_rules` keeps one per variant
and options); the engine then reads them millions of times without checking again.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, get_args

from dicepoker.rules.model import Combo, Pattern, Row, Section, Value

if TYPE_CHECKING:
    from dicepoker.rules.model import OptionSpec, Rules

#: A variant's name is a slug, and does not end in `-<digits>`: a rating pool is the name
#: followed by `-<size>` where an option changes the sheet (`school-3`), and must split back.
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]*[a-z][a-z0-9]*)*")
SECTIONS: tuple[Section, ...] = get_args(Section)


class InvalidVariant(ValueError):
    """A variant whose definition cannot be played as written: `field` of `variant` is wrong,
    and `reason` says how. A mistake of whoever wrote the variant, never of a player (a player's
    unknown variant or bad option is a `RulesError`)."""

    def __init__(self, variant: str, field: str, reason: str) -> None:
        super().__init__(f"variant {variant!r}: {field}: {reason}")
        self.variant = variant
        self.field = field
        self.reason = reason


def _duplicates(values: Iterable[str]) -> list[str]:
    return sorted(value for value, count in Counter(values).items() if count > 1)


def check_name(name: str) -> None:
    """A variant's name: a slug that a rating pool's name splits back into."""
    if not NAME.fullmatch(name):
        raise InvalidVariant(
            name,
            "name",
            "must be lowercase letters and digits in hyphenated words, the last not a number "
            "(a rating pool appends '-<size>' to it)",
        )


def check_options(variant: str, specs: tuple[OptionSpec, ...]) -> None:
    """A variant's option specs: distinct names, a default of the option's kind and within its
    bounds, and bounds on every option that splits the rating pools (each value is a pool)."""
    doubled = _duplicates(spec.name for spec in specs)
    if doubled:
        raise InvalidVariant(variant, "options", f"option {doubled[0]!r} is declared twice")
    for spec in specs:
        where = f"options.{spec.name}"
        if spec.kind not in (bool, int):
            raise InvalidVariant(variant, where, "an option is a bool or an int")
        if spec.minimum is not None and spec.maximum is not None and spec.minimum > spec.maximum:
            raise InvalidVariant(
                variant, where, f"minimum {spec.minimum} is above maximum {spec.maximum}"
            )
        default = spec.default
        if default is not None:
            if isinstance(default, bool) != (spec.kind is bool):
                raise InvalidVariant(
                    variant, where, f"default {default!r} is not a {spec.kind.__name__}"
                )
            if spec.kind is int and not (
                (spec.minimum is None or default >= spec.minimum)
                and (spec.maximum is None or default <= spec.maximum)
            ):
                raise InvalidVariant(
                    variant,
                    where,
                    f"default {default} is outside {spec.minimum}..{spec.maximum}",
                )
        if spec.pool and (spec.kind is not int or spec.minimum is None or spec.maximum is None):
            raise InvalidVariant(
                variant,
                where,
                "an option that splits the rating pools is an int with a minimum and a maximum "
                "(each value is a pool)",
            )


def check_rules(rules: Rules) -> None:
    """Everything `Rules` can hold that the engine could not play as written."""
    name = rules.variant
    if not name:
        raise InvalidVariant(name, "variant", "the rules name no variant")
    _check_sizes(rules)
    _check_rows(rules)
    _check_blocks(rules)


def _at_least(rules: Rules, field: str, value: int, least: int) -> None:
    if value < least:
        raise InvalidVariant(rules.variant, field, f"is {value}, must be at least {least}")


def _check_sizes(rules: Rules) -> None:
    _at_least(rules, "dice", rules.dice, 1)
    _at_least(rules, "faces", rules.faces, 1)
    _at_least(rules, "rolls_per_turn", rules.rolls_per_turn, 1)
    _at_least(rules, "columns", rules.columns, 1)
    _at_least(rules, "min_players", rules.min_players, 1)
    if rules.max_players < rules.min_players:
        raise InvalidVariant(
            rules.variant,
            "max_players",
            f"is {rules.max_players}, below min_players {rules.min_players}",
        )
    if len(rules.face_labels) != rules.faces:
        raise InvalidVariant(
            rules.variant,
            "face_labels",
            f"has {len(rules.face_labels)} labels for {rules.faces} faces",
        )
    doubled = _duplicates(rules.face_labels)
    if doubled or not all(rules.face_labels):
        raise InvalidVariant(rules.variant, "face_labels", "every face needs a label of its own")
    doubled = _duplicates(option for option, _ in rules.options)
    if doubled:
        raise InvalidVariant(rules.variant, "options", f"option {doubled[0]!r} is given twice")
    _at_least(rules, "turn_seconds", rules.turn_seconds, 0)


def _check_rows(rules: Rules) -> None:
    if not rules.rows:
        raise InvalidVariant(rules.variant, "rows", "the sheet has no row")
    doubled = _duplicates(row.id for row in rules.rows)
    if doubled:
        raise InvalidVariant(rules.variant, "rows", f"row id {doubled[0]!r} is used twice")
    titled = [section for section, _ in rules.section_titles]
    if _duplicates(titled) or any(section not in SECTIONS for section in titled):
        raise InvalidVariant(
            rules.variant, "section_titles", f"titles one section each of {SECTIONS}"
        )
    for row in rules.rows:
        where = f"rows.{row.id or '?'}"
        if not row.id:
            raise InvalidVariant(rules.variant, where, "a row needs an id")
        if row.section not in titled:
            raise InvalidVariant(
                rules.variant,
                f"{where}.section",
                f"{row.section!r} is no section of the sheet (sections: {', '.join(titled)})",
            )
        _check_combo(rules, f"{where}.combo", row.combo)
        _check_row_flags(rules, where, row)


def _check_combo(rules: Rules, where: str, combo: Combo) -> None:
    """A pattern that some throw of the rules' dice makes, with what it reads and nothing else."""
    name, dice, faces = rules.variant, rules.dice, rules.faces
    pattern = combo.pattern
    if pattern is Pattern.FACE and not 1 <= combo.n <= faces:
        raise InvalidVariant(name, where, f"face {combo.n} is not a face of 1..{faces}")
    if pattern is Pattern.OF_A_KIND and not 1 <= combo.n <= dice:
        raise InvalidVariant(name, where, f"{combo.n} of a kind needs 1..{dice} dice")
    least = {Pattern.TWO_PAIRS: 4, Pattern.FULL_HOUSE: 5}.get(pattern, 0)
    if dice < least:
        raise InvalidVariant(name, where, f"{pattern.value} needs {least} dice, not {dice}")
    if pattern is Pattern.STRAIGHT:
        if not combo.runs:
            raise InvalidVariant(name, where, "a straight needs at least one run")
        for run in combo.runs:
            if not run or list(run) != sorted(set(run)) or run[0] < 1 or run[-1] > faces:
                raise InvalidVariant(
                    name, where, f"run {run} is not increasing distinct faces of 1..{faces}"
                )
            if len(run) > dice:
                raise InvalidVariant(name, where, f"run {run} needs more than {dice} dice")
    elif combo.runs:
        raise InvalidVariant(name, where, f"runs are read by straights only, not {pattern.value}")


def _check_row_flags(rules: Rules, where: str, row: Row) -> None:
    name = rules.variant
    if row.school:
        if rules.reserve is None:
            raise InvalidVariant(name, f"{where}.school", "a School row needs the rules' reserve")
        if row.combo.pattern is not Pattern.FACE:
            raise InvalidVariant(name, f"{where}.school", "a School row is closed by its face")
    if (row.star or row.column_best) and rules.stars is None:
        raise InvalidVariant(name, f"{where}.star", "a star or column_best row needs stars")


def _known_row(rules: Rules, field: str, row_id: str) -> None:
    if row_id not in rules.row_index:
        raise InvalidVariant(rules.variant, field, f"names no row: {row_id!r}")


def _check_blocks(rules: Rules) -> None:
    """The rule blocks: each one's rows exist, its numbers are possible."""
    name = rules.variant
    reserve = rules.reserve
    if reserve is not None:
        if not any(row.school for row in rules.rows):
            raise InvalidVariant(name, "reserve", "a reserve with no School row to close")
        if not 1 <= reserve.target <= rules.dice:
            raise InvalidVariant(
                name, "reserve.target", f"{reserve.target} dice is not 1..{rules.dice}"
            )
        _at_least(rules, "reserve.zero_penalty", reserve.zero_penalty, 0)
    stars = rules.stars
    if stars is not None:
        _at_least(rules, "stars.school_factor", stars.school_factor, 0)
        if stars.columns and not any(row.column_best for row in rules.rows):
            raise InvalidVariant(name, "stars.columns", "column stars with no column_best row")
    bonus = rules.upper_bonus
    if bonus is not None:
        upper = [row for row in rules.rows if row.section == "upper"]
        if not upper:
            raise InvalidVariant(name, "upper_bonus", "names no row: the sheet has no upper row")
        _at_least(rules, "upper_bonus.threshold", bonus.threshold, 1)
        _at_least(rules, "upper_bonus.points", bonus.points, 0)
        most = sum(_most(rules, row.combo) for row in upper)
        if bonus.threshold > most:
            raise InvalidVariant(
                name,
                "upper_bonus.threshold",
                f"{bonus.threshold} is more than the upper rows can total ({most})",
            )
    extra = rules.extra_yahtzee
    if extra is not None:
        _known_row(rules, "extra_yahtzee.box", extra.box)
        box = rules.row(extra.box).combo
        if box.pattern is not Pattern.OF_A_KIND or box.n != rules.dice:
            raise InvalidVariant(
                name,
                "extra_yahtzee.box",
                f"{extra.box!r} is not made by all {rules.dice} dice alike (a Yahtzee row)",
            )
        _at_least(rules, "extra_yahtzee.bonus", extra.bonus, 0)
        for row_id, points in extra.joker_points:
            _known_row(rules, "extra_yahtzee.joker_points", row_id)
            _at_least(rules, f"extra_yahtzee.joker_points.{row_id}", points, 0)
        doubled = _duplicates(row_id for row_id, _ in extra.joker_points)
        if doubled:
            raise InvalidVariant(
                name, "extra_yahtzee.joker_points", f"row {doubled[0]!r} is given twice"
            )
        for row in rules.rows:
            if row.section == "upper" and row.combo.pattern is not Pattern.FACE:
                raise InvalidVariant(
                    name,
                    f"rows.{row.id}.combo",
                    "the forced Joker sends a Yahtzee to the upper row of its face: every upper "
                    "row is a face row",
                )
    autoplay = rules.autoplay
    if autoplay is not None:
        if not autoplay.priority:
            raise InvalidVariant(name, "autoplay.priority", "is empty")
        for row_id in autoplay.priority:
            _known_row(rules, "autoplay.priority", row_id)
        doubled = _duplicates(autoplay.priority)
        if doubled:
            raise InvalidVariant(name, "autoplay.priority", f"row {doubled[0]!r} is listed twice")
    clock = rules.clock
    if clock is not None:
        if not clock.option:
            raise InvalidVariant(name, "clock.option", "names no option")
        _at_least(rules, "clock.online_default", clock.online_default, 1)


def _most(rules: Rules, combo: Combo) -> int:
    """The most a row can score before doubling (an upper bound: a bonus threshold above the sum
    of these can never be reached)."""
    value = combo.value
    if value is Value.FIXED:
        base = 0
    elif value is Value.COUNT:
        base = rules.dice
    elif value is Value.ALL or combo.pattern is not Pattern.FACE:
        base = rules.dice * rules.faces
    else:
        base = rules.dice * combo.n
    return base + combo.points


def check_built(name: str, options: tuple[OptionSpec, ...], rules: Rules) -> None:
    """What a variant's builder returned: rules of that variant, whose turn clock is set by an
    integer option of it."""
    if rules.variant != name:
        raise InvalidVariant(name, "build", f"built the rules of {rules.variant!r}")
    clock = rules.clock
    if clock is not None:
        kinds = {spec.name: spec.kind for spec in options}
        if kinds.get(clock.option) is not int:
            raise InvalidVariant(
                name, "clock.option", f"{clock.option!r} is no integer option of the variant"
            )


__all__ = ["InvalidVariant", "check_built", "check_name", "check_options", "check_rules"]
