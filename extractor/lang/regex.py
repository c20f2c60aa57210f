"""Regular expressions over bytes with rule references: the body of every grammar rule."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from dataclasses import dataclass, fields
from typing import Union

from extractor.lang.frozen import keeps_hash

try:
    from extractor.lang import _partition as _native
except ImportError:  # built without a C compiler: digests are computed in Python
    _native = None


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
    substrings that start and end where a group of the text does (see `dfa._word_positions`)."""

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
    return _BYTE[mask.bit_length() - 1] if mask and not mask & (mask - 1) else _byte_class(mask)


def single_byte(node: Node) -> int | None:
    """The byte a node reads where it reads exactly one byte (a literal's part), else None."""
    if isinstance(node, Bytes) and node.mask and not node.mask & (node.mask - 1):
        return node.mask.bit_length() - 1
    return None


@lru_cache(maxsize=4096)
def _byte_class(mask: int) -> Bytes:
    """One node per byte class while it is in use: a few hundred classes make up every pattern and format,
    and cached rule bodies would otherwise keep thousands of equal nodes for the collector to walk."""
    return Bytes(mask)


_BYTE = tuple(Bytes(1 << b) for b in range(256))  # shared: a 100 KB literal holds references, not objects


@lru_cache(maxsize=1024)
def lit(data: bytes | str) -> Node:
    """The exact byte string (one node per string while it is in use: keys and punctuation recur across
    schemas, and a shared node keeps its digest); a thousand kept, not more: each is objects the cyclic collector
    walks at every full collection, wherever that lands (a mask call of a server's step)."""
    raw = data.encode() if isinstance(data, str) else data
    return _BYTE[raw[0]] if len(raw) == 1 else Seq(tuple(_BYTE[b] for b in raw))


def seq(*items: Node) -> Node:
    flat: list[Node] = []
    for item in items:
        kind = type(item)  # no node class is subclassed: a type test is an isinstance test, and cheaper
        if kind is Seq:
            flat.extend(item.items)  # type: ignore[union-attr]
        elif kind is Alt and not item.items:  # type: ignore[union-attr]
            return NOTHING
        else:
            flat.append(item)
    return flat[0] if len(flat) == 1 else Seq(tuple(flat))


def alt(*items: Node) -> Node:
    flat: dict[Node, None] = {}  # ordered and deduplicated by hash: a 10k-string enum stays linear
    for item in items:
        flat.update(dict.fromkeys(item.items if isinstance(item, Alt) else (item,)))
    return next(iter(flat)) if len(flat) == 1 else Alt(tuple(flat)) if flat else NOTHING


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
    kept = getattr(node, "_refs", None)  # not through __dict__, which would make one for the collector to walk
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
    node keeps its hash: the terms shared by every schema (strings, numbers) are hashed once per process.
    Computed in C where the extension is built (the same bytes: `lang/_partition.c`)."""
    kept = getattr(node, _DIGEST, None)
    if kept is not None:
        return kept
    if _native is not None:
        return _native.digest(node, _CORE, _digest_other)
    work: list[Node] = [node]
    while work:
        n = work[-1]
        if hasattr(n, _DIGEST):
            work.pop()
            continue
        kind = type(n)
        if kind not in _TAG:
            _digest_other(n)
            work.pop()
            continue
        parts = n.items if kind is Seq or kind is Alt else (n.item,) if kind is Repeat or kind is Suffix else ()
        missing = [c for c in parts if not hasattr(c, _DIGEST)]
        if missing:
            work.extend(missing)
            continue
        work.pop()
        object.__setattr__(n, _DIGEST, _hash(n, kind, parts))  # type: ignore[arg-type]
    return getattr(node, _DIGEST)


def _hash(n: Node, kind: type, parts: tuple[Node, ...]) -> bytes:
    """The digest of a node of a kind the native digest reads, from its parts' (16 bytes each, so their
    concatenation reads one way only)."""
    data = _TAG[kind] + b"".join(getattr(c, _DIGEST) for c in parts)
    if kind is Repeat:
        data += repr((n.min, n.max)).encode()  # type: ignore[union-attr]
    elif kind is Bytes:
        data += n.mask.to_bytes(32, "little")  # type: ignore[union-attr]
    elif kind is Ref:
        data += n.rule.encode()  # type: ignore[union-attr]
    return hashlib.blake2b(data, digest_size=16).digest()


def _digest_other(node: Node) -> bytes:
    """The digest of a node of any other kind (an intersection, a difference, a counter...), its parts
    digested first, kept on it; the native digest hands these back to Python."""
    data = type(node).__name__.encode()
    for name in _fields(type(node)):
        value = getattr(node, name)
        held = _nodes(value)
        if held or isinstance(value, tuple):
            data += b"(" + b"".join(digest(c) for c in held) + b")"
        else:
            data += repr(sorted(value) if isinstance(value, frozenset) else value).encode() + b";"
    made = hashlib.blake2b(data, digest_size=16).digest()
    object.__setattr__(node, _DIGEST, made)
    return made


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(f.name for f in fields(kind))
    return names


_DIGEST = "_digest"
"""The attribute where a node keeps its digest (nodes are immutable, so it never goes stale)."""
_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE_TYPES = (Bytes, Seq, Alt, Repeat, Ref, Suffix, Minus, Both, Multiple, Counted, Substrings)
_TAG = {Seq: b"\0S", Alt: b"\0A", Suffix: b"\0X", Repeat: b"\0R", Bytes: b"\0B", Ref: b"\0F"}
"""The node kinds digested without recursion (in C where built), each with the tag its digest starts with."""
_CORE = (Bytes, Ref, Seq, Alt, Repeat, Suffix)
"""Those kinds in the order the native digest takes them."""


def _nodes(value: object) -> list[Node]:
    """The nodes a field holds: itself, or the items of a tuple of nodes."""
    if isinstance(value, tuple):
        return [v for v in value if isinstance(v, _NODE_TYPES)]
    return [value] if isinstance(value, _NODE_TYPES) else []  # type: ignore[list-item]
