"""Strict JSON text: what every message and record of the project is read with.

The standard reader is generous where a contract must not be: it lets a later duplicate key win
over an earlier one, reads `NaN`, `Infinity` and `1e999` (numbers JSON does not have), decodes
lone surrogates (`"\\ud800"`, text that cannot be written back as UTF-8), and nests as deep as
its stack allows. Each of those once let a record in that the server could not send back.
`strict_loads` refuses them all, so that what it returns can always be written out again, and
says why in its own words: the standard reader's refusal of deep nesting or of an integer longer
than 4,300 digits names Python's insides (the recursion limit, `sys.set_int_max_str_digits`).
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, NoReturn

#: How deep objects and lists may nest (a record needs 6: record, turns, turn, rolls, roll, dice).
MAX_DEPTH = 32

#: The longest integer the standard reader converts (Python's default limit, and far beyond any
#: number a record or message carries).
MAX_DIGITS = sys.get_int_max_str_digits() or 4300

_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONTextError(ValueError):
    """Text that is not strict JSON; the message says what is wrong, briefly."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise JSONTextError(f"duplicate key {key[:40]!r}")
            seen.add(key)
    return out


def _constant(name: str) -> NoReturn:
    raise JSONTextError(f"{name} is not a JSON number")


def strict_loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse JSON text (bytes are UTF-8) strictly; `JSONTextError` says why it is refused."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise JSONTextError("not UTF-8 text") from None
    try:
        value = json.loads(text, object_pairs_hook=_object, parse_constant=_constant)
    except JSONTextError:
        raise
    except RecursionError:
        raise JSONTextError(f"nested deeper than {max_depth} levels") from None
    except json.JSONDecodeError as exc:
        raise JSONTextError(f"not JSON: {exc}") from None
    except ValueError:
        # The only other refusal of the standard reader: an integer longer than Python converts.
        raise JSONTextError(f"a number with more than {MAX_DIGITS} digits") from None
    check_value(value, max_depth=max_depth)
    return value


def check_value(value: Any, *, max_depth: int = MAX_DEPTH) -> None:
    """Refuse what JSON text cannot carry back: lone surrogates in any text or key, numbers that
    are not finite, nesting deeper than `max_depth` (a top-level object or list is level 1)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                raise JSONTextError("text with a lone surrogate (not valid Unicode)")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise JSONTextError("a number too large for JSON")
        elif isinstance(item, dict):
            if depth >= max_depth:
                raise JSONTextError(f"nested deeper than {max_depth} levels")
            for key, child in item.items():
                if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                    raise JSONTextError("a key with a lone surrogate (not valid Unicode)")
                stack.append((child, depth + 1))
        elif isinstance(item, list):
            if depth >= max_depth:
                raise JSONTextError(f"nested deeper than {max_depth} levels")
            stack.extend((child, depth + 1) for child in item)
