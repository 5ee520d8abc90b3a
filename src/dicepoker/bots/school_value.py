"""A value function of a School sheet, fitted by simulation (see benchmarks/train_school.py).

The rest of a School game is worth, for the player to move, the sum of what each part of the
sheet will still bring:

- each combination row (and `sum`): the points its empty cells will score, by the number of
  empty cells and the turns left; and its first-player star, by the empty cells, the best cell so
  far and the turns left, while the star is still in reach;
- each School row: the reserve its empty cells will add or spend and the zeros they will cost, by
  the empty cells, how many missing dice of its face the reserve covers (0 .. 6), how many School
  cells are empty in the other rows, the turns left and whether the star is still in reach; and
  its star (5 x face), by the same;
- each column: its star, by the empty cells of the column, how many of its hard cells (five and
  four of a kind, the two straights) are still empty, whether its five-of-a-kind cell is, and the
  best combination in it so far.

Each part's value is a table: the mean of what that part went on to score, over the positions of
many simulated games played by the expert itself (Monte Carlo policy evaluation, repeated so that
the values and the play improve together), shrunk toward coarser tables where a cell of the table
saw few positions. The tables are in `data/school_value.json`.

Against opponents a star is worth less: nothing once anyone has it (its part is then out of reach),
and less when an opponent who can still earn it needs fewer cells than we do (`race`).
"""

from __future__ import annotations

import base64
import json
import zlib
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from dicepoker.bots.planner import FloatArray, IntArray, MoveTable, rule_tables
from dicepoker.engine import GameState, Mark, Sheet
from dicepoker.rules import Rules

DATA = Path(__file__).with_name("data") / "school_value.json"

HARD_ROWS = ("five_of_a_kind", "four_of_a_kind", "small_straight", "large_straight")
FIVE_ROW = "five_of_a_kind"
MAX_POINTS = 400
MAX_RESERVE = 1000

# Default bucket edges (a value v falls in bucket `searchsorted(edges, v, side="right")`).
TURN_EDGES = (1, 2, 3, 4, 6, 8, 11, 15, 20, 26, 33, 40)
# A School row reads the reserve as the number of missing dice of its face it would cover
# (0 .. COVER), which is what decides whether the row can still be closed.
COVER = 6
# ... and the School cells still empty in the other School rows (they compete for the same turns).
OTHER_EDGES = (1, 3, 6)
POINT_EDGES = (1, 8, 12, 16, 20, 25, 30, 40, 50, 60, 80, 100, 120)

# The chance-like factor of a star an opponent can still earn, by how many more cells the
# opponent needs than we do once our move is made (-2 or fewer .. 2 or more).
RACE = (0.1, 0.2, 0.45, 0.75, 0.9)


def _lut(edges: tuple[int, ...], top: int) -> IntArray:
    return np.searchsorted(np.array(edges), np.arange(top + 1), side="right").astype(np.int64)


@dataclass(frozen=True, slots=True)
class Layout:
    """Which rows are which, and the shapes of the tables, for a School sheet of `columns`."""

    columns: int
    combo_rows: tuple[int, ...]  # row indices of the combination rows (and `sum`)
    school_rows: tuple[int, ...]
    star_rows: tuple[bool, ...]  # per combination row: has a row star
    hard: tuple[bool, ...]  # per row: one of HARD_ROWS
    five: int
    column_best: tuple[bool, ...]
    n_rows: int
    faces: tuple[int, ...]  # per School row: its face

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        nc = len(self.combo_rows)
        ns = len(self.school_rows)
        c1 = self.columns + 1
        nt = len(TURN_EDGES) + 1
        nr = COVER + 1
        no = len(OTHER_EDGES) + 1
        npb = len(POINT_EDGES) + 1
        return {
            "combo": (nc, c1, nt),
            "combo_star": (nc, c1, npb, nt),
            "school": (ns, c1, 2, nr, no, nt),
            "school_star": (ns, c1, nr, no, nt),
            "column_star": (self.columns, self.n_rows + 1, len(HARD_ROWS) + 1, 2, npb),
        }


@cache
def _layout_for(rows_key: tuple[tuple[str, bool, bool, bool, int], ...], columns: int) -> Layout:
    combo = tuple(i for i, key in enumerate(rows_key) if not key[1])
    school = tuple(i for i, key in enumerate(rows_key) if key[1])
    return Layout(
        columns=columns,
        combo_rows=combo,
        school_rows=school,
        star_rows=tuple(rows_key[i][2] for i in combo),
        hard=tuple(key[0] in HARD_ROWS for key in rows_key),
        five=next(i for i, key in enumerate(rows_key) if key[0] == FIVE_ROW),
        column_best=tuple(key[3] for key in rows_key),
        n_rows=len(rows_key),
        faces=tuple(rows_key[i][4] for i in school),
    )


def layout(rules: Rules) -> Layout:
    key = tuple((row.id, row.school, row.star, row.column_best, row.combo.n) for row in rules.rows)
    return _layout_for(key, rules.columns)


T_LUT = _lut(TURN_EDGES, 6 * 15)


@cache
def cover_lut(face: int) -> IntArray:
    """Reserve (0 .. MAX_RESERVE) -> the missing dice of `face` it covers, at most COVER."""
    lut = np.minimum(np.arange(MAX_RESERVE + 1) // face, COVER).astype(np.int64)
    lut.setflags(write=False)
    return lut


P_LUT = _lut(POINT_EDGES, MAX_POINTS)
O_LUT = _lut(OTHER_EDGES, 6 * 6)


# --- what the value reads from a sheet ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Features:
    """The parts of one sheet that the value reads (star flags already account for claims)."""

    turns: int  # empty cells = turns left
    reserve: int
    combo_empty: tuple[int, ...]
    combo_alive: tuple[bool, ...]
    combo_best: tuple[int, ...]
    school_empty: tuple[int, ...]
    school_alive: tuple[bool, ...]
    column_alive: tuple[bool, ...]
    column_empty: tuple[int, ...]
    column_hard: tuple[int, ...]
    column_five: tuple[bool, ...]
    column_best: tuple[int, ...]


def features(
    rules: Rules, sheet: Sheet, claimed: set[tuple[str, str | int]] | dict[Any, Any]
) -> Features:
    lay = layout(rules)
    columns = rules.columns
    cells = sheet.cells
    combo_empty, combo_alive, combo_best = [], [], []
    for r in lay.combo_rows:
        row = rules.rows[r]
        mine = cells[r * columns : r * columns + sheet.row_fill[r]]
        combo_empty.append(columns - sheet.row_fill[r])
        combo_alive.append(
            row.star
            and ("combination_row", row.id) not in claimed
            and all(c is not None and c.mark is Mark.SCORE for c in mine)
        )
        combo_best.append(max((c.points for c in mine if c is not None), default=0))
    school_empty, school_alive = [], []
    for r in lay.school_rows:
        row = rules.rows[r]
        mine = cells[r * columns : r * columns + sheet.row_fill[r]]
        school_empty.append(columns - sheet.row_fill[r])
        school_alive.append(
            ("school_row", row.id) not in claimed
            and all(c is not None and c.mark is Mark.CLOSED and not c.used_reserve for c in mine)
        )
    col_alive = [("column", c) not in claimed for c in range(columns)]
    col_empty = [0] * columns
    col_hard = [0] * columns
    col_five = [False] * columns
    col_best = [0] * columns
    for r in range(lay.n_rows):
        fill = sheet.row_fill[r]
        for c in range(columns):
            if c >= fill:
                col_empty[c] += 1
                if lay.hard[r]:
                    col_hard[c] += 1
                if r == lay.five:
                    col_five[c] = True
                continue
            cell = cells[r * columns + c]
            assert cell is not None
            if cell.mark is Mark.STRIKE or cell.mark is Mark.ZERO:
                col_alive[c] = False
            elif lay.column_best[r] and cell.points > col_best[c]:
                col_best[c] = cell.points
    return Features(
        turns=rules.cells - sheet.filled,
        reserve=sheet.reserve,
        combo_empty=tuple(combo_empty),
        combo_alive=tuple(combo_alive),
        combo_best=tuple(combo_best),
        school_empty=tuple(school_empty),
        school_alive=tuple(school_alive),
        column_alive=tuple(col_alive),
        column_empty=tuple(col_empty),
        column_hard=tuple(col_hard),
        column_five=tuple(col_five),
        column_best=tuple(col_best),
    )


# --- the model ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, eq=False)
class SchoolModel:
    """The fitted tables of one sheet width (see the module doc for what each one holds)."""

    columns: int
    combo: FloatArray
    combo_star: FloatArray
    school: FloatArray
    school_star: FloatArray
    column_star: FloatArray
    race: tuple[float, ...] = RACE
    info: dict[str, Any] | None = None

    @classmethod
    def zeros(cls, rules: Rules) -> SchoolModel:
        return cls.from_tables(
            rules.columns, {k: np.zeros(v) for k, v in layout(rules).shapes.items()}
        )

    @classmethod
    def from_tables(
        cls, columns: int, tables: dict[str, FloatArray], info: dict[str, Any] | None = None
    ) -> SchoolModel:
        return cls(
            columns,
            combo=tables["combo"],
            combo_star=tables["combo_star"],
            school=tables["school"],
            school_star=tables["school_star"],
            column_star=tables["column_star"],
            info=info,
        )

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"columns": self.columns, "race": list(self.race)}
        for name in ("combo", "combo_star", "school", "school_star", "column_star"):
            array: FloatArray = getattr(self, name)
            out[name] = {"shape": list(array.shape), "tenths": _pack(array)}
        if self.info:
            out["info"] = self.info
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SchoolModel:
        arrays = {
            name: _unpack(data[name])
            for name in ("combo", "combo_star", "school", "school_star", "column_star")
        }
        model = cls.from_tables(int(data["columns"]), arrays, data.get("info"))
        return replace(model, race=tuple(float(v) for v in data.get("race", RACE)))

    def fits(self, rules: Rules) -> bool:
        shapes = layout(rules).shapes
        return rules.columns == self.columns and all(
            getattr(self, name).shape == shape for name, shape in shapes.items()
        )


def _pack(array: FloatArray) -> str:
    """A table as tenths of a point: little-endian int16, zlib-compressed, base64 text."""
    tenths = np.clip(np.rint(array * 10), -32768, 32767).astype("<i2")
    return base64.b64encode(zlib.compress(tenths.tobytes(), 9)).decode("ascii")


def _unpack(data: dict[str, Any]) -> FloatArray:
    shape = tuple(int(n) for n in data["shape"])
    if "values" in data:  # plain numbers
        return np.array(data["values"], dtype=np.float64).reshape(shape)
    raw = zlib.decompress(base64.b64decode(data["tenths"]))
    return np.frombuffer(raw, dtype="<i2").astype(np.float64).reshape(shape) / 10


def load_models(path: Path = DATA) -> dict[int, SchoolModel]:
    """The fitted models in the data file, by number of columns (empty when there is none)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {int(key): SchoolModel.from_json(model) for key, model in data["models"].items()}


_MODELS: dict[int, SchoolModel] | None = None


def model_for(rules: Rules) -> SchoolModel | None:
    """The committed model for this sheet width, or None when none was fitted."""
    global _MODELS
    if _MODELS is None:
        _MODELS = load_models()
    model = _MODELS.get(rules.columns)
    return model if model is not None and model.fits(rules) else None


# --- the after-value ---------------------------------------------------------------------------


def _race(model: SchoolModel, mine: int, theirs: list[int]) -> float:
    """The factor of a star we need `mine` more cells for, against opponents needing `theirs`."""
    factor = 1.0
    for need in theirs:
        diff = max(-2, min(2, need - mine))
        factor *= model.race[diff + 2]
    return factor


def _bucket(lut: IntArray, value: Any, top: int) -> Any:
    if isinstance(value, np.ndarray):
        return lut[np.clip(value, 0, top).astype(np.int64)]
    return int(lut[min(max(int(value), 0), top)])


class _Parts:
    """Table lookups of each part of the sheet, with the turns left fixed.

    A part that is over (a full row, a star out of reach) reads its table's first cell
    (`e = 0`), which training fits too, so that every part is present in every position and
    only differences between parts decide. A star in a race counts `rho` of the way from that
    cell to its own cell.
    """

    def __init__(self, model: SchoolModel, tb: int) -> None:
        self.model = model
        self.tb = tb

    def combo(self, j: int, e: int, alive: bool, best: Any, rho: float) -> Any:
        model, tb = self.model, self.tb
        dead = float(model.combo_star[j, 0, 0, tb])
        value: Any = float(model.combo[j, e, tb]) + dead
        if e > 0 and alive:
            pb = _bucket(P_LUT, best, MAX_POINTS)
            value = value + rho * (model.combo_star[j, e, pb, tb] - dead)
        return value

    def school(self, n: int, e: int, alive: Any, rb: Any, others: int, rho: float) -> Any:
        model, tb = self.model, self.tb
        dead = float(model.school_star[n, 0, 0, 0, tb])
        if e <= 0:
            return float(model.school[n, 0, 0, 0, 0, tb]) + dead + 0.0 * np.asarray(rb)
        ob = int(O_LUT[others])
        alive_index = np.asarray(alive).astype(np.int64)
        value = model.school[n, e, alive_index, rb, ob, tb] + dead
        star = model.school_star[n, e, rb, ob, tb]
        return value + np.where(alive, rho * (star - dead), 0.0)

    def column(
        self, c: int, e: int, hard: int, five: bool, best: Any, alive: bool, rho: float
    ) -> Any:
        model = self.model
        dead = float(model.column_star[c, 0, 0, 0, 0])
        if e <= 0 or not alive:
            return dead
        pb = _bucket(P_LUT, best, MAX_POINTS)
        return dead + rho * (model.column_star[c, e, hard, int(five), pb] - dead)


class SchoolValue:
    """The `AfterValue` of the School expert: the fitted tables, aware of the opponents' sheets."""

    def __init__(self, model: SchoolModel) -> None:
        self.model = model

    def after_values(self, table: MoveTable) -> FloatArray:
        state = table.state
        rules = state.rules
        lay = layout(rules)
        claimed = _claimed(state)
        f = features(rules, state.sheet, claimed)
        n_hands = rule_tables(rules).space.n_hands
        out = np.zeros((len(table.moves), n_hands, 2))
        turns = f.turns - 1
        if turns <= 0:
            return out
        parts = _Parts(self.model, int(T_LUT[turns]))
        rho_combo, rho_school, rho_column = self._races(state, f, claimed)
        all_cover = np.arange(COVER + 1)
        reserve_at = np.arange(MAX_RESERVE + 1)

        # Every part as it stands, with the turns left after the move.
        combo_val = [
            parts.combo(j, f.combo_empty[j], f.combo_alive[j], f.combo_best[j], rho_combo[j])
            for j in range(len(lay.combo_rows))
        ]
        # Per School row, its value for every reserve 0 .. MAX_RESERVE, as it stands and once
        # another School cell is filled.
        open_school = sum(f.school_empty)
        school_vec: list[FloatArray] = []
        school_vec_less: list[FloatArray] = []
        for n in range(len(lay.school_rows)):
            e, alive, lut = f.school_empty[n], f.school_alive[n], cover_lut(lay.faces[n])
            others = open_school - e
            for vectors, count in ((school_vec, others), (school_vec_less, max(others - 1, 0))):
                vec = parts.school(n, e, alive, all_cover, count, rho_school[n])
                vectors.append(vec[lut[reserve_at]])
        column_val = [
            parts.column(
                c,
                f.column_empty[c],
                f.column_hard[c],
                f.column_five[c],
                f.column_best[c],
                f.column_alive[c],
                rho_column[c],
            )
            for c in range(rules.columns)
        ]
        rb_now = min(f.reserve, MAX_RESERVE)
        school_total = np.sum(school_vec, axis=0)
        school_total_less = np.sum(school_vec_less, axis=0)
        base = float(sum(combo_val)) + float(sum(column_val)) + float(school_total[rb_now])

        combo_of = {r: j for j, r in enumerate(lay.combo_rows)}
        school_of = {r: n for n, r in enumerate(lay.school_rows)}
        for m, move in enumerate(table.moves):
            r = int(table.rows[m])
            c = int(table.columns[m])
            scored = move.verb == "score"
            best: Any = f.column_best[c]
            if scored and lay.column_best[r]:
                best = np.maximum(table.points[m], float(best))
            column_after = parts.column(
                c,
                f.column_empty[c] - 1,
                f.column_hard[c] - (1 if lay.hard[r] else 0),
                f.column_five[c] and r != lay.five,
                best,
                f.column_alive[c] and scored,
                rho_column[c],
            )
            if r in combo_of:
                j = combo_of[r]
                row_best = np.maximum(table.points[m], float(f.combo_best[j]))
                row_after = parts.combo(
                    j, f.combo_empty[j] - 1, f.combo_alive[j] and scored, row_best, rho_combo[j]
                )
                out[m] = base - combo_val[j] - column_val[c] + column_after + row_after
            else:
                n = school_of[r]
                reserve = table.reserve[m]
                rb = np.clip(reserve, 0, MAX_RESERVE).astype(np.int64)
                cover = cover_lut(lay.faces[n])[rb]
                # The row's star stays in reach only when closed with three dice or more.
                keeps = (reserve >= f.reserve) & (f.school_alive[n] and scored)
                e = f.school_empty[n]
                row_after = parts.school(n, e - 1, keeps, cover, open_school - e, rho_school[n])
                vec = (school_total_less - school_vec_less[n])[rb] + row_after
                value = base - float(school_total[rb_now]) - column_val[c] + column_after
                out[m] = (value + vec)[:, None]
        return out

    def _races(
        self, state: GameState, f: Features, claimed: dict[tuple[str, str | int], int]
    ) -> tuple[list[float], list[float], list[float]]:
        rules = state.rules
        lay = layout(rules)
        n_combo, n_school = len(lay.combo_rows), len(lay.school_rows)
        if len(state.players) == 1:
            return [1.0] * n_combo, [1.0] * n_school, [1.0] * rules.columns
        rivals = [
            features(rules, sheet, claimed)
            for seat, sheet in enumerate(state.sheets)
            if seat != state.seat and seat in state.contenders and seat not in state.forfeited
        ]
        model = self.model
        combo = [
            _race(
                model,
                f.combo_empty[j] - 1,
                [o.combo_empty[j] for o in rivals if o.combo_alive[j] and o.combo_empty[j]],
            )
            for j in range(n_combo)
        ]
        school = [
            _race(
                model,
                f.school_empty[n] - 1,
                [o.school_empty[n] for o in rivals if o.school_alive[n] and o.school_empty[n]],
            )
            for n in range(n_school)
        ]
        column = [
            _race(
                model,
                f.column_empty[c] - 1,
                [o.column_empty[c] for o in rivals if o.column_alive[c] and o.column_empty[c]],
            )
            for c in range(rules.columns)
        ]
        return combo, school, column


def _claimed(state: GameState) -> dict[tuple[str, str | int], int]:
    return {
        (bonus.kind, bonus.key): seat
        for seat, sheet in enumerate(state.sheets)
        for bonus in sheet.stars
    }


__all__ = [
    "DATA",
    "Features",
    "Layout",
    "SchoolModel",
    "SchoolValue",
    "cover_lut",
    "features",
    "layout",
    "load_models",
    "model_for",
]
