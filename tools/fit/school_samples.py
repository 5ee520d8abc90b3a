"""The games the School expert's value network learns from (tools/fit/train_school.py).

Each game is played by the one bot loop (`dicepoker.simulate.play_game`); a learning seat notes,
at the start of each of its turns, the position's features and the planner's value of the turn,
and then what the turn's move brought.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dicepoker.bots import make_bot
from dicepoker.bots.base import Bot
from dicepoker.bots.planner import FloatArray, Planner, ZeroAfter
from dicepoker.bots.school_value import (
    Layout,
    SchoolNet,
    SchoolValue,
    encode,
    layout,
    state_position,
)
from dicepoker.dice import SeededDice
from dicepoker.engine import Action, GameState, Move, ranking, sheet_breakdown, totals
from dicepoker.rules import get_rules
from dicepoker.simulate import play_game

F32 = NDArray[np.float32]


@dataclass
class Samples:
    """The expert's turns: features at the turn's start `x`, the turn's expected value `expect`,
    what it brought `gain`; `last` marks a player's last turn (the sequences are per game and
    seat, in order). `scores` are the solitaire totals, `wins` the duel results (1, 0.5, 0) by
    rival."""

    x: F32
    expect: FloatArray
    gain: FloatArray
    last: NDArray[np.bool_]
    scores: list[int] = field(default_factory=list)
    wins: dict[str, list[float]] = field(default_factory=dict)

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        wins: dict[str, list[float]] = {}
        for part in parts:
            for rival, results in part.wins.items():
                wins.setdefault(rival, []).extend(results)
        return cls(
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.expect for p in parts]),
            np.concatenate([p.gain for p in parts]),
            np.concatenate([p.last for p in parts]),
            [score for p in parts for score in p.scores],
            wins,
        )


def game_kind(seed: int, duels: float, rivals: list[str]) -> str | None:
    """None for a solitaire game, else the rival of a 2-player game (a fixed draw per seed)."""
    draw = np.random.default_rng(seed).random()
    if not rivals or draw >= duels:
        return None
    return rivals[int(draw / duels * len(rivals)) % len(rivals)]


#: A learning seat's turn: the position's features, the planner's value of the turn, the points
#: its move brought.
Turn = tuple[FloatArray, float, float]


class _Learner(Bot):
    """A learning seat: at each turn's first decision it notes the features of the position and
    the planner's value of the turn; `after_action` adds the points the turn's move brought."""

    level = "expert"

    def __init__(self, planner: Planner, lay: Layout, turns: list[Turn]) -> None:
        self.planner, self.lay, self.turns = planner, lay, turns
        self.pending: tuple[FloatArray, float] | None = None
        self.before: GameState | None = None

    def choose(self, state: GameState) -> Action:
        if state.rolls == 1:
            plan = self.planner.plan(state)
            self.pending = (encode(self.lay, state_position(state))[0], plan.turn_value())
        action = self.planner.choose(state)
        self.before = state if isinstance(action, Move) else None
        return action

    @staticmethod
    def after_action(seats: Sequence[Bot]) -> Callable[[GameState, str], None]:
        """The game's `on_action`: a learner's move is recorded with what it brought."""

        def record(after: GameState, _action: str) -> None:
            for seat in seats:
                if isinstance(seat, _Learner) and seat.before is not None:
                    before = seat.before
                    assert seat.pending is not None
                    sheet = before.seat
                    rules = before.rules
                    gained = sheet_breakdown(rules, after.sheets[sheet]).total
                    gained -= sheet_breakdown(rules, before.sheets[sheet]).total
                    seat.turns.append((seat.pending[0], seat.pending[1], float(gained)))
                    seat.before = seat.pending = None

        return record


def play(
    columns: int,
    model_json: dict[str, Any] | None,
    seeds: list[int],
    duels: float,
    rivals: list[str],
) -> Samples:
    """Play one game per seed; record every turn of the expert's seats."""
    rules = get_rules("school", {"columns": columns})
    lay = layout(rules)
    model = SchoolNet.from_json(model_json) if model_json is not None else None
    xs: list[FloatArray] = []
    expect: list[float] = []
    gain: list[float] = []
    last: list[bool] = []
    out = Samples(np.zeros((0, lay.width), np.float32), np.zeros(0), np.zeros(0), np.zeros(0, bool))
    for seed in seeds:
        kind = game_kind(seed, duels, rivals)
        planner = Planner(SchoolValue(model) if model is not None else ZeroAfter())
        turns: dict[int, list[Turn]] = {0: [], 1: []}
        learner = _Learner(planner, lay, turns[0])
        players: list[Bot]
        if kind is None:
            players, learning = [learner], {0}
        elif kind == "self":
            players, learning = [learner, _Learner(Planner(planner.after), lay, turns[1])], {0, 1}
        else:
            rival = make_bot(kind, seed)
            if seed % 2 == 0:
                players, learning = [learner, rival], {0}
            else:
                learner.turns = turns[1]
                players, learning = [rival, learner], {1}
        record = _Learner.after_action(players)
        state = play_game(rules, players, SeededDice(seed), on_action=record).state
        for seat in sorted(learning):  # one sequence per seat, in order, ending with `last`
            for t, (x, value, brought) in enumerate(turns[seat]):
                xs.append(x)
                expect.append(value)
                gain.append(brought)
                last.append(t == len(turns[seat]) - 1)
        if kind is None:
            out.scores.append(totals(state)[0])
        elif kind != "self":
            seat = 0 if seed % 2 == 0 else 1
            winners = [s.seat for s in ranking(state) if s.place == 1]
            out.wins.setdefault(kind, []).append(1 / len(winners) if seat in winners else 0.0)
    out.x = np.array(xs, dtype=np.float32).reshape(-1, lay.width)
    out.expect = np.array(expect)
    out.gain = np.array(gain, dtype=np.float64)
    out.last = np.array(last, dtype=np.bool_)
    return out
