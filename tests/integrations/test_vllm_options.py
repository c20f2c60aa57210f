"""Every schema option docs/vllm.md lists is written by `with_options`, read back by the server with the documented
default, and changes what is served: the table is read out of the page, so the page and the code cannot drift."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from extractor.integrations.vllm import OPTIONS_KEY, with_options
from extractor.integrations.vllm.spec import Spec
from tests.masks.test_masks import small_vocab

DOC = Path(__file__).resolve().parents[2] / "docs" / "vllm.md"
PERSON = {"type": "object", "title": "Person", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"], "additionalProperties": False}


def documented() -> dict[str, Any]:
    """The options table under "Options in the schema": each key and its default, as the page writes them."""
    section = DOC.read_text().split("### Options in the schema", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| `([^`]*)` \|", section, re.M)
    assert rows, "docs/vllm.md no longer has the options table"
    return {key: json.loads(default) for key, default in rows}


OTHER = {"refusal": True, "layout": "pretty", "guards": False, "min_relevance": -1.0, "max_unfounded": 0.5,
         "require_values": False}
"""A value other than the default for each option: a documented option missing here fails the walk."""


def test_with_options_takes_exactly_the_documented_options_with_their_documented_defaults() -> None:
    keywords = {name: p.default for name, p in inspect.signature(with_options).parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keywords == documented()
    spec = Spec.parse("JSON", json.dumps(PERSON))  # the server's reading of a schema without the key
    assert {key: getattr(spec, key) for key in documented()} == documented()


@pytest.mark.parametrize("key", list(documented()))
def test_each_documented_option_is_written_and_read_back(key: str) -> None:
    assert key in OTHER, f"docs/vllm.md lists {key!r}: give it a value to test with"
    schema = with_options(PERSON, **{key: OTHER[key]})
    assert schema[OPTIONS_KEY][key] == OTHER[key]
    spec = Spec.parse("JSON", json.dumps(schema))
    assert getattr(spec, key) == OTHER[key]
    assert all(getattr(spec, k) == v for k, v in documented().items() if k != key)  # the others keep their defaults


@pytest.mark.parametrize("key", ["min_relevance", "max_unfounded"])
def test_null_turns_the_decision_off(key: str) -> None:
    assert getattr(Spec.parse("JSON", json.dumps(with_options(PERSON, **{key: None}))), key) is None


REFUSED = [
    ({"refusal": "yes"}, "refusal takes true or false"),
    ({"guards": 1}, "guards takes true or false"),
    ({"require_values": "no"}, "require_values takes true or false"),
    ({"layout": "wavy"}, "layout"),
    ({"min_relevance": "low"}, "min_relevance takes a finite number"),
    ({"min_relevance": float("nan")}, "min_relevance takes a finite number"),
    ({"max_unfounded": 0}, r"max_unfounded takes a number in \(0, 1\]"),
    ({"max_unfounded": 1.5}, r"max_unfounded takes a number in \(0, 1\]"),
]


@pytest.mark.parametrize("options, message", REFUSED, ids=[str(o) for o, _ in REFUSED])
def test_a_value_the_server_would_refuse_is_refused_by_the_client_too(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        with_options(PERSON, **options)
    with pytest.raises(ValueError, match=message):
        Spec.parse("JSON", json.dumps({**PERSON, OPTIONS_KEY: options}))


def _accepts(schema: dict[str, Any], text: str) -> bool:
    matcher = Spec.parse("JSON", json.dumps(schema)).compile(small_vocab("llama3")).matcher()
    try:
        matcher.advance_bytes(text.encode())
    except ValueError:
        return False
    return matcher.accepting()


def test_refusal_offers_the_refusal_object() -> None:
    refusal = '{"error":"no person here"}'
    assert not _accepts(with_options(PERSON), refusal)
    assert _accepts(with_options(PERSON, refusal=True), refusal)


def test_layout_is_the_whitespace_forced() -> None:
    compact, pretty = '{"name":"Al","age":4}', '{\n  "name": "Al",\n  "age": 4\n}'
    assert _accepts(with_options(PERSON), compact) and not _accepts(with_options(PERSON), pretty)
    assert _accepts(with_options(PERSON, layout="pretty"), pretty)


def test_guards_are_built_only_where_asked() -> None:
    pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it")
    from vllm.v1.structured_output.backend_types import StructuredOutputOptions

    from extractor.integrations.vllm import ExtractorBackend
    from extractor.integrations.vllm.spec import GrammarCache

    backend = ExtractorBackend.__new__(ExtractorBackend)  # what __post_init__ builds from a model's tokenizer
    backend.vocab = small_vocab("llama3")
    backend.vocab_size, backend.grammars = backend.vocab.size, GrammarCache(backend.vocab)
    backend.vllm_config = SimpleNamespace(speculative_config=None)
    on = backend.compile_grammar(StructuredOutputOptions.JSON, json.dumps(with_options(PERSON)))
    off = backend.compile_grammar(StructuredOutputOptions.JSON, json.dumps(with_options(PERSON, guards=False)))
    assert on.guards is not None and off.guards is None


# The refusal decision on the OpenAI server (server.py): the screen's score is given, the engine is a stand-in.

TEXT = "Bob Smith is 42."


def _serve(options: dict[str, Any], score: float, answer: dict[str, Any], monkeypatch,
           schema: dict[str, Any] = PERSON, text: str = TEXT) -> tuple[list[Any], str]:
    """(the requests the engine was asked to decode, the reply's content) for one chat request."""
    pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it")
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    from extractor.integrations.vllm import server
    from extractor.pipeline.refusing import Screened

    async def screen(serving: Any, schema: dict[str, Any], text: str) -> Screened:
        return Screened(score, "Person", "recipe")

    decoded: list[Any] = []

    class Engine:
        async def create_chat_completion(self, request: Any, raw_request: Any = None) -> Any:
            decoded.append(request)
            message = SimpleNamespace(content=json.dumps(answer))
            return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    monkeypatch.setattr(server, "_screen", screen)
    server.patch(Engine)
    request = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": text}], response_format={
        "type": "json_schema", "json_schema": {"name": "p", "schema": with_options(schema, refusal=True, **options)}})
    reply = asyncio.run(Engine().create_chat_completion(request))
    return decoded, reply.choices[0].message.content


def test_min_relevance_is_the_threshold_below_which_nothing_is_decoded(monkeypatch) -> None:
    found = {"name": "Bob Smith", "age": 42}
    decoded, _ = _serve({}, -3.0, found, monkeypatch)
    assert len(decoded) == 1  # -3 is above the default -5.56: decoded
    decoded, content = _serve({"min_relevance": -1.0}, -3.0, found, monkeypatch)
    assert decoded == [] and "below min_relevance -1" in json.loads(content)["error"]
    decoded, content = _serve({"min_relevance": None}, -30.0, found, monkeypatch)
    assert len(decoded) == 1 and json.loads(content) == found  # no screen: both branches offered
    assert OPTIONS_KEY in decoded[0].response_format.json_schema.json_schema


def test_max_unfounded_is_the_share_of_unfounded_values_that_refuses_a_doubtful_answer(monkeypatch) -> None:
    half = {"name": "Bob Smith", "age": 99}  # one of its two identifying values is in the text
    _, content = _serve({}, -3.0, half, monkeypatch)
    assert json.loads(content) == half  # the default 1.0 needs every value unfounded
    _, content = _serve({"max_unfounded": 0.5}, -3.0, half, monkeypatch)
    assert "1 of its 2 identifying values are found nowhere" in json.loads(content)["error"]
    _, content = _serve({"max_unfounded": None}, -3.0, {"name": "Zed", "age": 7}, monkeypatch)
    assert json.loads(content) == {"name": "Zed", "age": 7}


CONTACT = {"type": "object", "title": "Contact", "properties": {"name": {"type": "string"},
           "email": {"type": "string", "format": "email"}, "phone": {"type": "string"}}, "required": ["name", "email"]}


def test_require_values_refuses_a_doubtful_message_that_writes_no_value_of_a_kind_asked(monkeypatch) -> None:
    found = {"name": "Bob Smith", "email": "bob@example.com"}
    long = " ".join([TEXT] + ["He has worked in logistics for twenty years and coaches the local football team."] * 3)
    decoded, content = _serve({}, -3.0, found, monkeypatch, CONTACT, long)  # writes no e-mail address
    assert decoded == [] and json.loads(content)["error"].startswith(
        "no Person in the text: it writes no e-mail address or phone number")  # (the stand-in screen names Person)
    decoded, _ = _serve({"require_values": False}, -3.0, found, monkeypatch, CONTACT, long)
    assert len(decoded) == 1
    decoded, _ = _serve({}, 1.0, found, monkeypatch, CONTACT, long)  # not doubtful: decoded
    assert len(decoded) == 1
    decoded, _ = _serve({}, -3.0, found, monkeypatch, CONTACT)  # a fragment: the score alone decides
    assert len(decoded) == 1
