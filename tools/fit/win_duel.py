"""Playing to win against playing for points: the `expert` (which plays for its chance of
finishing first against rivals) against the `points` level (the expected-score-optimal player),
in groups of games on common dice (`tools/fit/bots.py --win-duel`).

Every seat draws its dice from a stream of its own, indexed by the seat's turn and roll
(`StreamDice`), so a seat's dice do not depend on what the others do. A group is one deal of
streams played `players` times, the expert in each seat once and `points` in the others. Were
the two players the same, the group's games would be one game played `players` times and the
expert would win exactly one of them: only the decisions where they differ move the result, so
the group's total is a far less noisy measure than independent games (common random numbers).
The standard error printed is that of the groups' totals; the independent-games one, larger, is
printed beside it. A shared first place counts as a share.
"""

from __future__ import annotations

import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from dicepoker.bots import Bot, make_bot
from dicepoker.engine import ROLL, GameState, Roll, apply, new_game, ranking
from dicepoker.rules import Rules, get_rules


class StreamDice:
    """Dice from seat streams: `at(stream, stage, turn, roll)` chooses which (the engine asks
    for the dice, the loop says whose roll it is)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._key = (0, 0, 0, 0)

    def at(self, stream: int, stage: int, turn: int, roll: int) -> None:
        self._key = (stream, stage, turn, roll)

    def roll(self, count: int, faces: int) -> tuple[int, ...]:
        rng = random.Random(hash((self.seed, *self._key)) & 0xFFFFFFFFFFFF)
        return tuple(int(rng.random() * faces) + 1 for _ in range(count))


def play(rules: Rules, bots: list[Bot], seed: int) -> list[float]:
    """One game; each seat's share of first place."""
    dice = StreamDice(seed)
    state: GameState = new_game(rules, [f"P{seat}" for seat in range(len(bots))])
    while not state.finished:
        action = bots[state.seat].choose(state)
        if action == ROLL or isinstance(action, Roll):
            sheet = state.sheets[state.seat]
            dice.at(state.seat, state.stage, sheet.filled, state.rolls)
        state = apply(state, action, dice)
    first = [standing.seat for standing in ranking(state) if standing.place == 1]
    return [1.0 / len(first) if seat in first else 0.0 for seat in range(len(bots))]


@dataclass
class DuelResult:
    variant: str
    players: int
    groups: int
    shares: list[float]  # the expert's total share of first place in each group
    seconds: float

    @property
    def games(self) -> int:
        return self.groups * self.players

    @property
    def rate(self) -> float:
        return sum(self.shares) / self.games

    @property
    def se(self) -> float:
        """From the groups' totals (common dice)."""
        n = len(self.shares)
        mean = sum(self.shares) / n
        var = sum((s - mean) ** 2 for s in self.shares) / max(1, n - 1)
        return math.sqrt(var / n) / self.players

    @property
    def naive_se(self) -> float:
        """As if the games were independent."""
        p = 1.0 / self.players
        return math.sqrt(p * (1 - p) / self.games)


def groups(variant: str, options: dict[str, object], players: int, seeds: list[int]) -> list[float]:
    """The expert's share of first place in each group (one per seed)."""
    rules = get_rules(variant, options)
    expert, points = make_bot("expert"), make_bot("points")
    out = []
    for seed in seeds:
        total = 0.0
        for seat in range(players):
            bots = [expert if s == seat else points for s in range(players)]
            total += play(rules, bots, seed)[seat]
        out.append(total)
    return out


def run(
    variant: str,
    options: dict[str, object],
    players: int,
    seeds: list[int],
    pool: ProcessPoolExecutor,
    workers: int,
) -> DuelResult:
    """The groups of `seeds`, spread over the pool's `workers` processes."""
    start = time.perf_counter()
    parts = max(1, min(len(seeds), workers * 8))
    chunks = [seeds[i::parts] for i in range(parts)]
    jobs = [pool.submit(groups, variant, options, players, chunk) for chunk in chunks]
    shares = [share for job in jobs for share in job.result()]
    return DuelResult(variant, players, len(seeds), shares, time.perf_counter() - start)
