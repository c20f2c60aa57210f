"""Whether the IR of a subschema is exactly its language, and whether its complement's is.

The normalizer reads a subschema without `type` as the type its keywords imply (`{"maxItems": 3}` is an array of
at most three items, where JSON Schema lets every non-array pass too). That narrowing is sound where values are
generated, but not where the IR stands for the language itself: a `oneOf` option skipped as apart from another by
its IR, or one whose complement is not taken because its IR was trusted. These checks say where the IR may be
trusted; any narrowing here or in a subschema below (a property's value, an item, a `$ref`'s target) makes it
inexact, and so does anything they cannot judge (the caller then intersects with a complement, or refuses).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from extractor.errors import InvalidSchemaError
from extractor.schema.keywords import APPLICATORS, ENFORCED, IMPLYING

MAX_DEPTH = 128
"""Subschemas judged one inside the other: deeper is taken as inexact (the normalizer refuses past 96 anyway)."""

_SINGLE = ("additionalProperties", "items", "additionalItems", "contains", "propertyNames", "if", "then", "else",
           "not")
_LISTED = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_NAMED = ("properties", "patternProperties", "dependentSchemas", "dependencies")
_SAME_VALUE = frozenset({"allOf", "anyOf", "if", "then", "else"})
"""Subschemas that judge the same value as their parent (so a type it is known to have holds for them too)."""
_DEMANDS = frozenset({"dependentSchemas", "dependencies"})
"""Subschemas that judge an object holding some key."""
_CUTS = ("object", "array", "string", "number")
_COMPLEMENT_ONLY = frozenset({"anyOf", "allOf", "properties", "propertyNames"})
"""Where a complement reads only the subschemas' complements, never their IR (`Negation`'s shapes)."""
_OWN_TYPE = frozenset({"type", "enum", "const"})
_KEYWORDS_OF = {**IMPLYING, "object": IMPLYING["object"] | {"dependencies", "dependentRequired", "dependentSchemas"},
                "integer": IMPLYING["number"]}
"""The keywords that concern only values of each type."""


def subschemas(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Each subschema of `schema` (but a `$ref`'s target), with the keyword it is under."""
    for key in _SINGLE:
        if key in schema and not isinstance(schema[key], list):
            yield key, schema[key]
    for key in _LISTED:
        if isinstance(schema.get(key), list):
            yield from ((key, sub) for sub in schema[key])
    for key in _NAMED:
        if isinstance(schema.get(key), dict):
            yield from ((key, sub) for sub in schema[key].values() if not isinstance(sub, list))


def vacuous(schema: Any, kind: str, depth: int = 0) -> bool:
    """Whether every value not of type `kind` satisfies `schema`: its keywords (and those of its allOf,
    anyOf and one-option oneOf) all concern `kind` alone."""
    if schema is True:
        return True
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return False
    nested = {"allOf", "anyOf"} | ({"oneOf"} if len(schema.get("oneOf", [])) == 1 else set())
    if {k for k in schema if k in ENFORCED} - _KEYWORDS_OF.get(kind, frozenset()) - nested:
        return False
    return all(vacuous(sub, kind, depth + 1) for key in nested & set(schema) for sub in schema[key])


def _cut(options: list[Any], kind: str | None) -> str | None:
    """The type within which a oneOf's options are judged: the value's own, or the one type they all speak of
    alone (any other value matches them all, so the normalizer cuts them to it, exactly)."""
    if kind is not None or len(options) < 2:
        return kind
    return next((k for k in _CUTS if all(vacuous(sub, k) for sub in options)), None)


class Exactness:
    """Judges subschemas of one document; `lookup` gives a `$ref`'s target (InvalidSchemaError where none)."""

    def __init__(self, document: Any, lookup: Callable[[str], Any], implied_types: bool) -> None:
        self.document, self.lookup, self.implied_types = document, lookup, implied_types
        self.path: set[tuple[int, str, str | None]] = set()  # $ref targets being judged (a cycle is exact)
        self.known: dict[tuple[int, str, str | None], bool] = {}
        self.assumed = 0
        """Judgements taken on trust so far (a cycle met again, a schema too deep): a result reached without any
        is final and kept, so each schema is judged once however many options reach it."""
        self.provisional: dict[tuple[int, str, str | None], bool] = {}
        """Results reached on trust, kept for the rest of one question (`explicit`, `exact_complement`): every
        check is a conjunction, so a question's answer is the same whether a schema met again is judged again or
        read from here (a trusted cycle that fails fails every schema on it, up to the question), and a
        recursive schema is judged once per question, not once per path through its `$ref`s. Kept beyond the
        question where its answer is yes (then every result reached on the way holds)."""
        self.uncut: set[int] = set()
        """oneOf schemas of several options the normalizer has read without taking any option's complement (apart
        as they are, or cut to one type): their options' complements are not part of their IR."""
        self.cut: set[int] = set()  # those it has read cutting an option by another's complement, at least once

    def suppose_uncut(self, schema: dict[str, Any]) -> None:
        """Judge as if the normalizer reads this oneOf without complements, until it says how it did (a oneOf
        read both ways before stays cut)."""
        if id(schema) not in self.cut:
            self.uncut.add(id(schema))

    def withdraw(self, schema: dict[str, Any]) -> None:
        """Drop a supposition that did not hold, with every judgement made under it."""
        if id(schema) in self.uncut:
            self.uncut.discard(id(schema))
            self.known.clear()

    def read_one_of(self, schema: dict[str, Any], complemented: bool) -> None:
        """Record how the normalizer read a oneOf: whether its IR took an option's complement. A schema read both
        ways counts as cut, and judgements made while it counted as uncut are dropped."""
        if complemented:
            self.withdraw(schema)
            self.cut.add(id(schema))
        elif id(schema) not in self.cut:
            self.uncut.add(id(schema))

    def explicit(self, schema: Any, kind: str | None = None) -> bool:
        """True when the IR of `schema` is exactly its language (within type `kind`, where one is given)."""
        return self._question("explicit", schema, kind)

    def exact_complement(self, schema: Any) -> bool:
        """True when the complement the normalizer takes of `schema` is exactly the complement of its language."""
        return self._question("complement", schema, None)

    def _question(self, check: str, schema: Any, kind: str | None) -> bool:
        self.provisional = {}
        try:
            found = self._judge(check, schema, kind, 0)
            if found:
                self.known.update(self.provisional)
            return found
        finally:
            self.provisional = {}

    def _judge(self, check: str, schema: Any, kind: str | None, depth: int) -> bool:
        if isinstance(schema, bool):
            return True
        key = (id(schema), check, kind)
        known = self.known.get(key, self.provisional.get(key))
        if known is not None:
            return known
        if depth > MAX_DEPTH:
            self.assumed += 1
            return False
        before = self.assumed
        if not self._judged(schema):
            found = False
        elif check == "explicit":
            found = self._explicit(schema, kind, depth)
        else:
            found = self._complement(schema, depth)
        (self.known if self.assumed == before else self.provisional)[key] = found
        return found

    def _explicit(self, schema: dict[str, Any], kind: str | None, depth: int) -> bool:
        own = {k for k in schema if k in ENFORCED} - APPLICATORS
        if self.implied_types and own and not own & _OWN_TYPE and not (kind and own <= _KEYWORDS_OF.get(kind, set())):
            return False  # a type read from the keywords narrows the language
        declared = schema.get("type")
        here = declared if isinstance(declared, str) else kind  # the value's type, where one is known
        for key, sub in subschemas(schema):
            if key == "not":
                exact = self._judge("complement", sub, None, depth + 1)
            else:
                inner = (here if key in _SAME_VALUE else _cut(schema["oneOf"], here) if key == "oneOf"
                         else "object" if key in _DEMANDS else None)
                exact = self._judge("explicit", sub, inner, depth + 1) and (
                    not self._complemented(key, schema) or self._judge("complement", sub, None, depth + 1))
            if not exact:
                return False
        return self._target(schema, "explicit", here, depth)

    def _complement(self, schema: dict[str, Any], depth: int) -> bool:
        for key, sub in subschemas(schema):
            if key == "not":
                exact = self._judge("explicit", sub, None, depth + 1)
            else:
                exact = self._judge("complement", sub, None, depth + 1) and (
                    key in _COMPLEMENT_ONLY or self._judge("explicit", sub, None, depth + 1))
            if not exact:
                return False
        return self._target(schema, "complement", None, depth)

    def _complemented(self, key: str, schema: dict[str, Any]) -> bool:
        """Whether the normalizer may also take the complement of a subschema under `key`: an `if` (for `else`),
        what `contains` counts (an element matches it or its complement), an option of a oneOf of several (cut by
        the others' complements) unless that oneOf was read without them (one not yet read may still be)."""
        return key in ("if", "contains") or (key == "oneOf" and len(schema["oneOf"]) > 1
                                             and id(schema) not in self.uncut)

    def _judged(self, schema: Any) -> bool:
        """A schema these checks can read: an object with no base URI of its own (its $refs would resolve against
        it, which `lookup` does not follow)."""
        return isinstance(schema, dict) and (schema is self.document or not isinstance(schema.get("$id"), str))

    def _target(self, schema: dict[str, Any], check: str, kind: str | None, depth: int) -> bool:
        """The check on a `$ref`'s target; one met again on the way is exact where every schema on the cycle is."""
        if "$ref" not in schema:
            return True
        try:
            target = self.lookup(schema["$ref"])
        except InvalidSchemaError:
            return False
        step = (id(target), check, kind)
        if step in self.path:
            self.assumed += 1
            return True
        self.path.add(step)
        try:
            return self._judge(check, target, kind, depth + 1)
        finally:
            self.path.discard(step)
