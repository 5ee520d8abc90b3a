"""Who is winning, judged after every event of a game with rivals and told with it.

The master asks its `Forecast` (dicepoker.winprob, run off the event loop: in the bot workers or a
thread) for each seat's chance of finishing first in the position a move leads to, and tells the
move once it is committed, so every message about that position carries the same figures
(`live.chances`). The forecast is asked as soon as the engine accepts the move (`foresee`), so it
is worked out while the move is being committed. A forecast never holds a move up for long nor
fails it: a move is told at most TELL_WITHIN after it was accepted (or once committed, if that
takes longer), and a forecast that comes later is told in a `chances` message of its own (a busy
worker); one that errs or takes longer than FORECAST_SECONDS is left out, and the game goes on
(a position given up for time that the game still rests at is asked once more).
A new game, or one read from the store, waits for its position's forecast no longer than a move
does. While the forecasts come late (`Timeliness`), moves do not wait for them at all.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any

from dicepoker.engine import GameState
from dicepoker.master.live import LiveGame

log = logging.getLogger("dicepoker.master")

#: Each seat's chance of finishing first in a position, the seats' levels given (a bot's; None
#: for a person); None when it cannot be judged now.
Forecast = Callable[[GameState, tuple[str | None, ...]], Awaitable[tuple[float, ...] | None]]

#: How long a forecast may take at all: one later than this is given up.
FORECAST_SECONDS = 2.0

#: How long after the engine accepted a move it may wait for its forecast when its chances may
#: follow in a message of their own (`judge(..., late=...)`): a busy server tells the move once
#: committed and the chances after it.
TELL_WITHIN = 0.03

#: The forecasts `Timeliness` looks back on, and the share of them that must have come within
#: TELL_WITHIN for the moves to wait for theirs.
TIMELY_WINDOW = 20
TIMELY_SHARE = 0.5

#: Forecasts a process has being judged at once (`shedding`).
AT_ONCE = 2

#: `Pace`: the forecasts' worker is starved while, of its last PACE_WINDOW forecasts, the median
#: share of the time each took that it had a CPU is under STARVED_BELOW; it then rests PACE_REST
#: times as long as each forecast took before the next starts.
PACE_WINDOW = 20
STARVED_BELOW = 0.4
PACE_REST = 3.0
#: Seconds after the last forecast for which `Pace.starved` still holds: a server whose games
#: ask for no forecast (solitaire games, or none at all) says nothing new of the machine, and an
#: old verdict would keep the background analyses waiting for good.
PACE_STALE = 30.0

#: Tells the table the chances judged after the event was told (`Broadcaster.chances`).
Late = Callable[[LiveGame], Awaitable[None]]

# Late forecasts still being waited for (a reference, so that none is collected midway).
_waiting: set[asyncio.Task[None]] = set()
# Games whose position now was left unjudged (its forecast shed, or the game moved on while it
# was judged), newest last: judged again as forecasts finish, so that the position a game rests
# at (a person thinking) gets its chances, while the worker never has more than AT_ONCE.
_unjudged: OrderedDict[str, tuple[Forecast, LiveGame, Late]] = OrderedDict()
# The positions (game, seq) being judged now, or judged and not yet read: never judged twice at
# once. The mark goes when the answer is read (`judge`, `_judged_late`), not when it comes: a
# forecast that comes while another is being read (two threads finishing together) would
# otherwise find the game's position unjudged and ask for it again.
_in_flight: set[tuple[str, int]] = set()
#: The most games kept waiting for a forecast (the oldest are forgotten: their next event is
#: judged anyway).
UNJUDGED_MAX = 1000
# Of each game whose forecast was given up for time (FORECAST_SECONDS: a moment the machine was
# overloaded), the seq given up, newest last (at most UNJUDGED_MAX): a position the game still
# rests at is asked once more, not again and again (one that always takes too long).
_given_up: OrderedDict[str, int] = OrderedDict()


def _judged_now(live: LiveGame) -> bool:
    """Whether the position the game is at has its chances, or is being judged."""
    known = live.chances is not None and live.chances[0] == live.seq
    return known or (live.id, live.seq) in _in_flight


def _ask(
    forecast: Forecast, live: LiveGame, state: GameState | None = None, seq: int | None = None
) -> asyncio.Future[tuple[float, ...] | None]:
    """Start judging the position the game is at, or `state`, the position `seq` will be
    (marked in flight until its answer is read, or it is given up)."""
    key = (live.id, live.seq if seq is None else seq)
    _in_flight.add(key)
    judging = asyncio.ensure_future(forecast(live.state if state is None else state, live.levels()))
    judging.add_done_callback(lambda done: _in_flight.discard(key) if done.cancelled() else None)
    return judging


class Timeliness:
    """Whether a move should wait for its forecast (up to TELL_WITHIN) before it is told: only
    while at least TIMELY_SHARE of the last TIMELY_WINDOW forecasts came within that time. A
    loaded server's forecasts mostly come later (or are shed); waiting for each would add
    TELL_WITHIN to nearly every move, for chances that follow in a message of their own anyway.
    Every forecast is timed, waited for or not, so the moves wait again once they come in time.
    A few late ones (a page's load) change nothing."""

    __slots__ = ("_late", "_lately")

    def __init__(self) -> None:
        # Whether each of the last forecasts came in time, oldest first; at the start as if
        # all had.
        self._lately = deque([True] * TIMELY_WINDOW, maxlen=TIMELY_WINDOW)
        self._late = 0  # how many of them did not

    def waiting(self) -> bool:
        """Whether a move waits for its forecast now."""
        return self._late <= (1 - TIMELY_SHARE) * len(self._lately)

    def time(self, judging: asyncio.Future[tuple[float, ...] | None], asked: float) -> None:
        """Note whether `judging`, asked at `asked` (`time.perf_counter`), comes in time."""

        def done(judged: asyncio.Future[tuple[float, ...] | None]) -> None:
            if judged.cancelled():
                return  # its move was not committed: no news of the worker
            timely = time.perf_counter() - asked <= TELL_WITHIN
            self._note(timely and judged.exception() is None and judged.result() is not None)

        judging.add_done_callback(done)

    def _note(self, timely: bool) -> None:
        self._late += (not timely) - (not self._lately[0])  # (the oldest goes out)
        self._lately.append(timely)


class Foresight:
    """A forecast asked for the position a move leads to before the move is committed
    (`foresee`): `judge` takes it once the game is there, instead of asking again."""

    __slots__ = ("game_id", "judging", "seq", "since")

    def __init__(
        self, judging: asyncio.Future[tuple[float, ...] | None], game_id: str, seq: int
    ) -> None:
        self.judging = judging
        self.game_id = game_id
        self.seq = seq
        self.since = time.perf_counter()
        # A move whose commit failed leaves its forecast unread: its error is not news.
        judging.add_done_callback(_read)

    def drop(self) -> None:
        """The move was not committed: its position will not be (the event another process
        committed at that seq is judged afresh)."""
        self.judging.cancel()
        _in_flight.discard((self.game_id, self.seq))


def _read(judging: asyncio.Future[tuple[float, ...] | None]) -> None:
    if not judging.cancelled():
        judging.exception()


def foresee(forecast: Forecast | None, live: LiveGame, after: GameState) -> Foresight | None:
    """Start judging `after`, the position the game's next event (being committed) leads to, so
    that the forecast and the commit take their time together; None when there is nothing to
    judge (no forecast, a game without rivals, one that ends, a position judged already)."""
    seq = live.seq + 1
    if forecast is None or len(after.players) < 2 or after.finished or (live.id, seq) in _in_flight:
        return None
    return Foresight(_ask(forecast, live, after, seq), live.id, seq)


async def judge(
    forecast: Forecast | None,
    live: LiveGame,
    late: Late | None = None,
    foresight: Foresight | None = None,
    timely: Timeliness | None = None,
) -> None:
    """Set `live.chances` for the game's seq, unless it is known already or cannot be judged.

    Without `late`, wait for the forecast up to FORECAST_SECONDS. With it, wait until
    TELL_WITHIN after the forecast was asked (`foresight`: when the engine accepted the move): a
    forecast that comes later sets the chances then (if the game is still at that seq) and
    `late` tells them, so a move is never held up for long by a busy worker; a position left
    unjudged is judged again when a forecast finishes (`_unjudged`). `timely` (with `late`):
    not even that wait while the forecasts come late (`Timeliness`)."""
    seq = live.seq
    ours = foresight if foresight is not None and foresight.seq == seq else None
    if forecast is None or len(live.state.players) < 2 or (ours is None and _judged_now(live)):
        return
    if ours is not None:
        judging, asked = ours.judging, ours.since
    else:
        judging = _ask(forecast, live)
        asked = time.perf_counter()
    if late is not None and timely is not None:
        timely.time(judging, asked)
    try:
        if late is None:
            wait = FORECAST_SECONDS
        elif timely is not None and not timely.waiting():
            wait = 0.0  # told at once; its chances follow when they come
        else:
            wait = max(0.0, min(TELL_WITHIN, FORECAST_SECONDS) - (time.perf_counter() - asked))
        chances = await _within(judging, wait)
        _in_flight.discard((live.id, seq))
    except asyncio.CancelledError:  # the move's task was (a stop): nobody reads the answer
        judging.cancel()
        _in_flight.discard((live.id, seq))
        raise
    except TimeoutError:
        if late is None:
            judging.cancel()
            _in_flight.discard((live.id, seq))  # (it may have come just now: not cancelled)
            log.warning("no win probability for game %s at seq %d: too late", live.id, seq)
        else:
            _background(_judged_late(forecast, judging, live, seq, late))
        return
    except Exception:
        log.warning("no win probability for game %s at seq %d", live.id, seq, exc_info=True)
        _in_flight.discard((live.id, seq))
        return
    if chances is None:
        if late is not None and live.seq == seq:
            _leave_unjudged(forecast, live, late)  # shed: judged when a forecast finishes
        return
    if live.seq == seq:
        live.chances = (seq, tuple(chances))
    _judge_next()


async def _within(
    judging: asyncio.Future[tuple[float, ...] | None], wait: float
) -> tuple[float, ...] | None:
    """`judging`'s answer if it comes within `wait` seconds, else TimeoutError (`judging` goes
    on). An answer already here, or no time to wait, is said at once: `asyncio.wait_for` would
    give the loop a turn first, and a move's event waits for that turn (behind every other game's
    work on a busy server) before it is told."""
    if judging.done():
        return judging.result()
    if wait <= 0:
        raise TimeoutError
    return await asyncio.wait_for(asyncio.shield(judging), wait)


def _background(work: Awaitable[None]) -> None:
    task = asyncio.ensure_future(work)
    _waiting.add(task)
    task.add_done_callback(_waiting.discard)


def _leave_unjudged(forecast: Forecast, live: LiveGame, late: Late) -> None:
    _unjudged[live.id] = (forecast, live, late)
    _unjudged.move_to_end(live.id)
    while len(_unjudged) > UNJUDGED_MAX:
        _unjudged.popitem(last=False)


def forget(game_id: str) -> None:
    """The master let the game go (over, nobody watches it): no longer left to judge, so that
    `_unjudged` does not keep it in memory (up to UNJUDGED_MAX such games)."""
    _unjudged.pop(game_id, None)
    _given_up.pop(game_id, None)


def _judge_next() -> None:
    """A forecast finished (a place in the worker is free): judge the newest game left
    unjudged whose position still is."""
    while _unjudged:
        _, (forecast, live, late) = _unjudged.popitem()
        if _judged_now(live) or live.state.finished:
            continue
        judging = _ask(forecast, live)
        _background(_judged_late(forecast, judging, live, live.seq, late))
        return


async def _judged_late(
    forecast: Forecast,
    judging: asyncio.Future[tuple[float, ...] | None],
    live: LiveGame,
    seq: int,
    late: Late,
) -> None:
    """The rest of a forecast that missed its event: its chances, told if still news."""
    try:
        chances = await asyncio.wait_for(judging, max(0.0, FORECAST_SECONDS - TELL_WITHIN))
    except Exception as failed:
        log.warning("no win probability for game %s at seq %d", live.id, seq, exc_info=True)
        _in_flight.discard((live.id, seq))
        # Given up on (its place is free): the next waits no longer, and a position the game
        # still rests at is asked once more (first). Failed (the workers closed by a stop, one
        # died): the next would fail too, and so on through every game left unjudged, each
        # with a warning; they wait for a forecast that succeeds.
        if isinstance(failed, TimeoutError):
            if live.seq == seq and _given_up.get(live.id) != seq and not live.state.finished:
                _given_up[live.id] = seq
                _given_up.move_to_end(live.id)
                while len(_given_up) > UNJUDGED_MAX:
                    _given_up.popitem(last=False)
                _leave_unjudged(forecast, live, late)
            _judge_next()
        return
    _in_flight.discard((live.id, seq))
    if chances is None:  # shed: the worker is busy; judged when one of its forecasts finishes
        if live.seq == seq:
            _leave_unjudged(forecast, live, late)
        return
    if live.seq != seq or _judged_now(live):
        if not _judged_now(live):
            _leave_unjudged(forecast, live, late)  # it moved on: its position now, next
        _judge_next()
        return
    live.chances = (seq, tuple(chances))
    try:
        await late(live)
    except Exception:
        log.warning("could not tell the chances of game %s at seq %d", live.id, seq, exc_info=True)
    _judge_next()


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


class Pace:
    """Whether the machine leaves the forecasts' worker the CPU it asks for, and the rest the
    worker takes when it does not. The worker runs nicer than the server and takes whatever CPU
    is left, so on a saturated machine it still took a tenth of a core or more per process, and
    its slices delayed the servers' wake-ups (docs/deploy.md, "What the forecasts cost the
    moves"); most of its forecasts then came after their moves anyway. The worker says how long
    each forecast took and how much of that it ran (`note`). While the median share of its last
    forecasts is low, it rests PACE_REST times each forecast's time before the next one starts
    (about a quarter of the work), and the position left out meanwhile that a game rests at is
    judged after the rest (`_unjudged`). On a machine with CPU to spare (1,000 games on two
    cores) the median share was 0.70; saturated (3,000 games), 0.25."""

    __slots__ = ("_noted_at", "_rests_until", "_shares", "_wake")

    def __init__(self) -> None:
        # Of each of the last forecasts, the share of its time that the worker ran; at the
        # start as if all had run the whole time.
        self._shares = deque([1.0] * PACE_WINDOW, maxlen=PACE_WINDOW)
        self._rests_until = 0.0  # (`time.perf_counter`)
        self._noted_at = 0.0  # when the last forecast was noted (`time.perf_counter`)
        self._wake: asyncio.TimerHandle | None = None

    def note(self, cpu: float, wall: float) -> None:
        """A forecast took `wall` seconds in the worker, `cpu` of them on a CPU."""
        self._shares.append(min(1.0, cpu / wall) if wall > 0 else 1.0)
        self._noted_at = now = time.perf_counter()
        if self.starved():
            rest_until = now + PACE_REST * wall
            self._rests_until = max(self._rests_until, rest_until)

    def starved(self) -> bool:
        """Whether the worker ran less than STARVED_BELOW of its forecasts' time lately (its
        last forecast at most PACE_STALE ago)."""
        if time.perf_counter() - self._noted_at > PACE_STALE:
            return False
        return sorted(self._shares)[len(self._shares) // 2] < STARVED_BELOW

    def resting(self) -> bool:
        """Whether the worker rests now; if so, the newest position left unjudged is judged
        after the rest (no forecast may finish meanwhile to start it)."""
        left = self._rests_until - time.perf_counter()
        if left <= 0:
            return False
        if self._wake is None:
            self._wake = asyncio.get_running_loop().call_later(left, self._woken)
        return True

    def _woken(self) -> None:
        self._wake = None
        _judge_next()


def shedding(forecast: Forecast, at_once: int = AT_ONCE, pace: Pace | None = None) -> Forecast:
    """`forecast`, leaving a position out (None: not judged now) while `at_once` of its
    forecasts are being judged already, or while its worker rests (`pace`). Under load a queue
    of forecasts would only grow, and a move would wait for its forecast behind the others;
    leaving some positions out costs only their chances: the position a game rests at is judged
    when a forecast finishes or the rest ends (`_unjudged`)."""
    busy = 0

    async def shed(state: GameState, levels: tuple[str | None, ...]) -> tuple[float, ...] | None:
        nonlocal busy
        if busy >= at_once or (pace is not None and pace.resting()):
            return None
        busy += 1
        try:
            return await forecast(state, levels)
        finally:
            busy -= 1

    return shed
