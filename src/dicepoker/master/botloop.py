"""The bot loop, written once: a synchronous core that its runners drive.

The loop is a generator of steps, free of any waiting or I/O. `Think`: the runner waits the
bots' delay, takes the game's lease, and lets the bot think; it answers the action, the
exception the bot failed with, or None when the game's bots are not this runner's any more.
`Act`: it applies the action as an intent with the seq it was chosen at; it answers None, or
the `Refusal`. The loop decides everything else: whether a bot is to move, that a choice made
on a position the game has left is dropped and made again, that a failed bot plays greedily,
that a stale intent is chosen again and any other refusal ends the loop.

Two runners drive it: `BotDriver` (driver.py: asynchronous, through the game master, for the
web app and the terminal client) and `run` below (synchronous, for simulations of thousands of
games, where going through the master's commits cost more than the bots' thinking).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator
from typing import NamedTuple, Protocol

from dicepoker.bots import make_bot
from dicepoker.engine import Action, GameState, autoplay_action
from dicepoker.master.refusal import Refusal
from dicepoker.rules import Rules

log = logging.getLogger("dicepoker.master")


class Table(Protocol):
    """What the loop reads of a game: the position (state and seq) and whose move it is."""

    @property
    def state(self) -> GameState: ...

    @property
    def seq(self) -> int: ...

    def bot_to_move(self) -> int | None:
        """The seat of the bot to move now, or None (a person's turn, the game waiting or over)."""
        ...


# The steps are named tuples: a simulation makes two for each of its millions of actions.


class Think(NamedTuple):
    seat: int
    state: GameState


class Act(NamedTuple):
    seat: int
    action: Action
    seq: int


Step = Think | Act
Answer = Action | Exception | None
Loop = Generator[Step, Answer, Refusal | None]


def bot_loop(table: Table, name: str = "") -> Loop:
    """Play while a bot is to move; returns the refusal that stopped it, if one did."""
    while True:
        seat = table.bot_to_move()
        if seat is None:
            return None
        state, seq = table.state, table.seq
        answer = yield Think(seat, state)
        if answer is None:
            return None  # another process drives this game's bots
        if isinstance(answer, Exception):  # a broken bot must not stall the game
            log.error(
                "bot %s in game %s failed; greedy plays this action", seat, name, exc_info=answer
            )
            answer = make_bot("greedy").choose(state)
        if table.state is not state:
            continue  # the game moved while the bot thought: look again
        refused = yield Act(seat, answer, seq)
        if isinstance(refused, Refusal) and refused.code != "stale":
            log.error("bot %s in game %s refused: %s", seat, name, refused.message)
            return refused


def run(
    table: Table,
    choose: Callable[[int, GameState], Action],
    act: Callable[[int, Action, int], Refusal | None],
) -> Refusal | None:
    """Drive the loop synchronously: no delay, `choose(seat, state)` thinks (what it raises is
    raised), `act(seat, action, seq)` applies."""
    loop = bot_loop(table)
    send = loop.send
    try:
        step = next(loop)
        while True:
            if isinstance(step, Think):
                step = send(choose(step.seat, step.state))
            else:
                step = send(act(step.seat, step.action, step.seq))
    except StopIteration as stop:
        result: Refusal | None = stop.value
        return result


def auto_chooser(rules: Rules) -> Callable[[GameState], Action]:
    """How auto-play chooses: the variant's auto-play rule, or a greedy bot where it has none."""
    if rules.autoplay is not None:
        return autoplay_action
    return make_bot("greedy").choose
