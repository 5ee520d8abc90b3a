"""The servers' own figures for `benchmarks/load.py --metrics`: each histogram of a server's
`/metrics` (dicepoker.server.runtime.metrics) read before and after the measured period, and what it
recorded in between as a count, a p50 and a p99 (the upper bounds of the buckets that hold
them): where a server's own time goes, beside the latency the driver measures."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

#: Where a histogram's total (its `_sum` sample, seconds) is kept among its bucket counts.
SUM = float("-inf")


def _key(name: str, labels: dict[str, str]) -> str:
    """A histogram's name with its labels but the bucket's, `name[label=value,...]`: one series
    (the collector's pauses by generation are three)."""
    rest = ",".join(f"{k}={v}" for k, v in sorted(labels.items()) if k != "le")
    return f"{name}[{rest}]" if rest else name


async def scrape(client: httpx.AsyncClient, url: str) -> dict[str, dict[float, float]]:
    """Each histogram series' cumulative bucket counts on one server's /metrics (`--metrics`),
    and its total under `SUM`."""
    response = await client.get(url + "/metrics")
    response.raise_for_status()
    buckets: dict[str, dict[float, float]] = {}
    for family in text_string_to_metric_families(response.text):
        if family.type != "histogram":
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket"):
                bound = float(sample.labels["le"])
                buckets.setdefault(_key(family.name, sample.labels), {})[bound] = sample.value
            elif sample.name.endswith("_sum"):
                buckets.setdefault(_key(family.name, sample.labels), {})[SUM] = sample.value
    return buckets


def _bound_at(bounds: list[float], counts: list[float], share: float) -> float | None:
    """The upper bound (ms) of the first bucket whose cumulative count holds `share` of all."""
    total = counts[-1] if counts else 0.0
    for bound, count in zip(bounds, counts, strict=True):
        if total and count >= share * total:
            return bound * 1000
    return None


def histograms(
    before: dict[str, dict[float, float]], after: dict[str, dict[float, float]]
) -> dict[str, dict[str, float | None]]:
    """Count, p50 and p99 (as the upper bound of the bucket that holds them, in ms) and the
    total (ms) of what each histogram recorded between two scrapes: where a server's own time
    goes (`gc_pause[generation=2]`: the full collections' pauses)."""
    figures: dict[str, dict[str, float | None]] = {}
    for name, counts in after.items():
        bounds = sorted(b for b in counts if b != SUM)
        earlier = before.get(name, {})
        delta = [counts[b] - earlier.get(b, 0.0) for b in bounds]
        total = delta[-1] if delta else 0.0
        short = name.removeprefix("dicepoker_").replace("_seconds", "")
        figures[short] = {
            "count": total,
            "p50_le": _bound_at(bounds, delta, 0.5),
            "p99_le": _bound_at(bounds, delta, 0.99),
            "sum_ms": round((counts.get(SUM, 0.0) - earlier.get(SUM, 0.0)) * 1000, 1),
        }
    return figures


async def harvests(client: httpx.AsyncClient, url: str) -> dict[str, float]:
    """A server's puzzles' harvests now: how many wait, and how many games were not harvested
    since it started (`dicepoker_puzzle_harvests_*`)."""
    response = await client.get(url + "/metrics")
    response.raise_for_status()
    prefix = "dicepoker_puzzle_harvests_"
    return {
        sample.name.removeprefix(prefix): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name.startswith(prefix)
    }
