"""The declarative vocabulary that every variant is written in.

A variant is plain data: the dice, the rows of its sheet, how each row scores and which of a small
set of rule blocks (the School reserve, first-player stars, an upper bonus, extra Yahtzees with the
forced Joker, the tie-break, the turn clock, auto-play) it switches on. The engine reads only these
types, so a new variant is a new value, never a change to the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypeVar, cast

T = TypeVar("T")


class Pattern(StrEnum):
    """What the dice must show for a row to be made."""

    FACE = "face"  # dice showing face `n` (at least one)
    OF_A_KIND = "of_a_kind"  # at least `n` dice of one face (the highest such face counts)
    TWO_PAIRS = "two_pairs"  # two different faces, each at least twice
    FULL_HOUSE = "full_house"  # three of one face and two of another
    STRAIGHT = "straight"  # the dice contain one of `runs`
    ANY = "any"  # always made


class Value(StrEnum):
    """How a made row is valued before `points` is added (or used alone, for FIXED)."""

    MATCHING = "matching"  # the sum of the dice that form the pattern
    ALL = "all"  # the sum of all the dice
    COUNT = "count"  # the number of dice that form the pattern
    FIXED = "fixed"  # nothing: the value is `points`


@dataclass(frozen=True, slots=True)
class Combo:
    """A scoring pattern and its value: `value` of the dice forming it, plus `points`."""

    pattern: Pattern
    value: Value
    n: int = 0
    points: int = 0
    runs: tuple[tuple[int, ...], ...] = ()


Section = Literal["upper", "lower"]


@dataclass(frozen=True, slots=True)
class Row:
    """One row (category) of the sheet.

    `school` rows are closed with the reserve instead of scored (face `combo.n`); `strike`
    allows crossing the row out; `doubles` doubles a score thrown with all five dice; `star`
    gives the row a first-player star; `column_best` lets its cells count for a column star.
    """

    id: str
    combo: Combo
    section: Section
    school: bool = False
    strike: bool = False
    doubles: bool = False
    star: bool = False
    column_best: bool = False


@dataclass(frozen=True, slots=True)
class Reserve:
    """The School reserve: `target` dice close a row; a zero costs `zero_penalty`."""

    target: int = 3
    zero_penalty: int = 200


@dataclass(frozen=True, slots=True)
class Stars:
    """First-player-only star bonuses: School rows pay `school_factor` x face."""

    school_factor: int = 5
    columns: bool = True


@dataclass(frozen=True, slots=True)
class UpperBonus:
    """`points` once the upper-section rows total `threshold` or more."""

    threshold: int
    points: int


@dataclass(frozen=True, slots=True)
class ExtraYahtzee:
    """Further Yahtzees: `bonus` while `box` holds its full value, and the forced Joker.

    Under the Joker the rows in `joker_points` score those fixed values; others score as usual.
    """

    box: str
    bonus: int
    joker_points: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class AutoPlay:
    """Auto-play: keep the largest group, then the first open row of `priority` that is made,
    else the upper row with most matching dice, else the first open row."""

    priority: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ClockPolicy:
    """A variant's own turn clock: the option that sets it, and its value in games created online
    when the creator says nothing (a clock the variant's rules make part of the game)."""

    option: str
    online_default: int


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """A variant option: its type, default and bounds. `None` default means "not set"."""

    name: str
    kind: type[bool] | type[int]
    default: bool | int | None
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""
    # Games with different values of this option are rated apart (it changes the sheet).
    pool: bool = False


@dataclass(frozen=True, slots=True)
class Rules:
    """A concrete game: a variant with its options resolved. Immutable and hashable."""

    variant: str
    options: tuple[tuple[str, bool | int], ...]
    rows: tuple[Row, ...]
    columns: int = 1
    dice: int = 5
    faces: int = 6
    face_labels: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
    rolls_per_turn: int = 3
    min_players: int = 1
    max_players: int = 4
    unmade_scores_zero: bool = True
    reserve: Reserve | None = None
    stars: Stars | None = None
    upper_bonus: UpperBonus | None = None
    extra_yahtzee: ExtraYahtzee | None = None
    tiebreak: bool = False
    turn_seconds: int = 0
    timeout_loses: bool = False
    clock: ClockPolicy | None = None
    autoplay: AutoPlay | None = None
    # The sheet's section titles, as message ids of the interfaces' catalogs.
    section_titles: tuple[tuple[Section, str], ...] = (
        ("upper", "Upper section"),
        ("lower", "Lower section"),
    )
    row_index: dict[str, int] = field(default_factory=dict, compare=False, hash=False, repr=False)
    memo: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        # Derived lookups; `memo` lets the engine keep its per-rules tables with the rules.
        self.row_index.update({row.id: i for i, row in enumerate(self.rows)})
        # Checked here, once: a malformed definition fails where it is built, with its reason,
        # not deep in the engine on the first hand that reaches the mistake.
        from dicepoker.rules.validation import check_rules

        check_rules(self)

    def __hash__(self) -> int:
        # The variant and its options name the rules (equal rules have equal ones, so this
        # agrees with the dataclass's field-by-field `==`). The generated hash walked every row,
        # combination and bonus, about 30 nested hashes, and the rules are hashed for every
        # view a server builds (`view.rules_view`'s cache): 6 % of a view's cost.
        return hash((self.variant, self.options))

    @property
    def cells(self) -> int:
        """Cells on one sheet, which is also the number of turns a player plays."""
        return len(self.rows) * self.columns

    @property
    def option_dict(self) -> dict[str, bool | int]:
        return dict(self.options)

    def row(self, row_id: str) -> Row:
        return self.rows[self.row_index[row_id]]

    def memoized(self, key: str, build: Callable[[Rules], T]) -> T:
        """`build(self)`, built on first use and kept with the rules under `key`: the rules never
        change, so neither does what is derived from them (the engine's lookups, the planner's and
        the environments' tables)."""
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = build(self)
        return cast(T, found)
