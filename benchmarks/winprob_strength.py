"""Whether the chances of winning judge each seat's strength: calibration of the live bar and of
the analysis, on fresh games.

    .venv/bin/python benchmarks/winprob_strength.py --games 40 --analysed 60

**The live bar** (`--games` per matchup, Yahtzee, three seats): a person who has never played
a rated game (judged a newcomer, `dicepoker.winprob.strength`) against a Casual and an
Intermediate bot. Nobody here is a person, so the newcomer's seat is played by a ladder level the
judgement is not told (`beginner`, `casual`, `intermediate`: the matchup's name): how a newcomer
really plays is unknown, and the rows show what the figure means if they play like each. At
every turn's start (the bar's position before the first roll) each seat's chance is judged twice:
as the table judges it now (the bots at their levels, the person a newcomer's) and as it did
before (the person as the expert). Game g is played on the dice of `--seed + g`, the lineup
rotated by g seats.

**The analysis** (`--analysed` games, Yahtzee, expert against greedy, seats alternating): each
record analysed (`dicepoker.review.analyse`) with its seats judged as the record's `bots` say
(`strength.record_levels`, what `dicepoker analyse` and the server do) and with no levels (every
seat as the expert, what `dicepoker analyse` did); every point of its curve is a prediction.

For each it prints the predictions' Brier score (lower is better) and a table by decile of the
predicted chance: count, mean prediction, observed share of first place (ties shared); and the
newcomer's chance at turn 1 (mean over the seat orders) beside the share of games its seat won.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dicepoker.bots import make_bot
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, ranking
from dicepoker.record import replay
from dicepoker.review import analyse
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game
from dicepoker.winprob import win_probability
from dicepoker.winprob.strength import newcomer_level, record_levels

VARIANT = "yahtzee"
#: The bots the newcomer plays against (the issue's table).
RIVALS = ("casual", "intermediate")
#: Who plays the newcomer's seat, unknown to the judgement.
NEWCOMER_PLAYED_BY = ("beginner", "casual", "intermediate")
DECILES = 10


@dataclass
class Predictions:
    """Predicted chances and what came of them (each seat's share of first place)."""

    predicted: list[float] = field(default_factory=list)
    observed: list[float] = field(default_factory=list)

    def add(self, chances: Sequence[float], shares: Sequence[float]) -> None:
        self.predicted.extend(float(c) for c in chances)
        self.observed.extend(float(s) for s in shares)

    def brier(self) -> float:
        p, y = np.asarray(self.predicted), np.asarray(self.observed)
        return float(np.mean((p - y) ** 2))

    def deciles(self) -> list[tuple[int, int, float, float]]:
        """Per decile of the prediction with any: (decile, count, mean prediction, observed
        share)."""
        p, y = np.asarray(self.predicted), np.asarray(self.observed)
        bins = np.minimum((p * DECILES).astype(int), DECILES - 1)
        return [
            (b, int(np.sum(bins == b)), float(p[bins == b].mean()), float(y[bins == b].mean()))
            for b in range(DECILES)
            if np.any(bins == b)
        ]


def shares(state: GameState) -> list[float]:
    """Each seat's share of first place at the end (a tie shares it)."""
    first = [standing.seat for standing in ranking(state) if standing.place == 1]
    return [1.0 / len(first) if seat in first else 0.0 for seat in range(len(state.players))]


def turn_starts(record: dict[str, Any]) -> list[GameState]:
    """The positions at the start of every turn (no roll yet) of a record's main game."""
    found: list[GameState] = []

    def observe(state: GameState, action: Action) -> None:
        if state.rolls == 0 and state.stage == 0 and not state.finished:
            found.append(state)

    replay(record, observe)
    return found


@dataclass
class LiveRun:
    """One matchup of the live bar: its judgements now and before, and the newcomer's turn 1."""

    played_by: str
    now: Predictions = field(default_factory=Predictions)
    before: Predictions = field(default_factory=Predictions)
    first_turn_now: list[float] = field(default_factory=list)
    first_turn_before: list[float] = field(default_factory=list)
    newcomer_won: list[float] = field(default_factory=list)


def live_matchup(played_by: str, games: int, seed: int) -> LiveRun:
    rules = get_rules(VARIANT, {})
    newcomer = newcomer_level(VARIANT)
    run = LiveRun(played_by)
    roles = ("newcomer", *RIVALS)
    for number in range(games):
        game_seed = seed + number
        order = [roles[(seat + number) % len(roles)] for seat in range(len(roles))]
        plays = [played_by if role == "newcomer" else role for role in order]
        bots = [make_bot(level, game_seed * 31 + seat) for seat, level in enumerate(plays)]
        game = play_game(rules, bots, SeededDice(game_seed), extra={"seed": game_seed})
        record = game.to_record()
        judged_now = tuple(newcomer if role == "newcomer" else role for role in order)
        judged_before = tuple(None if role == "newcomer" else role for role in order)
        states = turn_starts(record)
        outcome = shares(game.state)
        seat = order.index("newcomer")
        for index, state in enumerate(states):
            now = win_probability(state, judged_now)
            before = win_probability(state, judged_before)
            assert now is not None and before is not None
            run.now.add(now, outcome)
            run.before.add(before, outcome)
            if index == 0:
                run.first_turn_now.append(now[seat])
                run.first_turn_before.append(before[seat])
        run.newcomer_won.append(outcome[seat])
    return run


@dataclass
class AnalysedRun:
    """Expert against greedy: the analysis's curve judged by the record's `bots` and by none,
    the expert's chance at the start by each, and its share of first place per game."""

    by_bots: Predictions = field(default_factory=Predictions)
    by_none: Predictions = field(default_factory=Predictions)
    start_by_bots: list[float] = field(default_factory=list)
    start_by_none: list[float] = field(default_factory=list)
    expert_won: list[float] = field(default_factory=list)


def analysed_records(games: int, seed: int) -> AnalysedRun:
    rules = get_rules(VARIANT, {})
    run = AnalysedRun()
    for number in range(games):
        game_seed = seed + number
        levels = ["expert", "greedy"] if number % 2 == 0 else ["greedy", "expert"]
        bots = [make_bot(level, game_seed * 31 + seat) for seat, level in enumerate(levels)]
        extra: dict[str, object] = {"seed": game_seed, "bots": levels}
        game = play_game(rules, bots, SeededDice(game_seed), extra=extra)
        record = game.to_record()
        outcome = shares(game.state)
        expert = levels.index("expert")
        run.expert_won.append(outcome[expert])
        judged = (
            (record_levels(record), run.by_bots, run.start_by_bots),
            (None, run.by_none, run.start_by_none),
        )
        for levels_given, into, start in judged:
            curve = analyse(record, levels_given).curve
            start.append(curve[0].chances[expert])
            for point in curve:
                into.add(point.chances, outcome)
    return run


def print_table(name: str, found: Predictions) -> None:
    print(f"  {name}: {len(found.predicted)} predictions, Brier {found.brier():.4f}")
    print(f"    {'decile':>9} {'count':>6} {'predicted':>9} {'observed':>8}")
    for decile, count, predicted, observed in found.deciles():
        span = f"{decile / DECILES:.1f}-{(decile + 1) / DECILES:.1f}"
        print(f"    {span:>9} {count:>6d} {predicted:>9.3f} {observed:>8.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per live matchup")
    parser.add_argument("--analysed", type=int, default=60, help="expert-vs-greedy records")
    parser.add_argument("--seed", type=int, default=70000)
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"the live bar, {VARIANT}: a newcomer against {' and '.join(RIVALS)} bots")
    print(f"  (a newcomer is judged to play like {newcomer_level(VARIANT)})")
    for played_by in NEWCOMER_PLAYED_BY:
        run = live_matchup(played_by, args.games, args.seed)
        print(f"\nthe newcomer's seat played by {played_by}, {args.games} games")
        print(
            f"  newcomer at turn 1: judged {np.mean(run.first_turn_now):.3f} now, "
            f"{np.mean(run.first_turn_before):.3f} as the expert; "
            f"won {np.mean(run.newcomer_won):.3f}"
        )
        print_table("now (newcomer)", run.now)
        print_table("before (as the expert)", run.before)
    if args.analysed:
        analysed = analysed_records(args.analysed, args.seed)
        print(f"\nthe analysis, {VARIANT}: expert against greedy, {args.analysed} records")
        print(
            f"  the expert at the start: judged {np.mean(analysed.start_by_bots):.3f} by the "
            f"record's bots, {np.mean(analysed.start_by_none):.3f} with no levels; "
            f"won {np.mean(analysed.expert_won):.3f}"
        )
        print_table("levels from the record's bots", analysed.by_bots)
        print_table("no levels (every seat as the expert)", analysed.by_none)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
