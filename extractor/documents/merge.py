"""One object from the windows' objects, by the target's schema: members field by field, lists joined in text
order with items seen in more than one window collapsed, scalars taken from the window whose text holds them,
and every disagreement kept."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from extractor.schema.window import admits_null
from extractor.tracing.record import Conflict, Incomplete
from extractor.tracing.views import fold

Grounded = Callable[[int, str], bool]
"""Whether window `i`'s text holds the value at a JSON pointer of that window's own object."""
Rank = Callable[[int], float]
"""How much window `i` holds the target (higher first): a scalar is taken from the highest-ranked window whose
text holds it."""


@dataclass
class Merged:
    """The merged value, where each of its leaves came from, and what the merge could not settle."""

    value: Any
    origin: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Each leaf's pointer in the merged value → (the window it was taken from, its pointer in that window's own
    object)."""
    conflicts: list[Conflict] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Pointers of required members (outside list items) no window wrote."""
    incomplete: list[Incomplete] = field(default_factory=list)
    sources: dict[str, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    """Each conflict's pointer → every (window, pointer in that window's own object) that wrote a value there."""


Part = tuple[int, Any, str]
"""One window's value at some place: (window index, value, its pointer in the window's own object)."""


def merge(schema: dict[str, Any], values: Sequence[tuple[int, Any]], grounded: Grounded,
          rank: Rank | None = None) -> Merged:
    """Merge the windows' values (window index, the object it wrote under the window form; None where it wrote
    none) into one value of `schema` (the target's JSON Schema, `$defs` and all); scalars from the windows in
    `rank`'s order (highest first; the windows' own order where None or equal)."""
    merger = _Merger(schema, grounded, rank or (lambda i: 0.0))
    merged = merger.merge(schema, [(w, v, "") for w, v in values if v is not None], "")
    merger.out.value = merged
    return merger.out


class _Merger:
    def __init__(self, root: dict[str, Any], grounded: Grounded, rank: Rank) -> None:
        self.root, self.grounded, self.rank, self.out = root, grounded, rank, Merged(None)

    def merge(self, schema: Any, parts: list[Part], pointer: str) -> Any:
        schema = self.resolve(schema)
        parts = [p for p in parts if p[1] is not None]
        if not parts:
            return None
        if all(isinstance(p[1], dict) for p in parts) and isinstance(self.object_shape(schema), dict):
            return self.merge_object(self.object_shape(schema), parts, pointer)
        if all(isinstance(p[1], list) for p in parts):
            return self.merge_list(self.list_items(schema), parts, pointer)
        return self.merge_scalar(parts, pointer)

    def merge_object(self, schema: dict[str, Any], parts: list[Part], pointer: str) -> dict[str, Any]:
        members: dict[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        keys = [*members, *dict.fromkeys(k for _, v, _ in parts for k in v if k not in members)]
        out: dict[str, Any] = {}
        for key in keys:
            sub = [(w, v[key], f"{at}/{escape(key)}") for w, v, at in parts if key in v]
            if not sub:
                continue
            value = self.merge(members.get(key, True), sub, f"{pointer}/{escape(key)}")
            if value is None and not admits_null(self.resolve(members.get(key, True))):
                if key in required:
                    out[key] = None
                    self.out.missing.append(f"{pointer}/{escape(key)}")
                continue
            out[key] = value
        return out

    def merge_list(self, items: Any, parts: list[Part], pointer: str) -> list[Any]:
        """Items in window order; an item written again (by the overlapping next window, or repeated) is merged
        into the first: the same value (`value_key`), or an object agreeing on every identifying member both wrote."""
        groups: list[list[Part]] = []
        index: dict[Hashable, list[int]] = {}
        for w, value, at in parts:
            for i, item in enumerate(value):
                part, keys = (w, item, f"{at}/{i}"), self.identity(items, item)
                same = next((g for k in keys for g in index.get(k, ()) if self.agree(items, groups[g][0][1], item)),
                            None)
                if same is None:
                    index_of = len(groups)
                    groups.append([part])
                    for k in keys:
                        index.setdefault(k, []).append(index_of)
                else:
                    groups[same].append(part)
        out = []
        for group in groups:
            mark = len(self.out.missing)
            value = self.merge(items, group, f"{pointer}/{len(out)}")
            lacking = self.out.missing[mark:]
            if lacking:  # an item without a required member is kept aside, not returned half-made
                del self.out.missing[mark:]
                self.out.incomplete.append(Incomplete(f"{pointer}/{len(out)}", value,
                                                      tuple(p[0] for p in group), tuple(lacking)))
                continue
            out.append(value)
        return out

    def merge_scalar(self, parts: list[Part], pointer: str) -> Any:
        """The value of the highest-ranked window whose text holds it, else of the highest-ranked; the others kept
        as a conflict."""
        ranked = sorted(parts, key=lambda p: -self.rank(p[0]))
        kept = next((p for p in ranked if self.grounded(p[0], p[2])), ranked[0])
        self.out.origin[pointer] = (kept[0], kept[2])
        others = tuple((v, w) for w, v, _ in parts if value_key(v) != value_key(kept[1]))
        if others:
            self.out.conflicts.append(Conflict(pointer, kept[1], kept[0], others))
            self.out.sources[pointer] = tuple((w, at) for w, _, at in parts)
        return kept[1]

    def identity(self, items: Any, item: Any) -> list[Hashable]:
        """The keys an item is looked up by: its value's `value_key`, or for an object each identifying member's."""
        shape = self.object_shape(self.resolve(items))
        if isinstance(item, dict) and isinstance(shape, dict):
            return [(k, value_key(item[k])) for k in self.identifying(shape) if item.get(k) is not None]
        return [value_key(item)]

    def agree(self, items: Any, a: Any, b: Any) -> bool:
        """Whether two items are one: the same value, or objects whose identifying members are the same wherever
        both wrote one (and both wrote at least one)."""
        shape = self.object_shape(self.resolve(items))
        if not (isinstance(a, dict) and isinstance(b, dict) and isinstance(shape, dict)):
            return value_key(a) == value_key(b)
        both = [k for k in self.identifying(shape) if a.get(k) is not None and b.get(k) is not None]
        return bool(both) and all(value_key(a[k]) == value_key(b[k]) for k in both)

    def identifying(self, shape: dict[str, Any]) -> list[str]:
        """An object's identifying members: its required scalar members, or every scalar member if none is."""
        members = shape.get("properties") or {}
        scalar = [k for k, s in members.items() if self.scalar(s)]
        required = [k for k in scalar if k in (shape.get("required") or ())]
        return required or scalar

    def scalar(self, schema: Any) -> bool:
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return False
        kinds = schema.get("type")
        kinds = [kinds] if isinstance(kinds, str) else kinds or []
        if any(k in ("object", "array") for k in kinds) or "properties" in schema or "items" in schema:
            return False
        branches = [b for key in ("anyOf", "oneOf") for b in schema.get(key) or ()]
        return all(self.scalar(b) for b in branches) if branches else bool(kinds) or "enum" in schema or \
            "const" in schema or "format" in schema

    def object_shape(self, schema: Any) -> dict[str, Any] | None:
        """The object schema a member's value takes: itself, or its one non-null branch (`Optional[Model]`)."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return None
        if "properties" in schema or schema.get("type") == "object":
            return schema
        branches = [self.resolve(b) for key in ("anyOf", "oneOf") for b in schema.get(key) or ()]
        shaped = [b for b in branches if isinstance(b, dict) and ("properties" in b or b.get("type") == "object")]
        return shaped[0] if len(shaped) == 1 else None

    def list_items(self, schema: Any) -> Any:
        schema = self.resolve(schema)
        if isinstance(schema, dict) and "items" in schema:
            return schema["items"]
        branches = [self.resolve(b) for key in ("anyOf", "oneOf") for b in (schema or {}).get(key) or ()] \
            if isinstance(schema, dict) else []
        return next((b["items"] for b in branches if isinstance(b, dict) and "items" in b), True)

    def resolve(self, schema: Any) -> Any:
        """A schema with its local `$ref`s followed (the target's `$defs`)."""
        for _ in range(64):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
                return schema
            node: Any = self.root
            for step in schema["$ref"].lstrip("#").split("/")[1:]:
                node = node.get(step.replace("~1", "/").replace("~0", "~"), {}) if isinstance(node, dict) else {}
            schema = node
        return schema


def member(schema: dict[str, Any], pointer: str) -> Any:
    """The (resolved) schema of the value at a JSON pointer of `schema`'s instances; True where it says nothing."""
    merger = _Merger(schema, lambda i, p: False, lambda i: 0.0)
    node: Any = merger.resolve(schema)
    for step in pointer.split("/")[1:]:
        shape = merger.object_shape(node)
        if isinstance(shape, dict) and "properties" in shape:
            node = (shape.get("properties") or {}).get(step.replace("~1", "/").replace("~0", "~"), True)
        else:
            node = merger.list_items(node)
        node = merger.resolve(node)
    return node


def value_key(value: Any) -> Hashable:
    """A JSON value's key, equal for two values exactly when they are one value: strings folded for case and
    spacing only (the trace's `folded` form: NFKC, casefold, whitespace collapsed; never a sign or a symbol
    dropped, so `C`, `C++` and `C#` stay three), numbers compared exactly by value (`_number`: `2` and `2.0` are
    one; a bool is not a number), arrays and objects member by member (members by name). A flat tuple, the
    value's parts in order, each array and object led by its size: made, hashed and compared without
    recursion, however deeply the value nests."""
    out: list[Hashable] = []
    work: list[tuple[bool, Any]] = [(False, value)]  # (whether it is a part of the key already, what)
    while work:
        made, item = work.pop()
        if made:
            out.append(item)
        elif isinstance(item, dict):
            out.append(("o", len(item)))
            for name in sorted(item, reverse=True):  # popped in order: each name, then its value
                work += ((False, item[name]), (True, ("k", name)))
        elif isinstance(item, (list, tuple)):
            out.append(("a", len(item)))
            work += ((False, v) for v in reversed(item))
        elif isinstance(item, str):
            out.append(("s", fold(item)))
        elif isinstance(item, bool) or item is None:
            out.append(("j", item))
        else:
            out.append(("n", _number(item)))
    return tuple(out)


def _number(value: int | float | Decimal) -> Hashable:
    """A number's exact value as (sign, significant digits, exponent of the last one), zero as 0: an int or a
    float is converted exactly (never through a float, so big ints stay apart; nor expanded, so `1e999999999` as
    a Decimal stays short); NaN and the infinities as their names."""
    exact = value if isinstance(value, Decimal) else Decimal(value)
    if not exact.is_finite():
        return "NaN" if exact.is_nan() else str(exact)
    sign, digits, exponent = exact.as_tuple()
    text = "".join(map(str, digits)).rstrip("0")
    return (sign, text, int(exponent) + len(digits) - len(text)) if text else 0


def escape(key: str) -> str:
    """A member name as one JSON pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")
