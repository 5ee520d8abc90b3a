"""What the solver knows about a game, derived from its `Rules` through the engine's primitives.

The numba kernels cannot call Python, so every rule reaches them as arrays built here by
evaluating the engine's rule primitives (`dicepoker.engine.semantics`) on every outcome, face,
total and score they need: each row's points (`score_cell`) and its points under the forced Joker
(`score_cell(joker=True)`), which outcomes are Yahtzees (`yahtzee_face`), the Joker's rows in
order of preference for each face (`joker_tiers`, as bit sets), which box score pays the further
Yahtzee bonus and how much (`further_yahtzee_bonus`), the rows the upper bonus counts
(`upper_rows`) and the upper bonus a move's points bring from each total (`upper_bonus_gain`).
The kernels only walk these arrays, so the solver and the engine cannot disagree about a hand. The
canonical description hashed into a table's header holds the game's definition and a digest of the
derived score tables, so that a change to a variant or to the scoring code gives a new hash and a
stale table is never loaded.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from dicepoker.engine import (
    Cell,
    Mark,
    further_yahtzee_bonus,
    joker_box,
    joker_tiers,
    score_cell,
    upper_bonus_gain,
    upper_rows,
    yahtzee_face,
)
from dicepoker.rules.combos import face_counts
from dicepoker.rules.model import Rules
from dicepoker.solver.dice import DiceSpace, FloatArray, IntArray, dice_space

#: Bumped whenever the table layout or the meaning of its values changes.
FORMAT_VERSION = 1
#: The most rows a solvable sheet may have (the table has 2**rows filled-set entries).
MAX_ROWS = 20


class UnsupportedRulesError(ValueError):
    """Rules the exact solver does not cover (the School game, several columns, ...)."""


def unsupported_reason(rules: Rules) -> str | None:
    """Why `rules` cannot be solved, or None when they can."""
    if rules.reserve is not None or any(row.school for row in rules.rows):
        return f"{rules.variant} uses the School reserve"
    if rules.columns != 1:
        return f"{rules.variant} has {rules.columns} columns; the solver plays one-column sheets"
    if rules.stars is not None:
        return f"{rules.variant} has first-player stars"
    if not rules.unmade_scores_zero:
        return f"{rules.variant} refuses rows the dice do not make"
    if any(row.strike or row.doubles for row in rules.rows):
        return f"{rules.variant} has struck or doubled rows"
    if not 1 <= len(rules.rows) <= MAX_ROWS:
        return f"{rules.variant} has {len(rules.rows)} rows (the solver handles 1..{MAX_ROWS})"
    if rules.rolls_per_turn < 1:
        return f"{rules.variant} has no roll in a turn"
    if rules.upper_bonus is not None and rules.upper_bonus.threshold < 1:
        return f"{rules.variant} has an upper bonus threshold below 1"
    return None


def supports(rules: Rules) -> bool:
    """True when the exact solver can solve `rules`."""
    return unsupported_reason(rules) is None


class KernelRules(NamedTuple):
    """The rule arrays and numbers every kernel takes, in their parameter order."""

    score: IntArray
    joker_score: IntArray
    yahtzee_face: IntArray
    is_upper: IntArray
    joker_masks: IntArray
    box: int
    box_pays: IntArray
    joker_bonus: int
    joker: bool
    upper_cap: int
    upper_gain: IntArray
    upper_next: IntArray
    outcome_base: int
    n_outcomes: int
    n_rows: int


@dataclass(frozen=True, slots=True, eq=False)
class SolverSpec:
    """A solvable game as arrays: the dice space, the rows' scores and the bonus rules.

    Tables are indexed `[filled, flag, upper]`: `filled` is the bit set of filled rows, `flag` is 1
    when the extra-Yahtzee box holds a non-zero score (a further Yahtzee earns the bonus), `upper`
    is the upper-section total capped at the bonus threshold (0 without an upper bonus).
    """

    rules: Rules
    space: DiceSpace
    n_rows: int
    score: IntArray  # (rows, outcomes): points of each row for each outcome, 0 when not made
    joker_score: IntArray  # (rows, outcomes): points under the forced Joker (Yahtzee outcomes)
    yahtzee_face: IntArray  # (outcomes,): the face when all dice show it, else 0
    is_upper: IntArray  # (rows,): 1 for upper-section rows
    max_upper: IntArray  # (rows,): most points an upper row can add to the upper total
    # (faces + 1, tiers): the forced Joker's rows for a further Yahtzee of each face, as bit sets
    # in order of preference (`joker_tiers`); row 0 unused
    joker_masks: IntArray
    box: int  # the extra-Yahtzee row, -1 without the extra-Yahtzee rule
    box_pays: IntArray  # (scores,): 1 where a box holding that score pays the further bonus
    joker_bonus: int  # points for a further Yahtzee while the box holds its score
    joker: bool
    upper_cap: int  # the upper bonus threshold, 0 without an upper bonus
    upper_bonus: int
    # (upper_cap + 1, max_score + 1): the upper bonus that s more points bring to the capped
    # total u (`upper_bonus_gain`), and the capped total after them
    upper_gain: IntArray
    upper_next: IntArray
    rerolls: int  # rolls per turn after the first
    description: dict[str, Any]
    digest: str

    @property
    def max_score(self) -> int:
        """The most points an upper row scores (sizes the kernels' per-score scratch)."""
        return int(self.max_upper.max()) if self.n_rows else 0

    @property
    def n_flags(self) -> int:
        return 2 if self.joker else 1

    @property
    def n_upper(self) -> int:
        return self.upper_cap + 1

    @property
    def table_shape(self) -> tuple[int, int, int]:
        return (1 << self.n_rows, self.n_flags, self.n_upper)

    @property
    def full_mask(self) -> int:
        return (1 << self.n_rows) - 1

    def kernel_rules(self) -> KernelRules:
        """The rule arrays and numbers the kernels take, in their parameter order."""
        space = self.space
        return KernelRules(
            self.score,
            self.joker_score,
            self.yahtzee_face,
            self.is_upper,
            self.joker_masks,
            self.box,
            self.box_pays,
            self.joker_bonus,
            self.joker,
            self.upper_cap,
            self.upper_gain,
            self.upper_next,
            space.outcome_base,
            space.n_outcomes,
            self.n_rows,
        )


def _readonly(array: IntArray) -> IntArray:
    array.setflags(write=False)
    return array


def describe(
    rules: Rules, score: IntArray, joker_score: IntArray, rule_arrays: Sequence[IntArray] = ()
) -> dict[str, Any]:
    """The canonical description of the game that the table's hash covers.

    It holds everything that changes the solitaire game (dice, faces, rolls, every row with its
    combination, the upper bonus, the extra-Yahtzee rule), a SHA-256 of the score tables derived
    through the engine's `score_cell`, and one of the other arrays derived from the engine's
    primitives (`rule_arrays`: the Joker's rows, the box's bonus, the upper-bonus gains), so that
    a change to the engine's rules, not only to a variant's data, gives a new hash. Options enter
    through the rules they switch; options that do not change the solitaire game (a turn clock,
    the tie-break) leave the hash alone.
    """
    extra = rules.extra_yahtzee
    bonus = rules.upper_bonus
    scores = hashlib.sha256()
    scores.update(np.ascontiguousarray(score, dtype="<i8").tobytes())
    scores.update(np.ascontiguousarray(joker_score, dtype="<i8").tobytes())
    derived = hashlib.sha256()
    for array in rule_arrays:
        derived.update(repr(array.shape).encode("ascii"))
        derived.update(np.ascontiguousarray(array, dtype="<i8").tobytes())
    return {
        "format": FORMAT_VERSION,
        "variant": rules.variant,
        "dice": rules.dice,
        "faces": rules.faces,
        "rolls_per_turn": rules.rolls_per_turn,
        "unmade_scores_zero": rules.unmade_scores_zero,
        "rows": [
            [
                row.id,
                row.section,
                str(row.combo.pattern),
                str(row.combo.value),
                row.combo.n,
                row.combo.points,
                [list(run) for run in row.combo.runs],
            ]
            for row in rules.rows
        ],
        "upper_bonus": None if bonus is None else [bonus.threshold, bonus.points],
        "extra_yahtzee": None
        if extra is None
        else [extra.box, extra.bonus, [[name, points] for name, points in extra.joker_points]],
        "scores_sha256": scores.hexdigest(),
        "rules_sha256": derived.hexdigest(),
    }


def digest_of(description: dict[str, Any]) -> str:
    text = json.dumps(description, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def build_spec(rules: Rules) -> SolverSpec:
    """Derive the solver's arrays from `rules` (raises `UnsupportedRulesError`)."""
    reason = unsupported_reason(rules)
    if reason is not None:
        raise UnsupportedRulesError(reason)
    space = dice_space(rules.dice, rules.faces)
    n_rows = len(rules.rows)
    outcomes = space.outcomes
    score = np.zeros((n_rows, len(outcomes)), dtype=np.int64)
    joker_score = np.zeros((n_rows, len(outcomes)), dtype=np.int64)
    faces = np.zeros(len(outcomes), dtype=np.int64)
    extra = rules.extra_yahtzee
    for o, outcome in enumerate(outcomes):
        counts = face_counts(outcome, rules.faces)
        faces[o] = yahtzee_face(rules, counts) or 0
        for c in range(n_rows):
            score[c, o] = score_cell(rules, c, counts, thrown_all=False).points
            joker_score[c, o] = score[c, o]
            if extra is not None and faces[o] > 0:
                joker_score[c, o] = score_cell(
                    rules, c, counts, thrown_all=False, joker=True
                ).points
    if (score < 0).any():
        raise UnsupportedRulesError(f"{rules.variant} has a row worth negative points")

    box = joker_box(rules)
    upper = upper_rows(rules)
    is_upper = np.array([int(c in upper) for c in range(n_rows)], dtype=np.int64)
    max_upper = np.where(is_upper == 1, np.maximum(score, joker_score).max(axis=1), 0)
    joker_masks = np.zeros((rules.faces + 1, len(joker_tiers(rules, 1))), dtype=np.int64)
    for face in range(1, rules.faces + 1):
        for tier, tier_rows in enumerate(joker_tiers(rules, face)):
            joker_masks[face, tier] = sum(1 << c for c in tier_rows)
    # The box's score decides whether a further Yahtzee pays (the flag of the state).
    most = int(max(score.max(initial=0), joker_score.max(initial=0)))
    box_bonus = [further_yahtzee_bonus(rules, Cell(Mark.SCORE, s)) for s in range(most + 1)]
    box_pays = np.array([int(bonus > 0) for bonus in box_bonus], dtype=np.int64)
    bonus = rules.upper_bonus
    cap = bonus.threshold if bonus is not None else 0
    max_score = int(max_upper.max()) if n_rows else 0
    upper_gain = np.zeros((cap + 1, max_score + 1), dtype=np.int64)
    upper_next = np.zeros((cap + 1, max_score + 1), dtype=np.int64)
    for u in range(cap + 1):
        for s in range(max_score + 1):
            upper_gain[u, s] = upper_bonus_gain(rules, u, s)
            upper_next[u, s] = min(u + s, cap)
    description = describe(rules, score, joker_score, (joker_masks, box_pays, upper_gain))
    return SolverSpec(
        rules=rules,
        space=space,
        n_rows=n_rows,
        score=_readonly(score),
        joker_score=_readonly(joker_score),
        yahtzee_face=_readonly(faces),
        is_upper=_readonly(is_upper),
        max_upper=_readonly(max_upper.astype(np.int64)),
        joker_masks=_readonly(joker_masks),
        box=box if box is not None else -1,
        box_pays=_readonly(box_pays),
        joker_bonus=max(box_bonus),
        joker=extra is not None,
        upper_cap=cap,
        upper_bonus=bonus.points if bonus is not None else 0,
        upper_gain=_readonly(upper_gain),
        upper_next=_readonly(upper_next),
        rerolls=rules.rolls_per_turn - 1,
        description=description,
        digest=digest_of(description),
    )


def upper_columns(spec: SolverSpec) -> tuple[IntArray, IntArray, IntArray]:
    """For every filled set: the upper totals to store, the first live one, and the columns.

    `n_upper[m]`: totals 0 .. n_upper[m] - 1 can occur (the most the filled upper rows make,
    capped at the threshold). A total u is live when the open upper rows can still lift it to the
    threshold; the totals below `live_lo[m]` cannot, and all have the same future (no bonus to
    come, and the upper total no longer matters), so the solver computes them once. `n_col[m]`:
    the columns the solver computes (one for those dead totals, if any, plus the live ones). When
    no open upper row is left, every total has the same future: one column.
    """
    masks = np.arange(1 << spec.n_rows, dtype=np.int64)
    filled = np.zeros(len(masks), dtype=np.int64)
    remaining = np.zeros(len(masks), dtype=np.int64)
    for c in range(spec.n_rows):
        if spec.is_upper[c]:
            bit = (masks >> c) & 1
            filled += bit * int(spec.max_upper[c])
            remaining += (1 - bit) * int(spec.max_upper[c])
    cap = spec.upper_cap
    n_upper = np.minimum(filled, cap) + 1
    live_lo = np.maximum(cap - remaining, 0)
    n_col = n_upper - live_lo + (live_lo > 0)
    merged = (remaining == 0) | (live_lo >= n_upper)
    live_lo = np.where(merged, n_upper, live_lo)
    n_col = np.where(merged, 1, n_col)
    return n_upper.astype(np.int64), live_lo.astype(np.int64), n_col.astype(np.int64)


__all__ = [
    "FORMAT_VERSION",
    "FloatArray",
    "IntArray",
    "KernelRules",
    "SolverSpec",
    "UnsupportedRulesError",
    "build_spec",
    "describe",
    "digest_of",
    "supports",
    "unsupported_reason",
    "upper_columns",
]
