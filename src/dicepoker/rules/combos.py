"""Evaluate a `Combo` on a set of dice: is it made, what is it worth, which dice form it.

These are the only scoring functions in the project; the engine, the bots and the solver all call
them, so they can never disagree about a hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from dicepoker.rules.model import Combo, Pattern, Value

Counts = tuple[int, ...]


def face_counts(dice: Sequence[int], faces: int = 6) -> Counts:
    """Counts indexed by face: `counts[f]` dice show face f (index 0 is unused)."""
    counts = [0] * (faces + 1)
    for die in dice:
        counts[die] += 1
    return tuple(counts)


def _formed(combo: Combo, counts: Counts) -> tuple[int, ...] | None:
    """The faces of the dice that form the pattern (a multiset), or None if it is not made."""
    pattern = combo.pattern
    top = len(counts) - 1
    if pattern is Pattern.FACE:
        k = counts[combo.n]
        return (combo.n,) * k if k else None
    if pattern is Pattern.OF_A_KIND:
        for face in range(top, 0, -1):
            if counts[face] >= combo.n:
                return (face,) * combo.n
        return None
    if pattern is Pattern.TWO_PAIRS:
        pairs = [face for face in range(top, 0, -1) if counts[face] >= 2]
        if len(pairs) < 2:
            return None
        return (pairs[0], pairs[0], pairs[1], pairs[1])
    if pattern is Pattern.FULL_HOUSE:
        three = [face for face in range(1, top + 1) if counts[face] == 3]
        two = [face for face in range(1, top + 1) if counts[face] == 2]
        if len(three) == 1 and len(two) == 1:
            return (three[0],) * 3 + (two[0],) * 2
        return None
    if pattern is Pattern.STRAIGHT:
        for run in combo.runs:
            if all(counts[face] >= 1 for face in run):
                return run
        return None
    # Pattern.ANY: every die takes part.
    return tuple(face for face in range(1, top + 1) for _ in range(counts[face]))


def combo_value(combo: Combo, counts: Counts) -> int | None:
    """The row's value for these dice (before doubling), or None when the dice do not make it."""
    formed = _formed(combo, counts)
    if formed is None:
        return None
    value = combo.value
    if value is Value.MATCHING:
        base = sum(formed)
    elif value is Value.ALL:
        base = sum(face * k for face, k in enumerate(counts))
    elif value is Value.COUNT:
        base = len(formed)
    else:
        base = 0
    return base + combo.points


def positions_of(dice: Sequence[int], faces: Sequence[int]) -> tuple[int, ...]:
    """Positions of `dice` that hold the multiset `faces` (for each face wanted, the first die
    showing it that is not taken yet), in increasing order: what a keep of those faces holds.
    Raises ValueError when the dice do not hold them."""
    wanted = list(faces)
    positions = []
    for position, die in enumerate(dice):
        if die in wanted:
            wanted.remove(die)
            positions.append(position)
    if wanted:
        raise ValueError(f"{list(faces)} is not part of the hand {list(dice)}")
    return tuple(positions)


def combo_positions(combo: Combo, dice: Sequence[int], faces: int = 6) -> tuple[int, ...]:
    """Positions of dice that form the pattern (empty when it is not made): what to hold."""
    formed = _formed(combo, face_counts(dice, faces))
    if formed is None:
        return ()
    return positions_of(dice, formed)
