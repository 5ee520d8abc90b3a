"""A new game's rules and turn clock, from what its creator asked (the lobby, a daily challenge)."""

from __future__ import annotations

from typing import Any

from dicepoker.master.refusal import Refusal
from dicepoker.rules import Rules, RulesError, get_rules


def rules_with_clock(
    variant: str, options: dict[str, Any], turn_seconds: int | None
) -> tuple[Rules, int]:
    """A new game's rules and turn clock. A variant with a clock of its own (its rules say what
    running out does) takes the request's turn_seconds, else the option, else its online
    default; any other variant's clock is the request's."""
    options = dict(options)
    try:
        policy = get_rules(variant).clock
        if policy is not None:
            clock = turn_seconds if turn_seconds is not None else options.get(policy.option)
            options[policy.option] = policy.online_default if clock is None else clock
        rules = get_rules(variant, options)
    except RulesError as exc:
        raise Refusal("bad_options", str(exc)) from None
    return rules, rules.turn_seconds if policy is not None else int(turn_seconds or 0)
