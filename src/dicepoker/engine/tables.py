"""Lookups the engine derives once per `Rules` and keeps with them (`Rules.memoized`).

They hold no rule of their own: which rows form the upper section, the extra-Yahtzee box and its
Joker points are read from the rules' blocks; the actions are built once so that the legal-action
lists of a simulation share them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from dicepoker.engine.actions import ROLL, Action, Move, Roll
from dicepoker.rules.model import Rules


@dataclass(frozen=True, slots=True)
class Tables:
    holds: tuple[Roll, ...]  # ROLL and every proper non-empty hold
    score: tuple[Move, ...]  # per row
    strike: tuple[Move | None, ...]
    zero: tuple[Move | None, ...]
    upper: tuple[int, ...]  # row indices of the upper section
    lower: tuple[int, ...]  # row indices of the lower section
    box: int | None  # the extra-Yahtzee box
    joker_points: dict[int, int]  # rows with a fixed value under the forced Joker
    autoplay: tuple[int, ...]
    always_scorable: bool  # every open row can be scored and has no other move
    thrown: dict[tuple[int, ...], tuple[int, ...]]  # valid keep -> positions thrown
    cached: dict[tuple[bool, tuple[int, ...]], tuple[Action, ...]]  # legal actions by open rows


def tables(rules: Rules) -> Tables:
    """The engine's lookups for `rules`, built on first use."""
    return rules.memoized("tables", _build)


def _build(rules: Rules) -> Tables:
    holds = [ROLL]
    for size in range(1, rules.dice):
        holds.extend(Roll(keep) for keep in combinations(range(rules.dice), size))
    extra = rules.extra_yahtzee
    return Tables(
        holds=tuple(holds),
        score=tuple(Move("score", row.id) for row in rules.rows),
        strike=tuple(Move("strike", row.id) if row.strike else None for row in rules.rows),
        zero=tuple(Move("zero", row.id) if row.school else None for row in rules.rows),
        upper=tuple(i for i, row in enumerate(rules.rows) if row.section == "upper"),
        lower=tuple(i for i, row in enumerate(rules.rows) if row.section == "lower"),
        box=rules.row_index[extra.box] if extra else None,
        joker_points=(
            {rules.row_index[name]: pts for name, pts in extra.joker_points} if extra else {}
        ),
        autoplay=tuple(rules.row_index[name] for name in rules.autoplay.priority)
        if rules.autoplay
        else (),
        always_scorable=rules.unmade_scores_zero
        and not any(row.school or row.strike for row in rules.rows),
        thrown={
            hold.keep: tuple(p for p in range(rules.dice) if p not in hold.keep) for hold in holds
        },
        cached={},
    )
