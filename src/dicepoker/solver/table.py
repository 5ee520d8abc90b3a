"""Building the value table, and keeping it on disk.

The table holds, for every state between turns, the expected points still to come with optimal
play: `table[filled, flag, upper]` (see `SolverSpec`). Unreachable entries (an upper total larger
than the filled upper rows can make, the flag of an empty Yahtzee box) hold NaN.

On disk a table is one file: the magic `DPTABLE\\n`, the header length (8 bytes, little endian),
a JSON header (format version, the SHA-256 of the game's canonical description, the description,
shape, dtype, data offset, start value) and the float64 values, read back with `numpy.memmap`.
A header whose format or hash differs from the rules asked for is a stale table: it is rebuilt.
Other arrays of the same shape (the second moments of `moments.py`) are kept the same way, with a
`kind` in their header and as their file suffix, so that one kind is never read as another.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np
import platformdirs

from dicepoker.solver import kernels
from dicepoker.solver.dice import FloatArray, IntArray
from dicepoker.solver.spec import FORMAT_VERSION, SolverSpec, upper_columns

MAGIC = b"DPTABLE\n"
ALIGN = 64
CACHE_ENV = "DICEPOKER_CACHE_DIR"
#: The kind of the value table: its file suffix; its header has no `kind` field (the format it
#: always had), every other kind names itself there.
TABLE_KIND = "table"


def cache_dir() -> Path:
    """Where tables are kept: $DICEPOKER_CACHE_DIR, else the user cache directory's `tables`."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("dicepoker")) / "tables"


def table_name(spec: SolverSpec, kind: str = TABLE_KIND) -> str:
    """File name of a game's table: the variant and its options (the hash is in the header), with
    `kind` as the suffix."""
    rules = spec.rules
    parts = [rules.variant]
    for name, value in sorted(rules.options):
        parts.append(f"{name}={int(value)}")
    safe = "-".join(parts)
    safe = "".join(ch if ch.isalnum() or ch in "-_=." else "_" for ch in safe)
    return f"{safe}.{kind}"


def table_path(spec: SolverSpec, directory: Path | None = None, kind: str = TABLE_KIND) -> Path:
    return (directory if directory is not None else cache_dir()) / table_name(spec, kind)


def _layers(spec: SolverSpec) -> tuple[IntArray, IntArray]:
    """Masks ordered by decreasing number of filled rows (the full mask excluded)."""
    n = spec.n_rows
    masks = np.arange((1 << n) - 1, dtype=np.int64)
    filled = np.zeros(len(masks), dtype=np.int64)
    for c in range(n):
        filled += (masks >> c) & 1
    order = np.lexsort((masks, -filled)).astype(np.int64)
    sizes = np.bincount(n - 1 - filled, minlength=n)
    layer_start = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return masks[order], layer_start


def build_table(spec: SolverSpec) -> FloatArray:
    """Solve the game: the value of every state between turns (float64, deterministic)."""
    shape = spec.table_shape
    table = np.full(shape, np.nan, dtype=np.float64)
    table[spec.full_mask] = 0.0
    order, layer_start = _layers(spec)
    n_uppers, live_lo, n_cols = upper_columns(spec)
    masks = np.arange(shape[0], dtype=np.int64)
    n_flags = np.ones(shape[0], dtype=np.int64)
    if spec.joker:
        n_flags[((masks >> spec.box) & 1) == 1] = 2
    space = spec.space
    workers = max(1, numba.get_num_threads()) * 4
    with kernels.PARALLEL_LOCK:
        kernels.build_table(
            table,
            order,
            layer_start,
            n_flags,
            n_uppers,
            live_lo,
            n_cols,
            workers,
            spec.max_score,
            spec.rerolls,
            *spec.kernel_rules(),
            space.add,
            space.sub,
            space.probs,
            space.faces,
        )
    return table


@dataclass(frozen=True, slots=True)
class TableHeader:
    digest: str
    shape: tuple[int, ...]
    offset: int
    fields: dict[str, Any]


def _header_fields(
    spec: SolverSpec,
    table: FloatArray,
    seconds: float,
    kind: str = TABLE_KIND,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    fields = {
        "format": FORMAT_VERSION,
        "digest": spec.digest,
        "variant": spec.rules.variant,
        "options": dict(spec.rules.options),
        "shape": list(table.shape),
        "dtype": "<f8",
        "start_value": float(table[0, 0, 0]),
        "build_seconds": round(seconds, 6),
        "description": spec.description,
    }
    if kind != TABLE_KIND:
        fields["kind"] = kind
    if extra:
        fields.update(extra)
    return fields


def save_table(
    spec: SolverSpec,
    table: FloatArray,
    path: Path,
    seconds: float = 0.0,
    *,
    kind: str = TABLE_KIND,
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Write `table` to `path` atomically (a temporary file, then a rename).

    `kind` (when not the value table) and the `extra` fields go into the header, where
    `load_table` checks them."""
    fields = _header_fields(spec, table, seconds, kind, extra)
    fields["offset"] = 0
    text = json.dumps(fields, sort_keys=True).encode("utf-8")
    # The offset is in the header itself: fix it once the header's length is known.
    offset = len(MAGIC) + 8 + len(text) + 32
    offset += -offset % ALIGN
    fields["offset"] = offset
    text = json.dumps(fields, sort_keys=True).encode("utf-8")
    head = MAGIC + len(text).to_bytes(8, "little") + text
    if len(head) > offset:
        raise AssertionError("table header longer than its reserved space")
    head += b" " * (offset - len(head))
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(head)
            out.write(np.ascontiguousarray(table, dtype="<f8").tobytes())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def read_header(path: Path) -> TableHeader | None:
    """The header of a table file, or None when the file is missing or not a table."""
    try:
        with path.open("rb") as handle:
            if handle.read(len(MAGIC)) != MAGIC:
                return None
            length = int.from_bytes(handle.read(8), "little")
            if not 0 < length < 1 << 24:
                return None
            fields = json.loads(handle.read(length).decode("utf-8"))
        if not isinstance(fields, dict):
            return None
        return TableHeader(
            digest=str(fields["digest"]),
            shape=tuple(int(n) for n in fields["shape"]),
            offset=int(fields["offset"]),
            fields=fields,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load_table(
    spec: SolverSpec,
    path: Path,
    *,
    kind: str = TABLE_KIND,
    expect: Mapping[str, Any] | None = None,
) -> FloatArray | None:
    """The table at `path`, memory-mapped, if it was built for exactly these rules; else None.

    The header's `kind` (absent: the value table) and the `expect` fields must match too."""
    header = read_header(path)
    if header is None:
        return None
    fields = header.fields
    if (
        fields.get("kind", TABLE_KIND) != kind
        or any(fields.get(name) != value for name, value in (expect or {}).items())
        or fields.get("format") != FORMAT_VERSION
        or header.digest != spec.digest
        or header.shape != spec.table_shape
        or fields.get("dtype") != "<f8"
    ):
        return None
    size = int(np.prod(header.shape)) * 8
    try:
        if path.stat().st_size != header.offset + size:
            return None
        # Copy-on-write: writable in memory (one compiled kernel for built and loaded tables),
        # never written back to the file.
        mapped = np.memmap(path, dtype="<f8", mode="c", offset=header.offset, shape=header.shape)
    except (OSError, ValueError):
        return None
    return np.asarray(mapped)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table and where it came from: `built` (with `seconds` to solve) or loaded from `path`."""

    table: FloatArray
    built: bool
    seconds: float
    path: Path | None


def obtain_table(
    spec: SolverSpec, *, cache: bool = True, directory: Path | None = None, rebuild: bool = False
) -> Loaded:
    """Load the game's table from the cache, or build it (and store it when `cache`)."""
    path = table_path(spec, directory) if cache else None
    if path is not None and not rebuild:
        start = time.perf_counter()
        table = load_table(spec, path)
        if table is not None:
            return Loaded(table, False, time.perf_counter() - start, path)
    start = time.perf_counter()
    table = build_table(spec)
    seconds = time.perf_counter() - start
    if path is not None:
        try:
            save_table(spec, table, path, seconds)
        except OSError:
            path = None  # a read-only cache: keep the table in memory only
    return Loaded(table, True, seconds, path)
