"""A value function of a School sheet, fitted by simulation (see benchmarks/train_school.py).

The value of a sheet is what the rest of the game will still bring its player: a small neural
network (two hidden layers of rectified units and a linear shortcut) over features of the sheet
(`encode`):

- the turns left, and the empty cells of every row;
- per row with a star: whether the star is still in reach (the row unbroken, the star not taken)
  and, for a combination row, its best cell so far (the star's value);
- the reserve: per School row, how many missing dice of its face the reserve covers (whether it
  can close the row with two dice, with one, and the cover itself), and the reserve itself;
- per column: whether its star is in reach, its empty cells, its hard cells still empty (five and
  four of a kind, the two straights), whether its five-of-a-kind cell is empty, and its best
  combination so far;
- the race for every star against the other players: whether someone else can still earn it, and
  how many more cells they need for it than we do.

The network is fitted by approximate value iteration on games played by the expert itself
(`benchmarks/train_school.py`); its weights are in `data/school_value.json`, one network per sheet
width. `SchoolValue` evaluates it on every distinct sheet the moves of a turn can leave (a
combination move's sheet depends on its points, a School closing's on the reserve it leaves) in one
batch, which is the after-value of the within-turn expectimax (`planner.py`). In games with
rivals a `DuelFit` (made on the expert's own 2-player games) corrects the value and gives the
spread of a sheet's outcome, and the expert plays for its chance of winning near the end.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dicepoker.bots.planner import FloatArray, IntArray, MoveTable
from dicepoker.engine import GameState, Mark, Sheet, sheet_breakdown
from dicepoker.rules import Rules

DATA = Path(__file__).with_name("data") / "school_value.json"

HARD_ROWS = ("five_of_a_kind", "four_of_a_kind", "small_straight", "large_straight")
FIVE_ROW = "five_of_a_kind"
RACE_SPAN = 3  # the race feature: rival's need minus ours, clipped to +-RACE_SPAN


@dataclass(frozen=True, slots=True)
class Layout:
    """Which rows are which on a School sheet of `columns`, and the width of the features."""

    columns: int
    n_rows: int
    school_rows: tuple[int, ...]
    faces: tuple[int, ...]  # per School row: its face
    star: tuple[bool, ...]  # per row: has a row star
    school: tuple[bool, ...]  # per row: a School row
    hard: tuple[bool, ...]  # per row: one of HARD_ROWS
    five: int
    column_best: tuple[bool, ...]

    @property
    def cells(self) -> int:
        return self.n_rows * self.columns

    @property
    def width(self) -> int:
        rows, columns, school = self.n_rows, self.columns, len(self.school_rows)
        return 1 + 3 * rows + 3 * school + 1 + 5 * columns + 2 * (rows + columns)


@cache
def _layout_for(rows_key: tuple[tuple[str, bool, bool, bool, int], ...], columns: int) -> Layout:
    school = tuple(i for i, key in enumerate(rows_key) if key[1])
    return Layout(
        columns=columns,
        n_rows=len(rows_key),
        school_rows=school,
        faces=tuple(rows_key[i][4] for i in school),
        star=tuple(key[2] for key in rows_key),
        school=tuple(key[1] for key in rows_key),
        hard=tuple(key[0] in HARD_ROWS for key in rows_key),
        five=next(i for i, key in enumerate(rows_key) if key[0] == FIVE_ROW),
        column_best=tuple(key[3] for key in rows_key),
    )


def layout(rules: Rules) -> Layout:
    key = tuple((row.id, row.school, row.star, row.column_best, row.combo.n) for row in rules.rows)
    return _layout_for(key, rules.columns)


# --- what the value reads from a sheet ---------------------------------------------------------


@dataclass(slots=True)
class Position:
    """Raw features of `n` sheets (one per row of every array), before encoding.

    `alive[r]`: row r's star is still in reach (0 for rows without a star, full rows, rows whose
    condition is broken and stars someone holds); `best[r]`: a combination row's best cell;
    `rival[k]` for the row stars then the column stars: the fewest cells a rival who can still earn
    that star needs for it (0: no rival can).
    """

    turns: IntArray  # (n,) empty cells = turns left
    reserve: IntArray  # (n,)
    empty: IntArray  # (n, rows)
    alive: IntArray  # (n, rows)
    best: IntArray  # (n, rows)
    col_alive: IntArray  # (n, columns)
    col_empty: IntArray  # (n, columns)
    col_hard: IntArray  # (n, columns)
    col_five: IntArray  # (n, columns)
    col_best: IntArray  # (n, columns)
    rival: IntArray  # (n, rows + columns)

    def repeat(self, count: int) -> Position:
        return Position(*(np.repeat(getattr(self, name), count, axis=0) for name in _FIELDS))

    @classmethod
    def stack(cls, parts: Sequence[Position]) -> Position:
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in _FIELDS))


_FIELDS = tuple(Position.__dataclass_fields__)


@dataclass(frozen=True, slots=True)
class _Own:
    """One sheet's own features (no rivals), as plain lists."""

    empty: list[int]
    alive: list[int]
    best: list[int]
    col_alive: list[int]
    col_empty: list[int]
    col_hard: list[int]
    col_five: list[int]
    col_best: list[int]


def _own(rules: Rules, sheet: Sheet, claimed: Collection[Any]) -> _Own:
    lay = layout(rules)
    columns = rules.columns
    cells = sheet.cells
    empty, alive, best = [], [], []
    col_alive = [int(("column", c) not in claimed) for c in range(columns)]
    col_empty = [0] * columns
    col_hard = [0] * columns
    col_five = [0] * columns
    col_best = [0] * columns
    for r, row in enumerate(rules.rows):
        fill = sheet.row_fill[r]
        mine = cells[r * columns : r * columns + fill]
        empty.append(columns - fill)
        if not row.star or fill == columns:
            ok = False
        elif row.school:
            ok = ("school_row", row.id) not in claimed and all(
                c is not None and c.mark is Mark.CLOSED and not c.used_reserve for c in mine
            )
        else:
            ok = ("combination_row", row.id) not in claimed and all(
                c is not None and c.mark is Mark.SCORE for c in mine
            )
        alive.append(int(ok))
        best.append(0 if row.school else max((c.points for c in mine if c is not None), default=0))
        for c in range(columns):
            if c >= fill:
                col_empty[c] += 1
                col_hard[c] += lay.hard[r]
                col_five[c] |= r == lay.five
                continue
            cell = cells[r * columns + c]
            assert cell is not None
            if cell.mark is Mark.STRIKE or cell.mark is Mark.ZERO:
                col_alive[c] = 0
            elif lay.column_best[r] and cell.points > col_best[c]:
                col_best[c] = cell.points
    col_alive = [a if e else 0 for a, e in zip(col_alive, col_empty, strict=True)]
    return _Own(empty, alive, best, col_alive, col_empty, col_hard, col_five, col_best)


@lru_cache(maxsize=256)
def _reach(rules: Rules, sheet: Sheet, claimed: frozenset[Any]) -> tuple[tuple[int, int], ...]:
    """A rival's (star in reach, cells still needed) for every row star, then column star. A
    rival's sheet does not change during our turn: kept for the turn's many positions."""
    theirs = _own(rules, sheet, claimed)
    return tuple(zip(theirs.alive + theirs.col_alive, theirs.empty + theirs.col_empty, strict=True))


def position(
    rules: Rules, sheet: Sheet, claimed: set[Any] | dict[Any, Any], rivals: Sequence[Sheet] = ()
) -> Position:
    """The raw features of one sheet (n = 1), with the rivals' sheets in the race for stars."""
    own = _own(rules, sheet, claimed)
    need = [0] * (len(rules.rows) + rules.columns)
    taken = frozenset(claimed)
    for other in rivals:
        for k, (live, cells) in enumerate(_reach(rules, other, taken)):
            if live and (need[k] == 0 or cells < need[k]):
                need[k] = cells

    def one(values: Sequence[int] | int) -> IntArray:
        return np.array(values, dtype=np.int64).reshape(1, -1)

    return Position(
        turns=np.array([rules.cells - sheet.filled], dtype=np.int64),
        reserve=np.array([sheet.reserve], dtype=np.int64),
        empty=one(own.empty),
        alive=one(own.alive),
        best=one(own.best),
        col_alive=one(own.col_alive),
        col_empty=one(own.col_empty),
        col_hard=one(own.col_hard),
        col_five=one(own.col_five),
        col_best=one(own.col_best),
        rival=one(need),
    )


def encode(lay: Layout, pos: Position) -> FloatArray:
    """The network's input: `(n, lay.width)` features of the positions (see the module doc)."""
    n = len(pos.turns)
    columns = lay.columns
    parts: list[FloatArray] = []
    add = parts.append
    add((pos.turns / lay.cells)[:, None])
    add(pos.empty / columns)
    alive = pos.alive.astype(np.float64)
    add(alive)
    add(alive * pos.best / 50)
    reserve = pos.reserve.astype(np.float64)[:, None]
    faces = np.array(lay.faces, dtype=np.float64)[None, :]
    add(np.minimum(reserve / faces, 6) / 6)
    add((reserve >= faces).astype(np.float64))
    add((reserve >= 2 * faces).astype(np.float64))
    add(np.minimum(reserve, 60) / 20)
    col_alive = pos.col_alive.astype(np.float64)
    add(col_alive)
    add(col_alive * pos.col_empty / lay.n_rows)
    add(col_alive * pos.col_hard / len(HARD_ROWS))
    add(col_alive * pos.col_five)
    add(col_alive * pos.col_best / 100)
    mine_alive = np.concatenate([alive, col_alive], axis=1)
    mine_need = np.concatenate([pos.empty, pos.col_empty], axis=1)
    live = mine_alive * (pos.rival > 0)
    add(live)
    add(live * np.clip(pos.rival - mine_need, -RACE_SPAN, RACE_SPAN) / RACE_SPAN)
    out = np.concatenate(parts, axis=1)
    assert out.shape == (n, lay.width)
    return out


# --- the network ---------------------------------------------------------------------------


F32Array = NDArray[np.float32]

# Rows per matrix product when the network is evaluated: small products run on the calling thread
# (BLAS libraries spread only large ones over threads, which on a loaded machine costs far more
# than it saves for a turn's few hundred sheets).
CHUNK = 16


@dataclass(frozen=True, slots=True, eq=False)
class SchoolNet:
    """The fitted network of one sheet width: `layers` are (weights, bias) pairs, rectified
    between them; `linear` is a shortcut from the input to the output; the output times `scale`
    is the value in points. Weights are float32."""

    columns: int
    layers: tuple[tuple[F32Array, F32Array], ...]
    linear: F32Array
    scale: float = 100.0
    info: dict[str, Any] | None = None

    def __call__(self, x: FloatArray) -> FloatArray:
        """The value (points) of every row of features `x`."""
        x32 = np.asarray(x, dtype=np.float32)
        out = np.empty(len(x32), dtype=np.float32)
        last = len(self.layers) - 1
        for start in range(0, len(x32), CHUNK):
            h = x32[start : start + CHUNK]
            shortcut = h @ self.linear
            for i, (w, b) in enumerate(self.layers):
                h = h @ w + b
                if i < last:
                    h = np.maximum(h, 0)
            out[start : start + CHUNK] = h[:, 0] + shortcut
        values: FloatArray = out.astype(np.float64) * self.scale
        return values

    @classmethod
    def initial(cls, rules: Rules, hidden: Sequence[int], seed: int = 0) -> SchoolNet:
        """Random weights (He initialisation) with a zero output layer: the value 0 everywhere."""
        rng = np.random.default_rng(seed)
        sizes = [layout(rules).width, *hidden]
        f32 = np.float32
        layers = [
            (rng.normal(0, np.sqrt(2 / a), (a, b)).astype(f32), np.zeros(b, f32))
            for a, b in pairwise(sizes)
        ]
        layers.append((np.zeros((sizes[-1], 1), f32), np.zeros(1, f32)))
        return cls(rules.columns, tuple(layers), np.zeros(sizes[0], f32))

    def fits(self, rules: Rules) -> bool:
        return rules.columns == self.columns and self.linear.shape == (layout(rules).width,)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "columns": self.columns,
            "scale": self.scale,
            "layers": [{"w": _pack(w), "b": _pack(b)} for w, b in self.layers],
            "linear": _pack(self.linear),
        }
        if self.info:
            out["info"] = self.info
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SchoolNet:
        return cls(
            int(data["columns"]),
            tuple((_unpack(layer["w"]), _unpack(layer["b"])) for layer in data["layers"]),
            _unpack(data["linear"]),
            float(data.get("scale", 100.0)),
            data.get("info"),
        )


def _pack(array: F32Array) -> dict[str, Any]:
    """An array as little-endian float32, zlib-compressed, base64 text."""
    raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
    return {"shape": list(array.shape), "f32": base64.b64encode(zlib.compress(raw, 9)).decode()}


def _unpack(data: dict[str, Any]) -> F32Array:
    shape = tuple(int(n) for n in data["shape"])
    raw = zlib.decompress(base64.b64decode(data["f32"]))
    return np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(shape)


def duel_features(lay: Layout, x: FloatArray) -> FloatArray:
    """The inputs of the duel correction (`DuelFit`): the network's features `x`, a few products
    of the turns left, the School cells still open and the reserve (the network's error in games
    with rivals grows with open School cells and little reserve), and a constant."""
    turns = x[:, :1] * lay.cells
    school = x[:, [1 + r for r in lay.school_rows]].sum(axis=1, keepdims=True) * lay.columns
    reserve = x[:, 1 + 3 * lay.n_rows + 3 * len(lay.school_rows)][:, None] * 20
    extra = [
        school / np.maximum(turns, 1),
        (reserve == 0) * school / 10,
        school * school / 100,
        school * turns / 300,
    ]
    return np.concatenate([x, *extra, np.ones((len(x), 1))], axis=1)


@dataclass(frozen=True, slots=True, eq=False)
class DuelFit:
    """What the expert's own games against rivals taught about the network there
    (`train_school.py --duel-fit`): `correction`, linear weights over `duel_features` fitted to
    the points the rest of the game brought beyond the network's value (the network, fitted
    mostly on solitaire games, is too hopeful about open School cells when rivals race for the
    stars), and `variance`, a network of the squared deviation of those points (points**2),
    whose root is the spread of a sheet's outcome."""

    correction: FloatArray
    variance: SchoolNet

    def fits(self, rules: Rules) -> bool:
        lay = layout(rules)
        return self.variance.fits(rules) and len(self.correction) == lay.width + 5

    def correction_of(self, lay: Layout, x: FloatArray) -> FloatArray:
        """Per row of features: the correction of the network's value (points)."""
        correction: FloatArray = duel_features(lay, x) @ self.correction
        return correction

    def spread_of(self, x: FloatArray) -> FloatArray:
        """Per row of features: the spread of the sheet's outcome (points)."""
        spread: FloatArray = np.sqrt(np.maximum(self.variance(x), 0.0))
        return spread

    def as_json(self) -> dict[str, Any]:
        return {
            "correction": [float(w) for w in self.correction],
            "variance": self.variance.as_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DuelFit:
        return cls(
            np.asarray(data["correction"], dtype=np.float64), SchoolNet.from_json(data["variance"])
        )


def _read(path: Path) -> dict[str, Any] | None:
    """The data file's contents, or None when it cannot be read or parsed."""
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data


def _models(data: dict[str, Any] | None) -> dict[int, SchoolNet]:
    if data is None:
        return {}
    return {int(key): SchoolNet.from_json(model) for key, model in data["models"].items()}


def _spreads(data: dict[str, Any] | None) -> dict[int, tuple[float, ...]]:
    if data is None:
        return {}
    return {
        int(key): tuple(float(v) for v in values) for key, values in data.get("spread", {}).items()
    }


def _duel_fits(data: dict[str, Any] | None) -> dict[int, DuelFit]:
    if data is None:
        return {}
    return {int(key): DuelFit.from_json(fit) for key, fit in data.get("duel", {}).items()}


def load_models(path: Path = DATA) -> dict[int, SchoolNet]:
    """The fitted networks in the data file, by number of columns (empty when there is none)."""
    return _models(_read(path))


def load_spreads(path: Path = DATA) -> dict[int, tuple[float, ...]]:
    """The measured spreads in the data file, by number of columns: `spread[t]` is the standard
    deviation (points) of what a player's last `t` turns bring beyond the network's estimate."""
    return _spreads(_read(path))


def load_duel_fits(path: Path = DATA) -> dict[int, DuelFit]:
    """The duel fits in the data file, by number of columns (empty when there is none)."""
    return _duel_fits(_read(path))


@cache
def _committed() -> tuple[dict[int, SchoolNet], dict[int, tuple[float, ...]], dict[int, DuelFit]]:
    """The committed networks, spreads and duel fits: the data file read once per process."""
    data = _read(DATA)
    return _models(data), _spreads(data), _duel_fits(data)


def model_for(rules: Rules) -> SchoolNet | None:
    """The committed network for this sheet width, or None when none was fitted."""
    model = _committed()[0].get(rules.columns)
    return model if model is not None and model.fits(rules) else None


def spread_for(rules: Rules) -> tuple[float, ...] | None:
    """The committed spread of this sheet width (one value per turns left, 0 to every cell), or
    None when none was measured."""
    spread = _committed()[1].get(rules.columns)
    return spread if spread is not None and len(spread) == rules.cells + 1 else None


def duel_fit_for(rules: Rules) -> DuelFit | None:
    """The committed duel fit of this sheet width, or None when none was made."""
    fit = _committed()[2].get(rules.columns)
    return fit if fit is not None and fit.fits(rules) else None


# --- the after-value ---------------------------------------------------------------------------


def claimed_by(state: GameState) -> dict[tuple[str, str | int], int]:
    return {
        (bonus.kind, bonus.key): seat
        for seat, sheet in enumerate(state.sheets)
        for bonus in sheet.stars
    }


def state_position(state: GameState) -> Position:
    """The raw features of the sheet of the player to move, with its rivals."""
    rules = state.rules
    rivals = [
        sheet
        for seat, sheet in enumerate(state.sheets)
        if seat != state.seat and seat in state.contenders and seat not in state.forfeited
    ]
    return position(rules, state.sheet, claimed_by(state), rivals)


KEY = 1024  # above any points or reserve a sheet can hold


def after_positions(table: MoveTable, pos: Position) -> tuple[Position, IntArray]:
    """Every distinct sheet the moves of `table` can leave (from the sheet `pos`, n = 1), and for
    every (move, hand, doubled) the row of that list it leads to (`(moves, hands, 2)` indices).

    A combination move's sheet depends on its points where they can still count (for the row's
    star or the column's), a School closing's on the reserve it leaves; a stroke or a zero breaks
    the row's star and the column's."""
    rules = table.state.rules
    lay = layout(rules)
    rows, cols = table.rows, table.columns
    scored = np.array([move.verb == "score" for move in table.moves])
    school = np.array(lay.school)[rows]
    counts = (pos.alive[0, rows] > 0) | (
        (pos.col_alive[0, cols] > 0) & np.array(lay.column_best)[rows]
    )
    by_reserve = scored & school
    by_points = scored & ~school & counts
    value = np.where(
        by_reserve[:, None, None],
        table.reserve[:, :, None],
        np.where(by_points[:, None, None], table.points, 0.0),
    )
    value = np.where(np.isfinite(table.gain), np.clip(value, 0, KEY - 1), 0.0)
    key = value.astype(np.int64) + KEY * np.arange(len(rows))[:, None, None]
    # The distinct keys in order, and each entry's place among them (np.unique's answer, by a
    # mask over the small key range instead of a sort).
    present = np.zeros(KEY * len(rows), dtype=np.bool_)
    present[key.ravel()] = True
    keys = np.flatnonzero(present)
    inverse = (np.cumsum(present) - 1)[key]
    m = keys // KEY
    v = keys % KEY
    r, c = rows[m], cols[m]
    ok, by_res, by_pts = scored[m], by_reserve[m], by_points[m]
    n = len(keys)
    at = np.arange(n)
    after = pos.repeat(n)
    after.turns -= 1
    after.empty[at, r] -= 1
    after.col_empty[at, c] -= 1
    after.col_hard[at, c] -= np.array(lay.hard, dtype=np.int64)[r]
    after.col_five[at, c] &= r != lay.five
    reserve_now = int(pos.reserve[0])
    after.reserve = np.where(by_res, v, reserve_now)
    # A row's star stays in reach when scored (a School row: closed with three dice or more)
    # and the row is not full yet (a full row has earned its star or lost it).
    keeps = ok & (after.empty[at, r] > 0) & (~by_res | (v >= reserve_now))
    after.alive[at, r] &= keeps
    star_points = by_pts & np.array(lay.star)[r]
    after.best[at, r] = np.where(star_points, np.maximum(after.best[at, r], v), after.best[at, r])
    column_points = by_pts & np.array(lay.column_best)[r]
    after.col_best[at, c] = np.where(
        column_points, np.maximum(after.col_best[at, c], v), after.col_best[at, c]
    )
    after.col_alive[at, c] &= ok & (after.col_empty[at, c] > 0)
    return after, inverse.reshape(key.shape)


# The race at the end of a game with rivals: in the mover's last ENDGAME_TURNS turns, the value of
# a sheet counts its chance of winning, WIN_POINTS points for a sure win (12 turns chosen among 8,
# 12 and 20 on 8,000 2-player games against `greedy`). On 16,000 other games (docs/bots.md):
# 98.68% wins without it, 98.70% with it, the same expected score: no measurable change.
ENDGAME_TURNS = 12
WIN_POINTS = 2000.0
# Before the race, in games with rivals: the after-value is the corrected value minus RISK times
# the spread of the sheet's outcome (`DuelFit`), so that of two sheets worth the same the safer one
# is kept (chosen on 2-player games against `greedy`: docs/bots.md).
RISK = 0.3


def _rivals(state: GameState) -> list[int]:
    return [seat for seat in state.contenders if seat != state.seat and seat not in state.forfeited]


def normal_cdf(z: FloatArray) -> FloatArray:
    """The standard normal distribution function (Abramowitz and Stegun 7.1.26, error < 1.5e-7;
    numpy has no erf)."""
    x = np.abs(z) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = (((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
    poly = poly + 0.254829592
    erf = 1.0 - poly * t * np.exp(-x * x)
    out: FloatArray = 0.5 * (1.0 + np.sign(z) * erf)
    return out


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
        return self.after_parts(table)[0]

    def after_parts(self, table: MoveTable) -> tuple[FloatArray, FloatArray | None]:
        state = table.state
        rules = state.rules
        left = rules.cells - state.sheet.filled
        last = left <= 1  # the last move: nothing follows
        rivals = _rivals(state)
        duel = self.duel if rivals and not last else None
        if last:
            points: FloatArray = np.zeros((len(table.moves), 1, 1))
        else:
            lay = layout(rules)
            after, where = after_positions(table, state_position(state))
            x = encode(lay, after)
            values = self.model(x)
            if duel is not None:
                values = values + duel.correction_of(lay, x)
            points = values[where]
        spread = self.spread
        if spread is None or not self._racing(left, rivals):
            if duel is not None and self.risk != 0:
                return points - self.risk * duel.spread_of(x)[where], points
            return points, None
        var: FloatArray = np.zeros((1, 1, 1)) if last else spread[after.turns][where] ** 2
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
    "DATA",
    "RISK",
    "DuelFit",
    "Layout",
    "Position",
    "SchoolNet",
    "SchoolValue",
    "after_positions",
    "claimed_by",
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
