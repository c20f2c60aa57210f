"""A real vLLM engine on CPU with the embedded model: mixed batches through the extractor backend, the
logits-processor route, speculative decoding (n-gram drafts validated and rolled back), and `VLLMExtractor`
behaving as `Extractor` does (Pydantic results, checks retried with their errors, errors in their slots)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it in .venv-vllm")
jsonschema = pytest.importorskip("jsonschema")

os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", "nobind")
os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # the engine in this process: its grammars can be looked at
os.environ["EXTRACTOR_VLLM"] = "1"

from pydantic import BaseModel, Field  # noqa: E402
from tenacity import Retrying, stop_after_attempt  # noqa: E402
from vllm import SamplingParams  # noqa: E402
from vllm.sampling_params import StructuredOutputsParams  # noqa: E402

from extractor import ExtractionError, ExtractOptions, Guards, InputError, Refusal, check  # noqa: E402
from extractor.integrations.vllm import ExtractorGrammar, ExtractorLogitsProcessor, VLLMExtractor  # noqa: E402

ENGINE = {"max_model_len": 2048, "enforce_eager": True, "seed": 0}
PERSON = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 40},
                                           "age": {"type": "integer", "minimum": 0, "maximum": 150}},
          "required": ["name", "age"], "additionalProperties": False}
TAGS = {"type": "array", "items": {"enum": ["red", "green", "blue"]}, "minItems": 1, "maxItems": 3,
        "uniqueItems": True}


class Person(BaseModel):
    name: str = Field(description="full name")
    age: int = Field(ge=0, le=150)


class Adult(Person):
    @check
    def grown_up(self) -> None:
        if self.age < 200:  # no age passes: every attempt fails, so the retries and their errors are kept
            raise ValueError("age must be at least 200")


@pytest.fixture(scope="module")
def engine() -> VLLMExtractor:
    return VLLMExtractor(logits_processors=[ExtractorLogitsProcessor], **ENGINE)


def _json_params(schema: dict, **kw: object) -> SamplingParams:
    return SamplingParams(max_tokens=96, structured_outputs=StructuredOutputsParams(json=schema), **kw)


def test_a_mixed_batch_gives_valid_json_where_constrained(engine: VLLMExtractor) -> None:
    prompts = ["Bob is 42.", "Colours of the sky?", "Write about Paris.", "Anna, 31, lives in Oslo."]
    params = [_json_params(PERSON), _json_params(TAGS, temperature=0.9, seed=7), SamplingParams(max_tokens=16),
              _json_params(PERSON, temperature=0.7, seed=1)]
    outputs = engine.llm.generate(prompts, params, use_tqdm=False)
    for out, schema in zip(outputs, [PERSON, TAGS, None, PERSON]):
        if schema is not None:
            assert out.outputs[0].finish_reason == "stop"
            jsonschema.validate(json.loads(out.outputs[0].text), schema)
    assert outputs[2].outputs[0].text  # the unconstrained request is untouched
    again = engine.llm.generate(prompts[1:2], params[1:2], use_tqdm=False)
    assert again[0].outputs[0].text == outputs[1].outputs[0].text  # a seed makes sampling repeatable


def test_choice_regex_and_grammar_requests_are_answered_within_them_and_lark_is_refused_by_name(
        engine: VLLMExtractor) -> None:
    choices = ["positive", "negative", "neutral"]
    params = SamplingParams(max_tokens=16, structured_outputs=StructuredOutputsParams(choice=choices))
    outputs = engine.llm.generate(["The film was wonderful. Sentiment:", "Awful service. Sentiment:"], params,
                                  use_tqdm=False)
    assert all(out.outputs[0].text in choices and out.outputs[0].finish_reason == "stop" for out in outputs)
    pattern = r"[0-9]{3}-[0-9]{4}"
    regex = SamplingParams(max_tokens=16, structured_outputs=StructuredOutputsParams(regex=pattern))
    [out] = engine.llm.generate(["Call me on 555-0199. The number:"], regex, use_tqdm=False)
    assert re.fullmatch(pattern, out.outputs[0].text) and out.outputs[0].finish_reason == "stop"
    gbnf = 'root ::= "(" digits ("," digits){0,3} ")"\ndigits ::= [0-9]{1,3}'
    grammar = SamplingParams(max_tokens=24, structured_outputs=StructuredOutputsParams(grammar=gbnf))
    [out] = engine.llm.generate(["A tuple of small numbers:"], grammar, use_tqdm=False)
    assert re.fullmatch(r"\([0-9]{1,3}(,[0-9]{1,3}){0,3}\)", out.outputs[0].text), out.outputs[0].text
    lark = SamplingParams(max_tokens=8, structured_outputs=StructuredOutputsParams(grammar='start: "a"'))
    with pytest.raises(Exception, match="Lark grammars are not read"):
        engine.llm.generate(["A letter:"], lark, use_tqdm=False)


def test_the_logits_processor_route_constrains_without_the_backend(engine: VLLMExtractor) -> None:
    params = SamplingParams(max_tokens=96, extra_args={"extractor": {"schema": PERSON}})
    [out] = engine.llm.generate(["Carla is 28 years old."], params, use_tqdm=False)
    jsonschema.validate(json.loads(out.outputs[0].text), PERSON)


def test_extract_returns_the_target_and_extract_many_keeps_errors_in_their_slots(engine: VLLMExtractor) -> None:
    assert engine.extract(Person, "Bob Smith is 42 years old.") == Person(name="Bob Smith", age=42)
    attempts: list[tuple[int, object]] = []
    results = engine.extract_many(Adult, ["Eve is 35.", ""], on_attempt=lambda i, a: attempts.append((i, a)))
    assert isinstance(results[0], ExtractionError) and len(results[0].attempts) == 2
    assert "at least 200" in str(results[0].attempts[0].errors)
    assert type(results[1]).__name__ == "InputError"
    assert [i for i, _ in attempts] == [0, 0]
    [again] = engine.extract_many(Adult, ["Eve is 35."], max_retries=Retrying(stop=stop_after_attempt(3)))
    assert isinstance(again, ExtractionError) and len(again.attempts) == 3  # a tenacity policy, as Extractor takes


def test_a_prompt_read_before_is_counted_as_cached(engine: VLLMExtractor) -> None:
    """The same text asked twice: the second request's prompt is held by vLLM's prefix cache (in whole blocks of 128
    tokens on CPU), and its usage says so."""
    text = "Bob Smith is 42 years old and lives in Leeds. " + "He works as a carpenter for a small firm. " * 30
    _, first = engine.extract(Person, text, with_usage=True, min_relevance=None)
    _, second = engine.extract(Person, text, with_usage=True, min_relevance=None)
    assert first.prompt_tokens > 256 and 128 <= second.cached_tokens <= second.prompt_tokens


def test_the_same_extract_options_as_extractor(engine: VLLMExtractor) -> None:
    options = ExtractOptions(max_tokens=80, examples=[("Ann is 30.", Person(name="Ann", age=30))])
    assert engine.extract(Person, "Bob Smith is 42 years old.", options, min_relevance=None) == Person(
        name="Bob Smith", age=42)
    for bad in ({"guards": Guards()}, {"messages": []}, {"refusal": Adult}, {"max_token": 5}):
        with pytest.raises(InputError):
            engine.extract_many(Person, ["Bob is 42."], options, **bad)


@pytest.mark.parametrize("verbatim, ages", [("all", [7, 42]), ("auto", None), ("marked", None)])
def test_number_fields_take_the_documents_numbers_under_verbatim_all(engine: VLLMExtractor, verbatim, ages) -> None:
    from extractor.pipeline.target import Target

    text = "Bob Smith is 42 years old; his son is 7 and their house is 1905 years old."
    request = engine.grammar(Target(Person), text, "both", ExtractOptions(verbatim=verbatim))
    assert request["properties"]["age"].get("enum") == ages  # 1905 is past the field's maximum of 150
    assert engine.extract(Person, text, verbatim=verbatim, min_relevance=None).age in ([7, 42] if ages else range(151))


def test_the_relevance_screen_reads_the_same_scores_and_refuses_an_unrelated_text(engine: VLLMExtractor) -> None:
    from extractor import Extractor

    recipe = (Path(__file__).resolve().parents[2] / "examples" / "data" / "no_answer.txt").read_text()
    texts = [recipe, "Bob Smith is 42 years old."]
    expected = [Extractor().relevance(Person, t) for t in texts]
    assert engine.relevance(Person, texts) == pytest.approx(expected, abs=0.05)  # float32, as transformers
    assert isinstance(engine.extract(Person, recipe, max_tokens=60), Refusal)
    assert isinstance(engine.extract(Person, recipe, min_relevance=None, refusal=False), Person)


def test_a_dict_target_comes_back_as_data_even_where_it_looks_like_a_refusal(engine: VLLMExtractor) -> None:
    result = engine.extract(PERSON, "Dora is 51.", refusal=False)
    jsonschema.validate(result, PERSON)
    shaped = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"],
              "additionalProperties": False, "title": "Problem"}
    answer = engine.extract(shaped, "The printer says: paper jam.", refusal=True)
    assert not isinstance(answer, Refusal) and set(answer) == {"error"}  # the target's own grammar accepts it


def test_a_text_longer_than_a_window_is_read_in_windows(engine: VLLMExtractor) -> None:
    from extractor import MissingFieldsError
    from extractor.tracing import Traced

    filler = " ".join(f"Line {i} of the minutes says nothing about anyone." for i in range(40))
    text = f"Bob Smith joined the club. {filler} Bob Smith is 42 years old. {filler}"
    try:
        traced = engine.extract(Person, text, window=160, overlap=16, max_tokens=40, with_trace=True)
    except MissingFieldsError as exc:  # what the 135M model missed is named, the rest kept
        assert exc.missing and isinstance(exc.partial, dict)
        return
    assert isinstance(traced, Traced) and len(traced.trace.windows) >= 3
    if isinstance(traced.result, Person):
        assert traced.result.age in {*range(40), 42}  # a number the text writes: 42, or a line's number


# Last in the module: the engine this test makes ends vLLM's process groups when it goes, and the module's
# engine needs them.
def test_speculative_ngram_drafts_are_validated_and_rolled_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from vllm import LLM

    from extractor.decode.model import embedded_path

    calls = {"validate_tokens": 0, "rollback": 0}
    for name in calls:
        original = getattr(ExtractorGrammar, name)

        def counted(self: ExtractorGrammar, *args: object, _original: object = original, _name: str = name) -> object:
            calls[_name] += 1
            return _original(self, *args)  # type: ignore[operator]
        monkeypatch.setattr(ExtractorGrammar, name, counted)
    llm = LLM(model=embedded_path(), speculative_config={"method": "ngram", "num_speculative_tokens": 4,
                                                     "prompt_lookup_max": 4, "prompt_lookup_min": 2}, **ENGINE)
    text = "Name: Bob Smith. Age: 42.\n" * 4 + 'As JSON: {"name": "Bob Smith", "age": 42}\nAgain as JSON: '
    many = {"type": "array", "items": PERSON, "maxItems": 3}
    schemas = [PERSON, PERSON, many]
    outs = llm.generate([text] * 3, [_json_params(PERSON), _json_params(PERSON, temperature=0.8, seed=3),
                                     _json_params(many)], use_tqdm=False)
    for out, schema in zip(outs, schemas):
        jsonschema.validate(json.loads(out.outputs[0].text), schema)
    assert calls["validate_tokens"] > 0 and calls["rollback"] > 0, calls
