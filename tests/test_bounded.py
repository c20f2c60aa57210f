"""Schemas of any width compile; schemas deeper than the limit are refused with a typed error, never a
RecursionError (or a panic from a library below)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import create_model

from extractor.automata import build_automaton
from extractor.errors import UnsatisfiableSchemaError, UnsupportedSchemaError
from extractor.grammar import compile_grammar
from extractor.schema import target_ir
from extractor.schema.normalize import MAX_SCHEMA_DEPTH


def compiles(target: Any) -> None:
    build_automaton(compile_grammar(target_ir(target, None)))


def ref_chain(n: int) -> dict[str, Any]:
    defs = {f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}}, "required": ["x"]}
            for i in range(n)}
    return {"$ref": "#/$defs/d0", "$defs": {**defs, f"d{n}": {"type": "integer"}}}


def nested(n: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(n):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return schema


def any_of(n: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for i in range(n):
        schema = {"anyOf": [schema, {"const": f"c{i}"}]}
    return schema


@pytest.mark.parametrize("target", [
    create_model("Wide", **{f"f{i}": (int, ...) for i in range(400)}),
    {"type": "object", "properties": {f"f{i}": {"type": "integer"} for i in range(400)}},
    {"type": "object", "properties": {f"f{i}": {"type": "integer"} for i in range(330)},
     "required": [f"f{i}" for i in range(330)]},
], ids=["model_400_required", "400_optional", "330_required"])
def test_wide_schemas_compile(target):
    compiles(target)


# (shape, levels within the limit, levels past it)
DEPTH_ROWS = [(ref_chain, MAX_SCHEMA_DEPTH // 2 - 2, 500), (nested, MAX_SCHEMA_DEPTH - 2, 165),
              (any_of, MAX_SCHEMA_DEPTH - 2, 331)]


@pytest.mark.parametrize("shape,within,past", DEPTH_ROWS, ids=[r[0].__name__ for r in DEPTH_ROWS])
def test_deep_schemas_compile_to_the_limit_and_are_refused_past_it(shape, within, past):
    compiles(shape(within))
    for levels in (MAX_SCHEMA_DEPTH + 1, past):
        with pytest.raises(UnsupportedSchemaError, match=f"nest deeper than {MAX_SCHEMA_DEPTH}"):
            compiles(shape(levels))


def test_a_schema_document_nested_past_the_limit_is_refused_before_anything_recursive_reads_it():
    from extractor.schema import json_schema
    from extractor.schema.normalize import MAX_JSON_DEPTH

    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(3000):  # json.dumps alone would raise RecursionError
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(UnsupportedSchemaError, match=f"nests deeper than {MAX_JSON_DEPTH}"):
        json_schema(deep)


def test_the_prompt_describes_a_schema_as_deep_as_normalization_allows():
    from extractor.decode.prompt import PromptTemplate, messages
    from extractor.schema.normalize import MAX_SCHEMA_DEPTH

    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(MAX_SCHEMA_DEPTH - 1):
        deep = {"type": "array", "items": deep}
    assert "a nested value" in messages(deep, "x", PromptTemplate())[0]["content"]


def test_repeats_that_unroll_past_the_state_budget_are_refused_before_anything_is_built():
    from extractor.errors import SchemaTooComplexError

    with pytest.raises(SchemaTooComplexError, match=r"more than 1,000,000 automaton states.*max_states") as exc:
        compiles({"type": "string", "pattern": "^(a{1000}){1000}$"})
    assert "(a{1000}){1000}" in exc.value.rule
    assert isinstance(exc.value, UnsupportedSchemaError)


def test_a_compile_past_its_timeout_fails_naming_the_rule_and_the_option():
    from extractor.errors import SchemaTooComplexError
    from extractor.grammar import CompileOptions

    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^.*a.{12}$"}}}
    with pytest.raises(SchemaTooComplexError, match=r"more than 0.2 s.*timeout=.*in rule 'string pattern:\^\.\*a"):
        build_automaton(compile_grammar(target_ir(schema, None), CompileOptions(timeout=0.2)))


def test_intersections_that_multiply_alternatives_are_refused_early():
    """allOf over twelve three-way anyOfs distributes into 3**12 alternatives: refused after a bounded number
    of steps, naming where."""
    import time

    from extractor.errors import SchemaTooComplexError

    schema = {"type": "object", "allOf": [{"anyOf": [{"required": [f"{c}{i}"]} for c in "abc"]} for i in range(12)]}
    start = time.monotonic()
    with pytest.raises(SchemaTooComplexError, match="intersecting its alternatives"):
        target_ir(schema, None)
    assert time.monotonic() - start < 10


def test_the_state_budget_is_a_compile_option():
    """(A rule built once is cached per process: the unlimited build comes last.)"""
    from extractor.errors import SchemaTooComplexError
    from extractor.grammar import CompileOptions

    schema = {"type": "string", "pattern": "^(ab|cd|ef){1,60}$"}
    for limit in (10, 200):
        with pytest.raises(SchemaTooComplexError, match=f"more than {limit:,} automaton states"):
            build_automaton(compile_grammar(target_ir(schema, None), CompileOptions(max_states=limit)))
    build_automaton(compile_grammar(target_ir(schema, None), CompileOptions(max_states=None)))


def test_large_string_enums_and_constants_compile_exactly():
    """A 5,000-string enum and a 20 KB constant: linear constructions (deduplication by hash, Hopcroft
    splitting off the smaller half), exact languages."""
    from tests.automata.helpers import runs

    enum = build_automaton(compile_grammar(target_ir({"enum": [f"value-{i}" for i in range(5000)]}, None)))
    assert runs(enum, '"value-4999"') and runs(enum, '"value-0"')
    assert not runs(enum, '"value-5000"') and not runs(enum, '"value-"')
    text = "ab" * 10_000
    const = build_automaton(compile_grammar(target_ir({"const": text}, None)))
    assert runs(const, f'"{text}"') and not runs(const, f'"{text}a"') and not runs(const, f'"{text[:-1]}"')


@pytest.mark.parametrize("schema", [
    {"type": "string", "pattern": "^(ab|c{2,5})*d{3}$"},
    {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(8)}},
    {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 6},
    {"type": "object", "properties": {"a": {"type": "string", "format": "email"},
                                      "b": {"anyOf": [{"type": "number", "minimum": 3}, {"type": "array"}]}},
     "required": ["a"]},
], ids=["pattern", "optional_properties", "bounded_array", "formats_and_anyof"])
def test_the_states_charged_are_the_states_built(schema):
    """The budget counts every NFA state a rule's construction builds, no more and no fewer."""
    from extractor.lang.budget import Budget, metered, remaining
    from extractor.lang.dfa import _NFA
    from extractor.lang.regex import Both, Counted, Minus, Multiple, Substrings

    for node in compile_grammar(target_ir(schema, None)).rules.values():
        if not isinstance(node, (Counted, Minus, Both, Multiple, Substrings)):
            with metered(Budget(10**9, None)):
                size = _NFA(node).size
                assert 10**9 - remaining()[0] == size


def test_an_unrolled_repeat_past_the_budget_stops_as_it_passes_it():
    from extractor.errors import SchemaTooComplexError
    from extractor.lang.budget import Budget, metered
    from extractor.lang.dfa import CHARGE_EVERY, _NFA
    from extractor.lang.regex import Repeat, byte_set

    nfa = None
    with pytest.raises(SchemaTooComplexError), metered(Budget(5_000, None)):
        nfa = _NFA(Repeat(Repeat(byte_set((0x61, 0x7A)), 1000, 1000), 1000, 1000))  # a million states unrolled
    assert nfa is None and CHARGE_EVERY < 5_000


@pytest.mark.parametrize(("schema", "error"), [
    ({"not": {"multipleOf": 10**9}}, "UnsupportedSchemaError"),  # one automaton state per remainder
    ({"not": {"multipleOf": float("inf")}}, "InvalidSchemaError"),
    ({"not": {"multipleOf": float("nan")}}, "InvalidSchemaError"),
    ({"not": {"multipleOf": 0.5}}, "UnsupportedSchemaError"),
    ({"type": "null", "oneOf": [{"minimum": 1}, {"type": "null"}]}, "UnsatisfiableSchemaError"),  # null matches both
])
def test_complements_and_one_of_refuse_with_a_typed_error(schema, error):
    from extractor.errors import ExtractorError

    with pytest.raises(ExtractorError) as exc:
        build_automaton(compile_grammar(target_ir(schema, None)))
    assert type(exc.value).__name__ == error



@pytest.mark.parametrize("pattern", ["(" * 40000 + ")" * 40000 + "(y$)", "^" + "(?=a)" * 60000 + "a"],
                         ids=["deep-groups-then-anchored-group", "many-leading-lookaheads"])
def test_pattern_rewriting_is_linear_in_the_pattern(pattern):
    """The pattern rewrites (`$` out of a closing group, leading lookaheads) scan a hostile pattern a bounded
    number of times: they end at once, and the parser then refuses or compiles what is left."""
    import time

    from extractor.lang.pattern_parts import split

    start = time.perf_counter()
    split(pattern)
    assert time.perf_counter() - start < 5


def test_counting_unique_items_reads_each_definition_once(monkeypatch):
    """How many distinct items a `uniqueItems` array can have is bounded through definitions that many properties
    share: each is counted once, not once per path to it (which grows as the width to the power of the depth)."""
    from extractor.grammar import compile as grammar

    defs = {f"d{i}": {"type": "object", "properties": {f"p{j}": {"$ref": f"#/$defs/d{i + 1}"} for j in range(10)},
                      "required": [f"p{j}" for j in range(10)], "additionalProperties": False} for i in range(4)}
    schema = {"$defs": {**defs, "d4": {"type": "object", "additionalProperties": False}},
              "type": "array", "uniqueItems": True, "minItems": 2, "items": {"$ref": "#/$defs/d0"}}
    calls, count = [], grammar._values_below
    monkeypatch.setattr(grammar, "_values_below", lambda *a, **k: calls.append(1) or count(*a, **k))
    rules = compile_grammar(target_ir(schema, None))
    assert len(calls) < 100  # 10**4 paths
    with pytest.raises(UnsatisfiableSchemaError):  # the items have one value: no array of two
        build_automaton(rules)


def test_recursive_one_of_options_are_judged_once_per_question(monkeypatch):
    """Whether a oneOf's options are exact is judged through their `$ref`s, taking a cycle met again on trust; each
    schema is judged once per question, not once per path through the references (two per level here: 2**7 paths
    per option, 2 million judgements and half a minute before)."""
    from extractor.schema import exactness

    leaf = {"type": "object", "properties": {"kind": {"const": "leaf"}}, "required": ["kind"]}
    defs = {f"n{i}": {"oneOf": [leaf, {"type": "object", "properties": {
        "kind": {"const": f"pair{i}"}, "left": {"$ref": f"#/$defs/n{i + 1}"}, "right": {"$ref": f"#/$defs/n{i + 1}"}},
        "required": ["kind"]}]} for i in range(6)}
    schema = {"$defs": {**defs, "n6": {"$ref": "#/$defs/n0"}}, "$ref": "#/$defs/n0"}
    calls, judge = [], exactness.Exactness._judge
    monkeypatch.setattr(exactness.Exactness, "_judge", lambda *a: calls.append(1) or judge(*a))
    compiles(schema)
    assert len(calls) < 1_000


@pytest.mark.parametrize("options", [
    [{"const": f"v{i}"} for i in range(3000)],  # an enum written as documented constants
    [{"type": "object", "properties": {"kind": {"const": i}, "v": {"type": "string"}}, "required": ["kind"]}
     for i in range(1000)],  # a tagged union
    [{"const": i} for i in range(300)] + [{"type": "object", "properties": {"kind": {"const": i}}, "required": ["kind"]}
                                          for i in range(300)] + [{"type": "string", "maxLength": 3}],
], ids=["constants", "tagged", "mixed"])
def test_large_one_of_apart_by_values_is_not_compared_pair_by_pair(monkeypatch, options):
    """Constants, tagged objects and options of different types are shown apart by their values: a oneOf of
    thousands of options did half a million pair comparisons (tens of seconds)."""
    from extractor.schema.normalize import _Normalizer

    calls, apart = [], _Normalizer.apart
    monkeypatch.setattr(_Normalizer, "apart", lambda *a, **k: calls.append(1) or apart(*a, **k))
    target_ir({"oneOf": options}, None)
    assert len(calls) < 1_000


def test_a_one_of_of_many_overlapping_options_is_refused_at_once():
    """Options that may overlap are each cut by every other's complement: past MAX_CUT_OPTIONS that is refused
    (600 patterns took minutes), naming the keyword."""
    from extractor.schema.normalize import MAX_CUT_OPTIONS

    options = [{"type": "string", "pattern": f"^a{i}"} for i in range(MAX_CUT_OPTIONS + 1)]
    with pytest.raises(UnsupportedSchemaError, match="options not shown apart") as caught:
        target_ir({"oneOf": options}, None)
    assert caught.value.keyword == "oneOf"


def test_reading_the_schema_counts_against_the_compile_timeout():
    """The compile clock starts before JSON Schema is read into IR: a schema slow to read (sixty untyped oneOf
    options that may overlap, each cut by the others' complements) fails on the clock, naming where."""
    from extractor import compile_schema
    from extractor.errors import SchemaTooComplexError
    from extractor.grammar import CompileOptions
    from extractor.tokens import Vocabulary

    vocab = Vocabulary(tuple(bytes([b]) for b in range(256)) + (b"</s>",), eos_ids=frozenset({256}))
    schema = {"oneOf": [{"properties": {f"a{i}": {"type": "string"}}, "required": [f"a{i}"]} for i in range(60)]}
    with pytest.raises(SchemaTooComplexError, match=r"more than 0.05 s to compile, reading the schema at /oneOf/") \
            as exc:
        compile_schema(schema, vocab, options=CompileOptions(timeout=0.05))
    assert exc.value.pointer.startswith("/oneOf/")


def test_a_one_of_cut_by_the_same_complements_makes_each_intersection_once(monkeypatch):
    """Untyped options told apart by a tag (JSON Patch's operations): each is cut by every other's complement, a
    union over every type, and the same pairs of parts meet again and again. Made once each, fourteen options
    take ~3,700 intersections; made afresh they passed MAX_PAIRS and the schema was refused."""
    from extractor.schema.merge import Merger

    calls, made = [], Merger._both
    monkeypatch.setattr(Merger, "_both", lambda *a, **k: calls.append(1) or made(*a, **k))
    options = [{"properties": {"op": {"enum": [f"o{i}"]}}, "required": ["value"]} for i in range(14)]
    target_ir({"oneOf": options}, None)
    assert len(calls) < 5_000


def _shared_dag(levels: int) -> Any:
    """An array with `contains` reached along 2**levels paths of a DAG of 3 * levels + 2 nodes."""
    from extractor.schema import ir

    node: ir.Node = ir.Array(items=ir.Number(), contains=ir.Contains(ir.Number(integer=True), ir.Number(fraction=True)))
    for _ in range(levels):
        node = ir.Union_((ir.Array(items=node), ir.Object((ir.Property("a", node, True),))))
    return node


@pytest.mark.parametrize("strict", [False, True])
def test_the_last_pass_splits_a_shared_part_of_the_ir_once(monkeypatch, strict):
    """Intersections share parts, so the IR is a DAG whose paths can be exponential in its size: splitting
    `contains` reads each node once (a MaskBench schema ran 12 s past a 5 s timeout here)."""
    from extractor.schema.merge import Merger, split_contains

    calls, both = [], Merger.both
    monkeypatch.setattr(Merger, "both", lambda *a, **k: calls.append(1) or both(*a, **k))
    split_contains(_shared_dag(12), {}, Merger({}), strict)
    assert len(calls) == 2


def test_closing_objects_reads_a_shared_part_of_the_ir_once(monkeypatch):
    """The strict-objects policy closes each node of the DAG once, not once per path to it."""
    from extractor.schema import merge

    calls, closed = [], merge._closed
    monkeypatch.setattr(merge, "_closed", lambda *a: calls.append(1) or closed(*a))
    merge.close_objects(_shared_dag(12))
    assert len(calls) == 3 * 12 + 2  # each level's union, array and object; the first array and its items


@pytest.mark.parametrize("schema", [
    {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},  # options cut by each other's complement
    {"if": {"required": ["a"]}, "then": {"required": ["b"]}, "else": {"required": ["c"]}},
    {"type": "array", "contains": {"required": ["a"]}},
], ids=["oneOf", "if_else", "contains"])
def test_a_complement_out_of_budget_is_said_as_such(schema, monkeypatch):
    """Running out of seconds or states while taking a complement is a SchemaTooComplexError naming the budget,
    not the keyword refused as if it had no complement: only the first says that more budget would do."""
    from extractor import compile_schema
    from extractor.errors import SchemaTooComplexError
    from extractor.schema.negation import Negation
    from extractor.tokens import Vocabulary

    def out_of_budget(self, sub, ptr):
        raise SchemaTooComplexError(ptr, "took more than 0.05 s to compile (CompileOptions(timeout=...) raises it)")

    monkeypatch.setattr(Negation, "negation", out_of_budget)
    vocab = Vocabulary(tuple(bytes([b]) for b in range(256)) + (b"</s>",), eos_ids=frozenset({256}))
    with pytest.raises(SchemaTooComplexError, match="took more than 0.05 s") as exc:
        compile_schema(schema, vocab)
    assert "no exact complement" not in str(exc.value)
