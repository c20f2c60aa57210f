"""Complements of subschemas (`not`, `if` without its `then`, the other options of a `oneOf`), for the shapes
whose complement stays regular and exact; any other shape is refused, naming its keywords.

`Negation` is mixed into the normalizer: it reads subschemas with the normalizer's own `node`, `types`, `typed`,
`constants`, `contains`, `string`, `others`, `resolved_at` and `merger`. Each `_not_*` shape returns the
complement where it applies and None where it does not; `negation` tries them in turn.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from extractor.errors import InvalidSchemaError, UnsupportedSchemaError
from extractor.lang.json_terms import dumps
from extractor.schema import ir
from extractor.schema.keywords import ENFORCED
from extractor.schema.merge import Merger
from extractor.schema.values import (
    ANY_OBJECT, NUMBER_BOUNDS, TYPES, absent, escape, independent, numbers_except, read_bound, read_count, read_step,
    union,
)

MAX_NEGATED_REFS = 32
"""Complements taken through `$ref` one inside the other: a recursive reference under `not` is refused past it."""


class Negation:
    """The complement half of the normalizer (see the module docstring)."""

    negating: int
    """Complements being taken through `$ref` right now (the recursion guard)."""
    counting: bool
    """Whether some array counts elements against a schema (`contains`, or a complement of `items`)."""

    if TYPE_CHECKING:  # provided by the normalizer this is mixed into
        merger: Merger

        def node(self, schema: Any, ptr: str) -> ir.Node: ...
        def check_keywords(self, schema: dict[str, Any], ptr: str) -> None: ...
        def resolved_at(self, ref: str, ptr: str) -> AbstractContextManager[Any]: ...
        def types(self, schema: dict[str, Any], ptr: str) -> list[str]: ...
        def typed(self, kind: str, schema: dict[str, Any], ptr: str) -> ir.Node: ...
        def constants(self, schema: dict[str, Any], ptr: str, types: list[str]) -> ir.Node: ...
        def contains(self, schema: dict[str, Any], ptr: str) -> ir.Contains | None: ...
        def string(self, schema: dict[str, Any], ptr: str) -> ir.Node: ...
        def others(self, kind: str, keys: set[str], ptr: str) -> list[ir.Node]: ...

    def negation(self, schema: Any, ptr: str) -> ir.Node:
        """The complement of a subschema, for the shapes whose complement stays regular and exact."""
        if isinstance(schema, bool):
            return ir.Nothing() if schema else ir.AnyValue()
        if not isinstance(schema, dict):
            raise InvalidSchemaError("`not` takes a schema", ptr)
        self.check_keywords(schema, ptr)
        keys = {k for k in schema if k in ENFORCED}
        if not keys:
            return ir.Nothing()
        for shape in (self._not_applicator, self._not_type, self._not_constants, self._not_object, self._not_number,
                      self._not_length, self._not_contains, self._not_multiple, self._not_items, self._not_names,
                      self._not_one_of, self._not_pattern):
            found = shape(schema, keys, ptr)
            if found is not None:
                return found
        groups = independent(keys)
        if len(groups) > 1:  # De Morgan: a schema fails when one of its independent parts does
            return union(tuple(self.negation({k: schema[k] for k in group}, ptr) for group in groups))
        raise UnsupportedSchemaError("not", ptr, f"the complement of {sorted(keys)} is not yet enforced")

    def _not_applicator(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """`not` of `not`, of a `$ref`, of `anyOf` (none of them) and of `allOf` (one of them fails)."""
        if keys == {"not"}:
            return self.node(schema["not"], f"{ptr}/not")
        if keys == {"$ref"}:
            if self.negating > MAX_NEGATED_REFS:
                raise UnsupportedSchemaError("not", ptr, "the complement of a recursive $ref")
            self.negating += 1
            try:
                with self.resolved_at(schema["$ref"], ptr) as target:
                    return self.negation(target, ptr)
            finally:
                self.negating -= 1
        if keys == {"anyOf"}:  # De Morgan: none of them
            node: ir.Node = ir.AnyValue()
            for i, sub in enumerate(schema["anyOf"]):
                node = self.merger.both(node, self.negation(sub, f"{ptr}/anyOf/{i}"), ptr)
            return node
        if keys == {"allOf"}:
            return union(tuple(self.negation(sub, f"{ptr}/allOf/{i}") for i, sub in enumerate(schema["allOf"])))
        return None

    def _not_type(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        if keys != {"type"}:
            return None
        named = self.types(schema, ptr)
        kept = [t for t in TYPES if t not in named and t != "integer"]
        fractions = [ir.Number(fraction=True)] if "integer" in named and "number" in kept else []
        kept = [t for t in kept if not fractions or t != "number"]
        return union((*(self.typed(t, {}, ptr) if t != "object" else ANY_OBJECT
                        for t in kept), *fractions))

    def _not_constants(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        if not (keys <= {"enum", "const", "type"} and ("enum" in keys or "const" in keys)):
            return None
        excluded = self.constants(schema, ptr, self.types(schema, ptr))
        values = [json.loads(v) for v in excluded.values] if isinstance(excluded, ir.Const) else []
        if any(isinstance(v, (list, dict)) for v in values):
            raise UnsupportedSchemaError("not", ptr, "excluding arrays or objects")
        bools = tuple(dumps(b) for b in (True, False) if not any(v is b for v in values))
        options: list[ir.Node] = [*numbers_except(values), ir.Array(), ANY_OBJECT]
        options += [ir.Null()] if None not in values else []
        options += [ir.Const(bools)] if bools else []
        options.append(ir.String(excluded=tuple(dumps(v) for v in values if isinstance(v, str))))
        return union(tuple(options))

    def _not_object(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """An object fails when a required key is absent, a present key's value fails its schema, or (closed
        by `additionalProperties: false`) it has a key outside `properties`."""
        closed = schema.get("additionalProperties", True) is False
        if not (keys <= {"required", "properties", "type", *(["additionalProperties"] if closed else [])}
                and keys - {"type"} and schema.get("type", "object") == "object"):
            return None
        declared = schema.get("properties", {})
        missing = [absent(name) for name in dict.fromkeys(schema.get("required", []))]
        wrong = [ir.Object(properties=(ir.Property(name, self.negation(sub, f"{ptr}/properties/{escape(name)}"),
                                                   True),), additional=ir.AnyValue())
                 for name, sub in declared.items()]
        outside = [ir.Object(properties=tuple(ir.Property(name, ir.AnyValue(), False) for name in declared),
                             additional=ir.AnyValue(), some_undeclared=True)] if closed else []
        return union((*self.others("object", keys, ptr), *missing, *wrong, *outside))

    def _not_number(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """Below the lower bound or above the upper one (an integer also fails by a fraction)."""
        if not (keys - {"type"} and keys - {"type"} <= NUMBER_BOUNDS
                and schema.get("type", "number") in ("number", "integer")):
            return None
        whole = schema.get("type") == "integer"
        lo, lo_x = read_bound(schema, "minimum", "exclusiveMinimum", max, ptr)
        hi, hi_x = read_bound(schema, "maximum", "exclusiveMaximum", min, ptr)
        below = [ir.Number(integer=whole, maximum=lo, exclusive_maximum=not lo_x)] if lo is not None else []
        above = [ir.Number(integer=whole, minimum=hi, exclusive_minimum=not hi_x)] if hi is not None else []
        return union((*self.others("number", keys, ptr),
                      *([ir.Number(fraction=True)] if whole else []), *below, *above))

    def _not_length(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """A string or array shorter than its minimum or longer than its maximum."""
        for kind, low, high in (("string", "minLength", "maxLength"), ("array", "minItems", "maxItems")):
            if keys - {"type"} and keys - {"type"} <= {low, high} and schema.get("type", kind) == kind:
                lo = read_count(schema, low, ptr) if low in schema else 0
                hi = read_count(schema, high, ptr) if high in schema else None
                make = (lambda a, b: ir.String(min_length=a, max_length=b)) if kind == "string" else \
                    (lambda a, b: ir.Array(min_items=a, max_items=b))
                return union((*self.others(kind, keys, ptr), *([make(0, lo - 1)] if lo else []),
                              *([make(hi + 1, None)] if hi is not None else [])))
        return None

    def _not_contains(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """Too few items match `contains`, or too many."""
        if not (keys - {"type"} <= {"contains", "minContains", "maxContains"}
                and schema.get("type", "array") == "array"):
            return None
        found = self.contains(schema, ptr)
        if found is None:
            return None
        few = [ir.Array(contains=replace(found, min=0, max=found.min - 1))] if found.min else []
        many = [ir.Array(contains=replace(found, min=found.max + 1, max=None))] if found.max is not None else []
        return union((*self.others("array", keys, ptr), *few, *many))

    def _not_multiple(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        if not (keys - {"type"} == {"multipleOf"} and schema.get("type", "number") in ("number", "integer")):
            return None
        step = read_step(schema, ptr)
        assert step is not None
        if step != step.to_integral_value():
            raise UnsupportedSchemaError("not", f"{ptr}/multipleOf", "the complement of a fractional multipleOf")
        return union((*self.others("number", keys, ptr), ir.Number(fraction=True),
                      ir.Number(integer=True, not_multiples=(int(step),))))

    def _not_items(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """An array fails when some item fails `items`."""
        if not (keys <= {"items", "type"} and "items" in keys and schema.get("type", "array") == "array"
                and not isinstance(schema["items"], list)):
            return None
        where = f"{ptr}/items"
        bad = ir.Contains(self.negation(schema["items"], where), self.node(schema["items"], where))
        self.counting = True
        return union((*self.others("array", keys, ptr), ir.Array(contains=bad)))

    def _not_names(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """An object fails when one of its keys fails `propertyNames`: enforced where those keys are finitely many."""
        if not (keys <= {"propertyNames", "type"} and "propertyNames" in keys
                and schema.get("type", "object") == "object"):
            return None
        where = f"{ptr}/propertyNames"
        failing = self.negation(schema["propertyNames"], where)
        options = failing.options if isinstance(failing, ir.Union_) else (failing,)
        if any(isinstance(o, (ir.String, ir.AnyValue)) for o in options):
            raise UnsupportedSchemaError("not", where, "keys failing propertyNames are not finitely many")
        names = [v for o in options if isinstance(o, ir.Const) for v in map(json.loads, o.values) if isinstance(v, str)]
        with_name = [ir.Object(properties=(ir.Property(n, ir.AnyValue(), True),), additional=ir.AnyValue())
                     for n in dict.fromkeys(names)]
        return union((*self.others("object", keys, ptr), *with_name))

    def _not_one_of(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        """None of the options, or at least two of them."""
        if keys != {"oneOf"}:
            return None
        options = [(self.node(sub, f"{ptr}/oneOf/{i}"), self.negation(sub, f"{ptr}/oneOf/{i}"))
                   for i, sub in enumerate(schema["oneOf"])]
        none: ir.Node = ir.AnyValue()
        for _, miss in options:
            none = self.merger.both(none, miss, ptr)
        pairs = [self.merger.both(a, b, ptr) for i, (a, _) in enumerate(options)
                 for b, _ in options[i + 1:]]
        return union((none, *pairs))

    def _not_pattern(self, schema: dict[str, Any], keys: set[str], ptr: str) -> ir.Node | None:
        if not (keys <= {"pattern", "type"} and "pattern" in keys and schema.get("type", "string") == "string"):
            return None
        self.string(schema, ptr)  # refuses patterns it cannot compile
        others = (ir.Null(), ir.Boolean(), ir.Number(), ir.Array(), ANY_OBJECT) if "type" in keys else ()
        return union((*others, ir.String(anti_patterns=(schema["pattern"],))))
