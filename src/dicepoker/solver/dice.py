"""Dice as multisets: every hand of a throw and every set of dice that can be kept.

The one dice space of the project: the planner (`dicepoker.bots.planner`) and the exact solver
both walk it. It is numpy only (importing it never loads numba). For 5 dice and 6 faces there are
252 hands (multisets of size 5) and 462 keeps (multisets of size 0..5; the hands are the keeps of
full size, `hands[o]` is keep `outcome_base + o`). Keeps are numbered by size, then in
lexicographic order, so that a loop over keep indices visits every smaller keep before a larger
one.

For the solver's kernels, two index tables make the keeps a small graph walked instead of a
matrix:

- `add[k, f]`: the keep `k` plus one die showing face `f + 1` (-1 when `k` is already full);
- `sub[k, f]`: the keep `k` less one die showing `f + 1` (-1 when `k` has no such die).

Rerolling the dice not kept is then "add one random die" applied until the hand is full, and the
best keep inside a hand is a maximum over "remove one die" steps. For the planner's matrix
products: `trans[k, o]`, the chance that keeping `k` and throwing the rest gives hand `o`, and
`subkeeps[o]`, the keeps a player may hold from hand `o`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import factorial

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class DiceSpace:
    """The multisets of `dice` dice with `faces` faces: hands, keeps and the moves between them."""

    dice: int
    faces: int
    keeps: tuple[tuple[int, ...], ...]  # sorted faces (1-based), by size then lexicographic
    counts: IntArray  # (keeps, faces): dice showing each face
    size: IntArray  # (keeps,)
    size_start: IntArray  # (dice + 2,): keeps of size j are size_start[j] .. size_start[j+1]-1
    add: IntArray  # (keeps, faces)
    sub: IntArray  # (keeps, faces)
    sub_list: IntArray  # (keeps, min(dice, faces)): the distinct `sub` entries, padded with k
    proper_subs: IntArray  # (hands, most): the keeps strictly inside each hand, -1 padded
    probs: FloatArray  # (hands,): the chance of each hand when all dice are thrown
    hand_counts: IntArray  # (hands, faces + 1): dice showing each face (column 0 unused)
    trans: FloatArray  # (keeps, hands): P(hand | keep, the other dice thrown)
    # (hands, width): the keeps a player may hold from each hand (every sub-multiset smaller than
    # the hand, once each; index 0 is the empty keep), padded by repeating the empty keep.
    subkeeps: IntArray
    hand_index: dict[tuple[int, ...], int]  # sorted faces -> hand
    keep_index: dict[tuple[int, ...], int]  # sorted faces -> keep
    empty_keep: int

    @property
    def n_keeps(self) -> int:
        return len(self.keeps)

    @property
    def outcome_base(self) -> int:
        """Index of the first full-size keep: hand `o` is keep `outcome_base + o`."""
        return int(self.size_start[self.dice])

    @property
    def n_outcomes(self) -> int:
        return self.n_keeps - self.outcome_base

    @property
    def n_hands(self) -> int:
        return self.n_outcomes

    @property
    def outcomes(self) -> tuple[tuple[int, ...], ...]:
        return self.keeps[self.outcome_base :]

    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        return self.outcomes

    def outcome_index(self, dice: Sequence[int]) -> int:
        """The hand index (0-based among the full-size keeps) of `dice`, in any order."""
        if len(dice) != self.dice:
            raise ValueError(f"a hand has {self.dice} dice, not {len(dice)}")
        index = self.hand_index.get(tuple(sorted(dice)))
        if index is None:
            raise ValueError(f"not a hand of {self.dice} dice with {self.faces} faces: {dice}")
        return index


def _multinomial(counts: Sequence[int]) -> int:
    out = factorial(sum(counts))
    for count in counts:
        out //= factorial(count)
    return out


def _probability(outcome: tuple[int, ...], faces: int) -> Fraction:
    """The exact chance of throwing `outcome` with as many dice."""
    return Fraction(_multinomial([outcome.count(f) for f in set(outcome)]), faces ** len(outcome))


@cache
def dice_space(dice: int, faces: int) -> DiceSpace:
    """The hands, keeps and the moves between them for `dice` dice with `faces` faces (built once
    per process)."""
    if dice < 1 or faces < 1:
        raise ValueError("a dice space needs at least one die with at least one face")
    keeps = tuple(
        combo
        for size in range(dice + 1)
        for combo in combinations_with_replacement(range(1, faces + 1), size)
    )
    n = len(keeps)
    keep_index = {keep: i for i, keep in enumerate(keeps)}
    radix = np.array([(dice + 1) ** f for f in range(faces)], dtype=np.int64)
    counts = np.zeros((n, faces), dtype=np.int64)
    size = np.zeros(n, dtype=np.int64)
    code_to_keep = np.full((dice + 1) ** faces, -1, dtype=np.int64)
    for index, keep in enumerate(keeps):
        for face in keep:
            counts[index, face - 1] += 1
        size[index] = len(keep)
        code_to_keep[int(counts[index] @ radix)] = index
    size_start = np.searchsorted(size, np.arange(dice + 2)).astype(np.int64)
    add = np.full((n, faces), -1, dtype=np.int64)
    sub = np.full((n, faces), -1, dtype=np.int64)
    for index in range(n):
        code = int(counts[index] @ radix)
        for f in range(faces):
            if size[index] < dice:
                add[index, f] = code_to_keep[code + radix[f]]
            if counts[index, f] > 0:
                sub[index, f] = code_to_keep[code - radix[f]]
    width = min(dice, faces)
    sub_list = np.repeat(np.arange(n, dtype=np.int64)[:, None], width, axis=1)
    for index in range(n):
        smaller = [int(k) for k in sub[index] if k >= 0]
        sub_list[index, : len(smaller)] = smaller
    base = int(size_start[dice])
    hands = keeps[base:]
    hand_index = {hand: i for i, hand in enumerate(hands)}
    # The keeps strictly inside each hand, in increasing code order (face 1 counts least).
    inside: list[list[int]] = []
    for index in range(base, n):
        limits = counts[index]
        codes = [0]
        for f in range(faces):
            codes = [code + j * int(radix[f]) for j in range(int(limits[f]) + 1) for code in codes]
        full = int(limits @ radix)
        inside.append([int(code_to_keep[code]) for code in sorted(codes) if code != full])
    most = max(len(keeps_inside) for keeps_inside in inside)
    proper_subs = np.full((n - base, most), -1, dtype=np.int64)
    for o, keeps_inside in enumerate(inside):
        proper_subs[o, : len(keeps_inside)] = keeps_inside
    probs = np.array([float(_probability(hand, faces)) for hand in hands], dtype=np.float64)
    hand_counts = np.zeros((len(hands), faces + 1), dtype=np.int64)
    hand_counts[:, 1:] = counts[base:]
    trans = _transitions(dice, faces, keeps, hand_index)
    subkeeps = _subkeeps(dice, hands, keep_index)
    for array in (counts, size, size_start, add, sub, sub_list, proper_subs, probs):
        array.setflags(write=False)
    for array in (hand_counts, trans, subkeeps):
        array.setflags(write=False)
    return DiceSpace(
        dice=dice,
        faces=faces,
        keeps=keeps,
        counts=counts,
        size=size,
        size_start=size_start,
        add=add,
        sub=sub,
        sub_list=sub_list,
        proper_subs=proper_subs,
        probs=probs,
        hand_counts=hand_counts,
        trans=trans,
        subkeeps=subkeeps,
        hand_index=hand_index,
        keep_index=keep_index,
        empty_keep=keep_index[()],
    )


def _transitions(
    dice: int,
    faces: int,
    keeps: tuple[tuple[int, ...], ...],
    hand_index: dict[tuple[int, ...], int],
) -> FloatArray:
    """`trans[k, o]`: the chance that keeping `k` and throwing the other dice gives hand `o`."""
    trans = np.zeros((len(keeps), len(hand_index)), dtype=np.float64)
    for k, keep in enumerate(keeps):
        free = dice - len(keep)
        total = float(faces**free)
        for thrown in combinations_with_replacement(range(1, faces + 1), free):
            hand = tuple(sorted(keep + thrown))
            ways = _multinomial([thrown.count(f) for f in set(thrown)])
            trans[k, hand_index[hand]] += ways / total
    return trans


def _subkeeps(
    dice: int, hands: tuple[tuple[int, ...], ...], keep_index: dict[tuple[int, ...], int]
) -> IntArray:
    """Per hand, the keeps smaller than it, in the order the planner breaks ties (by size, then in
    the order `combinations` picks the dice), padded by repeating the empty keep."""
    lists: list[list[int]] = []
    for hand in hands:
        seen: dict[int, None] = {}
        for size in range(dice):
            for chosen in combinations(hand, size):
                seen[keep_index[chosen]] = None
        lists.append(list(seen))
    width = max(len(row) for row in lists)
    subkeeps = np.zeros((len(hands), width), dtype=np.int64)
    for i, row in enumerate(lists):
        subkeeps[i, : len(row)] = row
        subkeeps[i, len(row) :] = row[0]
    return subkeeps


__all__ = ["DiceSpace", "FloatArray", "IntArray", "dice_space"]
