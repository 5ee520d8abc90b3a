"""A value function of a School sheet, fitted by simulation (see tools/fit/train_school.py).

The value of a sheet is what the rest of the game will still bring its player: a small neural
network (two hidden layers of rectified units and a linear shortcut) over features of the sheet
(`school_features.py`: turns left, empty cells, the stars still in reach and their values, the
reserve against the School rows, the columns, the race for every star against the rivals). The
network, the duel fit and the measured spreads, and their data file, are in `school_net.py`.

The network is fitted by approximate value iteration on games played by the expert itself
(`tools/fit/train_school.py`); its weights are in `data/school_value.json`, one network per sheet
width. `SchoolValue` evaluates it on every distinct sheet the moves of a turn can leave (a
combination move's sheet depends on its points, a School closing's on the reserve it leaves) in one
batch, which is the after-value of the within-turn expectimax (`planner.py`). In games with
rivals a `DuelFit` (made on the expert's own 2-player games) corrects the value and gives the
spread of a sheet's outcome, and the expert plays for its chance of winning near the end.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dicepoker.bots.move_table import FloatArray, MoveTable
from dicepoker.bots.school_features import (
    FIVE_ROW,
    HARD_ROWS,
    KEY,
    RACE_SPAN,
    Layout,
    Position,
    after_features,
    after_positions,
    compile_features,
    encode,
    layout,
    position,
    state_position,
)
from dicepoker.bots.school_net import (
    CHUNK,
    DATA,
    DuelFit,
    SchoolNet,
    duel_features,
    duel_fit_for,
    load_duel_fits,
    load_models,
    load_spreads,
    model_for,
    spread_for,
)
from dicepoker.engine import GameState, sheet_breakdown
from dicepoker.winprob.mixture import normal_cdf

# The race at the end of a game with rivals: in the mover's last ENDGAME_TURNS turns, the value of
# a sheet counts its chance of winning, WIN_POINTS points for a sure win (how they were chosen and
# what they change: docs/bots.md, "The race at the end of a game with rivals").
ENDGAME_TURNS = 12
WIN_POINTS = 2000.0
# Before the race, in games with rivals: the after-value is the corrected value minus RISK times
# the spread of the sheet's outcome (`DuelFit`), so that of two sheets worth the same the safer one
# is kept (measured: docs/bots.md, "Against rivals: the duel fit and a margin for risk").
RISK = 0.3


def _rivals(state: GameState) -> list[int]:
    return [seat for seat in state.contenders if seat != state.seat and seat not in state.forfeited]


class SchoolValue:
    """The `AfterValue` of the School expert: the fitted network on the sheet after each move,
    aware of the opponents' sheets in the race for the stars.

    With a `spread` (the measured standard deviation of what the last `t` turns bring beyond the
    network's estimate), in the mover's last `endgame` turns of a game with rivals the after-value
    also counts the chance of winning, `win_points` points for a sure win: the expected score is
    what the mover maximises over a whole game, but near its end, how far ahead or behind it is
    decides whether a safe move or a long shot is worth more. The chance is a normal model of the
    final totals: the mover's total + gain + the network's value after the move, each rival's
    total + the network's value of its sheet, the spreads of the turns each has left (a player
    with no turn left has a known total); against several rivals, the product of the chances of
    finishing ahead of each. With a `duel` fit, in games with rivals the network's value is
    corrected by it (the mover's projected points in the race too), and before the race the
    after-value is that value less `risk` times the fitted spread of the sheet's outcome.
    `after_parts` gives the objective with the expected points, which the advisor shows."""

    def __init__(
        self,
        model: SchoolNet,
        spread: Sequence[float] | None = None,
        endgame: int = ENDGAME_TURNS,
        win_points: float = WIN_POINTS,
        duel: DuelFit | None = None,
        risk: float = RISK,
    ) -> None:
        self.model = model
        self.spread = np.asarray(spread, dtype=np.float64) if spread is not None else None
        self.endgame = endgame
        self.win_points = win_points
        self.duel = duel
        self.risk = risk

    def racing(self, state: GameState) -> bool:
        """Whether the mover plays for its chance of winning (its last `endgame` turns of a game
        with rivals)."""
        return self._racing(state.rules.cells - state.sheet.filled, _rivals(state))

    def _racing(self, left: int, rivals: list[int]) -> bool:
        return (
            self.spread is not None
            and self.win_points != 0
            and left <= self.endgame
            and bool(rivals)
        )

    def after_values(self, table: MoveTable) -> FloatArray:
        return self._after(table, points_too=False)[0]

    def after_parts(self, table: MoveTable) -> tuple[FloatArray, FloatArray | None]:
        return self._after(table, points_too=True)

    def _after(self, table: MoveTable, points_too: bool) -> tuple[FloatArray, FloatArray | None]:
        """`after_parts`; without `points_too` the expected points are left out where they are
        not the objective (the two-turn search reads the objective alone), which saves an array
        of every (move, hand) a turn."""
        state = table.state
        rules = state.rules
        left = rules.cells - state.sheet.filled
        last = left <= 1  # the last move: nothing follows
        rivals = _rivals(state)
        duel = self.duel if rivals and not last else None
        racing = self._racing(left, rivals)
        if last:
            points: FloatArray = np.zeros((len(table.moves), 1, 1))
        else:
            lay = layout(rules)
            x, where = after_features(table, state_position(state))
            values = self.model(x)
            if duel is not None:
                values = values + duel.correction_of(lay, x)
            if duel is not None and self.risk != 0 and not racing:
                # Per distinct sheet, then spread over the moves (the same float operations).
                safe: FloatArray = (values - self.risk * duel.spread_of(x))[where]
                return safe, values[where] if points_too else None
            points = values[where]
        spread = self.spread
        if spread is None or not racing:
            return points, None
        # Every sheet after a move has one turn fewer left than this one.
        var: FloatArray = np.zeros((1, 1, 1)) if last else spread[left - 1 : left] ** 2
        gain = np.where(np.isfinite(table.gain), table.gain, 0.0)
        mine = float(sheet_breakdown(rules, state.sheet).total) + gain + points
        win: FloatArray = np.ones(1)
        for seat in rivals:
            theirs = state.sheets[seat]
            final = float(sheet_breakdown(rules, theirs).total)
            their_left = rules.cells - theirs.filled
            their_var = 0.0
            if their_left > 0:
                view = state._replace(seat=seat)
                final += float(self.model(encode(layout(rules), state_position(view)))[0])
                their_var = float(spread[their_left]) ** 2
            margin = mine - final
            sd = np.sqrt(var + their_var)
            exact = np.where(margin > 0, 1.0, np.where(margin == 0, 0.5, 0.0))
            chance = np.where(sd > 0, normal_cdf(margin / np.where(sd > 0, sd, 1.0)), exact)
            win = win * chance
        objective: FloatArray = points + self.win_points * win
        return objective, np.broadcast_to(points, objective.shape)


__all__ = [
    "CHUNK",
    "DATA",
    "ENDGAME_TURNS",
    "FIVE_ROW",
    "HARD_ROWS",
    "KEY",
    "RACE_SPAN",
    "RISK",
    "WIN_POINTS",
    "DuelFit",
    "Layout",
    "Position",
    "SchoolNet",
    "SchoolValue",
    "after_features",
    "after_positions",
    "compile_features",
    "duel_features",
    "duel_fit_for",
    "encode",
    "layout",
    "load_duel_fits",
    "load_models",
    "load_spreads",
    "model_for",
    "normal_cdf",
    "position",
    "spread_for",
    "state_position",
]
