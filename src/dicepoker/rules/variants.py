"""The variants of the rules contract, written as data.

Each variant is a name, its options and a function from resolved options to `Rules`. The functions
only assemble values; every rule they name is carried out by the one engine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from dicepoker.rules.model import (
    AutoPlay,
    ClockPolicy,
    Combo,
    ExtraYahtzee,
    OptionSpec,
    Pattern,
    Reserve,
    Row,
    Rules,
    Stars,
    UpperBonus,
    Value,
)
from dicepoker.rules.validation import InvalidVariant, check_name, check_options

UPPER_IDS = ("ones", "twos", "threes", "fours", "fives", "sixes")
CARD_IDS = ("nines", "tens", "jacks", "queens", "kings", "aces")
SMALL_RUNS = ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))
LARGE_RUNS = ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))

Options = dict[str, bool | int]


@dataclass(frozen=True, slots=True)
class Variant:
    """A named game: its options and how they turn into concrete `Rules`."""

    name: str
    title: str
    seed: str
    options: tuple[OptionSpec, ...]
    build: Callable[[Options], Rules]

    def __post_init__(self) -> None:
        # The name and the options are checked when the variant is declared; the rules it builds,
        # when they are built (`Rules`, and `check_built` in `get_rules`).
        check_name(self.name)
        check_options(self.name, self.options)


def registry(*variants: Variant) -> dict[str, Variant]:
    """The variants by name (a name declared twice is refused: the second would hide the first)."""
    found: dict[str, Variant] = {}
    for variant in variants:
        if variant.name in found:
            raise InvalidVariant(variant.name, "name", "is declared twice")
        found[variant.name] = variant
    return found


def _kind(n: int, value: Value, points: int = 0) -> Combo:
    return Combo(Pattern.OF_A_KIND, value, n=n, points=points)


def _options_key(options: Mapping[str, bool | int | None]) -> tuple[tuple[str, bool | int], ...]:
    return tuple((name, value) for name, value in options.items() if value is not None)


# --- school (seeds 000 es, 004 pt) -------------------------------------------------------------


def _school_rows() -> tuple[Row, ...]:
    school = tuple(
        Row(row_id, Combo(Pattern.FACE, Value.MATCHING, n=face), "upper", school=True, star=True)
        for face, row_id in enumerate(UPPER_IDS, start=1)
    )
    combos = {
        "pair": _kind(2, Value.MATCHING),
        "three_of_a_kind": _kind(3, Value.MATCHING),
        "two_pairs": Combo(Pattern.TWO_PAIRS, Value.MATCHING),
        "full_house": Combo(Pattern.FULL_HOUSE, Value.MATCHING),
        "four_of_a_kind": _kind(4, Value.MATCHING, 20),
        "five_of_a_kind": _kind(5, Value.MATCHING, 50),
        "small_straight": Combo(Pattern.STRAIGHT, Value.MATCHING, runs=((1, 2, 3, 4, 5),)),
        "large_straight": Combo(Pattern.STRAIGHT, Value.MATCHING, runs=((2, 3, 4, 5, 6),)),
    }
    lower = tuple(
        Row(row_id, combo, "lower", strike=True, doubles=True, star=True, column_best=True)
        for row_id, combo in combos.items()
    )
    total = Row(
        "sum", Combo(Pattern.ANY, Value.ALL), "lower", strike=True, doubles=True, column_best=True
    )
    return (*school, *lower, total)


_SCHOOL_ROWS = _school_rows()


def _build_school(options: Options) -> Rules:
    return Rules(
        variant="school",
        options=_options_key(options),
        rows=_SCHOOL_ROWS,
        columns=int(options["columns"]),
        rolls_per_turn=3,
        min_players=1,
        max_players=4,
        unmade_scores_zero=False,
        reserve=Reserve(target=3, zero_penalty=200),
        stars=Stars(school_factor=5, columns=True),
        section_titles=(("upper", "School"), ("lower", "Combinations")),
    )


# --- yahtzee (seed 003) and yahtzee15 (seed 001) ------------------------------------------------


def _upper_rows(ids: tuple[str, ...], value: Value) -> tuple[Row, ...]:
    return tuple(
        Row(row_id, Combo(Pattern.FACE, value, n=face), "upper")
        for face, row_id in enumerate(ids, start=1)
    )


_JOKER_POINTS = (("full_house", 25), ("small_straight", 30), ("large_straight", 40))


def _yahtzee_lower(fifteen: bool) -> tuple[Row, ...]:
    combos: dict[str, Combo] = {}
    if fifteen:
        combos["pair"] = _kind(2, Value.ALL)
        combos["two_pairs"] = Combo(Pattern.TWO_PAIRS, Value.ALL)
    combos["three_of_a_kind"] = _kind(3, Value.ALL)
    combos["four_of_a_kind"] = _kind(4, Value.ALL)
    combos["full_house"] = Combo(Pattern.FULL_HOUSE, Value.FIXED, points=25)
    combos["small_straight"] = Combo(Pattern.STRAIGHT, Value.FIXED, points=30, runs=SMALL_RUNS)
    combos["large_straight"] = Combo(Pattern.STRAIGHT, Value.FIXED, points=40, runs=LARGE_RUNS)
    combos["yahtzee"] = _kind(5, Value.FIXED, 50)
    combos["chance"] = Combo(Pattern.ANY, Value.ALL)
    return tuple(Row(row_id, combo, "lower") for row_id, combo in combos.items())


def _yahtzee_builder(name: str, fifteen: bool) -> Callable[[Options], Rules]:
    rows = (*_upper_rows(UPPER_IDS, Value.MATCHING), *_yahtzee_lower(fifteen))

    def build(options: Options) -> Rules:
        return Rules(
            variant=name,
            options=_options_key(options),
            rows=rows,
            rolls_per_turn=3,
            min_players=1,
            max_players=8,
            unmade_scores_zero=True,
            upper_bonus=UpperBonus(63, 35) if options["upper_bonus"] else None,
            extra_yahtzee=(
                ExtraYahtzee(box="yahtzee", bonus=100, joker_points=_JOKER_POINTS)
                if options["yahtzee_bonus"]
                else None
            ),
        )

    return build


_YAHTZEE_OPTIONS = (
    OptionSpec("upper_bonus", bool, True, help="35 points when the upper boxes total 63 or more"),
    OptionSpec("yahtzee_bonus", bool, True, help="100 per further Yahtzee, with the forced Joker"),
)


# --- poker-dice (seed 002) ----------------------------------------------------------------------


def _poker_rows() -> tuple[Row, ...]:
    lower = {
        "pair": _kind(2, Value.COUNT),
        "two_pairs": Combo(Pattern.TWO_PAIRS, Value.COUNT),
        "three_of_a_kind": _kind(3, Value.COUNT),
        "straight": Combo(Pattern.STRAIGHT, Value.COUNT, runs=LARGE_RUNS),
        "full_house": Combo(Pattern.FULL_HOUSE, Value.COUNT),
        "four_of_a_kind": _kind(4, Value.COUNT),
        "five_of_a_kind": _kind(5, Value.COUNT),
    }
    return (
        *_upper_rows(CARD_IDS, Value.COUNT),
        *(Row(row_id, combo, "lower") for row_id, combo in lower.items()),
    )


_POKER_ROWS = _poker_rows()


def _build_poker_dice(options: Options) -> Rules:
    seconds = options.get("turn_seconds")
    return Rules(
        variant="poker-dice",
        options=_options_key(options),
        rows=_POKER_ROWS,
        face_labels=("9", "10", "J", "Q", "K", "A"),
        rolls_per_turn=2,
        min_players=1,
        max_players=4,
        unmade_scores_zero=True,
        upper_bonus=UpperBonus(15, 3),
        tiebreak=True,
        turn_seconds=int(seconds) if seconds else 0,
        timeout_loses=True,
        clock=ClockPolicy(option="turn_seconds", online_default=60),
        autoplay=AutoPlay(priority=("five_of_a_kind", "four_of_a_kind", "three_of_a_kind", "pair")),
    )


#: The game a new player is offered first: the School game of the rules pages 000 and 004.
DEFAULT_VARIANT = "school"

VARIANTS: dict[str, Variant] = registry(
    Variant(
        "school",
        "School dice poker",
        "000 (es), 004 (pt)",
        (OptionSpec("columns", int, 3, 1, 6, help="columns on the sheet", pool=True),),
        _build_school,
    ),
    Variant("yahtzee", "Yahtzee", "003", _YAHTZEE_OPTIONS, _yahtzee_builder("yahtzee", False)),
    Variant(
        "yahtzee15",
        "Yahtzee, 15 rounds",
        "001",
        _YAHTZEE_OPTIONS,
        _yahtzee_builder("yahtzee15", True),
    ),
    Variant(
        "poker-dice",
        "Poker dice",
        "002",
        (
            OptionSpec(
                "turn_seconds",
                int,
                None,
                0,
                3600,
                help="turn clock in seconds; running out loses the game (0: no clock)",
            ),
        ),
        _build_poker_dice,
    ),
)
