"""Where dice come from. The engine never draws randomness itself: it asks a `DiceSource`.

`SeededDice` makes tests, simulations and replays reproducible; `SecretDice` is for live play;
`FixedDice` hands over given values (a record being replayed, a test's exact roll).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable
from typing import Protocol


class DiceSource(Protocol):
    """Gives the faces of `count` freshly thrown dice, each in 1..faces."""

    def roll(self, count: int, faces: int) -> tuple[int, ...]: ...


class SeededDice:
    """A reproducible source: the same seed gives the same dice."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._random = random.Random(seed)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        # Same draw as random.choices (floor of random() * faces), without its per-call set-up.
        draw = self._random.random
        return tuple([int(draw() * faces) + 1 for _ in range(count)])


class SecretDice:
    """Unpredictable dice from the operating system's secure generator, for live games."""

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        return tuple(secrets.randbelow(faces) + 1 for _ in range(count))


class FixedDice:
    """Hands over the given faces in order; asking for more than it holds is an error."""

    def __init__(self, faces: Iterable[int]) -> None:
        self._faces = list(faces)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        if count > len(self._faces):
            raise ValueError(f"FixedDice ran out: {count} dice asked, {len(self._faces)} left")
        out, self._faces = tuple(self._faces[:count]), self._faces[count:]
        for face in out:
            if not 1 <= face <= faces:
                raise ValueError(f"die face {face} is not in 1..{faces}")
        return out
