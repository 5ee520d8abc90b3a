"""Who is winning, judged after every event of a game with rivals and told with it.

The master asks its `Forecast` (dicepoker.winprob, run off the event loop: in the bot workers or a
thread) for each seat's chance of finishing first once an event is committed and before anyone is
told of it, so every message about that position carries the same figures (`live.chances`). A
forecast never holds a move up for long nor fails it: one that errs or takes longer than
FORECAST_SECONDS is left out, and the game goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from dicepoker.engine import GameState
from dicepoker.master.live import LiveGame

log = logging.getLogger("dicepoker.master")

#: Each seat's chance of finishing first in a position, the seats' levels given (a bot's; None
#: for a person); None when it cannot be judged now.
Forecast = Callable[[GameState, tuple[str | None, ...]], Awaitable[tuple[float, ...] | None]]

#: How long a move waits for its forecast before it is told without one.
FORECAST_SECONDS = 2.0

#: Forecasts a process has being judged at once (`shedding`).
AT_ONCE = 2


async def judge(forecast: Forecast | None, live: LiveGame) -> None:
    """Set `live.chances` for the game's seq, unless it is known already or cannot be judged."""
    if forecast is None or len(live.state.players) < 2:
        return
    seq = live.seq
    if live.chances is not None and live.chances[0] == seq:
        return
    try:
        chances = await asyncio.wait_for(forecast(live.state, live.levels()), FORECAST_SECONDS)
    except Exception:
        log.warning("no win probability for game %s at seq %d", live.id, seq, exc_info=True)
        return
    if chances is not None and live.seq == seq:
        live.chances = (seq, tuple(chances))


def adopt_chances(live: LiveGame, seq: int, event: dict[str, Any]) -> bool:
    """Before applying event `seq` another process committed (`event`, its bus message): keep
    the chances that process judged and told with it (none when it had none), instead of judging
    the position again. False when the message does not say (an older version's): judge it."""
    if "chances" not in event:
        return False
    chances = event["chances"]
    if (
        isinstance(chances, list)
        and len(chances) == len(live.state.players)
        and all(isinstance(c, int | float) for c in chances)
    ):
        live.chances = (seq, tuple(float(c) for c in chances))
    return True


def shedding(forecast: Forecast, at_once: int = AT_ONCE) -> Forecast:
    """`forecast`, leaving a position out (None: not judged now) while `at_once` of its
    forecasts are being judged already. The worker that judges them also thinks for the bots:
    under load a queue of forecasts would hold up every move behind it (a move waits for its
    forecast), where leaving some positions out costs only their chances (the next is judged)."""
    busy = 0

    async def shed(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...] | None:
        nonlocal busy
        if busy >= at_once:
            return None
        busy += 1
        try:
            return await forecast(state, levels)
        finally:
            busy -= 1

    return shed
