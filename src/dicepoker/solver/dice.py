"""Dice as multisets: every outcome of a throw and every set of dice that can be kept.

For 5 dice and 6 faces there are 252 outcomes (multisets of size 5) and 462 keeps (multisets of
size 0..5; the outcomes are the keeps of full size). Keeps are numbered by size, then in
lexicographic order, so that a loop over keep indices visits every smaller keep before a larger one.
Two index tables make the keeps a small graph that the solver walks instead of a sparse matrix:

- `add[k, f]`: the keep `k` plus one die showing face `f + 1` (-1 when `k` is already full);
- `sub[k, f]`: the keep `k` less one die showing `f + 1` (-1 when `k` has no such die).

Rerolling the dice not kept is then "add one random die" applied until the hand is full, and the
best keep inside a hand is a maximum over "remove one die" steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement
from math import factorial

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class DiceSpace:
    """The multisets of `dice` dice with `faces` faces, and the keep graph over them."""

    dice: int
    faces: int
    keeps: tuple[tuple[int, ...], ...]  # sorted faces (1-based), by size then lexicographic
    counts: IntArray  # (keeps, faces): dice showing each face
    size: IntArray  # (keeps,)
    size_start: IntArray  # (dice + 2,): keeps of size j are size_start[j] .. size_start[j+1]-1
    add: IntArray  # (keeps, faces)
    sub: IntArray  # (keeps, faces)
    sub_list: IntArray  # (keeps, min(dice, faces)): the distinct `sub` entries, padded with k
    code_to_keep: IntArray  # ((dice+1)**faces,): keep index of a count vector's code
    proper_subs: IntArray  # (outcomes, most): the keeps strictly inside each outcome, -1 padded
    radix: IntArray  # (faces,): (dice+1)**f, the weight of face f+1 in a code
    probs: FloatArray  # (outcomes,): the chance of each outcome when all dice are thrown
    yahtzee_face: IntArray  # (outcomes,): the face when all dice show it, else 0

    @property
    def n_keeps(self) -> int:
        return len(self.keeps)

    @property
    def outcome_base(self) -> int:
        """Index of the first full-size keep: outcome `o` is keep `outcome_base + o`."""
        return int(self.size_start[self.dice])

    @property
    def n_outcomes(self) -> int:
        return self.n_keeps - self.outcome_base

    @property
    def outcomes(self) -> tuple[tuple[int, ...], ...]:
        return self.keeps[self.outcome_base :]

    def keep_index(self, faces_kept: tuple[int, ...] | list[int]) -> int:
        """The keep index of a multiset of faces (any order)."""
        code = 0
        for face in faces_kept:
            code += int(self.radix[face - 1])
        index = int(self.code_to_keep[code])
        if index < 0:
            raise ValueError(f"not a keep of {self.dice} dice: {faces_kept}")
        return index

    def outcome_index(self, dice: tuple[int, ...] | list[int]) -> int:
        """The outcome index (0-based among the full-size keeps) of a hand of `dice` dice."""
        if len(dice) != self.dice:
            raise ValueError(f"a hand has {self.dice} dice, not {len(dice)}")
        return self.keep_index(dice) - self.outcome_base

    def outcome_probability(self, outcome: tuple[int, ...]) -> Fraction:
        """The exact chance of throwing `outcome` (sorted faces) with all the dice."""
        multiplicity = factorial(len(outcome))
        for face in set(outcome):
            multiplicity //= factorial(outcome.count(face))
        return Fraction(multiplicity, self.faces ** len(outcome))


def dice_space(dice: int, faces: int) -> DiceSpace:
    """Build the multisets and the keep graph for `dice` dice with `faces` faces."""
    if dice < 1 or faces < 1:
        raise ValueError("the solver needs at least one die with at least one face")
    keeps = tuple(
        combo
        for size in range(dice + 1)
        for combo in combinations_with_replacement(range(1, faces + 1), size)
    )
    n = len(keeps)
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
    # The keeps strictly inside each outcome, in increasing code order (face 1 counts least).
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
    probs = np.zeros(n - base, dtype=np.float64)
    yahtzee_face = np.zeros(n - base, dtype=np.int64)
    space = DiceSpace(
        dice=dice,
        faces=faces,
        keeps=keeps,
        counts=counts,
        size=size,
        size_start=size_start,
        add=add,
        sub=sub,
        sub_list=sub_list,
        code_to_keep=code_to_keep,
        proper_subs=proper_subs,
        radix=radix,
        probs=probs,
        yahtzee_face=yahtzee_face,
    )
    for o, outcome in enumerate(keeps[base:]):
        probs[o] = float(space.outcome_probability(outcome))
        if len(set(outcome)) == 1:
            yahtzee_face[o] = outcome[0]
    for array in (
        counts,
        size,
        size_start,
        add,
        sub,
        sub_list,
        code_to_keep,
        radix,
        probs,
        yahtzee_face,
    ):
        array.setflags(write=False)
    return space
