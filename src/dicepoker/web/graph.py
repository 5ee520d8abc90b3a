"""The rating graph of a player page, laid out on the server: axes with round ratings and
dates, and the rating line over time, as coordinates for the SVG the template draws (no chart
library, no script). The drawing is in the units of a fixed view box that the page scales to
its width; its labels are large enough to read when a phone shrinks it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

WIDTH: Final = 400
HEIGHT: Final = 210
LEFT: Final = 52  # room for the ratings
RIGHT: Final = 386
TOP: Final = 14
BOTTOM: Final = 176  # the dates go below
#: The number of rating marks aimed at on the vertical axis.
Y_MARKS: Final = 4


@dataclass(frozen=True)
class Tick:
    """A mark on an axis: where it is and what it says (`anchor`: SVG's text-anchor)."""

    at: float
    label: str
    anchor: str = "middle"


@dataclass(frozen=True)
class Graph:
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    line: str  # the polyline's points, "x,y x,y ..."
    last: tuple[float, float]  # the newest point, drawn as a dot
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    low: int
    high: int


def _step(span: float, marks: int) -> int:
    """A round step (1, 2 or 5 times a power of ten) giving about `marks` marks over `span`."""
    raw = max(span / max(marks - 1, 1), 1.0)
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return int(factor * power)
    return int(10 * power)


def _y_range(ratings: Sequence[int]) -> tuple[int, int, int]:
    """The axis's bottom and top (multiples of the step) and the step."""
    low, high = min(ratings), max(ratings)
    if high - low < 10:
        low, high = low - 5, high + 5
    step = _step(high - low, Y_MARKS)
    bottom = math.floor(low / step) * step
    top = math.ceil(high / step) * step
    return bottom, max(top, bottom + step), step


def rating_graph(
    points: Sequence[tuple[datetime, int]],
    date_label: Callable[[datetime], str],
    number_label: Callable[[int], str] = str,
) -> Graph | None:
    """The graph of (time, rating) points, oldest first; None without a point. Points are
    placed by time (by order when they all share one moment); the dates of the first and the
    last point mark the time axis."""
    if not points:
        return None
    ratings = [rating for _at, rating in points]
    bottom, top, step = _y_range(ratings)
    times = [at.timestamp() for at, _rating in points]
    first, last = times[0], times[-1]

    def x_of(index: int) -> float:
        if len(points) == 1:
            return (LEFT + RIGHT) / 2
        if last > first:
            return LEFT + (RIGHT - LEFT) * (times[index] - first) / (last - first)
        return LEFT + (RIGHT - LEFT) * index / (len(points) - 1)

    def y_of(rating: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * (rating - bottom) / (top - bottom)

    coordinates = [(round(x_of(n), 1), round(y_of(r), 1)) for n, r in enumerate(ratings)]
    y_ticks = [
        Tick(round(y_of(value), 1), number_label(value), "end")
        for value in range(bottom, top + 1, step)
    ]
    start, end = date_label(points[0][0]), date_label(points[-1][0])
    if len(points) == 1 or start == end:
        x_ticks = [Tick(coordinates[0][0] if len(points) == 1 else (LEFT + RIGHT) / 2, start)]
    else:
        x_ticks = [Tick(LEFT, start, "start"), Tick(RIGHT, end, "end")]
    return Graph(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        right=RIGHT,
        top=TOP,
        bottom=BOTTOM,
        line=" ".join(f"{x},{y}" for x, y in coordinates),
        last=coordinates[-1],
        y_ticks=y_ticks,
        x_ticks=x_ticks,
        low=min(ratings),
        high=max(ratings),
    )
