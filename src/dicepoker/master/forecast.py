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

from dicepoker.engine import GameState
from dicepoker.master.live import LiveGame

log = logging.getLogger("dicepoker.master")

#: Each seat's chance of finishing first in a position, the seats' levels given (a bot's; None
#: for a person); None when it cannot be judged now.
Forecast = Callable[[GameState, tuple[str | None, ...]], Awaitable[tuple[float, ...] | None]]

#: How long a move waits for its forecast before it is told without one.
FORECAST_SECONDS = 2.0


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
