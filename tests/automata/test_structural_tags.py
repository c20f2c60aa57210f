"""Structural tags (XGrammar's format: vLLM's `structural_tag` requests and tool calls): free text until a trigger,
then a tag's begin, JSON valid under its schema, its end; each form read as XGrammar reads it, and every form not
read refused naming it and where."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import numpy as np
import pytest

from extractor.grammar import CompileOptions
from extractor.grammar.tags import StructuralTagError, read_structural_tag
from extractor.masks.compiler import compile_structural_tag
from tests.masks.test_masks import small_vocab
from tests.walks import accepts_text

A = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": False}
CITY = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}}, "required": ["city"],
        "additionalProperties": False}


def tag(begin: str, end: str | list[str], content: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tag", "begin": begin, "content": content or {"type": "json_schema", "json_schema": A},
            "end": end}


def text(**fields: Any) -> dict[str, Any]:
    return {"type": "any_text", **fields}


def const(value: str) -> dict[str, Any]:
    return {"type": "const_string", "value": value}


F1, F2 = tag("<f1>", "</f>"), tag("<f2>", "</f>")
CASES = [  # (format, accepted, refused): what XGrammar 0.2.8 accepts and refuses, JSON written spaced
    ({"type": "triggered_tags", "triggers": ["<f"], "tags": [F1, F2]},
     ["", "hi", 'hi <f1>{"a": 1}</f> bye', "x<", 'x<f1>{"a": 1}</f><f2>{"a": 2}</f>'],
     ["hi <f3>", "<f", 'hi <f1>{"a": "1"}</f>', 'hi <f1>{"a": 1}']),
    ({"type": "triggered_tags", "triggers": ["<f"], "tags": [F1], "at_least_one": True},
     ['<f1>{"a": 1}</f> bye', '<f1>{"a": 1}</f><f1>{"a": 1}</f>'], ["", "hi", 'hi <f1>{"a": 1}</f> bye']),
    ({"type": "triggered_tags", "triggers": ["<f"], "tags": [F1], "stop_after_first": True},
     ["", "hi", 'hi <f1>{"a": 1}</f>'], ['hi <f1>{"a": 1}</f> bye', '<f1>{"a": 1}</f><f1>{"a": 1}</f>']),
    ({"type": "triggered_tags", "triggers": ["<f"], "tags": [F1], "at_least_one": True, "stop_after_first": True},
     ['<f1>{"a": 1}</f>'], ['<f1>{"a": 1}</f>x', ""]),
    ({"type": "triggered_tags", "triggers": ["<f"], "tags": [F1], "excludes": ["<think>"]}, ["ab"], ["a<think>b"]),
    ({"type": "triggered_tags", "triggers": ["<f", "<g"], "tags": [F1, tag("<g>", "</g>")]},
     ['a<g>{"a": 1}</g>b<f1>{"a": 2}</f>'], ['a<g>{"a": 1}</f>']),
    ({"type": "tags_with_separator", "tags": [F1], "separator": ","},
     ["", '<f1>{"a": 1}</f>', '<f1>{"a": 1}</f>,<f1>{"a": 1}</f>'], ["hi", '<f1>{"a": 1}</f>,']),
    ({"type": "tags_with_separator", "tags": [F1], "separator": ",", "at_least_one": True, "stop_after_first": True},
     ['<f1>{"a": 1}</f>'], ["", '<f1>{"a": 1}</f>,<f1>{"a": 1}</f>']),
    (tag("<t>", "</t>", text()), ["<t></t>", "<t>abc</t>", "<t>a</t</t>"], ["<t>a</t>b</t>", "<t>a</t"]),
    (tag("<t>", ["</t>", "</u>"], text(excludes=["q"])), ["<t>a</t>", "<t>a</u>"], ["<t>a</u></t>", "<t>q</t>"]),
    (tag("<t>", "</t>", {"type": "sequence", "elements": [const("a"), text()]}), ["<t>ab</t>"], ["<t>a</t>b</t>"]),
    (tag("<t>", "</t>", {"type": "triggered_tags", "triggers": ["<f"], "tags": [F1]}),
     ['<t>x<f1>{"a": 1}</f>y</t>'], ["<t>x</t>y</t>"]),
    ({"type": "sequence", "elements": [text(), const("END")]}, ["END", "abcEND", "aENDbEND"], ["abc"]),
    ({"type": "sequence", "elements": [{"type": "triggered_tags", "triggers": ["<f"], "tags": [F1]}, const("END")]},
     ["xEND", 'x<f1>{"a": 1}</f>yEND', "xENDyEND"], ["x"]),
    ({"type": "or", "elements": [const("a"), {"type": "regex", "pattern": "[0-9]+"}]}, ["a", "42"], ["a1", ""]),
    ({"type": "repeat", "min": 1, "max": 2, "content": const("a")}, ["a", "aa"], ["", "aaa"]),
    ({"type": "plus", "content": const("a")}, ["a", "aaa"], [""]),
    ({"type": "star", "content": const("a")}, ["", "aa"], ["b"]),
    ({"type": "optional", "content": const("a")}, ["", "a"], ["aa"]),
    ({"type": "any_text", "max_chars": 3}, ["", "abc", "été"], ["abcd"]),
    ({"type": "any_text", "excludes": ["ab"]}, ["xa", "ba"], ["xaby"]),
    ({"type": "grammar", "grammar": 'root ::= "x" item+\nitem ::= [0-9]'}, ["x1", "x12"], ["x", "1"]),
    ({"type": "sequence", "elements": [{"type": "json_schema", "json_schema": A},
                                       {"type": "json_schema", "json_schema": CITY}]},
     ['{"a": 1}{"city": "Oslo"}'], ['{"a": 1}{"a": 1}']),
    ({"type": "dispatch", "rules": [["<x>", const("!")]], "loop": True}, ["a<x>!b<x>!"], ["a<x>b"]),
    ({"type": "json_schema", "json_schema": True}, ['{"any": [1, "thing"]}', "null"], ["{"]),
]


@pytest.mark.parametrize(("fmt", "accepted", "refused"), CASES, ids=range(len(CASES)))
def test_a_structural_tag_accepts_what_xgrammar_accepts(fmt: dict[str, Any], accepted: list[str],
                                                        refused: list[str]) -> None:
    grammar = compile_structural_tag({"type": "structural_tag", "format": fmt}, small_vocab("llama3"),
                                     CompileOptions(layout="spaced"))
    assert [s for s in accepted if not accepts_text(grammar, s)] == []
    assert [s for s in refused if accepts_text(grammar, s)] == []


def test_the_legacy_form_is_triggered_tags_of_schemas() -> None:
    legacy = {"type": "structural_tag", "triggers": ["<f"],
              "structures": [{"begin": "<f1>", "schema": A, "end": "</f>"}]}
    grammar = compile_structural_tag(json.dumps(legacy), small_vocab("llama3"), CompileOptions(layout="spaced"))
    assert accepts_text(grammar, 'one <f1>{"a": 1}</f> two') and not accepts_text(grammar, "<f1>{}</f>")


REFUSED = [  # (structural tag, what the error says)
    ({"type": "structural_tag", "format": {"type": "token", "token": 7}}, "'token' format is not supported"),
    ({"format": {"type": "token_triggered_tags", "trigger_tokens": [1], "tags": []}}, "token_triggered_tags"),
    ({"format": {"type": "json_schema", "json_schema": A, "style": "qwen_xml"}}, "/format/style: .*qwen_xml"),
    ({"format": {"type": "any_text", "max_tokens": 5}}, "/format/max_tokens: a bound in tokens"),
    ({"format": {"type": "sequence", "elements": [{"type": "wavy"}]}}, "/format/elements/0: a format is an object"),
    ({"format": {"type": "tag", "begin": {"type": "token", "token": 5}, "content": text(), "end": "x"}},
     "/format: a token as a tag's begin"),
    ({"format": {"type": "triggered_tags", "triggers": ["<f"], "tags": [tag("<g>", "</g>")]}},
     "/format/tags/0/begin: '<g>' starts with none of the triggers"),
    ({"format": {"type": "triggered_tags", "triggers": ["<f", "<f1"], "tags": [F1]}}, "none is written inside"),
    ({"format": {"type": "repeat", "min": 3, "max": 2, "content": const("a")}}, "/format: repeat takes"),
    ({"format": {"type": "const_string", "value": "a", "colour": 1}}, r"unknown field\(s\) \['colour'\]"),
    ({"type": "json_schema", "format": const("a")}, "/type: a structural tag's type"),
    ({"structures": [], "triggers": ["<f"]}, "/structures: expected a non-empty list"),
    ({"format": {"type": "json_schema", "json_schema": {"type": "string", "contentSchema": {}}}}, "contentSchema"),
    ({"format": {"type": "regex", "pattern": "(?=a)b"}}, "/format/pattern: .*look"),
    ({"format": {"type": "grammar", "grammar": 'start: "a"'}}, "/format/grammar: .*Lark grammars"),
    ({"format": {"type": "json_schema", "json_schema": A, "max_whitespace_cnt": 0}}, "max_whitespace_cnt"),
    ({"format": {"type": "any_text", "excludes": [""]}}, "/format/excludes/0: expected a non-empty string"),
]


@pytest.mark.parametrize(("tag_", "message"), REFUSED, ids=range(len(REFUSED)))
def test_a_form_not_read_is_refused_naming_it_and_where(tag_: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_structural_tag(json.dumps(tag_))


def test_formats_nested_past_the_limit_are_refused_not_recursed_through() -> None:
    fmt: dict[str, Any] = const("a")
    for _ in range(200):
        fmt = {"type": "optional", "content": fmt}
    with pytest.raises(StructuralTagError, match="nest more than"):
        read_structural_tag({"format": fmt})


TOOLS = {"get_weather": CITY, "add": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {
    "type": "integer"}}, "required": ["a", "b"], "additionalProperties": False}}


def hermes(required: bool) -> dict[str, Any]:
    """The tag vLLM's hermes tool parser sends (structural_tag_registry._hermes_tool_tags), each tool's arguments
    a JSON Schema."""
    tags = [tag(f'<tool_call>{sep}{{"name": "{name}", "arguments": ', f"}}{sep}</tool_call>",
                {"type": "json_schema", "json_schema": schema}) for name, schema in TOOLS.items() for sep in ("\n", "")]
    fmt = ({"type": "tags_with_separator", "tags": tags, "separator": "", "at_least_one": True} if required
           else {"type": "triggered_tags", "triggers": ["<tool_call>"], "tags": tags})
    return {"type": "structural_tag", "format": fmt}


def calls(output: str) -> list[tuple[str, Any]]:
    """The tool calls in an output, read as a client reads them: text up to `<tool_call>`, the call as JSON, its
    closing tag; AssertionError where the output is not text and whole calls."""
    found, at = [], 0
    while (start := output.find("<tool_call>", at)) >= 0:
        body = start + len("<tool_call>")
        call, end = json.JSONDecoder().raw_decode(output, body + output[body:].startswith("\n"))
        end += output[end:].startswith("\n")
        assert output.startswith("</tool_call>", end), output
        found.append((call["name"], call["arguments"]))
        at = end + len("</tool_call>")
    return found


@pytest.mark.parametrize("required", [True, False])
def test_random_walks_under_a_tool_call_tag_write_valid_calls(required: bool) -> None:
    vocab = small_vocab("llama3")
    grammar = compile_structural_tag(hermes(required), vocab, CompileOptions(layout="spaced"))
    rng, seen = np.random.default_rng(5), 0
    eos = min(vocab.eos_ids)
    for _ in range(30):
        matcher = grammar.matcher()
        if not required:  # free text rarely writes the trigger by chance: this walk writes it, then goes on
            matcher.advance_bytes(b"Let me look. <tool_call>")
        while not matcher.finished and len(matcher.output) < 400:
            allowed = np.flatnonzero(matcher.mask())
            ends = rng.random() < 0.2 and eos in allowed
            opens = [t for t in allowed if vocab.tokens[t].startswith(b"<")]
            pick = eos if ends else int(rng.choice(opens if opens and rng.random() < 0.3 else allowed))
            matcher.advance(pick)
        if not matcher.finished:
            continue
        made = calls(bytes(matcher.output).decode())
        assert made or not required
        for name, arguments in made:
            jsonschema.validate(arguments, TOOLS[name])
        seen += len(made)
    assert seen > 5
