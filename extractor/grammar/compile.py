"""Schema IR -> grammar: each composite value a rule, each leaf value a shared rule."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from extractor.errors import UnsupportedSchemaError
from extractor.lang import json_terms as jt
from extractor.lang.collector import collector_paused
from extractor.grammar import numbers
from extractor.lang.regex import (
    EMPTY, NOTHING, Alt, Both, Counted, Minus, Multiple, Node, Ref, Seq, Substrings, Suffix, alt, byte_set, lit, opt,
    repeat, seq, star,
)
from extractor.grammar.layout import MAX_DEPTH, Layout, LayoutName
from extractor.lang.pattern import MAX_REPEAT, compile_pattern, patterns_apart
from extractor.schema import ir
from extractor.schema.merge import canonical


@dataclass(frozen=True)
class CompileOptions:
    """Limits that keep every automaton small; each says what it costs."""

    max_repeat: int = MAX_REPEAT
    """Largest bound unrolled into automaton states (pattern quantifiers, property counts, lengths of
    object keys); above it the schema is refused."""
    source: str | None = None
    """The document being read: fields marked `x-verbatim` (`Verbatim`) must be substrings of it."""
    count_from: int = 64
    """String lengths and item counts with a bound above this are counted beside the automaton
    state instead of unrolled (a few states and a small table, whatever the bound)."""
    max_nesting: int | None = None
    """A recursive definition nests at most this many times inside itself (None: no limit): past it the
    grammar offers only what needs no deeper level (`[]`, `null`), so a model cannot nest forever.
    `extract` sets it from how deeply the text itself is structured."""
    layout: Layout | LayoutName = "compact"
    """The whitespace between JSON tokens (see `Layout`): "compact", "spaced", "pretty" (indented,
    every byte forced), "free" (the model's own, bounded), or a `Layout`."""
    max_states: int | None = 1_000_000
    """Automaton states built in all (every rule's NFA and DFA states) before the schema is refused with
    `SchemaTooComplexError`; no schema of the MaskBench sample reaches it. None: no limit."""
    timeout: float | None = 5.0
    """Seconds a compile may take before `SchemaTooComplexError`: the automaton construction, and with
    `compile_schema` reading the schema into IR and rules too (the slowest schema of the MaskBench sample that
    compiles takes under 2 s). None: no limit."""


@dataclass
class Grammar:
    """Named rules whose bodies are byte regexes calling other rules; `root` is where output starts."""

    rules: dict[str, Node] = field(default_factory=dict)
    root: str = "root"
    leaves: frozenset[str] = frozenset()
    distinct: dict[str, str | None] = field(default_factory=dict)
    """Rules whose strings must differ within one enclosing object or array: undeclared keys (None), items
    of a `uniqueItems` array of strings (the keyword's pointer: exactness depends on it). The matcher
    remembers those written and forbids a repeat."""
    unique: dict[str, str] = field(default_factory=dict)
    """Rules that open a `uniqueItems` array whose items are not drawn from a finite set (objects, numbers,
    bounded strings), by the keyword's pointer: the matcher remembers each item written, by its JSON value,
    and forbids a token after which the item can only repeat one of them."""
    max_states: int | None = None
    """The compile budget the automaton is built under (from `CompileOptions`)."""
    timeout: float | None = None


MAX_UNIQUE_VALUES = 12
"""uniqueItems over at most this many distinct constants is built into the automaton (a state per subset
used); over more, the matcher keeps the items apart as it does for open sets."""

FREE_STRING = ir.String()
"""A string with no constraint (made once: each made costs more than comparing with it)."""
LEAF_RULES = {"string": jt.string(), "number": Both(numbers.finite_parts()), "integer": jt.INTEGER}
MAX_STORED = 1024
"""Most entries of each store below before it starts over (a layout is any value a caller makes)."""
_ANY_VALUES: dict[tuple[Layout, int], tuple[tuple[tuple[str, Node], ...], frozenset[str]]] = {}
"""The rules of any JSON value per layout and indentation level, with the leaves among them (`any_value`)."""
_PUNCTUATION: dict[tuple[Layout, str, int], Node] = {}
"""Separators by layout, kind and indentation level (`_punctuation`)."""


def _integral_bounds(node: ir.Number) -> tuple[int | None, int | None]:
    """Integer bounds equivalent to a number's (possibly fractional, possibly exclusive) bounds."""
    lo = hi = None
    if node.minimum is not None:
        lo = math.floor(node.minimum) + 1 if node.exclusive_minimum or node.minimum % 1 else int(node.minimum)
    if node.maximum is not None:
        hi = math.ceil(node.maximum) - 1 if node.exclusive_maximum or node.maximum % 1 else int(node.maximum)
    return lo, hi


def _literals(texts: tuple[str, ...]) -> Node:
    """`alt(*(lit(t) for t in texts))` without hashing each new literal: distinct texts are distinct literals (a
    byte, or a sequence of bytes, never an `Alt`), so deduplicating the texts is deduplicating the literals."""
    found = [lit(t) for t in dict.fromkeys(texts)]
    return found[0] if len(found) == 1 else Alt(tuple(found)) if found else NOTHING


def _after(head: tuple[Node, ...], part: Node) -> tuple[Node, ...] | None:
    """The items of `seq(*head, part)` for flattened `head` items (None where it matches nothing), without making
    the sequence: an object's suffix DAG appends one more part to them."""
    return None if part is NOTHING else head + part.items if type(part) is Seq else (*head, part)


MAX_VALUE_SETS = 4096
"""Partial values an enumeration of an item's values may hold at once (`_values_below`) before it gives up."""


def _values_below(node: ir.Node, defs: dict[str, ir.Node], limit: int, depth: int = 0,
                  known: dict[tuple[str, int], frozenset[str] | None] | None = None) -> frozenset[str] | None:
    """The distinct values `node` admits, as canonical JSON texts, where fewer than `limit` exist and this shows
    it (None otherwise): constants, booleans, null, bounded integers, and closed objects of those (their member
    counts within min/maxProperties), through unions (a value two options share counted once) and `$ref`s (each
    definition enumerated once). A superset where a keyword it does not read narrows the values further, so a
    `uniqueItems` array needing more items than this finds has no value (the matcher would otherwise be left
    with no fresh item to write and no way to close the array)."""
    known = {} if known is None else known
    if depth > 16:
        return None
    found: frozenset[str] | None = None
    if isinstance(node, ir.Ref):
        if (node.name, limit) not in known:
            known[node.name, limit] = None  # a definition met again inside itself: not shown
            target = defs.get(node.name)
            known[node.name, limit] = None if target is None else _values_below(target, defs, limit, depth + 1, known)
        found = known[node.name, limit]
    elif isinstance(node, ir.Union_):
        parts = [_values_below(o, defs, limit, depth + 1, known) for o in node.options]
        found = None if None in parts else frozenset().union(*parts)  # type: ignore[arg-type]
    elif isinstance(node, ir.Object):
        found = _objects_below(node, defs, limit, depth, known)
    elif isinstance(node, ir.Number) and node.integer and node.minimum is not None and node.maximum is not None:
        lo = math.floor(node.minimum) + 1 if node.exclusive_minimum else math.ceil(node.minimum)
        hi = math.ceil(node.maximum) - 1 if node.exclusive_maximum else math.floor(node.maximum)
        found = frozenset(str(i) for i in range(lo, hi + 1)) if hi - lo + 1 < limit else None
    elif isinstance(node, ir.Const):
        found = frozenset(canonical(json.loads(v)) for v in node.values)
    else:
        found = {ir.Nothing: frozenset(), ir.Null: frozenset({"null"}),
                 ir.Boolean: frozenset({"true", "false"})}.get(type(node))  # type: ignore[call-overload]
    return found if found is not None and len(found) < limit else None


def _objects_below(node: ir.Object, defs: dict[str, ir.Node], limit: int, depth: int,
                   known: dict[tuple[str, int], frozenset[str] | None]) -> frozenset[str] | None:
    """`_values_below` for an object: closed, each property absent or one of its values, the members written
    counted toward min/maxProperties (partial objects kept by how many members they hold)."""
    if node.additional is not None or node.some_undeclared or any(
            _values_below(v, defs, 1, depth + 1, known) != frozenset() for _, v in node.pattern_groups):
        return None  # some undeclared key may appear
    hi = node.max_properties
    partial: dict[int, list[dict[str, str]]] = {0: [{}]}  # members written -> partial objects
    for prop in node.properties:
        values = _values_below(prop.value, defs, limit, depth + 1, known)
        if values is None:
            return None
        grown: dict[int, list[dict[str, str]]] = {}
        for count, objects in partial.items():
            if not prop.required:
                grown.setdefault(count, []).extend(objects)
            if hi is None or count < hi:
                grown.setdefault(count + 1, []).extend({**o, prop.name: v} for o in objects for v in values)
        partial = grown
        if sum(map(len, partial.values())) > MAX_VALUE_SETS:
            return None
    return frozenset(canonical({k: json.loads(v) for k, v in o.items()})
                     for count, objects in partial.items() if count >= node.min_properties for o in objects)


@collector_paused
def compile_grammar(schema: ir.Schema, options: CompileOptions = CompileOptions()) -> Grammar:
    """Turn a normalized schema into a grammar."""
    return _Compiler(schema, options).run()


class _Compiler:
    def __init__(self, schema: ir.Schema, options: CompileOptions) -> None:
        self.schema = schema
        self.options = options
        self.rules: dict[str, Node] = {}
        self.leaves: set[str] = set()
        self.distinct: dict[str, str | None] = {}
        self.unique: dict[str, str] = {}
        self.names: dict[tuple[ir.Node, int, tuple[tuple[str, int], ...]], str] = {}
        self.entered: dict[str, int] = {}  # definitions being compiled, counted along the current path
        self.loops: tuple[tuple[str, int], ...] = ()  # with max_nesting: recursive definitions re-entered
        self.layout = Layout.named(options.layout)
        self.depth = 0
        """Nesting level of the container being built; stays 0 unless the layout indents."""
        self.punctuation: dict[tuple[str, int], Node] = {}
        """The separators this compile took from `_PUNCTUATION`, by kind and level (no layout to hash)."""

    def run(self) -> Grammar:
        self.rules["root"] = NOTHING
        self.rules["root"] = seq(self.space(), self.value(self.schema.root), self.space())
        return Grammar(rules=self.rules, root="root", leaves=frozenset(self.leaves), distinct=self.distinct,
                       unique=self.unique, max_states=self.options.max_states, timeout=self.options.timeout)

    def value(self, node: ir.Node) -> Node:
        """A regex for one JSON value: small constants inline, everything else a rule call."""
        if isinstance(node, ir.Nothing):
            return NOTHING
        if isinstance(node, ir.Null):
            return lit("null")
        if isinstance(node, ir.Boolean):
            return alt(lit("true"), lit("false"))
        if isinstance(node, ir.Const):
            return _literals(node.values)
        if isinstance(node, ir.Union_):
            return alt(*(self.value(o) for o in node.options))
        if isinstance(node, ir.Number):
            return self.number(node)
        if isinstance(node, ir.String):
            return self.string(node)
        if isinstance(node, ir.Ref):
            return self.definition(node.name)
        if isinstance(node, ir.AnyValue):
            return self.any_value()
        key = (node, self.depth, self.loops)
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"{type(node).__name__.lower()}#{len(self.names)}"
            self.rules[name] = NOTHING
            self.rules[name] = self.body(node)
        return Ref(name)

    def body(self, node: ir.Node) -> Node:
        if isinstance(node, ir.Object):
            return self.object(node)
        if isinstance(node, ir.Array):
            return self.array(node)
        return self.value(node)

    def definition(self, name: str) -> Node:
        """A call of a definition's rule; with `max_nesting`, one rule per level of recursion, none past it."""
        limit, inside = self.options.max_nesting, self.entered.get(name, 0)
        saved = self.loops
        if limit is not None and inside:
            if inside >= limit:
                return NOTHING
            self.loops = tuple(sorted({**dict(self.loops), name: dict(self.loops).get(name, 0) + 1}.items()))
        tag = "".join(f"~{n}{k}" for n, k in self.loops)
        rule = f"def:{name}{self.at()}{tag}"
        if rule not in self.rules:
            self.entered[name] = inside + 1
            self.rules[rule] = NOTHING
            self.rules[rule] = self.body(self.schema.defs[name])
            self.entered[name] = inside
        self.loops = saved
        return Ref(rule)

    def leaf(self, name: str, body: Node) -> Node:
        self.rules.setdefault(name, body)
        self.leaves.add(name)
        return Ref(name)

    def number(self, node: ir.Number) -> Node:
        """Bounds as digit automata; an integral multipleOf as a remainder automaton (integers only,
        stricter for numbers); a step of 10**-k as at most k decimal places, no exponent (stricter); a `number`
        not bounded on both sides only where `float()` reads it as finite (`finite_parts`: never `inf`)."""
        kind = "integer" if node.integer else "number"
        lo, hi, step = node.minimum, node.maximum, node.multiple_of
        if lo is None and hi is None and step is None and not node.fraction and not node.not_multiples:
            return self.leaf(kind, LEAF_RULES[kind])
        integral = node.integer or (step is not None and step == step.to_integral_value())
        if integral:
            body = numbers.integer_range(*_integral_bounds(node)) if lo is not None or hi is not None else jt.INTEGER
        elif lo is not None or hi is not None:
            body = numbers.number_range(lo, node.exclusive_minimum, hi, node.exclusive_maximum)
        else:
            body = jt.NUMBER
        parts: list[Node] = [body]
        if not (node.integer or numbers.within_float(lo, hi)):
            if step is not None:
                numbers.check_finite_step(step, node.pointer)
            parts += numbers.finite_parts()
        if step is not None and step == step.to_integral_value():
            if step != 1:
                parts.append(Multiple(int(step)))
        elif step is not None:  # a fractional step m * 10**-k: at most k decimal places
            sign, mantissa, exponent = step.normalize().as_tuple()
            m = int("".join(map(str, mantissa)))
            if m > 1:
                parts.append(Multiple(m, -int(exponent)))
            elif not node.integer:  # a 10**-k step: every integer already is a multiple
                parts.append(seq(jt.INTEGER, opt(seq(lit("."), repeat(jt.DIGIT, 1, -int(exponent))))))
        if node.fraction:
            parts.append(jt.FRACTION)
        name = (f"{kind}{'(' if node.exclusive_minimum else '['}{lo},{hi}{')' if node.exclusive_maximum else ']'}"
                f"%{step}{' fraction' if node.fraction else ''}{''.join(f' !%{k}' for k in node.not_multiples)}")
        body = parts[0] if len(parts) == 1 else Both(tuple(parts))
        for k in node.not_multiples:  # canonical integers, so one value has one spelling to subtract
            body = Minus(body, Both((jt.INTEGER, Multiple(k))))
        return self.leaf(name, body)

    def string(self, node: ir.String) -> Node:
        """Free strings share one rule; constrained ones get a leaf rule of their own."""
        if node == FREE_STRING:
            return self.leaf("string", LEAF_RULES["string"])
        lo, hi = node.min_length, node.max_length
        if node.verbatim and (lo or hi is not None):
            raise UnsupportedSchemaError("x-verbatim", f"{node.pointer}/x-verbatim", "beside minLength/maxLength: the "
                                         "product of the source's automaton with a length counter grows with both "
                                         "(pattern, format and not are supported beside it)")
        if self.counted(lo, hi):
            body, name = self.string_body(replace(node, min_length=0, max_length=None))
            return self.leaf(f"string {name} #{lo},{'' if hi is None else hi}", Counted(body, lo, hi, jt.CHAR))
        body, name = self.string_body(node)
        return self.leaf("string " + name, body)

    def counted(self, lo: int, hi: int | None) -> bool:
        """Whether a length or item bound is large enough to count rather than unroll."""
        return max(lo, hi or 0) > self.options.count_from

    def string_body(self, node: ir.String) -> tuple[Node, str]:
        """Constraints (length, format, pattern) intersect; exclusions (`not`) subtract from the
        canonical spelling, where one value has one spelling. Returns the body and a rule name."""
        parts, name = [LEAF_RULES["string"]], []
        if node.min_length or node.max_length is not None:  # unrolled: small bounds, or inside object keys
            self.bound(node.min_length, "minLength", node.pointer)
            self.bound(node.max_length or 0, "maxLength", node.pointer)
            parts.append(jt.string(node.min_length, node.max_length))
            name.append(f"{{{node.min_length},{'' if node.max_length is None else node.max_length}}}")
        if node.verbatim:
            where = f"{node.pointer}/x-verbatim"
            if self.options.source is None:
                raise UnsupportedSchemaError("x-verbatim", where,
                                             "a verbatim field needs the source text: CompileOptions(source=...)")
            words = not (node.patterns or node.format)  # a pattern or format decides where a value may start
            parts.append(Substrings(self.options.source, words=words))
            name.append(f"verbatim{'-words' if words else ''}")  # one source per grammar: the name stays the
            # same from one document to the next, so the rules calling it are equal and their automata reused
        if node.format is not None:
            parts.append(jt.string(content=jt.FORMATS[node.format]))
            name.append(f"format:{node.format}")
        for pattern in node.patterns:
            parts.append(jt.string(content=compile_pattern(pattern, self.options.max_repeat)))
            name.append(f"pattern:{pattern}")
        exclude = [lit(v) for v in node.excluded]
        exclude += [jt.string(content=compile_pattern(p, self.options.max_repeat)) for p in node.anti_patterns]
        if exclude:
            parts.append(jt.CANONICAL_STRING)
            name.append(f"not:{list(node.excluded)}/{list(node.anti_patterns)}")
        parts = parts[1:] or parts
        body = parts[0] if len(parts) == 1 else Both(tuple(parts))
        return (Minus(body, alt(*exclude)) if exclude else body), " ".join(name)

    def any_value(self) -> Node:
        """Any JSON value: its rules are the same in every schema with this layout, so they are built once
        per process (at each indentation level) and added to each grammar that needs them."""
        rule = "value" + self.at()
        if rule not in self.rules:
            made = _ANY_VALUES.get((self.layout, self.depth))
            if made is None:
                scratch = _Compiler(self.schema, self.options)  # holds exactly the rules it takes
                scratch.depth = self.depth
                scratch.build_any_value()
                if len(_ANY_VALUES) >= MAX_STORED:
                    _ANY_VALUES.clear()
                made = _ANY_VALUES[self.layout, self.depth] = (tuple(scratch.rules.items()), frozenset(scratch.leaves))
            rules, leaves = made
            for name, body in rules:
                self.rules.setdefault(name, body)
            self.leaves |= leaves
        return Ref(rule)

    def build_any_value(self) -> Ref:
        rule = "value" + self.at()
        if rule not in self.rules:
            self.rules[rule] = NOTHING
            string = self.leaf("string", LEAF_RULES["string"])
            number = self.leaf("number", LEAF_RULES["number"])
            with self.inner():
                value = self.build_any_value()
            members = seq(string, self.colon(), value)
            self.rules[rule] = alt(self.container("{", members), self.container("[", value),
                                   string, number, lit("true"), lit("false"), lit("null"))
        return Ref(rule)

    def container(self, char: str, element: Node) -> Node:
        """`{}`/`[]`, or any number of members (items) of one kind, each in the layout's places."""
        end = "}" if char == "{" else "]"
        some = seq(self.first(), element, star(seq(self.comma(), element)), self.close(end, True))
        return seq(self.open(char), alt(self.close(end, False), some))

    def object(self, node: ir.Object) -> Node:
        """Declared members in order (optional ones omissible), undeclared members in any slot.

        Built as a DAG of shared suffixes (`Suffix`), one per (slot, anything written yet),
        so the automaton stays linear in the number of properties."""
        n, lo, hi = len(node.properties), node.min_properties, node.max_properties
        # undeclared members count toward minProperties where their keys are kept apart (any key but the
        # declared ones: an endless language), or where one member is enough (one key is one however often
        # it repeats); elsewhere (keys from patterns or propertyNames) only declared members count
        counting = lo > 0 and (lo == 1 or not node.pattern_groups and node.key_schema is None)
        with self.inner():
            members = [seq(lit(jt.dumps(p.name)), self.colon(), self.value(p.value)) for p in node.properties]
            extra = self.undeclared(node, counted=counting and lo > 1)
        self.bound(max(lo, hi or 0), "maxProperties", "")
        counting = counting and extra is not NOTHING
        if lo > n and extra is not NOTHING and not counting:
            raise UnsupportedSchemaError("minProperties", "", "keys from patterns or propertyNames are not counted "
                                         "toward a minimum (a repeated key would count twice)")
        cap_all = 1 if hi is None else hi  # members written, counted up to what matters
        need = int(node.some_undeclared)  # undeclared members still owed (one at most)
        slot: dict[tuple[int, int, int, int], Node] = {}
        decide: dict[tuple[int, int, int, int], Node] = {}
        first, comma = self.first(), self.comma()
        # each member (and an undeclared one, last) after the separator it follows: the first one, then commas
        seps = [sep.items if type(sep) is Seq else (sep,) for sep in (first, comma)]  # (neither is NOTHING)
        heads = [[_after(sep, part) for part in (*members, extra)] for sep in seps]
        # saturated: an undeclared member after the separator, then any number more
        saturated = [_after(sep, seq(extra, star(seq(comma, extra)))) for sep in seps]
        # the count after one more member, None where maxProperties forbids one
        after = [min(a + 1, cap_all) if hi is None or a < hi else None for a in range(cap_all + 1)]
        closing = (self.close("}", False), self.close("}", True))
        optional = [not p.required for p in node.properties]
        # a part after a head is `Seq((*head, part))`; a choice of two (neither an `Alt` but for NOTHING) is
        # `Alt((a, b))` without the hashing `alt`'s deduplication costs: this loop runs for every object
        for i in range(n, -1, -1):
            for a in range(cap_all, -1, -1):
                more, head = after[a], heads[a > 0]
                for d in range(lo, -1, -1):  # members written (declared ones only where no other can be), for lo
                    for u in range(need, -1, -1):  # undeclared members written, up to what is owed
                        if i == n:
                            body = closing[a > 0] if d >= lo and u >= need else NOTHING
                        else:
                            items = head[i]
                            body = NOTHING if more is None or items is None else Seq(
                                (*items, slot[i + 1, more, min(d + 1, lo), u]))
                            if optional[i]:
                                skip = slot[i + 1, a, d, u]
                                body = skip if body is NOTHING else body if skip is NOTHING else Alt((body, skip))
                        decided = decide[i, a, d, u] = Suffix(body)
                        if more is None or extra is NOTHING:
                            items = None
                        elif hi is None and a == cap_all and (d == lo or not counting):  # saturated: any number more
                            items, rest = saturated[a > 0], decide[i, a, d, need]
                        else:
                            items, rest = head[n], slot[i, more, min(d + 1, lo) if counting else d, need]
                        slot[i, a, d, u] = Suffix(decided if items is None else Alt((Seq((*items, rest)), decided)))
        return seq(self.open("{"), slot[0, 0, 0, 0])

    def undeclared(self, node: ir.Object, counted: bool = False) -> Node:
        """One undeclared member: a key in canonical spelling, never a declared name, valued by the
        schema of the patterns it matches (`additional` where it matches none). `counted`: the members
        count toward minProperties, so their keys must be kept apart (or the schema refused)."""
        names = tuple(sorted(jt.dumps(p.name) for p in node.properties))
        patterns = {p: jt.string(content=compile_pattern(p, self.options.max_repeat))
                    for group, _ in node.pattern_groups for p in group}
        groups = [(g, v) for g, v in node.pattern_groups if not isinstance(v, ir.Nothing)]
        if node.additional is not None:
            groups.append(((), node.additional))
        members = []
        key_rule, key_name = self.key_language(node.key_schema)
        for group, value in groups:
            base = jt.CANONICAL_STRING if names or patterns or key_rule is not None else LEAF_RULES["string"]
            parts = [base, *(patterns[p] for p in group), *([key_rule] if key_rule is not None else [])]
            others = [patterns[p] for p in patterns if p not in group and not any(patterns_apart(p, g) for g in group)]
            body = parts[0] if len(parts) == 1 else Both(tuple(parts))
            if names or others:
                body = Minus(body, alt(*(lit(n) for n in names), *others) if others else _literals(names))
            name = ("key" if body is LEAF_RULES["string"]
                    else f"key{list(group)}-not{list(names)}/{sorted(patterns)}/{key_name}")
            if counted:
                self.distinct[name] = "/minProperties"
            else:
                self.distinct.setdefault(name, None)
            members.append(seq(self.leaf(name, body), self.colon(), self.value(value)))
        return alt(*members) if members else NOTHING

    def key_language(self, key: ir.Node | None) -> tuple[Node | None, str]:
        """What propertyNames allows of an undeclared key, as a string regex (None: anything)."""
        if key is None:
            return None, ""
        if isinstance(key, ir.Const):
            return _literals(key.values), f"in{list(key.values)}"
        return self.string_body(key)  # type: ignore[arg-type]

    def array(self, node: ir.Array) -> Node:
        lo, hi, k = node.min_items, node.max_items, len(node.prefix)
        if hi is not None and hi < lo:
            return NOTHING
        if node.items is None:
            if lo > k:
                return NOTHING
            hi = k if hi is None else min(hi, k)
        c = node.contains
        distinct = None
        if node.unique and not node.prefix and node.items is not None and lo > 1:
            if _values_below(node.items, self.schema.defs, lo) is not None:  # fewer distinct items than it needs:
                return NOTHING  # no array at all
        if node.unique and (hi is None or hi > 1):
            if c is not None and (c.min or c.max is not None):
                raise UnsupportedSchemaError("uniqueItems", f"{node.pointer}/uniqueItems", "beside `contains`")
            distinct = self.distinct_strings(node)
            if distinct is None and self.finite_items(node):
                return self.unique_array(node, lo, hi)
        if c is not None and (c.min or c.max is not None):
            return self.contains_array(node, c, lo, hi)
        with self.inner():
            prefix = [self.value(p) for p in node.prefix]
            item = distinct or (None if node.items is None else self.value(node.items))
        if item is not None and self.counted(lo, hi):
            array = self.counted_array(prefix, item, lo, hi)
        else:
            self.bound(lo, "minItems", node.pointer)
            self.bound(hi or 0, "maxItems", node.pointer)
            array = self.elements(prefix, item, lo, hi)
        if node.unique and distinct is None and (hi is None or hi > 1):
            return self.tracked(array, f"{node.pointer}/uniqueItems")
        return array

    def finite_items(self, node: ir.Array) -> bool:
        """Whether every element is drawn from one small finite set of constants (`unique_array` then applies;
        otherwise the matcher keeps the items apart)."""
        sets = [self.finite(p) for p in node.prefix] + ([self.finite(node.items)] if node.items is not None else [])
        return all(v is not None for v in sets) and \
            len({c for values in sets for c, _ in values}) <= MAX_UNIQUE_VALUES  # type: ignore[union-attr]

    def tracked(self, array: Node, pointer: str) -> Ref:
        """An array whose items the matcher keeps apart by value: a rule of its own that reads its `[`."""
        if isinstance(array, Ref):  # counted: its own rule already reads the `[`
            self.unique[array.rule] = pointer
            return array
        name = f"unique#{len(self.rules)}"
        self.rules[name] = array
        self.unique[name] = pointer
        return Ref(name)

    def elements(self, prefix: list[Node], item: Node | None, lo: int, hi: int | None) -> Node:
        """`[` prefix elements in order, then items, `]`, with between lo and hi elements (unrolled)."""
        k = len(prefix)
        first = prefix[0] if k else item
        some = NOTHING if first is None or hi == 0 else \
            seq(self.first(), first, self._tail(prefix, item, lo, hi), self.close("]", True))
        return seq(self.open("["), alt(self.close("]", False) if lo == 0 else NOTHING, some))

    def _tail(self, prefix: list[Node], item: Node | None, lo: int, hi: int | None) -> Node:
        """The elements after the first, from the last one back (a loop, not a recursive closure: a function
        that calls itself through its own cell is a cycle the collector frees later, holding the nodes)."""
        k = len(prefix)
        stop = max(1, k if hi is None else min(k, hi))  # elements from here on: the items, or none past hi
        if item is None or hi is not None and stop >= hi:  # (no items and stop < k only where stop is hi)
            body = EMPTY
        else:
            body = repeat(seq(self.comma(), item), max(lo - stop, 0), None if hi is None else hi - stop)
        for j in range(stop - 1, 0, -1):
            step = seq(self.comma(), prefix[j], body)
            body = step if j < lo else opt(step)
        return body

    def counted_array(self, prefix: list[Node], item: Node, lo: int, hi: int | None) -> Node:
        """Elements as calls, counted: `[` prefix items in order, then any number of items `]`."""
        each = self.element(item)
        body = star(seq(self.comma(), each))
        for j in range(len(prefix) - 1, 0, -1):
            body = opt(seq(self.comma(), self.element(prefix[j]), body))
        some = seq(self.first(), self.element(prefix[0]) if prefix else each, body, self.close("]", True))
        name = f"array#{len(self.rules)}[{lo},{'' if hi is None else hi}]"
        self.rules[name] = Counted(seq(self.open("["), alt(self.close("]", False), some)), lo, hi)
        return Ref(name)

    def contains_array(self, node: ir.Array, c: ir.Contains, lo: int, hi: int | None) -> Node:
        """Each element either matches `contains` (a call that is counted) or misses it."""
        if c.max is not None and c.max < c.min:
            return NOTHING
        if self.counted(lo, hi):
            raise UnsupportedSchemaError("contains", f"{node.pointer}/contains",
                                         "beside an item count above count_from (two counters)")
        self.bound(lo, "minItems", node.pointer)
        self.bound(hi or 0, "maxItems", node.pointer)
        hits: set[str] = set()
        choices = []
        for hit, miss in c.split:
            options = []
            with self.inner():
                if not isinstance(hit, ir.Nothing):
                    ref = self.element(self.value(hit), fresh=True)
                    hits.add(ref.rule)
                    options.append(ref)
                if not isinstance(miss, ir.Nothing):
                    options.append(self.value(miss))
            choices.append(alt(*options) if options else NOTHING)
        k = len(node.prefix)
        body = self.elements(choices[:k], choices[k] if node.items is not None else None, lo, hi)
        name = f"contains#{len(self.rules)}[{c.min},{'' if c.max is None else c.max}]"
        self.rules[name] = Counted(body, c.min, c.max, callees=frozenset(hits))
        return Ref(name)

    def distinct_strings(self, node: ir.Array) -> Node | None:
        """Unique items that are strings of an unbounded language (`set[str]`): the items' own rule, marked
        distinct, so the matcher forbids a repeat; None where `unique_array` applies (finite sets) or the
        items are kept apart whole (strings of bounded length, copies of the source text)."""
        if node.prefix or not isinstance(node.items, ir.String) or self.finite(node.items) is not None \
                or node.items.max_length is not None or node.items.verbatim:
            return None
        with self.inner():
            item = self.value(node.items)
        if not isinstance(item, Ref) or item.rule not in self.leaves:
            return None
        name = f"unique {item.rule}"
        self.distinct[name] = f"{node.pointer}/uniqueItems"
        return self.leaf(name, self.rules[item.rule])

    def unique_array(self, node: ir.Array, lo: int, hi: int | None) -> Node:
        """Distinct elements drawn from finite sets: the automaton remembers which values were used."""
        sets = [self.finite(p) for p in node.prefix] + ([self.finite(node.items)] if node.items is not None else [])
        k, has_items = len(node.prefix), node.items is not None
        memo: dict[tuple[int, frozenset[str]], Node] = {}

        def tail(j: int, used: frozenset[str]) -> Node:
            key = (min(j, k), used)
            if key not in memo:
                # what `alt` of the options makes, without hashing each new sequence: a value's option ends in
                # its tail (a `Suffix`) and the closing bracket does not, so two options are equal exactly where
                # their texts are (one text, one class, one tail): the first of each text is kept
                closing = (self.close("]", j > 0),) if len(used) >= lo else ()
                options: dict[str, Node] = {}
                position = j if j < k else (k if has_items else None)
                if position is not None and (hi is None or len(used) < hi):
                    for cls, text in sets[position]:  # type: ignore[union-attr]
                        if cls not in used and text not in options:
                            options[text] = seq(self.comma() if j else self.first(), lit(text),
                                                tail(j + 1, used | {cls}))
                items = (*closing, *options.values())
                memo[key] = Suffix(items[0] if len(items) == 1 else Alt(items) if items else NOTHING)
            return memo[key]

        try:
            return seq(self.open("["), tail(0, frozenset()))
        finally:
            del tail  # the closure calls itself through its own cell: a cycle the collector would otherwise free

    def finite(self, node: ir.Node, depth: int = 0) -> list[tuple[str, str]] | None:
        """(value class, compact text) for every value of a node with finitely many, else None."""
        if isinstance(node, ir.Ref) and depth < 32:
            return self.finite(self.schema.defs[node.name], depth + 1)
        if isinstance(node, ir.Const):
            return [(canonical(json.loads(v)), v) for v in node.values]
        if isinstance(node, ir.Boolean):
            return [("true", "true"), ("false", "false")]
        if isinstance(node, ir.Null):
            return [("null", "null")]
        if isinstance(node, ir.Nothing):
            return []
        if isinstance(node, ir.Union_):
            parts = [self.finite(o, depth + 1) for o in node.options]
            return None if any(p is None for p in parts) else [x for p in parts for x in p]  # type: ignore[union-attr]
        return None

    def element(self, node: Node, fresh: bool = False) -> Ref:
        """One array element as a call of its own, so that counting calls counts elements
        (`fresh`: a rule of its own even when `node` already is a call)."""
        if isinstance(node, Ref) and not fresh:
            return node
        name = f"element#{len(self.rules)}"
        self.rules[name] = node
        return Ref(name)

    def space(self) -> Node:
        """The model's own whitespace, where the layout is flexible."""
        n = self.layout.flexible
        return EMPTY if not n else repeat(byte_set(0x20, 0x09, 0x0A, 0x0D), 0, n)

    def at(self) -> str:
        """The suffix of a rule name compiled for this indentation level ("" at the top or unindented)."""
        return f"@{self.depth}" if self.depth else ""

    @contextlib.contextmanager
    def inner(self) -> Iterator[None]:
        """Compile the members or items of the container being built, one indentation level down."""
        saved = self.depth
        if self.layout.indent is not None:
            self.depth = min(saved + 1, MAX_DEPTH)
        try:
            yield
        finally:
            self.depth = saved

    def newline(self, level: int) -> Node:
        indent = self.layout.indent
        return EMPTY if indent is None else lit("\n" + " " * (indent * level))

    def open(self, char: str) -> Node:
        return seq(lit(char), self.space())

    def first(self) -> Node:
        """Before the first member or item."""
        return self.newline(self.depth + 1)

    def comma(self) -> Node:
        made = self.punctuation.get(("comma", self.depth))
        return made if made is not None else self._punctuation(
            "comma", lambda: seq(lit(","), self.newline(self.depth + 1)) if self.layout.indent is not None
            else seq(self.space(), lit(self.layout.comma), self.space()))

    def colon(self) -> Node:
        made = self.punctuation.get(("colon", self.depth))
        return made if made is not None else self._punctuation(
            "colon", lambda: seq(self.space(), lit(self.layout.colon), self.space()))

    def close(self, char: str, some: bool) -> Node:
        """`}` or `]`, on a line of its own after members or items (`some`) where the layout indents."""
        kind = char + "+" * some
        made = self.punctuation.get((kind, self.depth))
        return made if made is not None else self._punctuation(
            kind, lambda: seq(self.newline(self.depth) if some else EMPTY, self.space(), lit(char)))

    def _punctuation(self, kind: str, make: Callable[[], Node]) -> Node:
        """A separator at the current depth, made once per process and layout (a shared node keeps its digest),
        and kept for the rest of this compile in `punctuation`."""
        key = (self.layout, kind, self.depth)
        made = _PUNCTUATION.get(key)
        if made is None:
            if len(_PUNCTUATION) >= MAX_STORED:  # layouts a caller makes are not counted on
                _PUNCTUATION.clear()
            made = _PUNCTUATION[key] = make()
        self.punctuation[kind, self.depth] = made
        return made

    def bound(self, n: int, keyword: str, pointer: str) -> None:
        if n > self.options.max_repeat:
            raise UnsupportedSchemaError(keyword, f"{pointer}/{keyword}",
                                         f"bound {n} exceeds max_repeat={self.options.max_repeat}")
