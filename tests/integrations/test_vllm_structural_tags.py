"""vLLM's `structural_tag` requests and tool calls through the extractor backend, in vLLM's own request shapes: the
tags its tool parsers build for each model family, read by our grammar and checked against XGrammar's reading of
the same tag (every output our masks let through, XGrammar accepts); the families whose formats we do not read are
refused in the front end, naming the form."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it in .venv-vllm")
xgr = pytest.importorskip("xgrammar")
jsonschema = pytest.importorskip("jsonschema")

from vllm.entrypoints.openai.chat_completion.protocol import (  # noqa: E402
    ChatCompletionNamedToolChoiceParam, ChatCompletionToolsParam,
)
from vllm.sampling_params import SamplingParams, StructuredOutputsParams  # noqa: E402
from vllm.tool_parsers.structural_tag_registry import get_model_structural_tag  # noqa: E402
from vllm.tool_parsers.tool_strict_level import ToolStrictLevel  # noqa: E402
from vllm.tool_parsers.utils import get_json_schema_from_tools  # noqa: E402

from extractor.integrations.vllm.backend import NAME  # noqa: E402
from extractor.integrations.vllm.spec import GrammarCache, Spec  # noqa: E402
from tests.automata.test_structural_tags import CASES  # noqa: E402
from tests.masks.test_masks import small_vocab  # noqa: E402
from tests.walks import closers  # noqa: E402

TOOLS = {
    "get_weather": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "add": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]},
}
REQUEST_TOOLS = [ChatCompletionToolsParam(type="function", function={"name": n, "parameters": p}) for n, p in TOOLS.items()]
CHOICES = {"auto": "auto", "required": "required",
           "named": ChatCompletionNamedToolChoiceParam(type="function", function={"name": "add"})}
SERVED = ["deepseek_r1", "deepseek_v3_1", "hermes", "hy_v4", "kimi", "kimi_k3", "llama", "longcat", "plamo3", "qwen_3"]
"""The model families whose tool-call tags the backend reads (JSON arguments, text and regex parts)."""
REFUSED = {"qwen_3_5": "qwen_xml", "qwen_3_coder": "qwen_xml", "mimo": "qwen_xml", "glm_4_7": "glm_xml",
           "deepseek_v3_2": "deepseek_xml", "deepseek_v4": "deepseek_xml", "deepseek_v4_1": "deepseek_v4_1_xml"}
"""The families whose arguments are written in an XML style: refused, naming it."""
FREE_ARGUMENTS = {"hy_v4", "kimi_k3"}
"""Families whose argument values are free text up to the call's end: a random walk seldom ends one (its prefixes
are checked)."""


def xgrammar_accepts(tag: str, text: str, whole: bool = True) -> bool:
    """XGrammar's reading of a structural tag (as vLLM's xgrammar backend compiles it): the text accepted whole
    (or, not `whole`, as the start of an output)."""
    compiler, read = xgr.GrammarCompiler(xgr.TokenizerInfo([]), cache_enabled=False), json.loads(tag)
    if "structures" in read:  # the legacy form, as vLLM's xgrammar backend compiles it
        items = [xgr.StructuralTagItem(begin=s["begin"], schema=json.dumps(s["schema"]), end=s["end"])
                 for s in read["structures"]]
        compiled = compiler.compile_structural_tag(items, read["triggers"])
    else:
        compiled = compiler.compile_structural_tag(tag)
    matcher = xgr.GrammarMatcher(compiled, terminate_without_stop_token=True)
    return matcher.accept_string(text) and (matcher.is_terminated() or not whole)


@pytest.mark.parametrize(("fmt", "accepted", "refused"), CASES, ids=range(len(CASES)))
def test_the_grammar_tables_say_what_xgrammar_reads(fmt: dict[str, Any], accepted: list[str],
                                                      refused: list[str]) -> None:
    tag = json.dumps({"type": "structural_tag", "format": fmt})
    assert [s for s in accepted if not xgrammar_accepts(tag, s)] == []
    assert [s for s in refused if xgrammar_accepts(tag, s)] == []


def tool_tag(model: str, choice: str) -> str:
    """The structural tag vLLM's tool parser for `model` sends (vLLM's `_apply_structural_tag`), arguments pinned
    to each tool's schema (`--tool-strict-level parameter`)."""
    made = get_model_structural_tag(model, REQUEST_TOOLS, CHOICES[choice], reasoning=False,
                                    strict_level=ToolStrictLevel.PARAMETER)
    return json.dumps(made.model_dump())


def _trigger(fmt: Any) -> str | None:
    """The first trigger of a tag, where free text comes before its calls."""
    if isinstance(fmt, dict):
        if fmt.get("triggers"):
            return fmt["triggers"][0]
        fmt = list(fmt.values())
    if isinstance(fmt, list):
        return next((t for t in map(_trigger, fmt) if t is not None), None)
    return None


def _literals(fmt: Any) -> list[bytes]:
    """Every string a tag writes as it is (begins, ends, constants, separators)."""
    if isinstance(fmt, dict):
        own = [fmt[k] for k in ("begin", "end", "value", "separator") if isinstance(fmt.get(k), str)]
        own += [e for e in fmt.get("end", []) if isinstance(fmt.get("end"), list)]
        return [t.encode() for t in own if t] + [x for v in fmt.values() for x in _literals(v)]
    return [x for v in fmt for x in _literals(v)] if isinstance(fmt, list) else []


def walks(tag: str, count: int, seed: int) -> list[tuple[str, bool]]:
    """Outputs of random walks under our masks, each with whether it ended, the walks going on writing a literal of
    the tag once they have begun one (a random walk would rarely write a tag's end in free text); a walk that may
    start in free text is given a trigger there."""
    vocab = small_vocab("llama3")
    grammar, _ = GrammarCache(vocab, prepare=0).get("STRUCTURAL_TAG", tag)
    rng, eos, out = np.random.default_rng(seed), min(vocab.eos_ids), []
    byte = {t[0]: i for i, t in enumerate(vocab.tokens) if len(t) == 1}
    closing = closers(vocab)
    literals, trigger = _literals(json.loads(tag)), _trigger(json.loads(tag))
    for _ in range(count):
        matcher = grammar.matcher()
        if trigger is not None:
            try:
                matcher.advance_bytes(f"Let me check. {trigger}".encode())
            except ValueError:  # no free text first: the walk starts at a call
                matcher = grammar.matcher()
        while not matcher.finished and len(matcher.output) < 800:
            allowed, written = matcher.mask(), bytes(matcher.output)
            going = sorted((k, byte[lit[k]]) for lit in literals for k in range(len(lit))
                           if written.endswith(lit[:k]) and allowed[byte[lit[k]]])
            ids = np.flatnonzero(allowed)
            shut = ids[closing[ids]]
            if going and (going[-1][0] > 0 and rng.random() < 0.95 or rng.random() < 0.1):
                matcher.advance(going[-1][1] if going[-1][0] > 0 else int(rng.choice([t for _, t in going])))
            elif eos in ids and rng.random() < 0.3:
                matcher.advance(eos)
            else:
                matcher.advance(int(rng.choice(shut if len(shut) and rng.random() < 0.5 else ids)))
        out.append((bytes(matcher.output).decode(errors="ignore"), matcher.finished))
    return out


@pytest.mark.parametrize("choice", list(CHOICES))
@pytest.mark.parametrize("model", SERVED)
def test_every_tool_call_our_masks_let_through_xgrammar_accepts(model: str, choice: str) -> None:
    tag = tool_tag(model, choice)
    outputs = walks(tag, 16, seed=len(model))
    assert [o for o, ended in outputs if not xgrammar_accepts(tag, o, ended)] == []
    assert any(ended for _, ended in outputs) or model in FREE_ARGUMENTS, "no walk ended"


CANONICAL = [  # (family, choice, a call as the family's model writes it)
    ("hermes", "required", '<tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'),
    ("hermes", "auto", 'Adding. <tool_call>\n{"name": "add", "arguments": {"a": 1, "b": 2}}\n</tool_call>'),
    ("qwen_3", "auto", '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'),
    ("llama", "named", '{"name": "add", "parameters": {"a": 1, "b": 2}}'),
]


@pytest.mark.parametrize(("model", "choice", "call"), CANONICAL, ids=[f"{m}-{c}" for m, c, _ in CANONICAL])
def test_a_call_written_as_the_model_writes_it_is_accepted(model: str, choice: str, call: str) -> None:
    grammar, _ = GrammarCache(small_vocab("llama3"), prepare=0).get("STRUCTURAL_TAG", tool_tag(model, choice))
    matcher = grammar.matcher()
    matcher.advance_bytes(call.encode())
    assert matcher.accepting() and xgrammar_accepts(tool_tag(model, choice), call)


@pytest.mark.parametrize("model", sorted(REFUSED))
def test_a_family_whose_arguments_are_xml_is_refused_naming_the_style(model: str) -> None:
    from extractor.integrations.vllm.plugin import _validate
    from vllm.exceptions import VLLMValidationError

    params = SamplingParams(structured_outputs=StructuredOutputsParams(structural_tag=tool_tag(model, "required")))
    with pytest.raises(VLLMValidationError, match=f"extractor: .*{REFUSED[model]}"):
        _validate(params, None, None, None)


def test_a_structural_tag_request_is_marked_for_this_backend() -> None:
    from extractor.integrations.vllm.plugin import _validate

    params = SamplingParams(structured_outputs=StructuredOutputsParams(structural_tag=tool_tag("hermes", "auto")))
    _validate(params, None, None, None)
    assert params.structured_outputs._backend == NAME
    assert Spec.parse("STRUCTURAL_TAG", params.structured_outputs.structural_tag).guards is False


@pytest.mark.parametrize("choice", ["required", "named"])
def test_tool_choice_without_a_structural_tag_is_a_json_schema_of_calls(choice: str) -> None:
    """A tool parser without a structural tag (vLLM's `get_json_schema_from_tools`): required is a JSON array of
    calls, a named tool its arguments; every walk is calls valid under each tool's schema."""
    schema = get_json_schema_from_tools(CHOICES[choice], REQUEST_TOOLS)
    vocab = small_vocab("llama3")
    grammar, _ = GrammarCache(vocab, prepare=0).get("JSON", json.dumps(schema))
    rng, done = np.random.default_rng(2), 0
    for _ in range(20):
        matcher = grammar.matcher()
        while not matcher.finished and len(matcher.output) < 600:
            matcher.advance(int(rng.choice(np.flatnonzero(matcher.mask()))))
        if not matcher.finished:
            continue
        value = json.loads(bytes(matcher.output))
        for call in (value if choice == "required" else [{"name": "add", "parameters": value}]):
            jsonschema.validate(call["parameters"], TOOLS[call["name"]])
        done += 1
    assert done >= 5


def _backend(special: dict[int, str]) -> Any:
    """The backend on the small vocabulary, the model's special tokens given (what __post_init__ reads off the
    model's tokenizer)."""
    from types import SimpleNamespace

    from extractor.integrations.vllm.backend import ExtractorBackend

    backend = ExtractorBackend.__new__(ExtractorBackend)
    backend.vocab = small_vocab("llama3")
    backend.vocab_size, backend.grammars = backend.vocab.size, GrammarCache(backend.vocab, prepare=0)
    backend.vllm_config = SimpleNamespace(speculative_config=None)
    backend.specials, backend.tag_grammars, backend.lock = special, OrderedDict(), threading.Lock()
    return backend


def test_a_special_token_a_tag_writes_is_offered_as_its_text_there_and_nowhere_else() -> None:
    from vllm.v1.structured_output.backend_types import StructuredOutputOptions

    vocab = small_vocab("llama3")
    begin = "<|tool_calls_section_begin|>"
    hole = next(i for i, t in enumerate(vocab.tokens) if not t and i not in vocab.eos_ids)
    backend = _backend({hole: begin})
    kimi = backend.compile_grammar(StructuredOutputOptions.STRUCTURAL_TAG, tool_tag("kimi", "auto"))
    kimi.accept_tokens("r", [vocab.tokens.index(b"H"), vocab.tokens.index(b"i")])
    assert hole in np.flatnonzero(kimi.matcher.mask())  # the special token, where the trigger may start
    assert kimi.accept_tokens("r", [hole]) and bytes(kimi.matcher.output) == f"Hi{begin}".encode()
    json_request = backend.compile_grammar(StructuredOutputOptions.JSON, json.dumps({"type": "string"}))
    json_request.accept_tokens("r", [vocab.tokens.index(b'"')])
    assert hole not in np.flatnonzero(json_request.matcher.mask())  # text never becomes a special token
    hermes = backend.compile_grammar(StructuredOutputOptions.STRUCTURAL_TAG, tool_tag("hermes", "auto"))
    assert hole not in np.flatnonzero(hermes.matcher.mask()) and hermes.grammar.vocab is vocab


def test_the_special_tokens_are_read_off_the_tokenizer() -> None:
    from types import SimpleNamespace

    from extractor.integrations.vllm.backend import specials

    vocab = small_vocab("llama3")
    hole = next(i for i, t in enumerate(vocab.tokens) if not t and i not in vocab.eos_ids)
    eos, text = min(vocab.eos_ids), next(i for i, t in enumerate(vocab.tokens) if t)
    added = {hole: SimpleNamespace(content="<|call|>", special=True), eos: SimpleNamespace(content="<|end|>", special=True),
             text: SimpleNamespace(content="<tool_call>", special=False)}
    assert specials(SimpleNamespace(added_tokens_decoder=added), vocab) == {hole: "<|call|>"}


@pytest.mark.parametrize("legacy", [True, False], ids=["legacy", "format"])
def test_a_response_format_structural_tag_is_read_as_vllm_hands_it_over(legacy: bool) -> None:
    """`response_format={"type": "structural_tag", ...}`, dumped as vLLM's protocol dumps it for the engine."""
    from vllm.entrypoints.generate.base.protocol import (
        LegacyStructuralTagResponseFormat, StructuralTagResponseFormat,
    )

    tag = ({"type": "structural_tag", "triggers": ["<f"], "structures": [
        {"begin": "<f1>", "schema": TOOLS["add"], "end": "</f>"}]} if legacy else
        {"type": "structural_tag", "format": {"type": "triggered_tags", "triggers": ["<f"], "tags": [
            {"type": "tag", "begin": "<f1>", "content": {"type": "json_schema", "json_schema": TOOLS["add"]},
             "end": "</f>"}]}})
    model = (LegacyStructuralTagResponseFormat if legacy else StructuralTagResponseFormat).model_validate(tag)
    handed = json.dumps(model.model_dump(by_alias=True))
    grammar, _ = GrammarCache(small_vocab("llama3"), prepare=0).get("STRUCTURAL_TAG", handed)
    matcher = grammar.matcher()
    matcher.advance_bytes(b'Sum: <f1>{"a": 1, "b": 2}</f> done')
    assert matcher.accepting() and xgrammar_accepts(handed, 'Sum: <f1>{"a": 1, "b": 2}</f> done')
