"""Variants as data and the registry that turns a name and options into `Rules`."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from dicepoker.rules.model import ClockPolicy, Combo, OptionSpec, Pattern, Row, Rules, Value
from dicepoker.rules.validation import InvalidVariant, check_built
from dicepoker.rules.variants import DEFAULT_VARIANT, VARIANTS, Variant, registry


class RulesError(ValueError):
    """An unknown variant, or an option that the variant does not have or that is out of range:
    a player's mistake (a variant written wrong is an `InvalidVariant`, its author's)."""


def variant_names() -> list[str]:
    return list(VARIANTS)


def find_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        known = ", ".join(VARIANTS)
        raise RulesError(f"unknown variant {name!r} (known: {known})") from None


def _check_option(spec: OptionSpec, value: object) -> bool | int:
    if spec.kind is bool:
        if not isinstance(value, bool):
            raise RulesError(f"option {spec.name!r} must be true or false, not {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"option {spec.name!r} must be an integer, not {value!r}")
    if spec.minimum is not None and value < spec.minimum:
        raise RulesError(f"option {spec.name!r} must be at least {spec.minimum}, not {value}")
    if spec.maximum is not None and value > spec.maximum:
        raise RulesError(f"option {spec.name!r} must be at most {spec.maximum}, not {value}")
    return value


def resolve_options(
    variant: Variant, options: Mapping[str, object] | None
) -> dict[str, bool | int]:
    """Check `options` against the variant and fill in the defaults (unset options stay out)."""
    given = dict(options or {})
    specs = {spec.name: spec for spec in variant.options}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        known = ", ".join(specs) or "none"
        raise RulesError(
            f"unknown option {unknown[0]!r} for variant {variant.name!r} (options: {known})"
        )
    resolved: dict[str, bool | int] = {}
    for name, spec in specs.items():
        if name in given and (given[name] is not None or spec.default is not None):
            resolved[name] = _check_option(spec, given[name])
        elif spec.default is not None:
            resolved[name] = spec.default
    return resolved


def get_rules(name: str, options: Mapping[str, object] | None = None) -> Rules:
    """The concrete rules of variant `name` with `options` (validated; defaults filled in).
    The same variant and options give the very same `Rules` (immutable): a server held one for
    every live game, each with the engine's tables built again in its `memo` (5-10 KiB a game,
    benchmarks/memory.py)."""
    variant = find_variant(name)
    return _built(variant, tuple(resolve_options(variant, options).items()))


@functools.lru_cache(maxsize=256)
def _built(variant: Variant, options: tuple[tuple[str, bool | int], ...]) -> Rules:
    # `Rules` checked its own definition; what only the variant knows (its name, its options)
    # is checked here, once per variant and options like the build itself.
    rules = variant.build(dict(options))
    check_built(variant.name, variant.options, rules)
    return rules


def parse_option_value(text: str) -> bool | int:
    """Read a command-line option value: `true`/`false`/`on`/`off` or an integer."""
    lowered = text.strip().lower()
    if lowered in {"true", "on", "yes"}:
        return True
    if lowered in {"false", "off", "no"}:
        return False
    try:
        return int(lowered)
    except ValueError:
        raise RulesError(f"option value {text!r} is neither true/false nor an integer") from None


__all__ = [
    "DEFAULT_VARIANT",
    "VARIANTS",
    "ClockPolicy",
    "Combo",
    "InvalidVariant",
    "OptionSpec",
    "Pattern",
    "Row",
    "Rules",
    "RulesError",
    "Value",
    "Variant",
    "find_variant",
    "get_rules",
    "parse_option_value",
    "registry",
    "resolve_options",
    "variant_names",
]
