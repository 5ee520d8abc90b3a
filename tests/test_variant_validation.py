"""Variants are validated data: each shipped variant passes with every option, and each malformed
definition is refused where it is built, with an `InvalidVariant` naming the variant, the field
and what is wrong."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any, cast

import pytest

from dicepoker.rules import (
    VARIANTS,
    InvalidVariant,
    OptionSpec,
    RulesError,
    Variant,
    get_rules,
    registry,
    variant_names,
)
from dicepoker.rules.model import (
    AutoPlay,
    ClockPolicy,
    Combo,
    ExtraYahtzee,
    Pattern,
    Reserve,
    Row,
    Rules,
    Stars,
    UpperBonus,
    Value,
)

NAME = "sample"


def _face(row_id: str, face: int, **flags: bool) -> Row:
    return Row(row_id, Combo(Pattern.FACE, Value.MATCHING, n=face), "upper", **flags)


ROWS = (
    _face("fives", 5),
    _face("sixes", 6),
    Row("pair", Combo(Pattern.OF_A_KIND, Value.ALL, n=2), "lower"),
    Row("full_house", Combo(Pattern.FULL_HOUSE, Value.FIXED, points=25), "lower"),
    Row(
        "straight",
        Combo(Pattern.STRAIGHT, Value.FIXED, points=40, runs=((2, 3, 4, 5, 6),)),
        "lower",
    ),
    Row("yahtzee", Combo(Pattern.OF_A_KIND, Value.FIXED, n=5, points=50), "lower"),
    Row("chance", Combo(Pattern.ANY, Value.ALL), "lower"),
)
GOOD: dict[str, Any] = {
    "variant": NAME,
    "options": (),
    "rows": ROWS,
    "upper_bonus": UpperBonus(30, 15),
    "extra_yahtzee": ExtraYahtzee("yahtzee", 100, (("full_house", 25),)),
    "clock": ClockPolicy("turn_seconds", 60),
}
#: Auto-play beside the forced Joker: auto-play chooses among the moves the engine allows, so it
#: follows the Joker (tests/test_autoplay.py).
AUTOPLAYED: dict[str, Any] = {**GOOD, "autoplay": AutoPlay(("yahtzee", "pair"))}
SCHOOL_ROWS = (
    _face("ones", 1, school=True, star=True),
    _face("twos", 2, school=True, star=True),
    Row("sum", Combo(Pattern.ANY, Value.ALL), "lower", strike=True, column_best=True),
)
SCHOOL: dict[str, Any] = {
    "variant": NAME,
    "options": (),
    "rows": SCHOOL_ROWS,
    "columns": 2,
    "unmade_scores_zero": False,
    "reserve": Reserve(3, 200),
    "stars": Stars(5, True),
}


def _with_row(rows: tuple[Row, ...], index: int, **changes: Any) -> tuple[Row, ...]:
    changed = list(rows)
    changed[index] = replace(rows[index], **changes)
    return tuple(changed)


def _combo(index: int, **changes: Any) -> tuple[Row, ...]:
    return _with_row(ROWS, index, combo=replace(ROWS[index].combo, **changes))


def test_the_sample_definitions_are_well_formed() -> None:
    assert Rules(**GOOD).cells == len(ROWS)
    assert Rules(**AUTOPLAYED).autoplay == AutoPlay(("yahtzee", "pair"))
    assert Rules(**SCHOOL).cells == 2 * len(SCHOOL_ROWS)


def test_every_shipped_variant_validates_with_every_option() -> None:
    built = 0
    for name in variant_names():
        specs = VARIANTS[name].options
        choices = [
            [True, False]
            if spec.kind is bool
            else sorted({int(spec.minimum or 0), int(spec.maximum or 0), int(spec.default or 0)})
            for spec in specs
        ]
        for values in itertools.product(*choices):
            rules = get_rules(name, dict(zip((spec.name for spec in specs), values, strict=True)))
            assert rules.variant == name
            built += 1
    assert built > len(variant_names())


# (name, the rules' fields changed, the field named, what the reason says)
MALFORMED: list[tuple[str, dict[str, Any], str, str]] = [
    ("no rows", {"rows": ()}, "rows", "no row"),
    ("duplicate row ids", {"rows": (*ROWS, ROWS[2])}, "rows", "'pair' is used twice"),
    ("a row without an id", {"rows": _with_row(ROWS, 6, id="")}, "rows.?", "needs an id"),
    (
        "a row in no section",
        {"rows": _with_row(ROWS, 2, section=cast(Any, "middle"))},
        "rows.pair.section",
        "'middle' is no section",
    ),
    (
        "a section without a title",
        {"section_titles": (("upper", "Upper section"),)},
        "rows.pair.section",
        "'lower' is no section of the sheet",
    ),
    (
        "a section titled twice",
        {"section_titles": (("upper", "A"), ("upper", "B"), ("lower", "C"))},
        "section_titles",
        "one section each",
    ),
    ("no dice", {"dice": 0}, "dice", "is 0, must be at least 1"),
    ("no faces", {"faces": 0, "face_labels": ()}, "faces", "is 0, must be at least 1"),
    ("no rolls", {"rolls_per_turn": 0}, "rolls_per_turn", "is 0, must be at least 1"),
    ("no columns", {"columns": 0}, "columns", "is 0, must be at least 1"),
    ("no player", {"min_players": 0}, "min_players", "is 0, must be at least 1"),
    (
        "more players needed than seated",
        {"min_players": 3, "max_players": 2},
        "max_players",
        "is 2, below min_players 3",
    ),
    ("labels short", {"face_labels": ("1", "2")}, "face_labels", "2 labels for 6 faces"),
    ("labels alike", {"face_labels": ("1",) * 6}, "face_labels", "a label of its own"),
    (
        "an option given twice",
        {"options": (("x", 1), ("x", 2))},
        "options",
        "'x' is given twice",
    ),
    ("a negative clock", {"turn_seconds": -1}, "turn_seconds", "must be at least 0"),
    ("a face beyond the dice", {"rows": _combo(1, n=7)}, "rows.sixes.combo", "face 7"),
    (
        "more of a kind than dice",
        {"rows": _combo(2, n=6)},
        "rows.pair.combo",
        "6 of a kind needs 1..5 dice",
    ),
    (
        "a full house of four dice",
        {"dice": 4, "rows": (*ROWS[:3], ROWS[3]), "extra_yahtzee": None},
        "rows.full_house.combo",
        "full_house needs 5 dice, not 4",
    ),
    (
        "two pairs of three dice",
        {
            "dice": 3,
            "rows": (*ROWS[:2], Row("two_pairs", Combo(Pattern.TWO_PAIRS, Value.ALL), "lower")),
            "extra_yahtzee": None,
            "autoplay": None,
        },
        "rows.two_pairs.combo",
        "two_pairs needs 4 dice, not 3",
    ),
    (
        "a run longer than the dice",
        {"dice": 4, "rows": (*ROWS[:3], ROWS[4]), "extra_yahtzee": None, "autoplay": None},
        "rows.straight.combo",
        "needs more than 4 dice",
    ),
    ("a straight without runs", {"rows": _combo(4, runs=())}, "rows.straight.combo", "one run"),
    (
        "a run beyond the faces",
        {"rows": _combo(4, runs=((4, 5, 6, 7),))},
        "rows.straight.combo",
        "not increasing distinct faces of 1..6",
    ),
    (
        "a run out of order",
        {"rows": _combo(4, runs=((3, 2, 4),))},
        "rows.straight.combo",
        "not increasing",
    ),
    (
        "runs on a pair",
        {"rows": _combo(2, runs=((1, 2),))},
        "rows.pair.combo",
        "runs are read by straights only",
    ),
    (
        "a bonus over no upper row",
        {"rows": ROWS[2:], "extra_yahtzee": None},
        "upper_bonus",
        "names no row",
    ),
    (
        "a bonus out of reach",
        {"upper_bonus": UpperBonus(56, 35)},
        "upper_bonus.threshold",
        "56 is more than the upper rows can total (55)",
    ),
    (
        "a bonus at nothing",
        {"upper_bonus": UpperBonus(0, 35)},
        "upper_bonus.threshold",
        "at least 1",
    ),
    (
        "a Joker box naming no row",
        {"extra_yahtzee": ExtraYahtzee("quintuple", 100, ())},
        "extra_yahtzee.box",
        "names no row: 'quintuple'",
    ),
    (
        "a Joker box that is no Yahtzee",
        {"extra_yahtzee": ExtraYahtzee("pair", 100, ())},
        "extra_yahtzee.box",
        "not made by all 5 dice alike",
    ),
    (
        "Joker points naming no row",
        {"extra_yahtzee": ExtraYahtzee("yahtzee", 100, (("small_straight", 30),))},
        "extra_yahtzee.joker_points",
        "names no row: 'small_straight'",
    ),
    (
        "Joker points given twice",
        {"extra_yahtzee": ExtraYahtzee("yahtzee", 100, (("chance", 30), ("chance", 20)))},
        "extra_yahtzee.joker_points",
        "'chance' is given twice",
    ),
    (
        "a Joker with an upper row that is no face",
        {"rows": _with_row(ROWS, 2, section="upper")},
        "rows.pair.combo",
        "every upper row is a face row",
    ),
    (
        "auto-play naming no row",
        {"autoplay": AutoPlay(("five_of_a_kind",))},
        "autoplay.priority",
        "names no row: 'five_of_a_kind'",
    ),
    (
        "auto-play listing a row twice",
        {"autoplay": AutoPlay(("pair", "pair"))},
        "autoplay.priority",
        "'pair' is listed twice",
    ),
    (
        "auto-play with no row",
        {"autoplay": AutoPlay(())},
        "autoplay.priority",
        "is empty",
    ),
    (
        "a clock with no default",
        {"clock": ClockPolicy("turn_seconds", 0)},
        "clock.online_default",
        "at least 1",
    ),
    ("rules of no variant", {"variant": ""}, "variant", "name no variant"),
]


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
def test_a_malformed_definition_is_refused_with_its_reason(
    changes: dict[str, Any], field: str, reason: str
) -> None:
    with pytest.raises(InvalidVariant) as refused:
        Rules(**{**GOOD, **changes})
    assert refused.value.field == field
    assert reason in refused.value.reason
    assert str(refused.value) == f"variant {changes.get('variant', NAME)!r}: {field}: " + (
        refused.value.reason
    )
    assert isinstance(refused.value, ValueError) and not isinstance(refused.value, RulesError)


SCHOOL_MALFORMED: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "a School row without the reserve",
        {"reserve": None},
        "rows.ones.school",
        "needs the rules' reserve",
    ),
    (
        "a School row that is no face",
        {"rows": _with_row(SCHOOL_ROWS, 0, combo=Combo(Pattern.OF_A_KIND, Value.ALL, n=2))},
        "rows.ones.school",
        "closed by its face",
    ),
    (
        "a reserve with no School row",
        {"rows": SCHOOL_ROWS[2:]},
        "reserve",
        "no School row to close",
    ),
    (
        "a reserve target beyond the dice",
        {"reserve": Reserve(6, 200)},
        "reserve.target",
        "6 dice is not 1..5",
    ),
    (
        "a negative zero penalty",
        {"reserve": Reserve(3, -1)},
        "reserve.zero_penalty",
        "at least 0",
    ),
    ("a star without stars", {"stars": None}, "rows.ones.star", "needs stars"),
    (
        "column stars without a column's best row",
        {"rows": _with_row(SCHOOL_ROWS, 2, column_best=False)},
        "stars.columns",
        "no column_best row",
    ),
]


@pytest.mark.parametrize(
    ("changes", "field", "reason"),
    [case[1:] for case in SCHOOL_MALFORMED],
    ids=[case[0] for case in SCHOOL_MALFORMED],
)
def test_a_malformed_school_definition_is_refused_with_its_reason(
    changes: dict[str, Any], field: str, reason: str
) -> None:
    with pytest.raises(InvalidVariant) as refused:
        Rules(**{**SCHOOL, **changes})
    assert (refused.value.variant, refused.value.field) == (NAME, field)
    assert reason in refused.value.reason


def _build(options: dict[str, bool | int]) -> Rules:
    return Rules(**GOOD)


VARIANT_MALFORMED: list[tuple[str, str, tuple[OptionSpec, ...], str, str]] = [
    ("a name with spaces", "Sample game", (), "name", "lowercase letters"),
    ("a name like a pool", "sample-2", (), "name", "the last not a number"),
    ("an empty name", "", (), "name", "lowercase letters"),
    (
        "an option declared twice",
        NAME,
        (OptionSpec("x", bool, True), OptionSpec("x", bool, False)),
        "options",
        "'x' is declared twice",
    ),
    (
        "a default out of bounds",
        NAME,
        (OptionSpec("rounds", int, 9, 1, 6),),
        "options.rounds",
        "default 9 is outside 1..6",
    ),
    (
        "a default of another kind",
        NAME,
        (OptionSpec("rounds", int, True, 1, 6),),
        "options.rounds",
        "default True is not a int",
    ),
    (
        "bounds upside down",
        NAME,
        (OptionSpec("rounds", int, None, 6, 1),),
        "options.rounds",
        "minimum 6 is above maximum 1",
    ),
    (
        "a pool option without bounds",
        NAME,
        (OptionSpec("columns", int, 3, 1, None, pool=True),),
        "options.columns",
        "a minimum and a maximum",
    ),
    (
        "an option of a kind no form reads",
        NAME,
        (OptionSpec("speed", cast(Any, float), None),),
        "options.speed",
        "a bool or an int",
    ),
]


@pytest.mark.parametrize(
    ("name", "options", "field", "reason"),
    [case[1:] for case in VARIANT_MALFORMED],
    ids=[case[0] for case in VARIANT_MALFORMED],
)
def test_a_malformed_variant_is_refused_when_declared(
    name: str, options: tuple[OptionSpec, ...], field: str, reason: str
) -> None:
    with pytest.raises(InvalidVariant) as refused:
        Variant(name, "Sample", "none", options, _build)
    assert (refused.value.variant, refused.value.field) == (name, field)
    assert reason in refused.value.reason


def test_a_variant_declared_twice_is_refused() -> None:
    sample = Variant(NAME, "Sample", "none", (), _build)
    assert list(registry(sample, VARIANTS["yahtzee"])) == [NAME, "yahtzee"]
    with pytest.raises(InvalidVariant, match="variant 'sample': name: is declared twice"):
        registry(sample, replace(sample, title="Another"))


def test_what_a_builder_returns_is_checked_against_its_variant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    impostor = Variant("impostor", "Impostor", "none", (), _build)
    monkeypatch.setitem(VARIANTS, "impostor", impostor)
    with pytest.raises(InvalidVariant, match="variant 'impostor': build: built the rules of"):
        get_rules("impostor")
    # the sample's clock is set by an option `turn_seconds` that this variant does not have
    clockless = Variant(
        "clockless",
        "Clockless",
        "none",
        (),
        lambda options: Rules(**{**GOOD, "variant": "clockless"}),
    )
    monkeypatch.setitem(VARIANTS, "clockless", clockless)
    with pytest.raises(InvalidVariant, match=r"clock\.option: 'turn_seconds' is no integer option"):
        get_rules("clockless")
    clocked = replace(clockless, options=(OptionSpec("turn_seconds", int, None, 0, 3600),))
    monkeypatch.setitem(VARIANTS, "clockless", clocked)
    assert get_rules("clockless").clock == ClockPolicy("turn_seconds", 60)
