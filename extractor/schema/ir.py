"""The typed intermediate form between JSON Schema and grammar: one node per value shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Union

from extractor.lang.frozen import keeps_hash


@dataclass(frozen=True)
class Doc:
    """What a schema tells people rather than validators (`description`, `examples`): the prompt says it."""

    description: str = ""
    examples: tuple[Any, ...] = ()
    from_text: bool = False
    """`x-from-text`: every value under this member must be found in the source text (`FromText`)."""


NO_DOC = Doc()


@dataclass(frozen=True)
class AnyValue:
    """Any JSON value (the schema `{}` or `true`)."""


@dataclass(frozen=True)
class Nothing:
    """No value at all (the schema `false`, or an empty enum)."""


@dataclass(frozen=True)
class Null:
    pass


@dataclass(frozen=True)
class Boolean:
    pass


@dataclass(frozen=True)
class Const:
    """A finite set of JSON values (`enum`, `const`), kept as compact JSON text."""

    values: tuple[str, ...]


@dataclass(frozen=True)
class String:
    min_length: int = 0
    max_length: int | None = None
    format: str | None = None
    patterns: tuple[str, ...] = ()
    anti_patterns: tuple[str, ...] = ()  # from `not: {pattern}`: none of these may match
    excluded: tuple[str, ...] = ()  # from `not: {enum}`: these values (compact JSON) are not allowed
    verbatim: bool = False  # `x-verbatim`: a substring of the source text (given at compile time)
    pointer: str = field(default="", compare=False)


@dataclass(frozen=True)
class Number:
    """A number, or an integer; bounds are exact decimals (None: unbounded), exclusive where flagged."""

    integer: bool = False
    minimum: Decimal | None = None
    exclusive_minimum: bool = False
    maximum: Decimal | None = None
    exclusive_maximum: bool = False
    multiple_of: Decimal | None = None
    fraction: bool = False
    """The value must not be an integer (the complement of `integer` among numbers)."""
    not_multiples: tuple[int, ...] = ()
    """An integer divisible by none of these (the complement of an integral `multipleOf`; `integer` set)."""
    pointer: str = field(default="", compare=False)
    """Where the schema wrote it (of two merged, the one with a `multipleOf`), for errors about its step."""


@dataclass(frozen=True)
class Property:
    name: str
    value: Node
    required: bool
    doc: Doc = field(default=NO_DOC, compare=False)


@dataclass(frozen=True)
class Object:
    """Declared properties in order; `additional` is the schema of undeclared keys, or None when closed."""

    properties: tuple[Property, ...] = ()
    additional: Node | None = None
    pattern_groups: tuple[tuple[tuple[str, ...], Node], ...] = ()
    """patternProperties: for each non-empty set of patterns, the schema of undeclared keys matching
    exactly those; `additional` covers keys matching none."""
    key_schema: Node | None = None
    """propertyNames for undeclared keys: a String or a Const of strings (None: any key)."""
    min_properties: int = 0
    max_properties: int | None = None
    some_undeclared: bool = False
    """At least one member outside `properties` (what the complement of a closed object asks for)."""
    policy_closed: bool = field(default=False, compare=False)
    """`additional` came from an absent or `true` additionalProperties: strict_objects closes it at the end."""
    doc: Doc = field(default=NO_DOC, compare=False)


@dataclass(frozen=True)
class Contains:
    """Between `min` and `max` elements match `match`; `miss` is the exact complement of `match`.

    `split` is filled by normalization's last pass: for each prefix position and then for
    `items`, the element schema intersected with `match` and with `miss`."""

    match: Node
    miss: Node
    min: int = 1
    max: int | None = None
    split: tuple[tuple[Node, Node], ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Array:
    items: Node | None = field(default_factory=AnyValue)
    prefix: tuple[Node, ...] = ()
    min_items: int = 0
    max_items: int | None = None
    contains: Contains | None = None
    unique: bool = False
    pointer: str = field(default="", compare=False)


@dataclass(frozen=True)
class Union_:
    """Any one of the options (anyOf, and oneOf over disjoint options)."""

    options: tuple[Node, ...]


@dataclass(frozen=True)
class Ref:
    """A named definition, resolved through `Schema.defs`; the only way to recurse."""

    name: str


Node = Union[AnyValue, Nothing, Null, Boolean, Const, String, Number, Object, Array, Union_, Ref]

for _cls in (Property, Object, Contains, Array, Union_):
    keeps_hash(_cls)


@dataclass
class Schema:
    """A whole normalized schema: the root node plus the definitions its Refs name."""

    root: Node
    defs: dict[str, Node] = field(default_factory=dict)
