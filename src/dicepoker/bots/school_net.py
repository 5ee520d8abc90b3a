"""The School value's fitted models: the network of each sheet width, the duel fit and the
measured spreads, and the committed data file that holds them (`data/school_value.json`, written by
tools/fit/train_school.py)."""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dicepoker.bots.move_table import FloatArray
from dicepoker.bots.school_features import Layout, layout
from dicepoker.rules import Rules

DATA = Path(__file__).with_name("data") / "school_value.json"

F32Array = NDArray[np.float32]

# Rows per matrix product when the network is evaluated: small products run on the calling thread
# (BLAS libraries spread only large ones over threads, which on a loaded machine costs far more
# than it saves for a turn's few hundred sheets: docs/bots.md, "Latency"). 64 rows stay on it here
# and cost less overhead than 16 (a turn's 103 sheets 68 against 110 microseconds); 128 did not.
CHUNK = 64

#: Weights smaller than this are read as 0. Training leaves a few thousand weights of each network
#: (those weight decay drove to nothing) at 1e-45 to 1e-30: subnormal numbers, or numbers whose
#: products are subnormal, which the CPU computes on a slow path. They made the network about ten
#: times slower (docs/bots.md, "Latency"), and none of them moves a value by 1e-15 points.
NEGLIGIBLE = 1e-20


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
            tuple(
                (flushed(_unpack(layer["w"])), flushed(_unpack(layer["b"])))
                for layer in data["layers"]
            ),
            flushed(_unpack(data["linear"])),
            float(data.get("scale", 100.0)),
            data.get("info"),
        )


def _pack(array: F32Array) -> dict[str, Any]:
    """An array as little-endian float32, zlib-compressed, base64 text."""
    raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
    return {"shape": list(array.shape), "f32": base64.b64encode(zlib.compress(raw, 9)).decode()}


def flushed(array: F32Array) -> F32Array:
    """`array` with its negligible weights (`NEGLIGIBLE`) made exactly 0."""
    return np.where(np.abs(array) < NEGLIGIBLE, np.float32(0), array).astype(np.float32)


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


__all__ = [
    "CHUNK",
    "DATA",
    "DuelFit",
    "SchoolNet",
    "duel_features",
    "duel_fit_for",
    "flushed",
    "load_duel_fits",
    "load_models",
    "load_spreads",
    "model_for",
    "spread_for",
]
