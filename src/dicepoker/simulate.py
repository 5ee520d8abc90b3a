"""Bots playing whole games: for simulations, demos, benchmarks and training data.

The games are played by the one bot loop (`dicepoker.master.botloop`), the same that plays the
bots of the web app and of the terminal client, here run synchronously: the engine applies each
action at once, with nothing to commit and nobody to tell.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dicepoker.bots import Bot, make_bot
from dicepoker.dice import DiceSource, SeededDice
from dicepoker.engine import Action, GameState, ranking, totals
from dicepoker.fair import FairDice
from dicepoker.master import Refusal, botloop
from dicepoker.record import Game
from dicepoker.rules import Rules

OnAction = Callable[[GameState, str], None]


class _Solo:
    """A game of bots only, as the bot loop reads it (its seq: the actions played so far)."""

    def __init__(
        self,
        game: Game,
        bots: Sequence[Bot],
        on_action: OnAction | None,
        fair: FairDice | None = None,
    ) -> None:
        self.game = game
        self.bots = bots
        self.on_action = on_action
        self.fair = fair
        self.seq = 0

    @property
    def state(self) -> GameState:
        return self.game.state

    def bot_to_move(self) -> int | None:
        state = self.game.state
        return None if state.finished else state.seat

    def choose(self, seat: int, state: GameState) -> Action:
        return self.bots[seat].choose(state)

    def act(self, seat: int, action: Action, seq: int) -> Refusal | None:
        dice = self.fair.for_action(self.game.state, action) if self.fair is not None else None
        self.game.play(action, dice, seat=seat)  # a bot's illegal action is raised: a bug to see
        self.seq += 1
        if self.on_action is not None:
            self.on_action(self.game.state, str(action))
        return None


def play_game(
    rules: Rules,
    bots: Sequence[Bot],
    dice: DiceSource | FairDice,
    *,
    names: Sequence[str] | None = None,
    extra: dict[str, object] | None = None,
    on_action: OnAction | None = None,
) -> Game:
    """Play one game to the end, seat i played by `bots[i]`; returns it with its record.

    With `FairDice` every roll is derived from its seed, the turn, the roll and the positions
    thrown, exactly as the web app rolls a game of that seed (the daily challenge's par)."""
    players = list(names) if names else [f"{bot.level}-{seat + 1}" for seat, bot in enumerate(bots)]
    if isinstance(dice, FairDice):
        game = Game(rules, players, extra=extra)
        solo = _Solo(game, bots, on_action, dice)
    else:
        game = Game(rules, players, dice, extra=extra)
        solo = _Solo(game, bots, on_action)
    botloop.run(solo, solo.choose, solo.act)
    return game


@dataclass
class SeatStats:
    level: str
    scores: list[int] = field(default_factory=list)
    wins: float = 0.0

    @property
    def mean(self) -> float:
        return sum(self.scores) / len(self.scores) if self.scores else 0.0

    @property
    def stderr(self) -> float:
        n = len(self.scores)
        if n < 2:
            return 0.0
        mean = self.mean
        variance = sum((s - mean) ** 2 for s in self.scores) / (n - 1)
        return math.sqrt(variance / n)


def simulate(
    rules: Rules,
    levels: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    keep_records: bool = False,
) -> tuple[list[SeatStats], list[dict[str, object]]]:
    """Play `games` games with one bot per level (seat order); per-seat scores and wins.

    Game g uses dice seeded with `seed + g` and bots seeded from it, so any single game can be
    reproduced on its own. A shared first place counts as a fraction of a win.
    """
    stats = [SeatStats(level) for level in levels]
    records: list[dict[str, object]] = []
    for number in range(games):
        game_seed = seed + number
        bots = [make_bot(level, game_seed * 31 + seat) for seat, level in enumerate(levels)]
        game = play_game(
            rules,
            bots,
            SeededDice(game_seed),
            extra={"seed": game_seed, "bots": list(levels)},
        )
        state = game.state
        winners = [standing.seat for standing in ranking(state) if standing.place == 1]
        for seat, score in enumerate(totals(state)):
            stats[seat].scores.append(score)
            if seat in winners:
                stats[seat].wins += 1 / len(winners)
        if keep_records:
            records.append(game.to_record())
    return stats, records
