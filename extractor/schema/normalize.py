"""JSON Schema dict -> typed IR; every keyword is enforced, ignored as annotation, or refused."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import marshal
import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from extractor.errors import InvalidSchemaError, SchemaTooComplexError, SchemaWarning, UnsupportedSchemaError
from extractor.lang.budget import clock_at
from extractor.lang.json_terms import FORMATS, dumps
from extractor.lang.pattern import PatternError, compile_pattern, pattern_matches, patterns_apart
from extractor.lang.pattern_parts import Parts
from extractor.lang.pattern_parts import split as split_pattern
from extractor.schema import ir
from extractor.schema.merge import MAX_PAIRS, Merger, canonical, close_objects, split_contains
from extractor.schema.exactness import Exactness, vacuous
from extractor.schema.keywords import ANNOTATIONS, APPLICATORS, ASSERTIONS, ENFORCED, IMPLYING, KNOWN_FORMATS
from extractor.schema.negation import Negation
from extractor.schema.values import (
    ANY_OBJECT, TYPES, absent, escape, object_or_nothing, read_bound, read_count, read_most, read_step, union,
)

if TYPE_CHECKING:
    from referencing._core import Resolved, Resolver

MAX_PATTERN_PROPERTIES = 64
"""Patterns under one `patternProperties` (each pair is compared: see MAX_PATTERN_GROUPS)."""
MAX_PATTERN_GROUPS = 64
"""Undeclared keys are split by the set of patterns they match: one group per set of patterns that one key may
match together (every pair not shown apart by `patterns_apart`), up to this many; 2**n - 1 for n overlapping
patterns, n for patterns anchored on different literal text."""
MAX_CUT_OPTIONS = 64
"""oneOf options that may overlap, each cut by the complements of all the others (quadratic): more are refused."""
_BASE = "urn:extractor:schema"
_NO_PARTS = Parts(())
"""A string without `pattern`: no parts."""
_QUIET = (ENFORCED | ANNOTATIONS) - ASSERTIONS
"""Keys `check_keywords` lets through without a word."""


@dataclass(frozen=True)
class NormalizeOptions:
    """How to read a schema where JSON Schema leaves room."""

    strict_objects: bool = True
    """Treat absent/true `additionalProperties` as closed: generate declared keys only, and always
    write a one-value property whose default is that value (a union tag). Both are stricter."""
    implied_types: bool = True
    """A subschema without `type` takes the type its keywords imply (`minLength` -> string), the
    intent of nearly every real schema. False follows JSON Schema to the letter: such keywords
    constrain only values of their type, and values of every other type pass."""


def normalize(document: dict[str, Any] | bool, options: NormalizeOptions = NormalizeOptions()) -> ir.Schema:
    """Read a JSON Schema into the IR, resolving $ref through `referencing`."""
    if not isinstance(document, (dict, bool)):
        raise InvalidSchemaError(f"a schema must be an object or a boolean, not {type(document).__name__}")
    check_document(document)
    return read(document, options)


def read(document: dict[str, Any] | bool, options: NormalizeOptions = NormalizeOptions()) -> ir.Schema:
    """`normalize` for a document `check_document` has passed."""
    normalizer = _Normalizer(document, options)
    try:
        return normalizer.run()
    finally:  # its exactness reader holds its bound method: a cycle that would keep every node it read for the
        del normalizer.exactness  # cyclic collector to free later, inside whatever call it lands in (a mask's)


_TEXT = json.JSONEncoder(ensure_ascii=False).encode
"""A document as JSON text, non-ASCII kept (`json.dumps` with a keyword makes an encoder per call)."""


def check_document(document: Any) -> None:
    """A schema document every later stage can walk: JSON nested at most MAX_JSON_DEPTH deep, and every key and
    string text that UTF-8 can carry (no lone surrogate); walked without recursion, each value's pointer spelled
    out only for an error."""
    if _plain(document):
        return
    try:  # at C speed where it passes: UTF-8 throughout, and too few brackets to nest too deep
        text = _TEXT(document)
        text.encode("utf-8")  # raises on a lone surrogate
        if text.count("{") + text.count("[") <= MAX_JSON_DEPTH or _shallow(document):
            return
    except (TypeError, ValueError, RecursionError, UnicodeEncodeError):
        pass  # the walk below names where and why, or lets through what it does not judge
    stack: list[tuple[Any, Any, int]] = [(document, None, 0)]  # (value, (key, parent trail) or None, depth)
    while stack:
        value, trail, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise UnsupportedSchemaError("schema", _pointer(trail).encode("utf-8", "backslashreplace").decode()[:200],
                                         f"the schema document nests deeper than {MAX_JSON_DEPTH}")
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and not key.isascii():
                    _utf8(key, _pointer((key, trail)))
                stack.append((item, (key, trail), depth + 1))
        elif isinstance(value, list):
            stack.extend((item, (k, trail), depth + 1) for k, item in enumerate(value))
        elif isinstance(value, str) and not value.isascii():
            _utf8(value, _pointer(trail))


def _plain(document: Any) -> bool:
    """The usual document passes at C speed, in a fraction of the time its JSON text takes: marshal's format 2 writes
    each string as UTF-8 that lets surrogates through (bytes ED A0-BF), each dict and list with one type byte, and
    each repeat of a shared part again (no back-references: a cycle fails), so without such a pair, and with no
    more of those type bytes than a value could nest in, no walk would find anything (False where unsure)."""
    try:
        data = marshal.dumps(document, 2)
    except ValueError:  # a type marshal does not write (subclasses too), or a cycle
        return False
    return _LONE_SURROGATE.search(data) is None and (
        data.count(b"{") + data.count(b"[") <= MAX_JSON_DEPTH or _shallow(document))


_LONE_SURROGATE = re.compile(rb"\xed[\xa0-\xbf]")
"""A surrogate code point as UTF-8 with surrogates let through: no valid UTF-8 holds it."""


def _shallow(document: Any) -> bool:
    """No dict or list nests deep enough for an item to lie past MAX_JSON_DEPTH (False where one might: the walk
    tells), read level by level over containers alone: most large documents have more brackets than the quick
    count allows but few levels, and this costs a fraction of the walk."""
    level, depth = [document] if isinstance(document, (dict, list)) else [], 0
    while level:
        if depth >= MAX_JSON_DEPTH:
            return False
        nested: list[Any] = []
        for value in level:
            nested += [v for v in (value.values() if isinstance(value, dict) else value) if isinstance(v, (dict, list))]
        level, depth = nested, depth + 1
    return True


def _resource(contents: Any, ptr: str = "") -> Resource[Any]:
    """A schema as a `referencing` resource, its dialect named by `$schema` (draft 2020-12 where it names none)."""
    _check_dialect(contents, ptr)
    return Resource.from_contents(contents, default_specification=DRAFT202012)


def _check_dialect(schema: Any, ptr: str) -> None:
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    if dialect is not None and not isinstance(dialect, str):
        raise InvalidSchemaError(f"$schema names a dialect by its URI, not {dialect!r:.40}", ptr)


def _pointer(trail: Any) -> str:
    """The JSON pointer of a (key, parent trail) chain."""
    keys = []
    while trail is not None:
        key, trail = trail
        keys.append(escape(str(key)))
    return "".join(f"/{k}" for k in reversed(keys))


def _utf8(value: Any, ptr: str) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidSchemaError(f"a lone surrogate at character {exc.start} of {value!r:.40}: no UTF-8 text "
                                     "holds one", ptr.encode("utf-8", "backslashreplace").decode()) from None


class _Normalizer(Negation):
    def __init__(self, document: dict[str, Any] | bool, options: NormalizeOptions) -> None:
        self.document = document
        self.options = options
        self._resolver: Resolver | None = None  # made when a $ref or a nested $id first needs it
        self.defs: dict[str, ir.Node | None] = {}
        self.names: dict[int, str] = {}
        self.raw: dict[str, Any] = {}  # each definition's schema, by name
        self.merger = Merger(self.defs)
        self.negating = 0  # depth of complements taken through $ref (recursion guard)
        self.counting = False
        self.depth = 0  # subschemas being read, one inside the other
        self.deferred: list[tuple[str, int, int, ir.Node, ir.Node, str]] = []
        """oneOf options with no exact complement, taken as apart once every definition is read (or refused)."""
        self.targets: dict[tuple[str, int], tuple[Resolver, Any]] = {}
        self.exactness = Exactness(document, self.target, options.implied_types)

    @property
    def resolver(self) -> Resolver:
        """Where $refs resolve now: the document's registry, made on first use (most schemas have no $ref)."""
        if self._resolver is None:
            document = self.document
            base = document.get("$id") if isinstance(document, dict) and isinstance(document.get("$id"), str) else _BASE
            base = base.removesuffix("#")  # an empty fragment names the document itself (draft 4-7 metaschemas)
            self._resolver = Registry().with_resource(base, _resource(document)).resolver(base_uri=base)
        return self._resolver

    @resolver.setter
    def resolver(self, value: Resolver) -> None:
        self._resolver = value

    def run(self) -> ir.Schema:
        for key in ("$defs", "definitions"):
            if isinstance(self.document, dict) and not isinstance(self.document.get(key, {}), dict):
                raise InvalidSchemaError(f"{key} must be an object of named subschemas", f"/{key}")
        root = self.node(self.document, "")
        unresolved = [name for name, node in self.defs.items() if node is None]
        if unresolved:
            raise InvalidSchemaError(f"definitions never resolved: {unresolved}")
        for ptr, i, j, a, b, reason in self.deferred:
            if not self.apart(a, b):
                raise _overlap(ptr, i, j, reason)
        defs: dict[str, ir.Node] = dict(self.defs)  # type: ignore[arg-type]
        if self.options.strict_objects:
            closed: dict[int, tuple[ir.Node, ir.Node]] = {}  # parts the root and definitions share: closed once
            root, defs = close_objects(root, closed), {k: close_objects(v, closed) for k, v in defs.items()}
        root, defs = split_contains(root, defs, self.merger, self.options.strict_objects, self.counting)
        return ir.Schema(root=root, defs=defs)

    def node(self, schema: Any, ptr: str) -> ir.Node:
        clock_at(ptr)
        self.depth += 1
        try:
            if self.depth > MAX_SCHEMA_DEPTH:
                raise UnsupportedSchemaError("schema", ptr.encode("utf-8", "backslashreplace").decode(),
                                             f"subschemas (through $refs too) nest deeper than {MAX_SCHEMA_DEPTH}")
            return self._node(schema, ptr)
        finally:
            self.depth -= 1

    def _node(self, schema: Any, ptr: str) -> ir.Node:
        if isinstance(schema, dict) and isinstance(schema.get("$id"), str) and schema is not self.document:
            # a nested $id is a new base URI: $refs below it resolve against it
            outer = self.resolver
            self.resolver = outer.in_subresource(_resource(schema, ptr))
            try:
                return self.subschema(schema, ptr)
            finally:
                self.resolver = outer
        return self.subschema(schema, ptr)

    def subschema(self, schema: Any, ptr: str) -> ir.Node:
        if schema is True:
            return ir.AnyValue()
        if schema is False:
            return ir.Nothing()
        if not isinstance(schema, dict):
            raise InvalidSchemaError(f"a subschema must be an object or a boolean, not {schema!r}", ptr)
        self.check_keywords(schema, ptr)
        if APPLICATORS.isdisjoint(schema):  # own keywords alone (the usual subschema): an object's words are its own
            return self.base(schema, ptr)
        parts: list[ir.Node] = []
        rest = {k: v for k, v in schema.items() if k not in APPLICATORS}
        if not ENFORCED.isdisjoint(rest):
            parts.append(self.base(rest, ptr))  # own keywords first: their property order wins
        if "$ref" in schema:
            parts.append(self.ref(schema["$ref"], ptr))
        for i, sub in enumerate(schema.get("allOf", [])):
            parts.append(self.node(sub, f"{ptr}/allOf/{i}"))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                options = tuple(self.node(s, f"{ptr}/{key}/{i}") for i, s in enumerate(schema[key]))
                parts.append(union(self.one_of(schema, rest, options, ptr) if key == "oneOf" else options))
        if "not" in schema:
            parts.append(self.negation(schema["not"], f"{ptr}/not"))
        parts.extend(self.dependencies(schema, ptr))
        if "if" in schema:  # (if and then) or (not if and else), where `if` has an exact complement
            cond = self.node(schema["if"], f"{ptr}/if")
            then = self.node(schema.get("then", True), f"{ptr}/then")
            other = self.node(schema.get("else", True), f"{ptr}/else")
            try:
                otherwise = self.negation(schema["if"], f"{ptr}/if")
            except SchemaTooComplexError:  # out of budget: said as such, not as a keyword refused
                raise
            except UnsupportedSchemaError as exc:
                raise UnsupportedSchemaError("if", f"{ptr}/if", f"`else` needs its complement: {exc.reason}") from exc
            parts.append(union((self.merger.both(cond, then, ptr), self.merger.both(otherwise, other, ptr))))
        if not parts:
            parts.append(self.base(rest, ptr))
        node = parts[0]
        for part in parts[1:]:
            node = self.merger.both(node, part, ptr)
        if isinstance(node, ir.Object) and "description" in schema:  # its own words, over those of its parts
            node = dataclasses.replace(node, doc=_doc(schema))
        return node

    def one_of(self, schema: dict[str, Any], rest: dict[str, Any], options: tuple[ir.Node, ...],
               ptr: str) -> tuple[ir.Node, ...]:
        """A oneOf's options made exclusive: as they are where exact and provably apart, else cut to one type,
        else each cut by the others' complements. The first two are judged supposing this oneOf's IR takes no
        complement (through a `$ref` cycle its options may reach it again), which holds when either applies."""
        subs = schema["oneOf"]
        self.exactness.suppose_uncut(schema)
        if all(map(self.exactness.explicit, subs)) and self.disjoint(options):
            self.exactness.read_one_of(schema, False)
            return options
        typed = self.within_type(rest, subs, options, ptr)
        if typed is not None:
            self.exactness.read_one_of(schema, False)
            return typed
        self.exactness.withdraw(schema)
        cut, complemented = self.exclusive(subs, options, ptr)
        self.exactness.read_one_of(schema, complemented)
        return cut

    def within_type(self, rest: dict[str, Any], schemas: list[Any], options: tuple[ir.Node, ...],
                    ptr: str) -> tuple[ir.Node, ...] | None:
        """oneOf options cut to one type, when that makes them provably disjoint and stays exact: the type
        declared beside them, each option exact within it (explicit, or speaking of that type alone, like
        `{"maxLength": 0}`, down to its subschemas); or, with no type declared, every option speaking of one type
        alone, so that any other value matches them all and oneOf rejects it."""
        kind = rest.get("type")
        if kind in TYPES:
            if not all(self.exactness.explicit(sub, kind) for sub in schemas):
                return None
        else:
            kind = next((k for k in ("object", "array", "string", "number")
                         if len(schemas) > 1 and all(vacuous(sub, k) and self.exactness.explicit(sub, k)
                                                     for sub in schemas)), None)
            if kind is None:
                return None
        declared = self.typed(kind, {}, ptr) if kind != "object" else ANY_OBJECT
        typed = tuple(self.merger.both(declared, option, ptr) for option in options)
        return typed if self.disjoint(typed) else None

    def exclusive(self, schemas: list[Any], options: tuple[ir.Node, ...],
                  ptr: str) -> tuple[tuple[ir.Node, ...], bool]:
        """Overlapping oneOf options as "this one and none of the others", each other option by its
        exact complement (skipped where the two provably share no value); and whether any complement was taken."""
        if len(options) > MAX_CUT_OPTIONS:
            raise UnsupportedSchemaError("oneOf", ptr, f"{len(options)} options not shown apart: each would be cut by "
                                         f"every other's complement (at most {MAX_CUT_OPTIONS})")
        out, complemented = [], False
        for i, node in enumerate(options):
            for j, sub in enumerate(schemas):
                clock_at(f"{ptr}/oneOf/{j}")
                if j == i or (self.exactness.explicit(sub) and self.apart(node, options[j])):
                    continue
                try:
                    with self.merger.attempt():
                        node = self.merger.both(node, self.negation(sub, f"{ptr}/oneOf/{j}"), ptr)
                    complemented = True
                except SchemaTooComplexError:
                    raise
                except UnsupportedSchemaError as exc:
                    if not self.exactness.explicit(sub):
                        raise _overlap(ptr, i, j, exc.reason) from None
                    self.deferred.append((ptr, i, j, options[i], options[j], exc.reason))
                    # a definition still being read may yet show them apart: checked at the end
            out.append(node)
        return tuple(out), complemented

    def others(self, kind: str, keys: set[str], ptr: str) -> list[ir.Node]:
        """Values of every type but `kind` (number and integer alike), where `type` is among the keywords
        complemented; none otherwise (keywords of one type hold for values of any other)."""
        return [self.typed(t, {}, ptr) if t != "object" else ANY_OBJECT
                for t in TYPES if t not in (kind, "integer") and "type" in keys]

    def dependencies(self, schema: dict[str, Any], ptr: str) -> list[ir.Node]:
        """Each dependency as a union: the trigger key absent, or present with what it demands."""
        found = [(keyword, key, needs) for keyword in ("dependencies", "dependentRequired", "dependentSchemas")
                 if keyword in schema for key, needs in schema[keyword].items()]  # the same key under two keywords: both hold
        if len(found) > MAX_DEPENDENCIES:
            raise UnsupportedSchemaError("dependencies", ptr, f"more than {MAX_DEPENDENCIES} dependencies")
        out = []
        for keyword, key, needs in found:
            where = f"{ptr}/{keyword}/{escape(key)}"
            present = ir.Object(properties=(ir.Property(key, ir.AnyValue(), True),), additional=ir.AnyValue())
            if isinstance(needs, list):
                demand: ir.Node = ir.Object(properties=tuple(ir.Property(n, ir.AnyValue(), True) for n in needs),
                                            additional=ir.AnyValue())
            else:
                demand = self.node(needs, where)
            others = [self.typed(t, {}, ptr) for t in TYPES if t not in ("object", "integer")]
            out.append(union((*others, absent(key), self.merger.both(present, demand, where))))
        return out

    def base(self, schema: dict[str, Any], ptr: str) -> ir.Node:
        """The node of a schema's own keywords (no applicators)."""
        if "enum" in schema or "const" in schema:  # the values decide the type; no implied one
            return self.constants(schema, ptr, self.types(schema, ptr) if "type" in schema else ["any"])
        types = self.types(schema, ptr)
        nodes = [self.typed(t, schema, ptr) for t in types]
        return union(tuple(nodes)) if len(nodes) != 1 else nodes[0]

    def check_keywords(self, schema: dict[str, Any], ptr: str) -> None:
        _check_dialect(schema, ptr)
        if _QUIET.issuperset(schema):  # the usual subschema: every key known, none refused
            return
        for key in schema:
            if key in ASSERTIONS:
                raise UnsupportedSchemaError(key, f"{ptr}/{key}")
            if key not in ENFORCED and key not in ANNOTATIONS:
                warnings.warn(f"unknown keyword {key!r} at {ptr or '/'} ignored as an annotation",
                              SchemaWarning, stacklevel=4)

    def target(self, ref: str) -> Any:
        """A `$ref`'s target for the exactness checks, which judge a recursive schema's targets many times over:
        resolved once per base URI in force (the resolver is kept beside it, so its id is not reused)."""
        key = (ref, id(self.resolver))
        hit = self.targets.get(key)
        if hit is None:
            hit = self.targets[key] = (self.resolver, self.lookup(ref, "").contents)
        return hit[1]

    def lookup(self, ref: Any, ptr: str) -> Resolved[Any]:
        """The target of a $ref, or why it has none."""
        try:
            return self.resolver.lookup(ref)
        except Unresolvable as exc:
            raise InvalidSchemaError(f"cannot resolve $ref {ref!r}: {exc}", ptr) from exc
        except (AttributeError, TypeError) as exc:  # `referencing` reading a subresource's $schema or $id
            raise InvalidSchemaError(f"cannot resolve $ref {ref!r}: a subschema on the way names its dialect or base "
                                     f"URI with a non-string ({exc})", ptr) from None

    @contextlib.contextmanager
    def resolved_at(self, ref: str, ptr: str) -> Iterator[Any]:
        """The target of a $ref, with $refs inside it resolved against its own base URI."""
        resolved = self.lookup(ref, ptr)
        outer, self.resolver = self.resolver, resolved.resolver
        try:
            yield resolved.contents
        finally:
            self.resolver = outer

    def ref(self, ref: str, ptr: str) -> ir.Node:
        if not isinstance(ref, str):
            raise InvalidSchemaError(f"$ref must be a string, not {ref!r:.40}", f"{ptr}/$ref")
        resolved = self.lookup(ref, ptr)
        target = resolved.contents
        if isinstance(target, bool):
            return self.node(target, ref)
        name = self.names.get(id(target))
        if name is None:
            name = _unique(ref.rsplit("/", 1)[-1] or "root", self.defs)
            self.names[id(target)] = name
            self.defs[name], self.raw[name] = None, target
            outer, self.resolver = self.resolver, resolved.resolver  # the target's own base URI
            try:
                self.defs[name] = self.node(target, ref[1:] if ref.startswith("#") else ref)
            finally:
                self.resolver = outer
        return ir.Ref(name)

    def types(self, schema: dict[str, Any], ptr: str) -> list[str]:
        declared = schema.get("type")
        if type(declared) is str and declared in TYPES:  # the usual one valid name
            return [declared]
        if declared is None:
            keys = set(schema)
            implied = [t for t, ks in IMPLYING.items() if keys & ks]
            if implied and not self.options.implied_types:
                return [t for t in TYPES if t != "integer"]
            if len(implied) > 1:
                raise UnsupportedSchemaError("type", ptr, f"no type, and keywords of several types {implied}")
            return implied or ["any"]
        names = [declared] if isinstance(declared, str) else declared
        if not isinstance(names, list) or not names or any(t not in TYPES for t in names):
            raise InvalidSchemaError(f"bad type {declared!r}", f"{ptr}/type")
        if "integer" in names and "number" in names:
            names = [t for t in names if t != "integer"]
        return list(dict.fromkeys(names))

    def constants(self, schema: dict[str, Any], ptr: str, types: list[str]) -> ir.Node:
        values = [schema["const"]] if "const" in schema else schema["enum"]
        if "const" in schema and "enum" in schema:
            values = [v for v in values if _same(v, schema["const"]) and any(_same(v, e) for e in schema["enum"])]
        if not isinstance(values, list):
            raise InvalidSchemaError("enum must be an array", f"{ptr}/enum")
        kept = [v for v in values if "any" in types or _type_of(v) in types
                or (_type_of(v) == "integer" and "number" in types)
                or (isinstance(v, float) and v.is_integer() and "integer" in types)]
        texts = tuple(dict.fromkeys(dumps(v) for v in kept))
        others = {k: v for k, v in schema.items() if k not in ("enum", "const", "type")}
        if any(k in ENFORCED for k in others):  # enum beside other keywords: keep the values they admit
            rule, implied = self.base(others, ptr), self.types(others, ptr)
            kept_texts = []
            for text in texts:
                value = json.loads(text)
                kind = _type_of(value).replace("integer", "number")
                if kind not in implied or self.merger.admits(rule, value, ptr):
                    kept_texts.append(text)  # keywords of another type do not apply to this value
            texts = tuple(kept_texts)
        return ir.Const(texts) if texts else ir.Nothing()

    def typed(self, kind: str, schema: dict[str, Any], ptr: str) -> ir.Node:
        if kind == "any":
            return ir.AnyValue()
        if kind == "null":
            return ir.Null()
        if kind == "boolean":
            return ir.Boolean()
        if kind in ("number", "integer"):
            return self.number(kind == "integer", schema, ptr)
        if kind == "string":
            return self.string(schema, ptr)
        if kind == "array":
            return self.array(schema, ptr)
        return self.object(schema, ptr)

    def number(self, integer: bool, schema: dict[str, Any], ptr: str) -> ir.Node:
        lo, lo_x = read_bound(schema, "minimum", "exclusiveMinimum", max, ptr)
        hi, hi_x = read_bound(schema, "maximum", "exclusiveMaximum", min, ptr)
        if integer:  # integers: exclusive and fractional bounds become inclusive integral ones
            if lo is not None:
                lo, lo_x = Decimal(math.floor(lo) + 1 if lo_x or lo != int(lo) else lo), False
            if hi is not None:
                hi, hi_x = Decimal(math.ceil(hi) - 1 if hi_x or hi != int(hi) else hi), False
        if lo is not None and hi is not None and (lo > hi or (lo == hi and (lo_x or hi_x))):
            return ir.Nothing()
        multiple = read_step(schema, ptr)
        return ir.Number(integer=integer, minimum=lo, exclusive_minimum=lo_x, maximum=hi, exclusive_maximum=hi_x,
                         multiple_of=multiple, pointer=ptr)

    def string(self, schema: dict[str, Any], ptr: str) -> ir.Node:
        lo, hi = read_count(schema, "minLength", ptr), read_most(schema, "maxLength", ptr)
        fmt = schema.get("format")
        if fmt is not None and not isinstance(fmt, str):
            raise InvalidSchemaError(f"format names a format, not {fmt!r:.40}", f"{ptr}/format")
        if fmt is not None and fmt not in FORMATS:
            if fmt in KNOWN_FORMATS:
                raise UnsupportedSchemaError("format", f"{ptr}/format", f"format {fmt!r} is not yet enforced")
            warnings.warn(f"unknown format {fmt!r} at {ptr or '/'} treated as a plain string",
                          SchemaWarning, stacklevel=4)
            fmt = None
        pattern, parts = schema.get("pattern"), _NO_PARTS
        if pattern is not None:
            if not isinstance(pattern, str):
                raise InvalidSchemaError("pattern must be a string", f"{ptr}/pattern")
            parts = split_pattern(pattern)  # leading lookaheads and long one-class repeats, made exact parts
            try:
                for part in (*parts.patterns, *parts.anti_patterns):
                    compile_pattern(part)
            except PatternError as exc:
                raise UnsupportedSchemaError("pattern", f"{ptr}/pattern", str(exc)) from exc
            lo = max(lo, parts.min_length)
            hi = parts.max_length if hi is None else hi if parts.max_length is None else min(hi, parts.max_length)
        if hi is not None and hi < lo:
            return ir.Nothing()
        verbatim = schema.get("x-verbatim", False)
        if not isinstance(verbatim, bool):
            raise InvalidSchemaError("x-verbatim must be true or false", f"{ptr}/x-verbatim")
        return ir.String(min_length=lo, max_length=hi, format=fmt, patterns=parts.patterns,
                         anti_patterns=parts.anti_patterns, verbatim=verbatim, pointer=ptr)

    def array(self, schema: dict[str, Any], ptr: str) -> ir.Node:
        items = schema.get("items", True)
        prefix_schemas, prefix_key = schema.get("prefixItems", []), "prefixItems"
        if isinstance(items, list):  # drafts 4-2019: tuple form, the rest under additionalItems
            prefix_schemas, prefix_key, items = items, "items", schema.get("additionalItems", True)
        prefix = tuple(self.node(s, f"{ptr}/{prefix_key}/{i}") for i, s in enumerate(prefix_schemas))
        rest = self.node(items, f"{ptr}/{'additionalItems' if prefix_key == 'items' else 'items'}")
        lo = read_count(schema, "minItems", ptr)
        hi = read_most(schema, "maxItems", ptr)
        return ir.Array(items=None if isinstance(rest, ir.Nothing) else rest, prefix=prefix, min_items=lo,
                        max_items=hi, contains=self.contains(schema, ptr), unique=schema.get("uniqueItems") is True,
                        pointer=ptr)

    def contains(self, schema: dict[str, Any], ptr: str) -> ir.Contains | None:
        """`contains` needs the exact complement of its schema: elements either match or miss."""
        if "contains" not in schema:
            return None
        where = f"{ptr}/contains"
        try:
            miss = self.negation(schema["contains"], where)
        except SchemaTooComplexError:
            raise
        except UnsupportedSchemaError as exc:
            raise UnsupportedSchemaError("contains", where, f"its schema has no exact complement ({exc.reason})") from None
        lo = read_count(schema, "minContains", ptr) if "minContains" in schema else 1
        hi = read_count(schema, "maxContains", ptr) if "maxContains" in schema else None
        self.counting = True
        return ir.Contains(self.node(schema["contains"], where), miss, lo, hi)

    def object(self, schema: dict[str, Any], ptr: str) -> ir.Node:
        props = schema.get("properties", {})
        required = schema.get("required", [])
        if not isinstance(props, dict) or not isinstance(required, list):
            raise InvalidSchemaError("properties must be an object and required an array", ptr)
        extra = self.node(schema.get("additionalProperties", True), f"{ptr}/additionalProperties")
        additional = None if isinstance(extra, ir.Nothing) else extra
        patterned = self.pattern_properties(schema, ptr)
        keys = self.property_names(schema, ptr)
        properties = []
        for name, sub in props.items():
            value = self.node(sub, f"{ptr}/properties/{escape(name)}")
            if keys is not None and not self.merger.admits(keys, name, f"{ptr}/propertyNames"):
                value = ir.Nothing()  # a declared key propertyNames refuses cannot appear
            for pattern, schema_ in patterned:  # a declared key matching a pattern obeys both
                if pattern_matches(pattern, name):
                    value = self.merger.both(value, schema_, f"{ptr}/patternProperties")
            needed = name in required or (self.options.strict_objects and _tag(sub, value))
            properties.append(ir.Property(name, value, needed, _doc(sub)))
        for name in dict.fromkeys(required):  # required but undeclared: valued by the patterns it matches, if
            if name not in props:             # any, else by additionalProperties
                value = extra
                matching = [schema_ for pattern, schema_ in patterned if pattern_matches(pattern, name)]
                if matching:
                    value = ir.AnyValue()
                    for schema_ in matching:
                        value = self.merger.both(value, schema_, f"{ptr}/patternProperties")
                allowed = keys is None or self.merger.admits(keys, name, f"{ptr}/propertyNames")
                properties.append(ir.Property(name, value if allowed else ir.Nothing(), True))
        lo = read_count(schema, "minProperties", ptr)
        hi = None if schema.get("maxProperties") is None else read_count(schema, "maxProperties", ptr)
        groups = []
        for subset in _together([p for p, _ in patterned], f"{ptr}/patternProperties"):
            value: ir.Node = ir.AnyValue()
            for i in subset:
                value = self.merger.both(value, patterned[i][1], f"{ptr}/patternProperties")
            groups.append((tuple(patterned[i][0] for i in subset), value))
        if isinstance(keys, ir.Nothing):  # no key at all is allowed: only undeclared keys matter here
            additional, groups = None, []
        return object_or_nothing(ir.Object(
            properties=tuple(properties), additional=additional, pattern_groups=tuple(groups),
            key_schema=None if isinstance(keys, (ir.Nothing, type(None))) else keys, min_properties=lo,
            max_properties=hi, policy_closed=schema.get("additionalProperties", True) is True, doc=_doc(schema)))

    def property_names(self, schema: dict[str, Any], ptr: str) -> ir.Node | None:
        """The propertyNames schema as it applies to keys (strings): a String, a Const, Nothing or None."""
        if "propertyNames" not in schema:
            return None
        where = f"{ptr}/propertyNames"
        node = self.merger.resolve(self.node(schema["propertyNames"], where), where)
        if isinstance(node, ir.AnyValue) or node == ir.String():
            return None
        if isinstance(node, ir.Union_):
            strings = [o for o in node.options if isinstance(o, (ir.String, ir.Const))]
            if len(strings) != 1:
                raise UnsupportedSchemaError("propertyNames", where, "a union of key languages")
            node = strings[0]  # the other options admit no string
        if isinstance(node, ir.Const):
            texts = tuple(v for v in node.values if isinstance(json.loads(v), str))
            return ir.Const(texts) if texts else ir.Nothing()
        if isinstance(node, ir.String):
            if node.format is not None:
                raise UnsupportedSchemaError("propertyNames", where, "a format for keys")
            return node
        return ir.Nothing()  # only non-string values: no key qualifies

    def pattern_properties(self, schema: dict[str, Any], ptr: str) -> list[tuple[str, ir.Node]]:
        found = schema.get("patternProperties", {})
        if not isinstance(found, dict):
            raise InvalidSchemaError("patternProperties must be an object", f"{ptr}/patternProperties")
        if len(found) > MAX_PATTERN_PROPERTIES:
            raise UnsupportedSchemaError("patternProperties", f"{ptr}/patternProperties",
                                         f"more than {MAX_PATTERN_PROPERTIES} patterns")
        out = []
        for pattern, sub in found.items():
            try:
                compile_pattern(pattern)
            except PatternError as exc:
                raise UnsupportedSchemaError("patternProperties", f"{ptr}/patternProperties", str(exc)) from exc
            out.append((pattern, self.node(sub, f"{ptr}/patternProperties/{escape(pattern)}")))
        return out

    def disjoint(self, options: tuple[ir.Node, ...]) -> bool:
        """True when no JSON value can match two options: options of one type each are apart from those of
        another, constants by their values, objects tagged by one key (required, a constant in every one) by
        its values, and the rest pair by pair (up to MAX_PAIRS pairs: past it, not shown apart)."""
        by_kind: dict[str, list[ir.Node]] = {}
        for option in options:
            kinds = self.kinds(option)
            if kinds is None or len(kinds) != 1:
                return self.apart_pairs(options)
            by_kind.setdefault(next(iter(kinds)), []).append(option)
        return all(self.apart_pairs(group) for group in by_kind.values())

    def apart_pairs(self, options: tuple[ir.Node, ...] | list[ir.Node]) -> bool:
        resolved = [self.resolved(o) for o in options]
        if all(isinstance(r, ir.Const) for r in resolved):
            values = [frozenset(canonical(json.loads(v)) for v in r.values)  # type: ignore[union-attr]
                      for r in resolved]
            return _distinct_sets(values)
        if all(isinstance(r, ir.Object) for r in resolved):
            tags = [_tags(r, self.resolved) for r in resolved]  # type: ignore[arg-type]
            if any(_distinct_sets([t[key] for t in tags]) for key in frozenset.intersection(*map(frozenset, tags))):
                return True
        if len(options) * (len(options) - 1) // 2 > MAX_PAIRS:
            return False
        return all(self.apart(a, b) for i, a in enumerate(options) for b in options[i + 1:])

    def apart(self, a: ir.Node, b: ir.Node, depth: int = 0) -> bool:
        """No value matches both: by type, by constants, by a const tag, or by a required key the other forbids.
        Conservative: False whenever unsure (then oneOf is refused)."""
        if depth > 8:
            return False
        ra, rb = self.resolved(a), self.resolved(b)
        if ra is None or rb is None:  # a definition still being read: apart by the types it declares
            ka, kb = self.kinds(a), self.kinds(b)
            return ka is not None and kb is not None and not ka & kb
        a, b = ra, rb
        if isinstance(a, ir.Nothing) or isinstance(b, ir.Nothing):
            return True
        for x, y in ((a, b), (b, a)):
            if isinstance(x, ir.Union_):
                return all(self.apart(o, y, depth + 1) for o in x.options)
        if isinstance(a, ir.AnyValue) or isinstance(b, ir.AnyValue):
            return False
        if not _kinds(a) & _kinds(b):
            return True
        if isinstance(a, ir.Const) and isinstance(b, ir.Const):
            return not {canonical(json.loads(v)) for v in a.values} & {canonical(json.loads(v)) for v in b.values}
        if isinstance(a, ir.String) and isinstance(b, ir.String):  # by length, or a pattern the other excludes
            return any(x.max_length is not None and x.max_length < y.min_length
                       or set(x.patterns) & set(y.anti_patterns) for x, y in ((a, b), (b, a)))
        if isinstance(a, ir.Number) and isinstance(b, ir.Number):  # by range, or integer against fraction
            return (a.integer and b.fraction) or (b.integer and a.fraction) or any(_below(x, y) for x, y in ((a, b),
                                                                                                            (b, a)))
        if isinstance(a, ir.Object) and isinstance(b, ir.Object):
            if _tags_disjoint(_tags(a, self.resolved), _tags(b, self.resolved)) or _forbids(a, b) or _forbids(b, a):
                return True
            # a key one of them needs, whose value the other allows only apart from it (declared, by pattern)
            return any(self.apart(p.value, other, depth + 1) for x, y in ((a, b), (b, a)) for p in x.properties
                       if p.required and (other := self.member(y, p.name)) is not None)
        return False

    def member(self, obj: ir.Object, key: str) -> ir.Node | None:
        """What `obj` says about the value of `key` (`Merger.member`); None where that cannot be told."""
        try:
            return self.merger.member(obj, {p.name: p for p in obj.properties}, key, "")
        except SchemaTooComplexError:
            raise
        except UnsupportedSchemaError:
            return None

    def kinds(self, node: ir.Node | None, depth: int = 0) -> set[str] | None:
        """The JSON types a node's values may have (integer as number); None where unknown. A definition still
        being read has the types its schema declares."""
        if isinstance(node, ir.Ref):
            done = self.resolved(node)
            if done is not None:
                return self.kinds(done, depth + 1)
            raw = self.raw.get(node.name)
            declared = raw.get("type") if isinstance(raw, dict) else None
            names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else None
            return None if names is None else {n.replace("integer", "number") for n in names}
        if isinstance(node, ir.Union_) and depth < 8:
            parts = [self.kinds(o, depth + 1) for o in node.options]
            return None if any(k is None for k in parts) else set().union(*parts)  # type: ignore[arg-type]
        if isinstance(node, (ir.Null, ir.Boolean, ir.String, ir.Number, ir.Array, ir.Object, ir.Const)):
            return _kinds(node)
        return None

    def resolved(self, node: ir.Node | None) -> ir.Node | None:
        for _ in range(64):
            if not isinstance(node, ir.Ref):
                return node
            node = self.defs.get(node.name)
        return None


def _doc(schema: Any) -> ir.Doc:
    """A subschema's words for people; a `description` that is not a string, or `examples` that are not a
    list, say nothing."""
    if not isinstance(schema, dict) or _WORDS.isdisjoint(schema):  # most members say nothing: NO_DOC's equal
        return ir.NO_DOC
    text, examples = schema.get("description"), schema.get("examples")
    return ir.Doc(text.strip() if isinstance(text, str) else "",
                  tuple(examples) if isinstance(examples, list) else (), _from_text(schema))


_WRAPS = frozenset({"x-from-text", "anyOf", "oneOf", "allOf", "items"})
"""The keys `_from_text` reads: a schema with none of them is not marked."""
_WORDS = _WRAPS | {"description", "examples"}
"""The keys `_doc` reads: a schema with none of them says nothing."""


def _from_text(schema: dict[str, Any]) -> bool:
    """Marked `x-from-text`, itself or in what wraps its values: the options of an `anyOf`/`oneOf`/`allOf`
    (`Optional[Annotated[str, FromText]]`), its `items` (`list[Annotated[str, FromText]]`)."""
    if _WRAPS.isdisjoint(schema):  # the usual member: nothing to look through
        return False
    stack, seen = [schema], 0
    while stack and seen < 64:
        sub, seen = stack.pop(), seen + 1
        if not isinstance(sub, dict):
            continue
        if sub.get("x-from-text") is True:
            return True
        for key in ("anyOf", "oneOf", "allOf"):  # a loop, not a comprehension: this runs for every subschema
            options = sub.get(key)
            if isinstance(options, list):
                stack += options
        stack.append(sub.get("items"))
    return False


def _kinds(node: ir.Node) -> set[str]:
    if isinstance(node, ir.Const):
        return {_type_of(json.loads(v)).replace("integer", "number") for v in node.values}
    return {{ir.Null: "null", ir.Boolean: "boolean", ir.String: "string", ir.Number: "number",
             ir.Array: "array", ir.Object: "object"}[type(node)]}


def _tags(node: ir.Object, resolve: Any) -> dict[str, frozenset[str]]:
    """Required properties whose value is a constant set (discriminator tags)."""
    tags = {}
    for prop in node.properties:
        value = resolve(prop.value)
        if prop.required and isinstance(value, ir.Const):
            tags[prop.name] = frozenset(canonical(json.loads(v)) for v in value.values)
    return tags


def _overlap(ptr: str, i: int, j: int, reason: str) -> UnsupportedSchemaError:
    return UnsupportedSchemaError("oneOf", ptr, f"options {i} and {j} may overlap, and option {j} has no exact "
                                  f"complement ({reason})")


def _forbids(a: ir.Object, b: ir.Object) -> bool:
    """`a` requires a key that `b` does not allow (explicitly closed, or its schema `false`), or a key outside its
    properties where `b` allows none outside them."""
    declared = {p.name: p for p in b.properties}
    if a.some_undeclared and b.additional is None and not b.pattern_groups and declared.keys() <= {
            p.name for p in a.properties}:
        return True
    for prop in a.properties:
        if not prop.required:
            continue
        other = declared.get(prop.name)
        if other is not None and isinstance(other.value, ir.Nothing):
            return True
        if other is None and b.additional is None and not b.pattern_groups:
            return True
    return False


MAX_DEPENDENCIES = 6
"""Each dependency doubles the object alternatives the automaton carries."""


def _below(x: ir.Number, y: ir.Number) -> bool:
    """Every number `x` admits is below every one `y` admits."""
    if x.maximum is None or y.minimum is None:
        return False
    return x.maximum < y.minimum or (x.maximum == y.minimum and (x.exclusive_maximum or y.exclusive_minimum))


def _together(patterns: list[str], ptr: str) -> list[tuple[int, ...]]:
    """The sets of patterns (as indices) one key may match together: those with no pair shown apart, smallest
    first, each size in the order of `itertools.combinations`."""
    near = [{j for j, q in enumerate(patterns) if j != i and not patterns_apart(p, q)} for i, p in enumerate(patterns)]
    found: list[tuple[int, ...]] = []
    layer = [(i,) for i in range(len(patterns))]
    while layer:
        found += layer
        if len(found) > MAX_PATTERN_GROUPS:
            raise UnsupportedSchemaError("patternProperties", ptr, f"more than {MAX_PATTERN_GROUPS} sets of patterns "
                                         "that one key may match together (patterns not shown apart)")
        layer = [(*s, j) for s in layer for j in range(s[-1] + 1, len(patterns)) if all(j in near[i] for i in s)]
    return found


def _tag(schema: Any, node: ir.Node) -> bool:
    """A one-value property whose default is that value (a Pydantic union tag): generation always writes it."""
    return (isinstance(node, ir.Const) and len(node.values) == 1 and isinstance(schema, dict)
            and "default" in schema and dumps(schema["default"]) == node.values[0])


def _distinct_sets(sets: list[frozenset[str]]) -> bool:
    """No member in two of the sets (linear: each member seen once)."""
    seen: set[str] = set()
    for members in sets:
        if not seen.isdisjoint(members):
            return False
        seen |= members
    return True


def _tags_disjoint(a: dict[str, frozenset[str]], b: dict[str, frozenset[str]]) -> bool:
    return any(not (a[k] & b[k]) for k in a.keys() & b.keys())


MAX_SCHEMA_DEPTH = 96
"""Subschemas read one inside the other (nesting, `anyOf` in `anyOf`, a chain of `$ref`s): deeper schemas are
refused, so every later stage stays within Python's recursion limit."""

MAX_JSON_DEPTH = 8 * MAX_SCHEMA_DEPTH
"""Levels of JSON nesting in a schema document (a subschema level is at most a few: `properties`, a name, the
subschema): checked before anything recursive (json.dumps, the prompt's description) reads the document."""


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _same(a: Any, b: Any) -> bool:
    return _type_of(a) == _type_of(b) and a == b


def _unique(name: str, taken: dict[str, Any]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    return candidate
