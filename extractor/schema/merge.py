"""Intersection of IR nodes: how allOf, and keywords beside $ref/anyOf/oneOf, become one node."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from decimal import Decimal

from extractor.errors import SchemaTooComplexError, UnsupportedSchemaError
from extractor.lang.pattern import pattern_matches
from extractor.schema import ir
from extractor.schema.values import object_or_nothing, union


MAX_PAIRS = 20_000
"""Alternatives intersected per schema: intersections distribute over unions, so nested complements and
dependencies could multiply without end."""


MAX_MET = 64
"""Ways an intersection may spell out how each side's need for an undeclared key is met (see `Merger.object`)."""


class Merger:
    """Intersects nodes; a Ref meeting anything becomes a new named definition, so recursion terminates."""

    def __init__(self, defs: dict[str, ir.Node | None]) -> None:
        self.defs = defs
        self.made: dict[tuple[ir.Node, ir.Node], str] = {}
        self.met: dict[tuple[ir.Node, ir.Node, tuple, tuple], ir.Node] = {}
        """Intersections already made, by both sides and what equality leaves out of them (`_unequal`): a oneOf's
        options are cut by the same complements many times over."""
        self.pairs = 0  # option pairs intersected so far, bounded by MAX_PAIRS

    def both(self, a: ir.Node, b: ir.Node, ptr: str) -> ir.Node:
        if isinstance(a, ir.AnyValue) or a == b:
            return b
        if isinstance(b, ir.AnyValue):
            return a
        if isinstance(a, ir.Nothing) or isinstance(b, ir.Nothing):
            return ir.Nothing()
        if isinstance(a, ir.Ref) or isinstance(b, ir.Ref):
            return self.ref(a, b, ptr)
        key = (a, b, _unequal(a), _unequal(b))
        met = self.met.get(key)
        if met is None:
            met = self.met[key] = self._both(a, b, ptr)
        return met

    def _both(self, a: ir.Node, b: ir.Node, ptr: str) -> ir.Node:
        if isinstance(a, ir.Union_) or isinstance(b, ir.Union_):  # distribute; `a` stays first (its key order)
            pairs = [(o, b) for o in a.options] if isinstance(a, ir.Union_) else [(a, o) for o in b.options]
            self.pairs += len(pairs)
            if self.pairs > MAX_PAIRS:
                raise SchemaTooComplexError(ptr, f"intersecting its alternatives (anyOf, oneOf, not, dependencies) "
                                                 f"takes more than {MAX_PAIRS:,} steps")
            kept = [n for n in (self.both(x, y, ptr) for x, y in pairs) if not isinstance(n, ir.Nothing)]
            return ir.Nothing() if not kept else kept[0] if len(kept) == 1 else ir.Union_(tuple(dict.fromkeys(kept)))
        if isinstance(b, ir.Const):
            a, b = b, a
        if isinstance(a, ir.Const):
            kept = tuple(v for v in a.values if self.admits(b, json.loads(v), ptr))
            return ir.Const(kept) if kept else ir.Nothing()
        if type(a) is not type(b):
            return ir.Nothing()
        if isinstance(a, ir.Number):
            return self.number(a, b)  # type: ignore[arg-type]
        if isinstance(a, ir.String):
            return self.string(a, b, ptr)  # type: ignore[arg-type]
        if isinstance(a, ir.Array):
            return self.array(a, b, ptr)  # type: ignore[arg-type]
        if isinstance(a, ir.Object):
            return self.object(a, b, ptr)  # type: ignore[arg-type]
        return a  # Null, Boolean

    def ref(self, a: ir.Node, b: ir.Node, ptr: str) -> ir.Node:
        """A definition for the intersection (it may recur inside itself), or Nothing where it turned out empty:
        a reference to an empty definition would leave its callers to be built and found empty one by one."""
        key = (a, b)
        if key not in self.made:
            name = self.made[key] = f"{_name(a)}&{_name(b)}#{len(self.made)}"
            self.defs[name] = None
            left, right = self.resolve(a, ptr), self.resolve(b, ptr)
            self.defs[name] = self.both(left, right, ptr)
        name = self.made[key]
        return ir.Nothing() if isinstance(self.defs.get(name), ir.Nothing) else ir.Ref(name)

    @contextmanager
    def attempt(self) -> Iterator[None]:
        """Intersections the caller may give up on: when they raise, the definitions they made are forgotten
        (a half-made one would otherwise stay unresolved)."""
        made, met = len(self.made), len(self.met)  # both only grow: what an attempt adds comes last
        try:
            yield
        except UnsupportedSchemaError:
            while len(self.made) > made:
                self.defs.pop(self.made.popitem()[1], None)
            while len(self.met) > met:  # an intersection made meanwhile may name a forgotten definition
                self.met.popitem()
            raise

    def resolve(self, node: ir.Node, ptr: str) -> ir.Node:
        while isinstance(node, ir.Ref):
            target = self.defs.get(node.name)
            if target is None:
                raise UnsupportedSchemaError("allOf", ptr, f"intersecting {node.name!r} inside its own definition")
            node = target
        return node

    def number(self, a: ir.Number, b: ir.Number) -> ir.Node:
        lo, lo_x = _tighter(a.minimum, a.exclusive_minimum, b.minimum, b.exclusive_minimum, max)
        hi, hi_x = _tighter(a.maximum, a.exclusive_maximum, b.maximum, b.exclusive_maximum, min)
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_x or hi_x))):
            return ir.Nothing()
        step = a.multiple_of if b.multiple_of is None else b.multiple_of if a.multiple_of is None else None
        if a.multiple_of is not None and b.multiple_of is not None:
            if a.multiple_of == b.multiple_of or (a.multiple_of % b.multiple_of == 0):
                step = a.multiple_of
            elif b.multiple_of % a.multiple_of == 0:
                step = b.multiple_of
            elif a.multiple_of == int(a.multiple_of) and b.multiple_of == int(b.multiple_of):
                step = Decimal(math.lcm(int(a.multiple_of), int(b.multiple_of)))
            else:
                raise UnsupportedSchemaError("multipleOf", f"{b.pointer}/multipleOf", "two fractional steps at once")
        fraction = a.fraction or b.fraction
        if fraction and (a.integer or b.integer or (step is not None and step == step.to_integral_value())):
            return ir.Nothing()
        avoid = tuple(dict.fromkeys(a.not_multiples + b.not_multiples))
        if avoid and (fraction or (step is not None and any(step % k == 0 for k in avoid))):
            return ir.Nothing()
        return ir.Number(integer=a.integer or b.integer or bool(avoid), minimum=lo, exclusive_minimum=lo_x,
                         maximum=hi, exclusive_maximum=hi_x, multiple_of=step, fraction=fraction, not_multiples=avoid,
                         pointer=b.pointer if a.multiple_of is None and b.multiple_of is not None else a.pointer)

    def string(self, a: ir.String, b: ir.String, ptr: str) -> ir.Node:
        if a.format and b.format and a.format != b.format:
            raise UnsupportedSchemaError("format", ptr, f"two formats {a.format!r} and {b.format!r} at once")
        hi = b.max_length if a.max_length is None else a.max_length if b.max_length is None else min(
            a.max_length, b.max_length)
        lo = max(a.min_length, b.min_length)
        if hi is not None and hi < lo:
            return ir.Nothing()
        return ir.String(min_length=lo, max_length=hi, format=a.format or b.format,
                         patterns=tuple(dict.fromkeys(a.patterns + b.patterns)),
                         anti_patterns=tuple(dict.fromkeys(a.anti_patterns + b.anti_patterns)),
                         excluded=tuple(dict.fromkeys(a.excluded + b.excluded)), verbatim=a.verbatim or b.verbatim,
                         pointer=a.pointer)

    def array(self, a: ir.Array, b: ir.Array, ptr: str) -> ir.Node:
        n = max(len(a.prefix), len(b.prefix))
        prefix = tuple(self.both(_at(a, i), _at(b, i), ptr) for i in range(n))
        items = None if a.items is None or b.items is None else self.both(a.items, b.items, ptr)
        hi = b.max_items if a.max_items is None else a.max_items if b.max_items is None else min(
            a.max_items, b.max_items)
        if a.contains is not None and b.contains is not None and a.contains != b.contains:
            raise UnsupportedSchemaError("contains", ptr, "two different `contains` on one array (two counters)")
        return ir.Array(items=items, prefix=prefix, min_items=max(a.min_items, b.min_items), max_items=hi,
                        contains=a.contains or b.contains, unique=a.unique or b.unique, pointer=a.pointer)

    def object(self, a: ir.Object, b: ir.Object, ptr: str) -> ir.Node:
        """Members merged by name; patternProperties/propertyNames may come from one side only (the
        other side's `additionalProperties` then also applies to every pattern group)."""
        patterned = [x for x in (a, b) if x.pattern_groups or x.key_schema is not None]
        if len(patterned) > 1:
            raise UnsupportedSchemaError("patternProperties", ptr,
                                         "intersecting two objects that both have patternProperties or propertyNames")
        names = list(dict.fromkeys([p.name for p in a.properties] + [p.name for p in b.properties]))
        pa, pb = {p.name: p for p in a.properties}, {p.name: p for p in b.properties}
        props = []
        for name in names:
            value = self.both(self.member(a, pa, name, ptr), self.member(b, pb, name, ptr), f"{ptr}/properties/{name}")
            required = (name in pa and pa[name].required) or (name in pb and pb[name].required)
            docs = [side[name].doc for side in (pa, pb) if name in side and side[name].doc != ir.NO_DOC]
            doc = docs[0] if docs else ir.NO_DOC
            if any(d.from_text for d in docs) and not doc.from_text:  # a FromText mark on either side holds
                doc = replace(doc, from_text=True)
            props.append(ir.Property(name, value, required, doc))
        additional = None if a.additional is None or b.additional is None else self.both(
            a.additional, b.additional, ptr)
        groups, key_schema = (), None
        if patterned:
            side, other = patterned[0], (b if patterned[0] is a else a)
            rest = other.additional if other.additional is not None else ir.Nothing()
            groups = tuple((g, self.both(v, rest, ptr)) for g, v in side.pattern_groups)
            key_schema = side.key_schema
        hi = b.max_properties if a.max_properties is None else a.max_properties if b.max_properties is None else min(
            a.max_properties, b.max_properties)
        merged = ir.Object(properties=tuple(props), additional=additional, pattern_groups=groups,
                           key_schema=key_schema, min_properties=max(a.min_properties, b.min_properties),
                           max_properties=hi, some_undeclared=a.some_undeclared or b.some_undeclared,
                           policy_closed=a.policy_closed and b.policy_closed,
                           doc=a.doc if a.doc != ir.NO_DOC else b.doc)
        kept = object_or_nothing(merged)  # (a oneOf's options cut by each other's complements often meet so)
        if not merged.some_undeclared or kept is not merged:
            return kept
        # a side needing a key outside its properties is also met by a key only the other side declares
        meets = [[n for n, p in zip(names, props) if n not in {q.name for q in x.properties}
                  and not isinstance(p.value, ir.Nothing)] for x in (a, b) if x.some_undeclared]
        if math.prod(map(len, meets)) > MAX_MET:
            raise UnsupportedSchemaError("not", ptr,
                                         f"more than {MAX_MET} ways to meet two complements of closed objects")
        met = [replace(merged, some_undeclared=False, properties=tuple(replace(p, required=True) if p.name in chosen
                                                                        else p for p in props))
               for chosen in map(set, itertools.product(*meets))]
        room = not isinstance(additional, (ir.Nothing, type(None))) or any(
            not isinstance(v, ir.Nothing) for _, v in groups)  # for a member outside the properties at all
        return union((merged, *met) if room else tuple(met))

    def member(self, node: ir.Object, props: dict[str, ir.Property], name: str, ptr: str) -> ir.Node:
        """What `node` says about key `name`: its property schema, else what its propertyNames,
        patternProperties and additionalProperties say about an undeclared key of that name."""
        if name in props:
            return props[name].value
        if node.key_schema is not None and not self.admits(node.key_schema, name, ptr):
            return ir.Nothing()
        matched = {p for group, _ in node.pattern_groups for p in group if pattern_matches(p, name)}
        if matched:
            found = [v for group, v in node.pattern_groups if set(group) == matched]
            if not found:
                raise UnsupportedSchemaError("patternProperties", ptr, f"key {name!r} matches patterns no group covers")
            return found[0]
        return node.additional if node.additional is not None else ir.Nothing()

    def admits(self, node: ir.Node, value: object, ptr: str) -> bool:
        """Whether a constant satisfies a node (what enum beside other keywords needs)."""
        node = self.resolve(node, ptr)
        if isinstance(node, ir.AnyValue):
            return True
        if isinstance(node, ir.Union_):
            return any(self.admits(o, value, ptr) for o in node.options)
        if isinstance(node, ir.Const):
            return any(json.loads(v) == value and type(json.loads(v)) is type(value) for v in node.values)
        if isinstance(node, ir.Null):
            return value is None
        if isinstance(node, ir.Boolean):
            return isinstance(value, bool)
        if isinstance(node, ir.Number):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return False
            if node.integer and not float(value).is_integer():
                return False
            if node.fraction and float(value).is_integer():
                return False
            d = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
            if node.multiple_of is not None and d % node.multiple_of != 0:
                return False
            if any(d % k == 0 for k in node.not_multiples):
                return False
            return ((node.minimum is None or d > node.minimum or (d == node.minimum and not node.exclusive_minimum))
                    and (node.maximum is None or d < node.maximum
                         or (d == node.maximum and not node.exclusive_maximum)))
        if isinstance(node, ir.String) and isinstance(value, str):
            if node.verbatim:
                raise UnsupportedSchemaError("x-verbatim", ptr, "constants beside a verbatim field")
            if node.format:
                raise UnsupportedSchemaError("enum", ptr, "enum beside format")
            return (json.dumps(value, ensure_ascii=False, separators=(",", ":")) not in node.excluded
                    and all(pattern_matches(p, value) for p in node.patterns)
                    and not any(pattern_matches(p, value) for p in node.anti_patterns)
                    and node.min_length <= len(value) and (node.max_length is None or len(value) <= node.max_length))
        if isinstance(node, ir.Array) and isinstance(value, list):
            if node.contains is not None:
                found = sum(self.admits(node.contains.match, v, ptr) for v in value)
                if found < node.contains.min or (node.contains.max is not None and found > node.contains.max):
                    return False
            return (node.min_items <= len(value) and (node.max_items is None or len(value) <= node.max_items)
                    and (not node.unique or len({canonical(v) for v in value}) == len(value))
                    and all(self.admits(_at(node, i), v, ptr) for i, v in enumerate(value)))
        if isinstance(node, ir.Object) and isinstance(value, dict):
            return self.admits_object(node, value, ptr)
        return False

    def admits_object(self, node: ir.Object, value: dict[str, object], ptr: str) -> bool:
        props = {p.name: p for p in node.properties}
        if any(p.required and p.name not in value for p in node.properties):
            return False
        if node.some_undeclared and not set(value) - set(props):
            return False
        if len(value) < node.min_properties or (node.max_properties is not None and len(value) > node.max_properties):
            return False
        patterns = [p for group, _ in node.pattern_groups for p in group]
        for key, item in value.items():
            if key in props:
                if not self.admits(props[key].value, item, ptr):
                    return False
                continue
            if node.key_schema is not None and not self.admits(node.key_schema, key, ptr):
                return False
            matched = {p for p in patterns if pattern_matches(p, key)}
            schema = next((v for group, v in node.pattern_groups if set(group) == matched), None) if matched \
                else node.additional
            if matched and schema is None:
                raise UnsupportedSchemaError("enum", ptr, f"key {key!r} matches patterns no group covers")
            if schema is None or not self.admits(schema, item, ptr):
                return False
        return True


def canonical(value: object) -> str:
    """Equal JSON values, equal text: 1 and 1.0 alike, object keys sorted."""
    return json.dumps(_canon(value), sort_keys=True)


def _canon(v: object) -> object:
    """`v` with whole floats as ints (a function of the module's: a closure calling itself is a reference cycle)."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, list):
        return [_canon(x) for x in v]
    if isinstance(v, dict):
        return {k: _canon(x) for k, x in v.items()}
    return v


def _unequal(node: ir.Node | None) -> tuple:
    """What node equality leaves out (docs, pointers, whether an object is closed by policy), through the
    whole tree: two intersections are one only where these agree too. Docs by their text (examples may be
    unhashable). Kept on the node once made."""
    kept = getattr(node, "_unequal", None)
    if kept is not None:
        return kept
    if isinstance(node, ir.Object):
        members = tuple((_doc(p.doc), _unequal(p.value)) for p in node.properties)
        kept = (_doc(node.doc), node.policy_closed, members, _unequal(node.additional),
                tuple(_unequal(v) for _, v in node.pattern_groups), _unequal(node.key_schema))
    elif isinstance(node, ir.Array):
        kept = (node.pointer, _unequal(node.items), tuple(_unequal(p) for p in node.prefix),
                node.contains and (_unequal(node.contains.match), _unequal(node.contains.miss)))
    elif isinstance(node, ir.Union_):
        kept = tuple(_unequal(o) for o in node.options)
    elif isinstance(node, ir.String):
        kept = (node.pointer,)
    else:
        return ()
    object.__setattr__(node, "_unequal", kept)
    return kept


def _doc(doc: ir.Doc) -> tuple[str, str, bool]:
    return (doc.description, repr(doc.examples), doc.from_text) if doc != ir.NO_DOC else ("", "", False)


def _tighter(a: Decimal | None, ax: bool, b: Decimal | None, bx: bool, pick) -> tuple[Decimal | None, bool]:
    if a is None:
        return b, bx
    if b is None:
        return a, ax
    best = pick(a, b)
    return best, (ax and a == best) or (bx and b == best)


def _at(node: ir.Array, i: int) -> ir.Node:
    if i < len(node.prefix):
        return node.prefix[i]
    return node.items if node.items is not None else ir.Nothing()


def _name(node: ir.Node) -> str:
    return node.name if isinstance(node, ir.Ref) else type(node).__name__.lower()


def close_objects(node: ir.Node, seen: dict[int, tuple[ir.Node, ir.Node]] | None = None) -> ir.Node:
    """The strict-objects policy: undeclared keys only where `additionalProperties` is a schema (not absent/true).
    A node met again (the IR is a DAG: intersections share parts) is closed once (`seen`, by identity, keeping
    the node alive so its id is not reused)."""
    seen = {} if seen is None else seen
    hit = seen.get(id(node))
    if hit is None:
        hit = seen[id(node)] = (node, _closed(node, seen))
    return hit[1]


def _closed(node: ir.Node, seen: dict[int, tuple[ir.Node, ir.Node]]) -> ir.Node:
    if isinstance(node, ir.Object):
        props = tuple(replace(p, value=close_objects(p.value, seen)) for p in node.properties)
        extra = None if node.additional is None or node.policy_closed else close_objects(node.additional, seen)
        groups = tuple((g, close_objects(v, seen)) for g, v in node.pattern_groups)
        return replace(node, properties=props, additional=extra, pattern_groups=groups, policy_closed=False)
    if isinstance(node, ir.Array):
        return replace(node, items=None if node.items is None else close_objects(node.items, seen),
                       prefix=tuple(close_objects(p, seen) for p in node.prefix))
    if isinstance(node, ir.Union_):
        return ir.Union_(tuple(close_objects(o, seen) for o in node.options))
    return node


def split_contains(root: ir.Node, defs: dict[str, ir.Node], merger: Merger, strict: bool, counting: bool = True
                   ) -> tuple[ir.Node, dict[str, ir.Node]]:
    """Normalization's last pass: every element schema of an array with `contains` is split into the
    part matching it and the part missing it (new intersections may add definitions: those too). Without
    `counting` (no `contains` was read), the definitions merging made are only closed."""

    closed: dict[int, tuple[ir.Node, ir.Node]] = {}
    seen: dict[int, tuple[ir.Node, ir.Node]] = {}  # each node of the DAG visited once (kept alive: ids stay unique)

    def finish(node: ir.Node) -> ir.Node:
        return visit(close_objects(node, closed) if strict else node)

    def visit(node: ir.Node) -> ir.Node:
        hit = seen.get(id(node))
        if hit is None:
            hit = seen[id(node)] = (node, split(node))
        return hit[1]

    def split(node: ir.Node) -> ir.Node:  # a node none of whose parts changed is kept as it is (the usual case)
        if isinstance(node, ir.Object):
            props = tuple(p if (v := visit(p.value)) is p.value else replace(p, value=v) for p in node.properties)
            extra = None if node.additional is None else visit(node.additional)
            groups = tuple((g, visit(v)) for g, v in node.pattern_groups)
            if (extra is node.additional and all(a is b for a, b in zip(props, node.properties))
                    and all(a[1] is b[1] for a, b in zip(groups, node.pattern_groups))):
                return node
            return replace(node, properties=props, additional=extra, pattern_groups=groups)
        if isinstance(node, ir.Union_):
            options = tuple(visit(o) for o in node.options)
            return node if all(a is b for a, b in zip(options, node.options)) else ir.Union_(options)
        if not isinstance(node, ir.Array):
            return node
        items = None if node.items is None else visit(node.items)
        prefix = tuple(visit(p) for p in node.prefix)
        c = node.contains
        if c is None:
            same = items is node.items and all(a is b for a, b in zip(prefix, node.prefix))
            return node if same else replace(node, items=items, prefix=prefix)
        ptr = f"{node.pointer}/contains"
        elements = [*prefix, *([items] if items is not None else [])]
        split = tuple((finish(merger.both(e, c.match, ptr)), finish(merger.both(e, c.miss, ptr))) for e in elements)
        return replace(node, items=items, prefix=prefix, contains=replace(c, split=split))

    walk = visit if counting else _unchanged  # nothing to split: every node stays as it is
    try:
        root = walk(root)
        out: dict[str, ir.Node] = {}
        while pending := [k for k in merger.defs if k not in out] + [k for k in defs if k not in out]:
            for name in pending:
                node = defs.get(name)
                if node is None:  # made while merging: from unclosed originals
                    node = merger.defs[name]
                    node = close_objects(node, closed) if strict and node is not None else node
                out[name] = walk(node) if node is not None else ir.Nothing()
        return root, out
    finally:  # the three call one another through their cells: a cycle that would hold every node seen until the
        del finish, visit, split  # cyclic collector frees it, inside whatever call it lands in (a mask's)


def _unchanged(node: ir.Node) -> ir.Node:
    return node
