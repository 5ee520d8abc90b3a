"""The server's computations off its event loop: one work queue, with priorities, over worker
processes (server/runtime/workers.py).

Bots' decisions, the live chances, the hints, the puzzle answers and the analyses are pure
computation (the planner's expectimax, the solver's tables, the win model). In the server's own
process they would compete for the interpreter lock with every player's messages, so they run in
spawned workers, which keep what they load (the solver's tables, the win model's kernels, one bot
object per game seat) between calls. Every job goes through one queue, most urgent first:

- `Priority.PERSON`: someone waits for it now (a hint, a puzzle answer);
- `Priority.BOT`: a bot's decision, which its table waits for (and the daily par);
- `Priority.CHANCES`: the newest win probability of a game's position (master/chances.py);
- `Priority.BACKGROUND`: analyses nobody waits for move by move (puzzle harvests, accuracy),
  and the analyses a person asks for, which take seconds.

The queue's order is the only arbiter. At most `bots` workers think for bots at once (handed
their decisions in batches), one judges chances and one runs a background job, so a person's job
always finds a worker; and while bots' decisions wait for their turn (the machine is behind), the
chances and the background analyses wait too (workers.py). A chances job reads its game's
position only when a worker takes it, so the one judged is where the game rests then. A worker
dies with the server, however the server dies (lifeline.py).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from dicepoker.engine import Action, GameState, parse_action
from dicepoker.server.runtime.workers import Priority, ProcessPool

if TYPE_CHECKING:
    from dicepoker.master.chances import Position

T = TypeVar("T")

# Bots kept in a worker: one per game seat that moved lately (the oldest are dropped).
KEEP_BOTS = 4096

#: The most jobs of a kind running at once besides the bots' (`bots`): a background analysis
#: takes seconds and the chances are a sample of the positions, so neither may take the workers
#: the bots and people need.
LIMITS = {Priority.BACKGROUND: 1, Priority.CHANCES: 1}

#: How much nicer than the server its workers run. The server's event loop serves every player
#: of its games at once, a worker's job one game or none; a bot thinks while its delay runs, so
#: a decision that waits a little for a CPU is not seen, while a message the loop sends late is
#: felt by everyone at the table. One value for every worker: the order among jobs is the
#: queue's, not the scheduler's.
NICE = 10

_bots: OrderedDict[tuple[str, int, str], Any] = OrderedDict()
_rules: dict[str, Any] = {}


def _rules_of(variant: str, options: str) -> Any:
    from dicepoker.rules import get_rules

    rules = _rules.get(variant + options)
    if rules is None:
        rules = _rules[variant + options] = get_rules(variant, json.loads(options))
    return rules


def _decide(key: tuple[str, int, str], variant: str, options: str, fields: tuple[Any, ...]) -> str:
    """In a worker: the action of the bot of `key` (game, seat, level) in the state whose fields
    after `rules` are `fields`."""
    from dicepoker.bots import make_bot
    from dicepoker.bots.school_features import compile_features

    # A worker that thinks for bots keeps the School expert's compiled features (numba's memory,
    # loaded at the first School decision).
    compile_features()
    rules = _rules_of(variant, options)
    bot = _bots.pop(key, None) or make_bot(key[2])
    _bots[key] = bot
    while len(_bots) > KEEP_BOTS:
        _bots.popitem(last=False)
    return str(bot.choose(GameState(rules, *fields)))


def _chances(
    variant: str, options: str, fields: tuple[Any, ...], levels: tuple[str | None, ...]
) -> tuple[float, ...] | None:
    """In a worker: each seat's chance of winning in the state whose fields after `rules` are
    `fields`. The worker loads the variant's tables the first time (it may: nobody waits on the
    event loop for it), so a first game's chances come late rather than never."""
    from dicepoker.winprob import forecast

    return forecast(GameState(_rules_of(variant, options), *fields), levels)


def _on_state(
    function: Callable[[GameState], T], variant: str, options: str, fields: tuple[Any, ...]
) -> T:
    """In a worker: `function` of the state whose fields after `rules` are `fields` (the
    advisor's answer, say)."""
    return function(GameState(_rules_of(variant, options), *fields))


def _travelling(state: GameState) -> tuple[str, str, tuple[Any, ...]]:
    """What of `state` travels to a worker: the rules by name and options (their engine tables
    are rebuilt once there), and the state's other fields."""
    rules = state.rules
    return rules.variant, json.dumps(rules.option_dict, sort_keys=True), tuple(state)[1:]


class WorkQueue:
    """The server's one work queue over `bots + 2` spawned worker processes (nothing of the
    server is inherited; started as jobs need them), at most `bots` of them thinking for bots.

    The kernel signals the death of the *thread* that started a worker, so the queue is used
    from one thread that lives as long as the server, the event loop's."""

    def __init__(self, bots: int = 1) -> None:
        bots = max(1, bots)
        limits = {Priority.BOT: bots, **LIMITS}
        self.pool = ProcessPool(bots + 2, NICE, name="dp-work", limits=limits)

    async def drained(self) -> None:
        """Return once no job waits or runs (tests wait on this)."""
        await self.pool.drained()

    async def choose(self, game_id: str, seat: int, level: str, state: GameState) -> Action:
        """The action of the bot of `level` at `seat` of `game_id` in `state`. A worker that died
        fails the decision it held (`WorkerDied`); the next decision starts a new one."""
        variant, options, fields = _travelling(state)
        key = (game_id, seat, level)
        text = await self.pool.run(
            _decide, key, variant, options, fields, priority=Priority.BOT, affinity=key
        )
        return parse_action(text)

    async def chances(self, position: Position) -> tuple[float, ...] | None:
        """Each seat's chance of winning (dicepoker.winprob) in the position `position` gives
        when a worker takes the call: behind every more urgent job, it judges where the game
        rests then (None: nothing to judge any more)."""

        def arguments() -> tuple[Any, ...] | None:
            found = position()
            if found is None:
                return None
            state, levels = found
            return (*_travelling(state), levels)

        chances: tuple[float, ...] | None = await self.pool.run_fresh(
            _chances, arguments, priority=Priority.CHANCES
        )
        return chances

    async def on_state(self, function: Callable[[GameState], T], state: GameState) -> T:
        """`function` of `state` (a module's function: it travels by pickling) for a person who
        waits for it: the advisor's values for the player to move, say."""
        variant, options, fields = _travelling(state)
        return await self.pool.run(
            _on_state, function, variant, options, fields, priority=Priority.PERSON
        )

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """A whole computation at a bot's priority (the daily challenge's par: the expert plays a
        game): `function` and its arguments travel by pickling (a module's function, plain
        values)."""
        return await self.pool.run(function, *args, priority=Priority.BOT)

    async def analyse(self, function: Callable[..., T], *args: Any) -> T:
        """An analysis (`dicepoker.server.community.analysis.analyse` and its arguments): seconds of
        a worker, behind everything more urgent."""
        return await self.pool.run(function, *args, priority=Priority.BACKGROUND)

    async def answer(self, function: Callable[..., T], *args: Any) -> T:
        """A quick answer a person waits for (a puzzle's judgement)."""
        return await self.pool.run(function, *args, priority=Priority.PERSON)

    def close(self) -> None:
        self.pool.close()
