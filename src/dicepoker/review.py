"""Post-game analysis: every decision against the expert's, the luck of every roll, and who was
winning (docs/analysis.md, "Analysis").

`analyse(record)` replays a record and keeps every position. At each decision (every choice but
a turn's forced first roll and a clock forfeit) the advisor (`dicepoker.advisor.advise`) values
every option: the decision's loss is the expert's measure of its best option less that of the
option taken. In a game with rivals each decision also carries every seat's chance of winning at
the decision and once the option is chosen (`winprob.chances_after`, before any reroll lands),
and the mover's chance lost: the best chance among the expert's first choices (where the
expert plays for points they may differ) less the chance of the option taken.

A roll's luck is how far its dice moved the mover's expected final score from what it was just
before they landed (the value of the option that threw them): the average roll's luck is zero, so
over a game luck and loss account for the score. With the exact solver they do so to the point:
a seat's final total is the expected score of its first turn, plus its luck, less its losses
(tested). The same is measured on the chance of winning. Every decision and roll says
where it was as the pages do (`round` of `rounds`: `dicepoker.view.turn_count`), beside the
record's turn and roll that address the replay viewer. The curve is every seat's chance at
every position of the game, in the replay viewer's coordinates (turns played, rolls of the next
turn); its swings are its biggest moves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dicepoker import winprob
from dicepoker.advisor import NOISE, Advice, advise
from dicepoker.bots.expert import solver_for
from dicepoker.bots.fallible import points_per_turn
from dicepoker.engine import Action, Forfeit, GameState, Roll, sheet_breakdown
from dicepoker.record import replay, rules_of
from dicepoker.view import turn_count

#: A decision losing more than this many points (the expert's measure) is a mistake.
MISTAKE = 1.0
#: The key moments of a player: its costliest decisions.
KEY_MOMENTS = 3
#: The worst decisions listed per player.
WORST = 5
#: The swings of the curve reported.
SWINGS = 3
#: The options (the expert's first choices) among which a decision's best chance is sought.
WIN_CANDIDATES = 5

#: The verdict of a player's play by its mean loss per decision as a share of a turn's points
#: (`bots.fallible.points_per_turn`: 19.6 points in Yahtzee, 2.8 in poker dice): the first whose
#: bound the share stays under (docs/analysis.md says where the bots' levels fall).
VERDICTS: tuple[tuple[str, float], ...] = (
    ("perfect", 0.0005),
    ("excellent", 0.01),
    ("strong", 0.04),
    ("decent", 0.09),
    ("shaky", 0.16),
    ("weak", float("inf")),
)


def verdict(mean_loss: float, turn_points: float) -> str:
    """The plain-language verdict code of a mean loss per decision in a game whose turn is worth
    `turn_points` points to the expert."""
    share = mean_loss / turn_points if turn_points > 0 else 0.0
    for name, bound in VERDICTS:
        if share < bound:
            return name
    return VERDICTS[-1][0]


def _rounded(values: Sequence[float] | None) -> list[float] | None:
    return None if values is None else [round(v, 4) for v in values]


def _maybe(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


@dataclass(frozen=True, slots=True)
class Decision:
    turn: int  # 1-based record turn
    roll: int  # the rolls of the turn before the decision (the replay viewer's `roll`)
    seat: int
    action: Action
    best: Action
    value: float  # expected final score of the action taken
    best_value: float
    lost: float  # the expert's measure of the best option minus that of the action taken
    win_before: tuple[float, ...] | None = None  # every seat's chances at the decision
    win_after: tuple[float, ...] | None = None  # and once the action is chosen
    win_best: float | None = None  # the mover's best chance among the expert's first choices
    round: int = 0  # the mover's round of the game (`view.turn_count`: what every page says)
    rounds: int = 0

    @property
    def loss(self) -> float:
        return self.lost if self.lost > NOISE else 0.0

    @property
    def win_lost(self) -> float | None:
        """The mover's chance of winning lost: the best chance among the expert's first choices
        (`WIN_CANDIDATES`, the option taken included) less the option's."""
        if self.win_after is None or self.win_best is None:
            return None
        lost = self.win_best - self.win_after[self.seat]
        return lost if lost > NOISE else 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "roll": self.roll,
            "seat": self.seat,
            "action": str(self.action),
            "best": str(self.best),
            "value": round(self.value, 4),
            "best_value": round(self.best_value, 4),
            "loss": round(self.loss, 4),
            "win_before": _rounded(self.win_before),
            "win_after": _rounded(self.win_after),
            "win_lost": _maybe(self.win_lost),
            "round": self.round,
            "rounds": self.rounds,
        }


@dataclass(frozen=True, slots=True)
class RollLuck:
    """How far one roll's dice moved the mover's expected final score and chance of winning."""

    turn: int  # 1-based record turn
    roll: int  # which roll of the turn (1-based)
    seat: int
    dice: tuple[int, ...]
    expected_before: float  # the value of the option that threw the dice
    expected_after: float  # the value of the position once they landed
    win_before: float | None = None
    win_after: float | None = None
    round: int = 0  # the mover's round of the game (`view.turn_count`)
    rounds: int = 0

    @property
    def luck(self) -> float:
        return self.expected_after - self.expected_before

    @property
    def luck_win(self) -> float | None:
        if self.win_before is None or self.win_after is None:
            return None
        return self.win_after - self.win_before

    def as_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "roll": self.roll,
            "seat": self.seat,
            "dice": list(self.dice),
            "expected_before": round(self.expected_before, 4),
            "expected_after": round(self.expected_after, 4),
            "luck": round(self.luck, 4),
            "win_before": _maybe(self.win_before),
            "win_after": _maybe(self.win_after),
            "luck_win": _maybe(self.luck_win),
            "round": self.round,
            "rounds": self.rounds,
        }


@dataclass(frozen=True, slots=True)
class CurvePoint:
    turn: int  # complete turns played (the replay viewer's `turn`)
    roll: int  # rolls of the next turn
    chances: tuple[float, ...]

    def as_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "roll": self.roll, "chances": _rounded(self.chances)}


@dataclass(frozen=True, slots=True)
class Swing:
    index: int  # the curve point reached (its move is from the point before)
    seat: int
    change: float
    turn: int
    roll: int
    cause: str  # "roll": the dice landed (after the keep); "decision": a cell move or forfeit

    def as_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seat": self.seat,
            "change": round(self.change, 4),
            "turn": self.turn,
            "roll": self.roll,
            "cause": self.cause,
        }


@dataclass
class PlayerSummary:
    seat: int
    name: str
    turn_points: float  # the expert's points a turn in these rules: the verdict's scale
    decisions: int = 0
    mistakes: int = 0  # decisions that lost more than `MISTAKE` points
    loss: float = 0.0
    luck: float = 0.0
    luck_win: float | None = None
    win_lost: float | None = None
    worst: list[Decision] = field(default_factory=list)

    @property
    def mean_loss(self) -> float:
        return self.loss / self.decisions if self.decisions else 0.0

    @property
    def verdict(self) -> str:
        return verdict(self.mean_loss, self.turn_points)

    def as_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "decisions": self.decisions,
            "mistakes": self.mistakes,
            "expected_loss": round(self.loss, 3),
            "mean_loss": round(self.mean_loss, 4),
            "luck": round(self.luck, 3),
            "luck_win": _maybe(self.luck_win),
            "win_lost": _maybe(self.win_lost),
            "verdict": self.verdict,
            "worst": [d.as_json() for d in self.worst],
            "key_moments": [d.as_json() for d in self.worst[:KEY_MOMENTS]],
        }


@dataclass
class Analysis:
    variant: str
    method: str
    rolls_per_turn: int
    decisions: list[Decision]
    players: list[PlayerSummary]
    rolls: list[RollLuck] = field(default_factory=list)
    curve: list[CurvePoint] = field(default_factory=list)
    swings: list[Swing] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "method": self.method,
            "rolls_per_turn": self.rolls_per_turn,
            "players": [p.as_json() for p in self.players],
            "decisions": [d.as_json() for d in self.decisions],
            "rolls": [r.as_json() for r in self.rolls],
            "curve": [c.as_json() for c in self.curve],
            "swings": [s.as_json() for s in self.swings],
        }


class _Walk:
    """The positions of a replayed game, each valued once (the advice and the chances)."""

    def __init__(self, states: list[GameState], levels: winprob.Levels | None) -> None:
        self.states = states
        self.levels = levels
        self._advice: dict[int, Advice | None] = {}
        self._chances: dict[int, tuple[float, ...] | None] = {}

    def advice(self, index: int) -> Advice | None:
        if index not in self._advice:
            state = self.states[index]
            self._advice[index] = None if state.finished else advise(state)
        return self._advice[index]

    def chances(self, index: int) -> tuple[float, ...] | None:
        if index not in self._chances:
            self._chances[index] = winprob.win_probability(self.states[index], self.levels)
        return self._chances[index]

    def chances_after(self, index: int, action: Action) -> tuple[float, ...] | None:
        return winprob.chances_after(self.states[index], action, self.levels)


def _value(walk: _Walk, index: int) -> float | None:
    """The mover's expected final score at a position (its best option's value), or its total
    once the game is over."""
    state = walk.states[index]
    advice = walk.advice(index)
    if advice is None:
        return float(sheet_breakdown(state.rules, state.sheet).total)
    return advice.best.value


def _swings(curve: list[CurvePoint], causes: list[str]) -> list[Swing]:
    moves: list[Swing] = []
    for index in range(1, len(curve)):
        before, after = curve[index - 1].chances, curve[index].chances
        seat = max(range(len(after)), key=lambda s: abs(after[s] - before[s]))
        change = after[seat] - before[seat]
        if abs(change) > NOISE:
            point = curve[index]
            moves.append(Swing(index, seat, change, point.turn, point.roll, causes[index - 1]))
    moves.sort(key=lambda s: -abs(s.change))
    return moves[:SWINGS]


def analyse(record: Mapping[str, Any], levels: winprob.Levels | None = None) -> Analysis:
    """Replay `record` and value every decision against the best option at that moment, every
    roll's luck, and (with rivals) every position's chances of winning. `levels`: each seat's
    level where it is known (a bot's), as for the live chances (`winprob.win_probability`).

    A bad record raises the record's own errors (`RecordFormatError`, `RecordTurnError`).
    """
    rules, players = rules_of(record)
    states: list[GameState] = []
    actions: list[Action] = []

    def keep(state: GameState, action: Action) -> None:
        states.append(state)
        actions.append(action)

    game = replay(record, observer=keep)
    states.append(game.state)
    walk = _Walk(states, levels)
    rivals = len(players) > 1

    decisions: list[Decision] = []
    rolls: list[RollLuck] = []
    curve: list[CurvePoint] = []
    causes: list[str] = []
    turns_done = 0
    for index, state in enumerate(states):
        if rivals:
            chances = walk.chances(index)
            if chances is not None:
                curve.append(CurvePoint(turns_done, state.rolls, chances))
        if index == len(actions):
            break
        action = actions[index]
        causes.append("roll" if isinstance(action, Roll) else "decision")
        if not isinstance(action, Roll):
            turns_done += 1
        if state.finished or isinstance(action, Forfeit):
            continue
        advice = walk.advice(index)
        if advice is None:
            continue
        try:
            taken = advice.option(action)
        except KeyError:
            continue  # not a legal option: the replay refuses it with its turn and reason
        after = walk.chances_after(index, action) if rivals else None
        count = turn_count(state)
        round_of, rounds = (count.round, count.rounds) if count is not None else (0, 0)
        if isinstance(action, Roll):
            landed = states[index + 1]
            expected = _value(walk, index + 1)
            rolls.append(
                RollLuck(
                    state.turn + 1,
                    state.rolls + 1,
                    state.seat,
                    tuple(landed.dice),
                    taken.value,
                    expected if expected is not None else taken.value,
                    None if after is None else after[state.seat],
                    None if not rivals else _seat_chance(walk.chances(index + 1), state.seat),
                    round_of,
                    rounds,
                )
            )
            if state.rolls == 0:
                continue  # the turn's first roll is forced: no decision
        best = advice.best
        win_best = None
        if after is not None:
            win_best = _best_chance(walk, index, advice, action, after[state.seat])
        decisions.append(
            Decision(
                state.turn + 1,
                state.rolls,
                state.seat,
                action,
                best.action,
                taken.value,
                best.value,
                best.worth - taken.worth,
                walk.chances(index) if rivals else None,
                after,
                win_best,
                round_of,
                rounds,
            )
        )

    summaries = _summaries(players, points_per_turn(rules), decisions, rolls, rivals)
    method = "solver" if solver_for(rules) is not None else "expectimax"
    swings = _swings(curve, causes) if len(curve) == len(states) else []
    return Analysis(
        rules.variant, method, rules.rolls_per_turn, decisions, summaries, rolls, curve, swings
    )


def _best_chance(walk: _Walk, index: int, advice: Advice, action: Action, taken: float) -> float:
    """The mover's best chance of winning among the options the expert values most
    (`WIN_CANDIDATES` of them) and the one taken (`taken`, its chance): where the expert plays
    for points, the option that gives most chance may not be its first choice, but it is among
    its first few. `taken`: the chance of `action`, the option taken."""
    seat = walk.states[index].seat
    ranked = sorted(advice.options, key=lambda option: -option.worth)[:WIN_CANDIDATES]
    best = taken
    for option in ranked:
        if option.action == action:
            continue  # its chance is `taken`
        chances = walk.chances_after(index, option.action)
        if chances is not None:
            best = max(best, chances[seat])
    return best


def _seat_chance(chances: tuple[float, ...] | None, seat: int) -> float | None:
    return None if chances is None else chances[seat]


def _summaries(
    players: Sequence[str],
    turn_points: float,
    decisions: list[Decision],
    rolls: list[RollLuck],
    rivals: bool,
) -> list[PlayerSummary]:
    summaries = [PlayerSummary(seat, name, turn_points) for seat, name in enumerate(players)]
    if rivals:
        for summary in summaries:
            summary.luck_win = 0.0
            summary.win_lost = 0.0
    for decision in decisions:
        summary = summaries[decision.seat]
        summary.decisions += 1
        summary.loss += decision.loss
        if decision.loss > MISTAKE:
            summary.mistakes += 1
        lost = decision.win_lost
        if summary.win_lost is not None:
            summary.win_lost = None if lost is None else summary.win_lost + lost
    for roll in rolls:
        summary = summaries[roll.seat]
        summary.luck += roll.luck
        luck = roll.luck_win
        if summary.luck_win is not None:
            summary.luck_win = None if luck is None else summary.luck_win + luck
    for summary in summaries:
        mine = [d for d in decisions if d.seat == summary.seat and d.loss > 0]
        summary.worst = sorted(mine, key=lambda d: (-d.loss, -(d.win_lost or 0.0)))[:WORST]
    return summaries


__all__ = [
    "KEY_MOMENTS",
    "MISTAKE",
    "VERDICTS",
    "Analysis",
    "CurvePoint",
    "Decision",
    "PlayerSummary",
    "RollLuck",
    "Swing",
    "analyse",
    "verdict",
]
