"""Keyword values read exactly (numeric bounds, counts, steps) and the IR pieces built from them: shared by
`normalize` and the complements of `negation`."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from extractor.errors import InvalidSchemaError, UnsupportedSchemaError
from extractor.schema import ir

TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
NUMBER_BOUNDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}

ANY_OBJECT = ir.Object(additional=ir.AnyValue())
"""Any object at all (explicitly: never closed by the strict-objects policy)."""


def numbers_except(values: list[Any]) -> list[ir.Node]:
    """Every number but the given ones: the open intervals between them."""
    cuts = sorted({Decimal(repr(v)) if isinstance(v, float) else Decimal(v)
                   for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)})
    bounds = [None, *cuts, None]
    return [ir.Number(minimum=lo, exclusive_minimum=lo is not None, maximum=hi, exclusive_maximum=hi is not None)
            for lo, hi in zip(bounds, bounds[1:])]


COUPLED = ({"properties", "patternProperties", "additionalProperties"}, {"prefixItems", "items", "additionalItems"},
           {"contains", "minContains", "maxContains"}, {"if", "then", "else"}, NUMBER_BOUNDS)
"""Keywords whose meaning depends on each other: a complement takes each group whole."""


def independent(keys: set[str]) -> list[set[str]]:
    """`keys` in groups that each hold on their own (a schema holds when all its groups do)."""
    groups = [keys & group for group in COUPLED if keys & group]
    return groups + [{k} for k in sorted(keys - set().union(*COUPLED))]


def absent(name: str) -> ir.Node:
    """Objects without the key `name`."""
    return ir.Object(properties=(ir.Property(name, ir.Nothing(), False),), additional=ir.AnyValue())


def object_or_nothing(node: ir.Object) -> ir.Node:
    """Nothing where a required member can take no value (no object has it), else the object: built into rules,
    such an object would only be found unable to finish by the automaton stage."""
    return ir.Nothing() if any(p.required and isinstance(p.value, ir.Nothing) for p in node.properties) else node


def union(options: tuple[ir.Node, ...]) -> ir.Node:
    """The union of `options`, repeats and `Nothing` dropped; a single option stands alone."""
    kinds = {type(o) for o in options}
    if len(kinds) == len(options) and ir.Nothing not in kinds:  # one of each kind (a `type` list): none repeats,
        kept = tuple(options)  # and none hashed to show it (nodes of two classes are never equal)
    else:
        kept = tuple(o for o in dict.fromkeys(options) if not isinstance(o, ir.Nothing))
    if not kept:
        return ir.Nothing()
    return kept[0] if len(kept) == 1 else ir.Union_(kept)


def read_bound(schema: dict[str, Any], inclusive: str, exclusive: str, tighter: Any,
               ptr: str) -> tuple[Decimal | None, bool]:
    """The tighter of an inclusive and an exclusive bound, as (exact value, exclusive?)."""
    found: list[tuple[Decimal, bool]] = []
    for key, excl in ((inclusive, False), (exclusive, True)):
        value = schema.get(key)
        if value is None or value is False:
            continue
        if value is True:  # draft 4: exclusiveMinimum: true qualifies minimum
            if not isinstance(schema.get(inclusive), (int, float)):
                raise InvalidSchemaError(f"{key}: true needs {inclusive}", f"{ptr}/{key}")
            continue
        if not isinstance(value, (int, float)) or isinstance(value, bool) or (isinstance(value, float)
                                                                              and not math.isfinite(value)):
            raise InvalidSchemaError(f"{key} must be a number, not {value!r}", f"{ptr}/{key}")
        exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        _, digits, exponent = exact.as_tuple()
        if max(len(digits) + int(exponent), 0) > MAX_BOUND_DIGITS or -int(exponent) > MAX_BOUND_DIGITS:
            raise UnsupportedSchemaError(key, f"{ptr}/{key}", f"{value!r:.40}: bounds are enforced with up to "
                                         f"{MAX_BOUND_DIGITS} digits before and after the point")
        found.append((exact, excl or (key == inclusive and schema.get(exclusive) is True)))
    if not found:
        return None, False
    best = tighter(v for v, _ in found)
    return best, any(x for v, x in found if v == best)


MAX_BOUND_DIGITS = 24
"""Digits a numeric bound may have before and after the point: its digit automaton is built exactly, in
decimal arithmetic of 28 digits."""

MAX_COUNT = 2**32
"""Largest length or item count enforced as written. A larger maximum is no bound (no output of any budget
reaches it); a larger minimum is refused (no output could meet it)."""

MAX_MULTIPLE = 10_000
"""Largest integral multipleOf: its automaton has one state per remainder."""


def read_step(schema: dict[str, Any], ptr: str) -> Decimal | None:
    """`multipleOf` as an exact decimal, checked: positive, finite, and one the automata are built for."""
    step = schema.get("multipleOf")
    if step is None:
        return None
    if isinstance(step, bool) or not isinstance(step, (int, float)) or step <= 0 or not math.isfinite(step):
        raise InvalidSchemaError("multipleOf must be a positive number", f"{ptr}/multipleOf")
    exact = Decimal(repr(step)) if isinstance(step, float) else Decimal(step)
    check_multiple(exact, f"{ptr}/multipleOf")
    return exact


def check_multiple(step: Decimal, ptr: str) -> None:
    """Integral steps up to MAX_MULTIPLE; fractional ones `m * 10**-k` with m up to MAX_MULTIPLE (a cap on
    decimal places, and a remainder of the digits)."""
    if step == step.to_integral_value():
        if step > MAX_MULTIPLE:
            raise UnsupportedSchemaError("multipleOf", ptr, f"above {MAX_MULTIPLE}")
    elif int("".join(map(str, step.normalize().as_tuple().digits))) > MAX_MULTIPLE:
        raise UnsupportedSchemaError("multipleOf", ptr, f"a fractional step whose digits pass {MAX_MULTIPLE}")


def read_count(schema: dict[str, Any], key: str, ptr: str) -> int:
    """A length or count keyword (0 when absent): a non-negative integer, a minimum no output could meet refused."""
    value = schema.get(key, 0)
    if type(value) is int and 0 <= value <= MAX_COUNT:  # the usual count, as is
        return value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidSchemaError(f"{key} must be a non-negative integer, not {value!r}", f"{ptr}/{key}")
    if value > MAX_COUNT and key.startswith("min"):
        raise UnsupportedSchemaError(key, f"{ptr}/{key}", f"{value} is above {MAX_COUNT}: no output could meet it")
    return value


def read_most(schema: dict[str, Any], key: str, ptr: str) -> int | None:
    """An upper count (`maxLength`, `maxItems`), None where absent or too large for any output to reach."""
    if schema.get(key) is None:
        return None
    value = read_count(schema, key, ptr)
    return None if value > MAX_COUNT else value


def escape(name: str) -> str:
    """A key as a JSON pointer segment."""
    return name.replace("~", "~0").replace("/", "~1")
