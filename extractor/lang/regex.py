"""Regular expressions over bytes with rule references: the body of every grammar rule."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from typing import Union

from extractor.lang.frozen import keeps_hash


@dataclass(frozen=True)
class Bytes:
    """One byte from a set, the set as a 256-bit integer mask."""

    mask: int


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    """`item` between `min` and `max` times; `max=None` is unbounded."""

    item: Node
    min: int
    max: int | None


@dataclass(frozen=True)
class Ref:
    """A call to another rule: where recursion and shared tables come from."""

    rule: str


@dataclass(frozen=True, eq=False)
class Suffix:
    """`item`, after which the rule ends: built once however often it is referenced.

    Only valid in tail position of a rule body. It lets a body share suffixes as a DAG
    (objects with optional members would otherwise grow quadratically or worse)."""

    item: Node


@dataclass(frozen=True)
class Minus:
    """The language of `item` less that of `other`; only as a whole rule body, neither calling anything."""

    item: Node
    other: Node


@dataclass(frozen=True)
class Both:
    """Strings every item matches (intersection); only as a whole rule body, items calling nothing."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Multiple:
    """Canonical decimals with at most `places` decimal places (none: integers) that are multiples of
    `m * 10**-places` (a remainder automaton over the digits); only inside a rule body's `Both`."""

    m: int
    places: int = 0


@dataclass(frozen=True)
class Substrings:
    """A JSON string (quotes included) whose content is a substring of `text`, each character in
    its canonical spelling; only as a whole rule body or inside its `Both`. With `words`, only
    substrings that cut no word in two and neither start nor end with whitespace."""

    text: str
    words: bool = False


@dataclass(frozen=True)
class Counted:
    """`body` restricted to between `lo` and `hi` counted units, the count kept beside the DFA state
    instead of unrolled into it; only as a whole rule body.

    With `unit` None, each call `body` makes (to `callees`, when given) is one unit: array elements,
    or the elements that match `contains`. Otherwise `body` is a JSON string and each `unit` between
    its quotes is one (code points: `unit` is one character)."""

    body: Node
    lo: int
    hi: int | None
    unit: Node | None = None
    callees: frozenset[str] | None = None


Node = Union[Bytes, Seq, Alt, Repeat, Ref, Suffix, Minus, Both, Multiple, Counted, Substrings]


for _cls in (Seq, Alt, Repeat, Minus, Both, Counted):
    keeps_hash(_cls)

EMPTY = Seq(())
NOTHING = Alt(())


def byte_set(*spans: int | tuple[int, int]) -> Bytes:
    """A byte class from single bytes and inclusive (lo, hi) ranges."""
    mask = 0
    for span in spans:
        lo, hi = span if isinstance(span, tuple) else (span, span)
        mask |= ((1 << (hi - lo + 1)) - 1) << lo
    return Bytes(mask)


_BYTE = tuple(Bytes(1 << b) for b in range(256))  # shared: a 100 KB literal holds references, not objects


def lit(data: bytes | str) -> Node:
    """The exact byte string."""
    raw = data.encode() if isinstance(data, str) else data
    return _BYTE[raw[0]] if len(raw) == 1 else Seq(tuple(_BYTE[b] for b in raw))


def seq(*items: Node) -> Node:
    flat: list[Node] = []
    for item in items:
        if isinstance(item, Seq):
            flat.extend(item.items)
        elif isinstance(item, Alt) and not item.items:
            return NOTHING
        else:
            flat.append(item)
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def alt(*items: Node) -> Node:
    flat: dict[Node, None] = {}  # ordered and deduplicated by hash: a 10k-string enum stays linear
    for item in items:
        flat.update(dict.fromkeys(item.items if isinstance(item, Alt) else (item,)))
    return next(iter(flat)) if len(flat) == 1 else Alt(tuple(flat))


def opt(item: Node) -> Node:
    return Repeat(item, 0, 1)


def star(item: Node) -> Node:
    return Repeat(item, 0, None)


def plus(item: Node) -> Node:
    return Repeat(item, 1, None)


def repeat(item: Node, lo: int, hi: int | None) -> Node:
    if hi is not None and hi < lo:
        return NOTHING
    if hi == 0:
        return EMPTY
    return item if (lo, hi) == (1, 1) else Repeat(item, lo, hi)


def refs(node: Node) -> frozenset[str]:
    """Names of the rules a body calls (each shared node visited once; kept on the body)."""
    kept = node.__dict__.get("_refs")
    if kept is None:
        kept = _refs(node)
        object.__setattr__(node, "_refs", kept)
    return kept


def _refs(node: Node) -> frozenset[str]:
    out: set[str] = set()
    seen: set[int] = set()
    work = [node]
    while work:
        n = work.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, Ref):
            out.add(n.rule)
        elif isinstance(n, (Seq, Alt)):
            work.extend(item for item in n.items if not isinstance(item, Bytes))
        elif isinstance(n, (Repeat, Suffix)):
            work.append(n.item)
        elif isinstance(n, Counted):
            work.append(n.body)
    return frozenset(out)


def digest(node: Node) -> bytes:
    """A structural hash of a body, equal for equal languages written alike: shared nodes (the `Suffix`
    DAG, compared by identity) are hashed once, without recursion, so a wide body costs its size. Each
    node keeps its hash: the terms shared by every schema (strings, numbers) are hashed once per process."""
    work: list[tuple[Node, bool]] = [(node, False)]
    while work:
        n, ready = work.pop()
        if _DIGEST in n.__dict__:
            continue
        names = _FIELDS.get(type(n)) or _FIELDS.setdefault(type(n), tuple(f.name for f in fields(n)))
        if not ready:
            work.append((n, True))
            work.extend((c, False) for name in names for c in _nodes(getattr(n, name)) if _DIGEST not in c.__dict__)
            continue
        h = hashlib.blake2b(type(n).__name__.encode(), digest_size=16)
        for name in names:
            value = getattr(n, name)
            parts = _nodes(value)
            if parts or isinstance(value, tuple):
                h.update(b"(" + b"".join(c.__dict__[_DIGEST] for c in parts) + b")")
            else:
                h.update(repr(sorted(value) if isinstance(value, frozenset) else value).encode() + b";")
        object.__setattr__(n, _DIGEST, h.digest())
    return node.__dict__[_DIGEST]


_DIGEST = "_digest"
"""The attribute where a node keeps its digest (nodes are immutable, so it never goes stale)."""
_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE_TYPES = (Bytes, Seq, Alt, Repeat, Ref, Suffix, Minus, Both, Multiple, Counted, Substrings)


def _nodes(value: object) -> list[Node]:
    """The nodes a field holds: itself, or the items of a tuple of nodes."""
    if isinstance(value, tuple):
        return [v for v in value if isinstance(v, _NODE_TYPES)]
    return [value] if isinstance(value, _NODE_TYPES) else []  # type: ignore[list-item]
