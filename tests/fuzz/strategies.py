"""Random schemas over the enforced keywords, instances for them, and the oracle that judges the engine.

Every keyword of ENFORCED appears but `dependencies` and `additionalItems` (not Draft 2020-12 keywords:
the reference ignores them) and `x-verbatim` (it needs a source document).

Shared by tests/fuzz/test_differential.py and benchmarks/fuzz.py. A schema compiles with the default
options, as users get them; an instance's compact JSON runs through its automaton, and the verdict is
compared with jsonschema's (Draft 2020-12, format checker on, two deviations of its own corrected: see
`Reference`). A reject of a valid instance is excused only by a documented policy (`POLICIES`) that,
relaxed, makes the engine accept it.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st
from jsonschema import Draft202012Validator, ValidationError, validators

from benchmarks.common import Reorderer, accepted_order
from extractor.automata import Automaton, build_automaton
from extractor.errors import ExtractorError, UnsatisfiableSchemaError
from extractor.grammar import CompileOptions, compile_grammar
from extractor.lang.json_terms import FORMATS as ENGINE_FORMATS
from extractor.schema import NormalizeOptions, target_ir
from tests.automata.helpers import runs

Draw = Callable[[st.SearchStrategy[Any]], Any]
Schema = dict[str, Any] | bool

# --- schemas -------------------------------------------------------------------------------------

KEYS = ("a", "b", "id", "x1", "x2", "名前", "ключ", "é", "a b", 'q"', "😀")
"""Property names: ASCII, accented, CJK, Cyrillic, astral, a space and a quote (escaped in JSON)."""
KEY_PATTERNS = ("^x", "[0-9]$", "é", "^[a-c]+$", "^id", "1$", "2$")
"""Key patterns: overlapping ones, and ones anchored on different literal text (never meeting: grouped apart)."""
CHARS = st.one_of(st.sampled_from('abcx1 -é名😀"\\\n\t\x00\x7f'), st.characters(codec="utf-8"))
ATOMS = ("a", "b", "x", "é", "[a-c]", "[0-9]", "[^a]", "\\.", "-", "(a|bc)", "\\d", "\\w", ".", "\\u00e9")
QUANTIFIERS = ("", "", "?", "*", "+", "{2}", "{1,3}", "{2,}", "+?")
COUNTED = st.sampled_from((63, 64, 65, 70))
"""Bounds about CompileOptions.count_from (64), past which lengths and item counts are counted, not unrolled."""
FORMATS = tuple(sorted(set(Draft202012Validator.FORMAT_CHECKER.checkers) & set(ENGINE_FORMATS)))
"""Formats both sides check: jsonschema checks only those whose optional packages are installed, and
passes every string for the rest, so an engine reject there would be no disagreement."""


def _number(d: Decimal) -> int | float:
    """Integral values as int, others as a float whose repr is the plain decimal (no exponent, no -0)."""
    return int(d) if d == d.to_integral_value() else float(d)


NUMBERS = st.decimals(min_value=-50, max_value=50, places=2).map(_number)
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), NUMBERS, st.text(CHARS, max_size=4))
LITERALS = st.one_of(SCALARS, st.lists(SCALARS, max_size=2), st.dictionaries(st.sampled_from(KEYS), SCALARS, max_size=2))


def _text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@st.composite
def patterns(draw: Draw) -> str:
    """ECMA-262 patterns of one or two anchored alternatives of quantified atoms, each of which Python's
    `re` reads the same way once `ecma_to_python` has rewritten `$` and `.`."""
    def alternative() -> str:
        pieces = draw(st.lists(st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)), min_size=1, max_size=3))
        return draw(st.sampled_from(("^", ""))) + "".join(a + q for a, q in pieces) + draw(st.sampled_from(("$", "")))
    return "|".join(alternative() for _ in range(draw(st.integers(1, 2))))


@st.composite
def _leaf(draw: Draw, refs: tuple[str, ...]) -> Schema:
    kind = draw(st.sampled_from(("null", "boolean", "integer", "number", "string", "string", "enum", "const",
                                 "any", "types") + (("ref", "ref") if refs else ())))
    if kind in ("null", "boolean"):
        return {"type": kind}
    if kind == "integer":
        return {"type": "integer", **draw(_bounds(st.integers(-10, 10))),
                **draw(st.sampled_from(({}, {}, {"multipleOf": 2}, {"multipleOf": 3}, {"multipleOf": 10})))}
    if kind == "number":
        return {"type": "number", **draw(_bounds(NUMBERS)),
                **draw(st.sampled_from(({}, {}, {"multipleOf": 0.1}, {"multipleOf": 0.01}, {"multipleOf": 5},
                                        {"multipleOf": 0.5})))}
    if kind == "string":
        s: dict[str, Any] = {"type": "string"}
        lo = draw(st.none() | st.integers(0, 3) | COUNTED)
        if lo is not None:
            s["minLength"] = lo
        if draw(st.booleans()):
            s["maxLength"] = (lo or 0) + draw(st.integers(0, 6) | COUNTED)
        extra = draw(st.sampled_from(("", "", "pattern", "format")))
        if extra == "pattern":
            s["pattern"] = draw(patterns())
        elif extra == "format" and FORMATS:
            s["format"] = draw(st.sampled_from(FORMATS))
        return s
    if kind == "enum":
        return {"enum": draw(st.lists(LITERALS, min_size=1, max_size=4, unique_by=_text))}
    if kind == "const":
        return {"const": draw(LITERALS)}
    if kind == "types":
        return {"type": draw(st.lists(st.sampled_from(("null", "boolean", "integer", "string", "array")),
                                      min_size=2, max_size=3, unique=True))}
    if kind == "ref":
        return {"$ref": f"#/$defs/{draw(st.sampled_from(refs))}"}
    return draw(st.sampled_from(({}, True)))


@st.composite
def _bounds(draw: Draw, values: st.SearchStrategy[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    lo = draw(st.none() | values)
    if lo is not None:
        out[draw(st.sampled_from(("minimum", "exclusiveMinimum")))] = lo
    if draw(st.booleans()):
        out[draw(st.sampled_from(("maximum", "exclusiveMaximum")))] = (lo or 0) + draw(st.integers(0, 30))
    return out


@st.composite
def _negatable(draw: Draw) -> dict[str, Any]:
    """Mostly the shapes whose complement the engine builds (see `not` in docs/schema-support.md)."""
    kind = draw(st.sampled_from(("type", "const", "enum", "bound", "pattern", "required", "property", "union",
                                 "leaf")))
    if kind == "type":
        return {"type": draw(st.sampled_from(ALL_TYPES))}
    if kind in ("const", "enum"):
        return {"const": draw(SCALARS)} if kind == "const" else {"enum": draw(st.lists(SCALARS, min_size=1, max_size=3))}
    if kind == "bound":
        return {"type": draw(st.sampled_from(("integer", "number"))), **draw(_bounds(NUMBERS))}
    if kind == "pattern":
        return {"type": "string", "pattern": draw(patterns())}
    if kind == "required":
        return {"required": draw(st.lists(st.sampled_from(KEYS[:5]), min_size=1, max_size=2, unique=True))}
    if kind == "property":
        key = draw(st.sampled_from(KEYS[:5]))
        return {"properties": {key: draw(_negatable())}, "required": [key]}
    return {"anyOf": draw(st.lists(_negatable(), min_size=2, max_size=2))} if kind == "union" else draw(_leaf(()))


@st.composite
def _object(draw: Draw, depth: int, refs: tuple[str, ...]) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(KEYS), max_size=3, unique=True))
    s: dict[str, Any] = {"type": "object"} if draw(st.integers(0, 3)) else {}
    s["properties"] = {k: draw(schemas_of(depth - 1, refs)) for k in names}
    required = draw(st.lists(st.sampled_from(KEYS[:4] + tuple(names)), max_size=3, unique=True))
    if required:
        s["required"] = required
    extra = draw(st.sampled_from(("absent", "false", "false", "true", "schema")))
    if extra in ("false", "true"):
        s["additionalProperties"] = extra == "true"
    elif extra == "schema":
        s["additionalProperties"] = draw(schemas_of(depth - 1, refs))
    if draw(st.integers(0, 2)) == 0:
        keys = draw(st.lists(st.sampled_from(KEY_PATTERNS), min_size=1, max_size=3, unique=True))
        s["patternProperties"] = {p: draw(schemas_of(depth - 1, refs)) for p in keys}
    if draw(st.integers(0, 2)) == 0:
        s["propertyNames"] = draw(st.sampled_from(({"maxLength": 2}, {"minLength": 2}, {"pattern": "^[a-zé]"},
                                                   {"enum": list(KEYS[:6])}, {"not": {"const": "b"}})))
    if names and draw(st.booleans()):
        trigger = draw(st.sampled_from(names))
        s["dependentRequired"] = {trigger: draw(st.lists(st.sampled_from(KEYS[:5]), min_size=1, max_size=2, unique=True))}
        s["dependentSchemas"] = {draw(st.sampled_from(names)): draw(st.sampled_from((
            {"required": [KEYS[0]]}, {"properties": {KEYS[1]: {"type": "integer"}}}, {"not": {"required": [KEYS[2]]}},
            {"maxProperties": 2})))}
    if draw(st.integers(0, 3)) == 0:
        s[draw(st.sampled_from(("minProperties", "maxProperties")))] = draw(st.integers(0, 3))
    return s


@st.composite
def _array(draw: Draw, depth: int, refs: tuple[str, ...]) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "array"} if draw(st.integers(0, 3)) else {}
    form = draw(st.sampled_from(("items", "items", "prefixItems", "none")))
    if form == "prefixItems":
        s["prefixItems"] = draw(st.lists(schemas_of(depth - 1, refs), min_size=1, max_size=2))
        s["items"] = draw(st.sampled_from((False, True))) if draw(st.booleans()) else draw(schemas_of(0, refs))
    elif form == "items":
        s["items"] = draw(schemas_of(depth - 1, refs))
    lo = draw(st.integers(0, 2) | COUNTED)
    if lo:
        s["minItems"] = lo
    if draw(st.booleans()):
        s["maxItems"] = lo + draw(st.integers(0, 3) | COUNTED)
    if draw(st.integers(0, 3)) == 0:
        s["contains"] = draw(_negatable())
        s.update(draw(st.sampled_from(({}, {"minContains": 2}, {"maxContains": 1}, {"minContains": 0}))))
    if draw(st.integers(0, 4)) == 0:
        s["uniqueItems"] = True
    return s


@st.composite
def schemas_of(draw: Draw, depth: int, refs: tuple[str, ...] = ()) -> Schema:
    """A subschema at most `depth` levels of subschemas deep, `$ref`s naming `refs` only."""
    kind = draw(st.sampled_from(("leaf", "leaf", "object", "object", "array", "anyOf", "oneOf", "allOf", "not",
                                 "if", "mixed") if depth > 0 else ("leaf",)))
    if kind == "leaf":
        return draw(_leaf(refs))
    if kind == "object":
        return draw(_object(depth, refs))
    if kind == "array":
        return draw(_array(depth, refs))
    if kind in ("anyOf", "oneOf", "allOf"):
        return {kind: draw(st.lists(schemas_of(depth - 1, refs), min_size=1, max_size=3))}
    if kind == "not":
        return {"not": draw(_negatable() if draw(st.integers(0, 3)) else schemas_of(depth - 1, refs))}
    if kind == "if":
        return {"if": draw(_negatable()), "then": draw(schemas_of(depth - 1, refs)),
                "else": draw(schemas_of(depth - 1, refs))}
    base = draw(_object(depth, refs))  # an object whose members a union or negation narrows further
    word = draw(st.sampled_from(("anyOf", "oneOf")))
    return {**base, word: [{"required": [k]} for k in draw(st.lists(st.sampled_from(KEYS[:4]), min_size=1,
                                                                    max_size=2, unique=True))]}


@st.composite
def schemas(draw: Draw) -> dict[str, Any]:
    """A root schema of depth at most 3: maybe `$defs` (each naming only earlier ones, plus a recursive tree)."""
    defs: dict[str, Any] = {}
    for i in range(draw(st.integers(0, 2))):
        defs[f"D{i}"] = draw(schemas_of(2, tuple(defs)))
    if draw(st.integers(0, 4)) == 0:
        defs["Tree"] = {"type": "object", "properties": {"v": draw(_leaf(())), "kids": {
            "type": "array", "items": {"$ref": "#/$defs/Tree"}, "maxItems": 2}}, "required": ["v"],
            "additionalProperties": False}
    root = draw(schemas_of(3, tuple(defs)))
    root = root if isinstance(root, dict) else {"allOf": [root]}
    return {**root, "$defs": defs} if defs else root


# --- instances -----------------------------------------------------------------------------------

OBJECT_WORDS = {"properties", "required", "additionalProperties", "patternProperties", "propertyNames",
                "minProperties", "maxProperties", "dependentRequired", "dependentSchemas"}
ARRAY_WORDS = {"items", "prefixItems", "minItems", "maxItems", "contains", "minContains", "maxContains",
               "uniqueItems"}
STRING_WORDS = {"minLength", "maxLength", "pattern", "format"}
NUMBER_WORDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
ALL_TYPES = ("null", "boolean", "integer", "number", "string", "array", "object")
MAX_DEPTH = 5
"""Past this depth a value takes no optional member and the fewest items, so a recursive tree ends."""
FORMAT_VALUES: dict[str, st.SearchStrategy[str]] = {
    "date": st.dates().map(lambda d: d.isoformat()),
    "email": st.builds(lambda a, b, c: f"{a}@{b}.{c}", st.from_regex(r"[a-z0-9.+]{1,6}", fullmatch=True)
                       .filter(lambda s: not s.startswith(".") and not s.endswith(".") and ".." not in s),
                       st.from_regex(r"[a-z]([a-z0-9-]{0,4}[a-z0-9])?", fullmatch=True),
                       st.from_regex(r"[a-z]{2,4}", fullmatch=True)),
    "ipv4": st.ip_addresses(v=4).map(str),
    "ipv6": st.ip_addresses(v=6).map(str),
    "uuid": st.uuids().map(str),
}


def _resolve(root: dict[str, Any], ref: str) -> Schema:
    return root.get("$defs", {}).get(ref.rsplit("/", 1)[-1], True)


def _merge(a: Schema, b: Schema) -> Schema:
    """Both schemas at once, roughly: enough to aim a generated value at their intersection."""
    if a is False or b is False:
        return False
    if a is True or b is True:
        return b if a is True else a
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif k == "properties":
            out[k] = {**out[k], **{n: {"allOf": [out[k][n], s]} if n in out[k] else s for n, s in v.items()}}
        elif k == "required":
            out[k] = list(dict.fromkeys(out[k] + v))
        elif k in ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"):
            out[k] = max(out[k], v)
        elif k in ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"):
            out[k] = min(out[k], v)
        elif k == "type":
            left, right = _as_list(out[k]), _as_list(v)
            both = [t for t in left if t in right or (t == "integer" and "number" in right)]
            both += ["integer"] if "number" in left and "integer" in right and "integer" not in both else []
            out[k] = both
        elif k == "enum":
            out[k] = [x for x in out[k] if _text(x) in {_text(y) for y in v}]
        elif isinstance(v, (dict, bool)) and k not in ("const", "dependentSchemas", "$defs"):
            out[k] = {"allOf": [out[k], v]}
    return out


def _as_list(t: str | list[str]) -> list[str]:
    return [t] if isinstance(t, str) else list(t)


def _flatten(draw: Draw, schema: Schema, root: dict[str, Any]) -> Schema:
    """One conjunct of the schema: `$ref` resolved, `allOf` merged, one `anyOf`/`oneOf` branch and one
    side of `if`/`then`/`else` chosen."""
    if isinstance(schema, bool):
        return schema
    out: Schema = {k: v for k, v in schema.items() if k not in ("$ref", "allOf", "anyOf", "oneOf", "if", "then",
                                                                "else", "$defs")}
    parts = [_resolve(root, schema["$ref"])] if "$ref" in schema else []
    parts += schema.get("allOf", [])
    parts += [draw(st.sampled_from(schema[w])) for w in ("anyOf", "oneOf") if schema.get(w)]
    if "if" in schema:
        parts += [schema["if"], schema.get("then", True)] if draw(st.booleans()) else [schema.get("else", True)]
    for part in parts:
        out = _merge(out, _flatten(draw, part, root))
    return out


def _types(s: dict[str, Any]) -> list[str]:
    if "type" in s:
        return _as_list(s["type"]) or ["null"]
    implied = [t for t, words in (("object", OBJECT_WORDS), ("array", ARRAY_WORDS), ("string", STRING_WORDS),
                                  ("number", NUMBER_WORDS)) if words & s.keys()]
    return implied or list(ALL_TYPES)


def _value(draw: Draw, schema: Schema, root: dict[str, Any], depth: int) -> Any:
    """A value aimed at the schema (best effort: jsonschema, not this, decides whether it is valid)."""
    s = _flatten(draw, schema, root)
    if not isinstance(s, dict):
        s = {}
    if "const" in s:
        return s["const"]
    if s.get("enum"):
        return draw(st.sampled_from(s["enum"]))
    kinds = _types(s)
    scalars = [t for t in kinds if t not in ("array", "object")]
    kind = draw(st.sampled_from(scalars if depth >= MAX_DEPTH and scalars else kinds))
    if kind == "object":
        return _object_value(draw, s, root, depth)
    if kind == "array":
        return _array_value(draw, s, root, depth)
    if kind == "string":
        return _string_value(draw, s)
    if kind in ("integer", "number"):
        return _number_value(draw, s, kind)
    return draw(st.booleans()) if kind == "boolean" else None


def _member(s: dict[str, Any], key: str, present: set[str]) -> Schema:
    """Every subschema the object's keywords apply to the member `key`."""
    props = s.get("properties", {})
    subs = [props[key]] if key in props else []
    subs += [sub for p, sub in s.get("patternProperties", {}).items() if re.search(p, key)]
    if not subs and isinstance(s.get("additionalProperties"), dict):
        subs.append(s["additionalProperties"])
    subs += [d["properties"][key] for t, d in s.get("dependentSchemas", {}).items()
             if t in present and isinstance(d, dict) and key in d.get("properties", {})]
    return {"allOf": subs} if subs else True


def _object_value(draw: Draw, s: dict[str, Any], root: dict[str, Any], depth: int) -> dict[str, Any]:
    """The engine's layout: declared members in `properties` order, then required undeclared ones in
    `required` order, then any other keys."""
    props = s.get("properties", {})
    present = set(s.get("required", [])) | {k for k in props if depth < MAX_DEPTH and draw(st.booleans())}
    for trigger, keys in s.get("dependentRequired", {}).items():
        present |= set(keys) if trigger in present else set()
    for trigger, sub in s.get("dependentSchemas", {}).items():
        present |= set(sub.get("required", [])) if trigger in present and isinstance(sub, dict) else set()
    if depth < MAX_DEPTH and s.get("additionalProperties", True) is not False and draw(st.integers(0, 3)) == 0:
        present.add(draw(st.sampled_from(KEYS)))
    members = list(dict.fromkeys([*props, *s.get("required", [])]))
    order = [k for k in members if k in present] + sorted(present - set(members))
    return {k: _value(draw, _member(s, k, present), root, depth + 1) for k in order}


def _array_value(draw: Draw, s: dict[str, Any], root: dict[str, Any], depth: int) -> list[Any]:
    prefix, items = s.get("prefixItems", []), s.get("items", True)
    lo = s.get("minItems", 0)
    hi = min(s.get("maxItems", lo + 3), lo + 3, len(prefix) if items is False else lo + 3)
    n = lo if depth >= MAX_DEPTH else draw(st.integers(lo, max(lo, hi)))
    out = [_value(draw, prefix[i] if i < len(prefix) else items, root, depth + 1) for i in range(n)]
    if "contains" in s and out:
        for i in range(min(len(out), max(1, s.get("minContains", 1)))):
            out[i] = _value(draw, _merge(s["contains"], prefix[i] if i < len(prefix) else items), root, depth + 1)
    if s.get("uniqueItems"):
        out = list({_text(x): x for x in out}.values())
    return out


def _string_value(draw: Draw, s: dict[str, Any]) -> str:
    lo = s.get("minLength", 0)
    hi = max(lo, s.get("maxLength", lo + 6))
    if s.get("format") in FORMAT_VALUES:
        return draw(FORMAT_VALUES[s["format"]])
    if "pattern" in s:
        return draw(st.from_regex(ecma_to_python(s["pattern"])))
    return draw(st.text(CHARS, min_size=lo, max_size=hi))


def _number_value(draw: Draw, s: dict[str, Any], kind: str) -> int | float:
    step = Fraction(str(s.get("multipleOf", 1 if kind == "integer" else Fraction(1, 100))))
    lo = Fraction(str(s.get("minimum", s.get("exclusiveMinimum", -60))))
    hi = Fraction(str(s.get("maximum", s.get("exclusiveMaximum", 60))))
    first, last = math.ceil(lo / step), math.floor(hi / step)
    first += int("exclusiveMinimum" in s and first * step == lo)
    last -= int("exclusiveMaximum" in s and last * step == hi)
    k = draw(st.integers(first, last)) if first <= last else first
    return _number(Decimal(k * step.numerator) / Decimal(step.denominator))


@st.composite
def valid_values(draw: Draw, schema: dict[str, Any]) -> Any:
    """A value drawn to satisfy the schema, keys in the engine's order."""
    return _value(draw, schema, schema, 0)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in children:
        yield from _paths(v, (*path, k))


@st.composite
def mutants(draw: Draw, value: Any) -> Any:
    """The value with one node changed: another type, a key dropped or added, a bound crossed, an item
    repeated, a string lengthened or cut."""
    path = draw(st.sampled_from(list(_paths(value))))
    node = value
    for k in path:
        node = node[k]
    ops: list[Any] = [st.one_of(SCALARS, st.just({}), st.just([]))]
    if isinstance(node, dict):
        ops += [st.sampled_from([{k: v for k, v in node.items() if k != drop} for drop in node])] if node else []
        ops.append(st.builds(lambda k, v: {**node, k: v}, st.sampled_from(KEYS), SCALARS))
    elif isinstance(node, list):
        ops += [st.just(node[1:]), st.just(node + node[-1:])] if node else []
        ops.append(st.builds(lambda v: node + [v], SCALARS))
    elif isinstance(node, bool):
        ops.append(st.just(not node))
    elif isinstance(node, (int, float)):
        ops.append(st.sampled_from([node + 1, node - 1, -node - 1, node * 10 + 1, _number(Decimal(str(node)) + Decimal("0.5")),
                                    int(node) * 10**20 + 1]))
    elif isinstance(node, str):
        ops.append(st.sampled_from([node + "a", node[:-1], "", node + "é", node * 2]))
    new = draw(draw(st.sampled_from(ops)))
    if not path:
        return new
    out = copy.deepcopy(value)
    parent = out
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = new
    return out


@st.composite
def instances(draw: Draw, schema: dict[str, Any]) -> list[Any]:
    """A few values drawn valid, and a mutant of each."""
    valid = draw(st.lists(valid_values(schema), min_size=1, max_size=3))
    return valid + [draw(mutants(v)) for v in valid]


# --- the oracle ----------------------------------------------------------------------------------

def _exact_multiple_of(validator: Any, step: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """Exact: jsonschema divides floats, so 0.3 is no multiple of 0.1 there."""
    if validator.is_type(instance, "number") and Fraction(str(instance)) % Fraction(str(step)):
        yield ValidationError(f"{instance!r} is not a multiple of {step}")


def ecma_to_python(pattern: str) -> re.Pattern[str]:
    """A generated ECMA-262 pattern as Python reads it: `$` is the end of input (Python's also matches
    before a final newline), `.` excludes every line terminator, `\\d` and `\\w` are ASCII."""
    python = re.sub(r"(?<!\\)\.", "[^\n\r\u2028\u2029]", pattern).replace("$", r"\Z")
    return re.compile(python, re.ASCII)


def _ecma_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not ecma_to_python(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


Reference = validators.extend(Draft202012Validator, {"multipleOf": _exact_multiple_of, "pattern": _ecma_pattern})
"""jsonschema's Draft 2020-12 with `multipleOf` exact and `pattern` read as ECMA-262 (for the patterns
generated here): two deviations of jsonschema corrected, not policies of the engine."""
COMPILE = CompileOptions(timeout=3.0)
"""A schema whose automata take longer is refused (SchemaTooComplexError), keeping each example short."""
WRONG = ("wrong accept", "wrong reject", "wrong unsatisfiable")
STRICT = NormalizeOptions()
LAX_OBJECTS = NormalizeOptions(strict_objects=False)
LAX = NormalizeOptions(strict_objects=False, implied_types=False)
POLICIES = {
    "number spelling": "integers are written without fraction or exponent, never as -0 (Numbers)",
    "key order": "members in `properties` order, then required undeclared ones in `required` order (Key order)",
    "key order (undocumented)": "some other order of the keys is accepted: a layout the documentation does not "
                                "describe (for example a dependentRequired trigger before the keys it demands)",
    "closed objects": "strict_objects, the default, closes an absent or true additionalProperties and always "
                      "writes a union tag (Closed objects, Union tags)",
    "implied types": "implied_types, the default, gives a subschema with no `type` the type its keywords "
                     "imply (Implied types)",
    "minProperties counts declared keys": "keys from patternProperties or propertyNames count toward minProperties "
                                          "only through declared members (the keyword table)",
    "email format": "email and idn-email are dot-atom@hostname with a letter TLD (idn-email: non-ASCII allowed in "
                    "the local part); jsonschema only looks for an '@' (format)",
}
"""The documented stricter policies of docs/schema-support.md, in the order they are relaxed: a reject of
a valid value is excused by the first policy that, relaxed on top of the ones before it, makes the engine
accept the value."""


def compile_automaton(schema: Schema, options: NormalizeOptions = STRICT) -> Automaton:
    """The engine under test; raises an ExtractorError subclass for a documented refusal."""
    return build_automaton(compile_grammar(target_ir(schema, None, options), COMPILE))


def _respell(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _respell(v) for k, v in value.items()}
    return [_respell(v) for v in value] if isinstance(value, list) else value


def _without(schema: Any, drop: Callable[[str, Any], bool]) -> Any:
    if isinstance(schema, dict):
        return {k: _without(v, drop) for k, v in schema.items() if not drop(k, v)}
    return [_without(v, drop) for v in schema] if isinstance(schema, list) else schema


def _members(schema: Any) -> Any:
    """The schema for Reorderer: each required key that `properties` lacks declared after them (the engine
    writes such a key as a member, in `required` order), and `then`/`else` as union branches it follows."""
    if isinstance(schema, list):
        return [_members(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _members(v) for k, v in schema.items() if k not in ("if", "then", "else")}
    if "then" in schema or "else" in schema:
        out["allOf"] = [*out.get("allOf", []), {"anyOf": [_members(schema.get(k, True)) for k in ("then", "else")]}]
    if isinstance(schema.get("required"), list):
        props = out.get("properties", {})
        out["properties"] = {**props, **{k: True for k in schema["required"] if k not in props}}
    return out


def some_order(auto: Automaton, value: Any, budget: int = 20_000) -> bool:
    """Whether the automaton accepts the value with its objects' keys in some order."""
    return accepted_order(auto, value, budget) is not None


@dataclass
class Verdict:
    instance: Any
    engine: bool
    reference: bool
    unsatisfiable: bool = False
    """The engine refused the schema as admitting no value (UnsatisfiableSchemaError): it accepts nothing."""
    excuse: str | None = None
    """The policy (a key of POLICIES) under which the engine accepts a value it rejected, or "unverified
    (...)" naming the policies whose relaxed reading the engine refuses, so that none could be tried."""

    @property
    def kind(self) -> str:
        if self.engine == self.reference:
            return "agree"
        if self.engine:
            return "wrong accept"
        if self.excuse:
            return self.excuse if self.excuse.startswith("unverified") else f"excused: {self.excuse}"
        return "wrong unsatisfiable" if self.unsatisfiable else "wrong reject"


@dataclass
class Oracle:
    """One schema, compiled once, judging instances. Raises the ExtractorError of a refusal, except
    UnsatisfiableSchemaError: that claims no value is valid, which instances can refute."""

    schema: dict[str, Any]
    automaton: Automaton | None = field(init=False)
    reference: Any = field(init=False)
    automata: dict[tuple[str, NormalizeOptions], Automaton | ExtractorError] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        try:
            self.automaton = compile_automaton(self.schema)
        except UnsatisfiableSchemaError:
            self.automaton = None
        self.reference = Reference(self.schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def verdict(self, instance: Any) -> Verdict:
        engine = self.automaton is not None and runs(self.automaton, _text(instance))
        v = Verdict(instance, engine, self.reference.is_valid(instance), self.automaton is None)
        if v.reference and not v.engine:
            v.excuse = self._excuse(instance)
        return v

    def _excuse(self, instance: Any) -> str | None:
        value = _respell(instance)
        documented = [value, *Reorderer(_members(self.schema)).candidates(value)]
        # keys from patterns or propertyNames count toward minProperties only as declared members: read it without
        no_min = _without(self.schema, lambda k, v: k == "minProperties" and isinstance(v, int))
        no_email = _without(no_min, lambda k, v: k == "format" and v in ("email", "idn-email"))
        relaxed: list[tuple[Any, NormalizeOptions, Callable[[Automaton], bool]]] = [  # one per POLICIES entry
            (self.schema, STRICT, lambda a: runs(a, _text(value))),
            (self.schema, STRICT, lambda a: any(runs(a, _text(v)) for v in documented)),
            (self.schema, STRICT, lambda a: some_order(a, value)),
            (self.schema, LAX_OBJECTS, lambda a: some_order(a, value)),
            (self.schema, LAX, lambda a: some_order(a, value)),
            (no_min, LAX, lambda a: some_order(a, value)),
            (no_email, LAX, lambda a: some_order(a, value))]
        refused, tried = [], set()
        for name, (schema, options, accepts) in zip(POLICIES, relaxed, strict=True):
            key = (json.dumps(schema), options)
            if key in tried and not name.startswith(("key order", "number")):
                continue  # this relaxation changes nothing for this schema
            tried.add(key)
            auto = self._relaxed(schema, options)
            if isinstance(auto, ExtractorError):
                refused += [] if isinstance(auto, UnsatisfiableSchemaError) else [name]
            elif accepts(auto):
                return name
        return f"unverified ({', '.join(dict.fromkeys(refused))}: relaxed reading refused)" if refused else None

    def _relaxed(self, schema: Any, options: NormalizeOptions) -> Automaton | ExtractorError:
        """The automaton with a policy relaxed, or the engine's refusal of that reading."""
        key = (json.dumps(schema), options)
        if key not in self.automata:
            try:
                self.automata[key] = compile_automaton(schema, options)
            except ExtractorError as exc:
                self.automata[key] = exc
        return self.automata[key]


def read_exact(text: bytes) -> Any:
    """JSON as the engine means it: a number is the float it names when that float spells the same
    value back, otherwise the exact Decimal (so `0.30000000000000001` is not read as 0.3)."""
    def number(token: str) -> float | Decimal:
        return float(token) if Decimal(repr(float(token))) == Decimal(token) else Decimal(token)
    return json.loads(text.decode("utf-8"), parse_float=number)
