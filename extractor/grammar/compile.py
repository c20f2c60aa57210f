"""Schema IR -> grammar: each composite value a rule, each leaf value a shared rule."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from extractor.errors import UnsupportedSchemaError
from extractor.grammar import json_terms as jt
from extractor.grammar import numbers
from extractor.grammar.regex import (
    EMPTY, NOTHING, Both, Minus, Multiple, Node, Ref, Suffix, alt, byte_set, lit, opt, repeat, seq, star,
)
from extractor.grammar.pattern import compile_pattern
from extractor.schema import ir


@dataclass(frozen=True)
class CompileOptions:
    """Limits that keep every automaton small; each says what it costs."""

    max_repeat: int = 1000
    """Largest finite bound (maxLength, maxItems) unrolled; above it the schema is refused."""
    whitespace: int | None = None
    """None: compact JSON, no whitespace (fastest: structure is forced). An int n: up to n bytes of
    JSON whitespace around every `{ } [ ] , :` and the whole value; the bound stops a model from
    filling the gap forever, and every byte of freedom costs a sampled token."""


@dataclass
class Grammar:
    """Named rules whose bodies are byte regexes calling other rules; `root` is where output starts."""

    rules: dict[str, Node] = field(default_factory=dict)
    root: str = "root"
    leaves: frozenset[str] = frozenset()


LEAF_RULES = {"string": jt.string(), "number": jt.NUMBER, "integer": jt.INTEGER}


def _integral_bounds(node: ir.Number) -> tuple[int | None, int | None]:
    """Integer bounds equivalent to a number's (possibly fractional, possibly exclusive) bounds."""
    lo = hi = None
    if node.minimum is not None:
        lo = math.floor(node.minimum) + 1 if node.exclusive_minimum or node.minimum % 1 else int(node.minimum)
    if node.maximum is not None:
        hi = math.ceil(node.maximum) - 1 if node.exclusive_maximum or node.maximum % 1 else int(node.maximum)
    return lo, hi


def compile_grammar(schema: ir.Schema, options: CompileOptions = CompileOptions()) -> Grammar:
    """Turn a normalized schema into a grammar."""
    return _Compiler(schema, options).run()


class _Compiler:
    def __init__(self, schema: ir.Schema, options: CompileOptions) -> None:
        self.schema = schema
        self.options = options
        self.rules: dict[str, Node] = {}
        self.leaves: set[str] = set()
        self.names: dict[ir.Node, str] = {}

    def run(self) -> Grammar:
        self.rules["root"] = NOTHING
        self.rules["root"] = seq(self.space(), self.value(self.schema.root), self.space())
        return Grammar(rules=self.rules, root="root", leaves=frozenset(self.leaves))

    def value(self, node: ir.Node) -> Node:
        """A regex for one JSON value: small constants inline, everything else a rule call."""
        if isinstance(node, ir.Nothing):
            return NOTHING
        if isinstance(node, ir.Null):
            return lit("null")
        if isinstance(node, ir.Boolean):
            return alt(lit("true"), lit("false"))
        if isinstance(node, ir.Const):
            return alt(*(lit(v) for v in node.values))
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
        name = self.names.get(node)
        if name is None:
            name = self.names[node] = f"{type(node).__name__.lower()}#{len(self.names)}"
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
        rule = f"def:{name}"
        if rule not in self.rules:
            self.rules[rule] = NOTHING
            self.rules[rule] = self.body(self.schema.defs[name])
        return Ref(rule)

    def leaf(self, name: str, body: Node) -> Node:
        self.rules.setdefault(name, body)
        self.leaves.add(name)
        return Ref(name)

    def number(self, node: ir.Number) -> Node:
        """Bounds as digit automata; an integral multipleOf as a remainder automaton (integers only,
        stricter for numbers); a step of 10**-k as at most k decimal places, no exponent (stricter)."""
        kind = "integer" if node.integer else "number"
        lo, hi, step = node.minimum, node.maximum, node.multiple_of
        if lo is None and hi is None and step is None:
            return self.leaf(kind, LEAF_RULES[kind])
        integral = node.integer or (step is not None and step == step.to_integral_value())
        if integral:
            body = numbers.integer_range(*_integral_bounds(node)) if lo is not None or hi is not None else jt.INTEGER
        elif lo is not None or hi is not None:
            body = numbers.number_range(lo, node.exclusive_minimum, hi, node.exclusive_maximum)
        else:
            body = jt.NUMBER
        parts = [body]
        if step is not None and step == step.to_integral_value():
            if step != 1:
                parts.append(Multiple(int(step)))
        elif step is not None and not node.integer:  # a 10**-k step: every integer already is a multiple
            places = -step.normalize().as_tuple().exponent
            parts.append(seq(jt.INTEGER, opt(seq(lit("."), repeat(jt.DIGIT, 1, places)))))
        name = (f"{kind}{'(' if node.exclusive_minimum else '['}{lo},{hi}{')' if node.exclusive_maximum else ']'}"
                f"%{step}")
        return self.leaf(name, parts[0] if len(parts) == 1 else Both(tuple(parts)))

    def string(self, node: ir.String) -> Node:
        """Free strings share one rule; constrained ones get a leaf rule of their own."""
        if node == ir.String():
            return self.leaf("string", LEAF_RULES["string"])
        body, name = self.string_body(node)
        return self.leaf("string " + name, body)

    def string_body(self, node: ir.String) -> tuple[Node, str]:
        """Constraints (length, format, pattern) intersect; exclusions (`not`) subtract from the
        canonical spelling, where one value has one spelling. Returns the body and a rule name."""
        parts, name = [LEAF_RULES["string"]], []
        if node.min_length or node.max_length is not None:
            self.bound(node.min_length, "minLength", node.pointer)
            self.bound(node.max_length or 0, "maxLength", node.pointer)
            parts.append(jt.string(node.min_length, node.max_length))
            name.append(f"{{{node.min_length},{'' if node.max_length is None else node.max_length}}}")
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
        if "value" not in self.rules:
            value = Ref("value")
            string = self.leaf("string", LEAF_RULES["string"])
            number = self.leaf("number", LEAF_RULES["number"])
            members = seq(string, self.p(":"), value)
            self.rules["value"] = alt(
                seq(self.p("{"), opt(seq(members, star(seq(self.p(","), members)))), self.p("}")),
                seq(self.p("["), opt(seq(value, star(seq(self.p(","), value)))), self.p("]")),
                string, number, lit("true"), lit("false"), lit("null"))
        return Ref("value")

    def object(self, node: ir.Object) -> Node:
        """Declared members in order (optional ones omissible), undeclared members in any slot.

        Built as a DAG of shared suffixes (`Suffix`), one per (slot, anything written yet),
        so the automaton stays linear in the number of properties."""
        members = [seq(lit(jt.dumps(p.name)), self.p(":"), self.value(p.value)) for p in node.properties]
        extra = self.undeclared(node)
        n, lo, hi = len(members), node.min_properties, node.max_properties
        self.bound(max(lo, hi or 0), "maxProperties", "")
        if lo > n and extra != NOTHING:
            raise UnsupportedSchemaError("minProperties", "", "undeclared keys are not counted toward a minimum "
                                         "(a repeated key would count twice)")
        cap_all = 1 if hi is None else hi  # members written, counted up to what matters
        slot: dict[tuple[int, int, int], Node] = {}
        decide: dict[tuple[int, int, int], Node] = {}

        def sep(written: int) -> Node:
            return self.p(",") if written else EMPTY

        def more(a: int) -> int | None:
            """The count after one more member, or None when maxProperties forbids it."""
            return min(a + 1, cap_all) if hi is None or a < hi else None

        for i in range(n, -1, -1):
            for a in range(cap_all, -1, -1):
                for d in range(lo, -1, -1):  # declared members written, for minProperties
                    if i == n:
                        body = self.p("}") if d >= lo else NOTHING
                    else:
                        take = NOTHING if more(a) is None else seq(sep(a), members[i], slot[i + 1, more(a), min(d + 1, lo)])
                        skip = slot[i + 1, a, d]
                        body = take if node.properties[i].required else alt(take, skip)
                    decide[i, a, d] = Suffix(body)
                    if more(a) is None or extra == NOTHING:
                        step = NOTHING
                    elif hi is None and a == cap_all:  # saturated: any number of undeclared members
                        step = seq(sep(a), extra, star(seq(self.p(","), extra)), decide[i, a, d])
                    else:
                        step = seq(sep(a), extra, slot[i, more(a), d])
                    slot[i, a, d] = Suffix(alt(step, decide[i, a, d]))
        return seq(self.p("{"), slot[0, 0, 0])

    def undeclared(self, node: ir.Object) -> Node:
        """One undeclared member: a key in canonical spelling, never a declared name, valued by the
        schema of the patterns it matches (`additional` where it matches none)."""
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
            exclude = [lit(n) for n in names] + [patterns[p] for p in patterns if p not in group]
            body = parts[0] if len(parts) == 1 else Both(tuple(parts))
            if exclude:
                body = Minus(body, alt(*exclude))
            name = ("string" if body is LEAF_RULES["string"]
                    else f"key{list(group)}-not{list(names)}/{sorted(patterns)}/{key_name}")
            members.append(seq(self.leaf(name, body), self.p(":"), self.value(value)))
        return alt(*members) if members else NOTHING

    def key_language(self, key: ir.Node | None) -> tuple[Node | None, str]:
        """What propertyNames allows of an undeclared key, as a string regex (None: anything)."""
        if key is None:
            return None, ""
        if isinstance(key, ir.Const):
            return alt(*(lit(v) for v in key.values)), f"in{list(key.values)}"
        return self.string_body(key)  # type: ignore[arg-type]

    def array(self, node: ir.Array) -> Node:
        lo, hi, k = node.min_items, node.max_items, len(node.prefix)
        self.bound(lo, "minItems", node.pointer)
        self.bound(hi or 0, "maxItems", node.pointer)
        if hi is not None and hi < lo:
            return NOTHING
        if node.items is None:
            if lo > k:
                return NOTHING
            hi = k if hi is None else min(hi, k)
        item = None if node.items is None else self.value(node.items)

        def tail(j: int) -> Node:
            """Elements j.. given j already written."""
            if hi is not None and j >= hi:
                return EMPTY
            if j >= k:
                if item is None:
                    return EMPTY
                r_lo, r_hi = max(lo - j, 0), None if hi is None else hi - j
                if j:
                    return repeat(seq(self.p(","), item), r_lo, r_hi)
                more = repeat(seq(self.p(","), item), max(r_lo - 1, 0), None if r_hi is None else r_hi - 1)
                first = seq(item, more)
                return first if r_lo else opt(first)
            step = seq(self.p(",") if j else EMPTY, self.value(node.prefix[j]), tail(j + 1))
            return step if j < lo else opt(step)

        return seq(self.p("["), tail(0), self.p("]"))

    def space(self) -> Node:
        n = self.options.whitespace
        return EMPTY if not n else repeat(byte_set(0x20, 0x09, 0x0A, 0x0D), 0, n)

    def p(self, char: str) -> Node:
        """Structural punctuation, with the whitespace the options allow around it."""
        if char in "{[":
            return seq(lit(char), self.space())
        if char in "}]":
            return seq(self.space(), lit(char))
        return seq(self.space(), lit(char), self.space())

    def bound(self, n: int, keyword: str, pointer: str) -> None:
        if n > self.options.max_repeat:
            raise UnsupportedSchemaError(keyword, f"{pointer}/{keyword}",
                                         f"bound {n} exceeds max_repeat={self.options.max_repeat}")
