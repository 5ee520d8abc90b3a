"""Bots think in a worker process, so that the server's event loop never waits for them.

A bot's decision is pure computation (the planner's expectimax, the solver's tables). In the
server's own process it competes for the interpreter lock with everything else, and a thousand
games' worth of bot decisions then shows in every player's latency. The pool sends each decision
to a worker process (started when the first bot moves) that keeps one bot object per game seat,
so a bot's plan for the turn survives between its decisions, and answers with the action's
notation; the bot driver then sends it to the game master like any intent. A worker dies with the
server, however the server dies (lifeline.py). The event loop talks to the workers itself
(server/workers.py: no threads between them).
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

from dicepoker.engine import Action, GameState, parse_action
from dicepoker.master.forecast import PACE_REST, STARVED_BELOW, Pace
from dicepoker.server.workers import ProcessPool

T = TypeVar("T")

# Bots kept in a worker: one per game seat that moved lately (the oldest are dropped).
KEEP_BOTS = 4096
# How much nicer than the server its bot workers run. A bot thinks while its delay runs
# (dicepoker.master.driver): a decision that waits for the CPU is not seen as long as it comes
# within the delay, while a person's move that waits is felt by every player of the game. On a
# full machine the niced bots still get the CPU they need as long as the forecasts give way to
# them (FORECAST_NICE); measured at 4,000 games on 2 processes (docs/deploy.md, "Niced bots, and
# forecasts that give way to them"): p99 182-452 ms -> 70-86 ms, as many moves a second, on a
# good hour; 113 ms on a slow one, where the bots fell behind their delay.
BOT_NICE = 10
# How much nicer than the server its forecast worker runs (the hints too): nicer than the bots.
# On a busy machine the moves come first: a forecast that waits is told later or not at all (the
# bars keep their values), a move that waits is felt by every player. Measured (benchmarks/
# load.py, 1,000 games, 2 processes on this 2-core machine), nice 10 against 0: intent-to-
# broadcast p50 70 -> 25 ms, p99 about 550 -> 250 ms, with as many positions judged (a third,
# on or after their event). At the bots' nice it took the CPU they need on a full machine, and
# they fell behind their delay (docs/deploy.md).
FORECAST_NICE = 19
# And its analysis worker: an analysis (a finished game's, for its puzzles and its players'
# accuracy, or one a person asked for) is seconds of CPU that nobody waits for move by move.
ANALYSIS_NICE = 10
# How long a background analysis waits before it asks again while the machine is full
# (`BotPool.analysis_rest`).
BUSY_RECHECK = 5.0

_bots: OrderedDict[tuple[str, int, str], Any] = OrderedDict()
_rules: dict[str, Any] = {}


def _rules_of(variant: str, options: str) -> Any:
    from dicepoker.rules import get_rules

    rules = _rules.get(variant + options)
    if rules is None:
        rules = _rules[variant + options] = get_rules(variant, json.loads(options))
    return rules


def _decide(key: tuple[str, int, str], variant: str, options: str, fields: tuple[Any, ...]) -> str:
    """In the worker: the action of the bot of `key` (game, seat, level) in the state whose
    fields after `rules` are `fields`."""
    from dicepoker.bots import make_bot
    from dicepoker.bots.school_features import compile_features

    # This process thinks for the bots and little else: the School expert's features are worth
    # numba's memory here (about 115 MiB, loaded at the first School decision).
    compile_features()
    rules = _rules_of(variant, options)
    bot = _bots.pop(key, None) or make_bot(key[2])
    _bots[key] = bot
    while len(_bots) > KEEP_BOTS:
        _bots.popitem(last=False)
    return str(bot.choose(GameState(rules, *fields)))


def _forecast(
    variant: str, options: str, fields: tuple[Any, ...], levels: tuple[str | None, ...]
) -> tuple[tuple[float, ...] | None, float, float]:
    """In the worker: each seat's chance of winning in the state whose fields after `rules`
    are `fields`, and the seconds it took: on a CPU, and in all (`Pace.note`)."""
    from dicepoker.winprob import forecast

    ran, took = time.process_time(), time.perf_counter()
    chances = forecast(GameState(_rules_of(variant, options), *fields), levels)
    return chances, time.process_time() - ran, time.perf_counter() - took


def _timed(function: Callable[..., T], *args: Any) -> tuple[T, float, float]:
    """In the worker: `function(*args)`, and the seconds it took: on a CPU, and in all."""
    ran, took = time.process_time(), time.perf_counter()
    value = function(*args)
    return value, time.process_time() - ran, time.perf_counter() - took


def rest_for(ran: float, took: float) -> float:
    """How long the background analyses rest after one that had a CPU for `ran` of the `took`
    seconds it took: PACE_REST times its time when the machine left it less than STARVED_BELOW
    of them (as the forecasts' worker rests: `dicepoker.master.forecast.Pace`), else not at
    all."""
    if took <= 0 or ran / took >= STARVED_BELOW:
        return 0.0
    return PACE_REST * took


def _advise(variant: str, options: str, fields: tuple[Any, ...]) -> dict[str, Any]:
    """In the worker: the advisor's answer (`dicepoker.server.analysis.advise`) for the state
    whose fields after `rules` are `fields`."""
    from dicepoker.server.analysis import advise

    return advise(GameState(_rules_of(variant, options), *fields))


class BotPool:
    """Bot decisions in `workers` processes (spawned, so nothing of the server is inherited),
    and the win probability's forecasts in one more, started with the first forecast; each pool
    nicer than the server, the forecasts' the nicest (`BOT_NICE`, `FORECAST_NICE`).

    Each worker is bound to this process as it starts (SIGKILL when it dies: a worker holds
    nothing worth saving; server/workers.py). The kernel signals the death of the *thread* that
    started a worker, so the pool is used from one thread that lives as long as the server, the
    event loop's: `choose` starts the workers, in the thread that calls it.
    """

    def __init__(self, workers: int = 1) -> None:
        self._bots = ProcessPool(workers, BOT_NICE, name="dp-bots")
        # The forecasts have a worker of their own: a move waits for its position's forecast,
        # and behind a queue of bot decisions (the expert's take milliseconds each) that wait
        # showed in every player's latency under load; the bots, in turn, never wait for them.
        self._judging = ProcessPool(1, FORECAST_NICE, name="dp-forecasts")
        # The analyses have one too, started with the first: they take seconds, and the bots
        # and the forecasts should not wait behind them, nor the server's loop share its
        # interpreter lock with them (and hold numba's 115 MiB for them).
        # One analysis at a time (each is seconds): a puzzle guess's judgement, asked `first`,
        # waits behind the one running only.
        self._analysing = ProcessPool(1, ANALYSIS_NICE, batch=1, name="dp-analysis")
        self.pace = Pace()  # whether that worker gets the CPU it asks for (`shedding`)
        self._rests_until = 0.0  # the background analyses' (`analysis_rest`; perf_counter)

    def _pool(self) -> ProcessPool:
        return self._bots

    def _judge(self) -> ProcessPool:
        return self._judging

    async def choose(self, game_id: str, seat: int, level: str, state: GameState) -> Action:
        """The action of the bot of `level` at `seat` of `game_id` in `state`. A worker that
        died fails the decision it held (`WorkerDied`); the next decision starts a new one."""
        rules = state.rules
        options = json.dumps(rules.option_dict, sort_keys=True)
        # The rules travel by name: their engine tables are rebuilt once in the worker.
        fields = tuple(state)[1:]
        text = await self._bots.run(_decide, (game_id, seat, level), rules.variant, options, fields)
        return parse_action(text)

    async def forecast(
        self, state: GameState, levels: tuple[str | None, ...]
    ) -> tuple[float, ...] | None:
        """Each seat's chance of winning in `state` (dicepoker.winprob), judged in a worker,
        which keeps the solver's tables and its cache of positions."""
        rules = state.rules
        options = json.dumps(rules.option_dict, sort_keys=True)
        fields = tuple(state)[1:]
        chances, ran, took = await self._judging.run(
            _forecast, rules.variant, options, fields, levels
        )
        self.pace.note(ran, took)
        return chances

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """A whole computation in a worker (the daily challenge's par: the expert plays a game):
        `function` and its arguments travel by pickling (a module's function, plain values)."""
        return await self._bots.run(function, *args)

    async def advise(self, state: GameState) -> dict[str, Any]:
        """The advisor's values for the player to move in `state` (a person asked for a hint), in
        the forecast worker, ahead of the forecasts waiting there: it holds the solver's tables
        already, and its calls take milliseconds, where the analysis worker's take seconds."""
        rules = state.rules
        options = json.dumps(rules.option_dict, sort_keys=True)
        return await self._judging.run(
            _advise, rules.variant, options, tuple(state)[1:], first=True
        )

    async def analyse(self, function: Callable[..., T], *args: Any) -> T:
        """An analysis (`dicepoker.server.analysis.analyse` and its arguments) in the analysis
        worker; how much of its time that worker had a CPU sets `analysis_rest`."""
        timed: tuple[T, float, float] = await self._analysing.run(_timed, function, *args)
        value, ran, took = timed
        rest = rest_for(ran, took)
        if rest:
            self._rests_until = max(self._rests_until, time.perf_counter() + rest)
        return value

    def analysis_rest(self) -> float:
        """Seconds a background analysis (a puzzles' harvest, an account game's accuracy) should
        wait before it starts; it asks again after them. The analysis worker runs nicer than the
        server, yet on a full machine every analysis it made cost the moves dearly: 4,000 games
        in a steady state had p99 89 ms without the harvests, 236 ms with them at nice 10 and
        173 ms even with the worker at SCHED_IDLE (docs/deploy.md). So none starts while the
        forecasts' worker, as nice, is starved (`Pace.starved`: the machine has no CPU to
        spare), and after one that was starved itself (`rest_for`: no forecasts to tell) the
        next waits PACE_REST times its time."""
        rest = self._rests_until - time.perf_counter()
        if self.pace.starved():
            rest = max(rest, BUSY_RECHECK)
        return max(0.0, rest)

    async def answer(self, function: Callable[..., T], *args: Any) -> T:
        """A quick answer a person waits for (a puzzle's judgement) in the analysis worker,
        ahead of the analyses waiting there (behind the one it runs, if any)."""
        return await self._analysing.run(function, *args, first=True)

    def close(self) -> None:
        self._bots.close()
        self._judging.close()
        self._analysing.close()
