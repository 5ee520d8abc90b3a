"""Bots think in a worker process, so that the server's event loop never waits for them.

A bot's decision is pure computation (the planner's expectimax, the solver's tables). In the
server's own process it competes for the interpreter lock with everything else, and a thousand
games' worth of bot decisions then shows in every player's latency. The pool sends each decision
to a worker process (started when the first bot moves) that keeps one bot object per game seat,
so a bot's plan for the turn survives between its decisions, and answers with the action's
notation; the bot driver then sends it to the game master like any intent. A worker dies with the
server, however the server dies (lifeline.py).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import signal
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from dicepoker.engine import Action, GameState, parse_action
from dicepoker.server.lifeline import die_with_parent

T = TypeVar("T")

# Bots kept in a worker: one per game seat that moved lately (the oldest are dropped).
KEEP_BOTS = 4096
# How much nicer than the server its forecast worker runs. On a busy machine the moves come
# first: a forecast that waits is told later or not at all (the bars keep their values), a move
# that waits is felt by every player. Measured (benchmarks/load.py, 1,000 games, 2 processes on
# this 2-core machine): intent-to-broadcast p50 70 -> 25 ms, p99 about 550 -> 250 ms, with as
# many positions judged (a third, on or after their event).
FORECAST_NICE = 10

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

    rules = _rules_of(variant, options)
    bot = _bots.pop(key, None) or make_bot(key[2])
    _bots[key] = bot
    while len(_bots) > KEEP_BOTS:
        _bots.popitem(last=False)
    return str(bot.choose(GameState(rules, *fields)))


def _forecast(
    variant: str, options: str, fields: tuple[Any, ...], levels: tuple[str | None, ...]
) -> tuple[float, ...] | None:
    """In the worker: each seat's chance of winning in the state whose fields after `rules`
    are `fields`."""
    from dicepoker.winprob import forecast

    return forecast(GameState(_rules_of(variant, options), *fields), levels)


class BotPool:
    """Bot decisions in `workers` processes (spawned, so nothing of the server is inherited),
    and the win probability's forecasts in one more, started with the first forecast.

    Each worker is bound to this process as it starts (SIGKILL when it dies: a worker holds
    nothing worth saving). The kernel signals the death of the *thread* that started a worker,
    so the pool is used from one thread that lives as long as the server, the event loop's:
    `choose` starts the workers, in the thread that calls it.
    """

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        # The forecasts have a worker of their own: a move waits for its position's forecast,
        # and behind a queue of bot decisions (the expert's take milliseconds each) that wait
        # showed in every player's latency under load; the bots, in turn, never wait for them.
        self._judging: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = _spawn(self.workers)
        return self._executor

    def _judge(self) -> ProcessPoolExecutor:
        if self._judging is None:
            self._judging = _spawn(1, FORECAST_NICE)
        return self._judging

    async def choose(self, game_id: str, seat: int, level: str, state: GameState) -> Action:
        rules = state.rules
        options = json.dumps(rules.option_dict, sort_keys=True)
        # The rules travel by name: their engine tables are rebuilt once in the worker.
        fields = tuple(state)[1:]
        loop = asyncio.get_running_loop()
        try:
            text = await loop.run_in_executor(
                self._pool(), _decide, (game_id, seat, level), rules.variant, options, fields
            )
        except Exception:
            # A worker that died takes the pool with it: the next decision starts a new one.
            self._close_bots()
            raise
        return parse_action(text)

    async def forecast(
        self, state: GameState, levels: tuple[str | None, ...]
    ) -> tuple[float, ...] | None:
        """Each seat's chance of winning in `state` (dicepoker.winprob), judged in a worker,
        which keeps the solver's tables and its cache of positions."""
        rules = state.rules
        options = json.dumps(rules.option_dict, sort_keys=True)
        loop = asyncio.get_running_loop()
        fields = tuple(state)[1:]
        try:
            return await loop.run_in_executor(
                self._judge(), _forecast, rules.variant, options, fields, levels
            )
        except BrokenProcessPool:
            self._close_judging()  # the next forecast starts a new one
            raise

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """A whole computation in a worker (the daily challenge's par: the expert plays a game):
        `function` and its arguments travel by pickling (a module's function, plain values)."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), function, *args)
        except BrokenProcessPool:
            self._close_bots()  # the next use starts a new one
            raise

    def close(self) -> None:
        self._close_bots()
        self._close_judging()

    def _close_bots(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def _close_judging(self) -> None:
        if self._judging is not None:
            self._judging.shutdown(wait=False, cancel_futures=True)
            self._judging = None


def _spawn(workers: int, nice: int = 0) -> ProcessPoolExecutor:
    """Worker processes, spawned, each bound to die with this process, `nice` nicer than it."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_start_worker,
        initargs=(os.getpid(), nice),
    )


def _start_worker(parent: int, nice: int) -> None:
    """In a new worker: die with `parent`, and yield the machine to it by `nice`."""
    die_with_parent(parent, signal.SIGKILL)
    if nice:
        os.nice(nice)
