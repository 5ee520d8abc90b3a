"""A new game's rules and turn clock, from what its creator asked (the lobby, a daily challenge).

A rated game always has a turn clock: without one, a player losing a rated game could stop
playing and wait for the game to be closed as abandoned, with no result and no rating change
(`dicepoker.master.clock` says what running out costs in a rated game). A rated game asked
without a clock, or with 0 seconds, gets the variant's online default where its rules have a
clock of their own, else `RATED_TURN_SECONDS`: the lobby's "no clock" choice then still makes the
rated game asked for, rather than a refusal that a player could not see the reason for.
"""

from __future__ import annotations

from typing import Any

from dicepoker.master.refusal import Refusal
from dicepoker.rules import Rules, RulesError, get_rules

#: A rated game's turn clock when its creator asked for none and its variant has no online
#: default: two minutes a turn, time for three rolls and a thought, short enough that a player
#: who left is found out in a few minutes.
RATED_TURN_SECONDS = 120


def rules_with_clock(
    variant: str, options: dict[str, Any], turn_seconds: int | None, *, rated: bool = False
) -> tuple[Rules, int]:
    """A new game's rules and turn clock. A variant with a clock of its own (its rules say what
    running out does) takes the request's turn_seconds, else the option, else its online
    default; any other variant's clock is the request's. A `rated` game asked with no clock
    (none or 0) gets the default one (the module's docstring)."""
    options = dict(options)
    try:
        policy = get_rules(variant).clock
        if policy is not None:
            clock = turn_seconds if turn_seconds is not None else options.get(policy.option)
            if rated and clock in (None, 0):
                clock = None  # a rated game is never played without a clock
            options[policy.option] = policy.online_default if clock is None else clock
        rules = get_rules(variant, options)
    except RulesError as exc:
        raise Refusal("bad_options", str(exc)) from None
    if policy is not None:
        return rules, rules.turn_seconds
    asked = int(turn_seconds or 0)
    return rules, RATED_TURN_SECONDS if rated and asked == 0 else asked
