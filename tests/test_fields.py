"""Fields asked apart (`fields="apart"`): a target split into one-field targets, their answers joined into one output,
a failed whole asked again field by field, the text's prompt fed once for all the questions, and the option's
errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, Field

from extractor import ExtractOptions, InputError, Refusal
from extractor.decode.loop import Generation
from extractor.errors import Attempt, Problem, Usage
from extractor.pipeline.document import Pipeline
from extractor.pipeline.engine import Control
from extractor.pipeline.fields import Asked, Part, join, split
from extractor.pipeline.refusing import Screened
from extractor.pipeline.rounds import extract_many
from extractor.pipeline.target import Target


class Address(BaseModel):
    city: str
    street: str


class Line(BaseModel):
    item: str
    price: float


class Order(BaseModel):
    customer: str
    address: Address
    lines: list[Line]
    note: str | None = None
    code: str = "x"


class Single(BaseModel):
    name: str


OBJECT = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"]}

SPLITS = [  # (target, [(field, required in its part)]; [] where the target is asked whole)
    (Order, [("customer", True), ("address", True), ("lines", True), ("note", True), ("code", False)]),
    (OBJECT, [("a", True), ("b", False)]),
    ({**OBJECT, "additionalProperties": False}, [("a", True), ("b", False)]),
    ({**OBJECT, "properties": {**OBJECT["properties"], "c": {"type": ["string", "null"]}}},
     [("a", True), ("b", False), ("c", True)]),
    (Single, []),
    ({**OBJECT, "minProperties": 2}, []),
    ({**OBJECT, "additionalProperties": {"type": "string"}}, []),
    ({**OBJECT, "patternProperties": {"^x": {"type": "string"}}}, []),
    (list[str], []),
    ({"type": "array", "items": OBJECT}, []),
]


@pytest.mark.parametrize(("target", "parts"), SPLITS, ids=[
    "model: nested object, list of objects, Optional asked, defaulted left optional", "dict object",
    "no undeclared keys", "nullable type list asked", "one field", "minProperties ties fields",
    "undeclared keys allowed", "patternProperties", "list target", "array of objects"])
def test_a_target_splits_into_its_top_level_fields_where_no_keyword_ties_them(target, parts):
    found = split(Target(target))
    assert [(p.name, p.name in p.target.schema["required"]) for p in found] == parts
    for part in found:  # each part keeps what its field's schema refers to, and only its field
        assert part.target.schema["properties"] == {part.name: Target(target).schema["properties"][part.name]}
        assert part.target.schema.get("$defs") == Target(target).schema.get("$defs")


def gen(data: bytes, complete: bool = True, copies: tuple[tuple[int, int, int], ...] = (),
        tokens: int = 1) -> Generation:
    return Generation(data.decode(), data, [7] * tokens, complete, Usage(prompt_tokens=10, completion_tokens=tokens,
                                                                         forward_passes=tokens, seconds=tokens),
                      copies=copies)


PRETTY_A, PRETTY_B = b'{\n  "a": {\n    "c": 1\n  }\n}', b'{\n  "b": [\n    "x"\n  ]\n}'
JOINS = [  # (answers by field, joined output, complete)
    ([("a", PRETTY_A), ("b", PRETTY_B)], json.dumps({"a": {"c": 1}, "b": ["x"]}, indent=2).encode(), True),
    ([("a", b'{"a":"x"}'), ("b", b'{"b":2}')], b'{"a":"x","b":2}', True),
    ([("a", b'{ "a": "x" }'), ("b", b'{ "b": null }')], b'{ "a": "x", "b": null }', True),
    ([("a", b'{"a":"x"}'), ("b", b"{}"), ("c", b'{"c":3}')], b'{"a":"x","c":3}', True),
    ([("a", b"{}"), ("b", b"{}")], b"{}", True),
    ([("a", b'{"a":"x"}'), ("b", b'{"error":"no bill here"}')], b'{"error":"no bill here"}', True),
    ([("a", b'{"a":"x"}'), ("b", b'{"b":"ab')], b'{"a":"x","b":"ab', False),
]


@pytest.mark.parametrize(("answers", "joined", "complete"), JOINS, ids=[
    "pretty, nested", "compact", "spaced", "a field left out", "every field left out", "a part refuses: the refusal",
    "a part cut: the whole cut"])
def test_answers_join_into_one_output_in_field_order(answers, joined, complete):
    gens = [gen(data, complete=not data.endswith(b'"ab')) for _, data in answers]
    out = join([(name, g) for (name, _), g in zip(answers, gens)], fresh=gens)
    assert (out.data, out.text, out.complete) == (joined, joined.decode(), complete)
    assert out.usage == Usage(prompt_tokens=10 * len(gens), completion_tokens=len(gens), forward_passes=1, seconds=1)


def test_the_decoders_copies_move_with_their_members():
    source = b"Bill of Acme Corp: 12.50"
    first, second = gen(b'{"shop":"Acme Corp"}', copies=((9, 8, 9),)), gen(b'{"total":12.50}', copies=((9, 19, 5),))
    out = join([("shop", first), ("total", second)], fresh=[second])
    assert out.data == b'{"shop":"Acme Corp","total":12.50}'
    assert [(out.data[at:at + n], source[src:src + n]) for at, src, n in out.copies] == \
        [(b"Acme Corp", b"Acme Corp"), (b"12.50", b"12.50")]
    assert out.usage.completion_tokens == 1  # only the answer decoded this attempt counts


PARTS = tuple(Part(name, Target({"type": "object", "properties": {name: {"type": "string"}}})) for name in "abc")
AGAIN = [  # (last attempt's errors, parts left cut, parts asked, errors each asked part is shown)
    ([], set(), "abc", {}),
    ([Problem("bad", ("b",), "type")], set(), "b", {"b": 1}),
    ([Problem("bad", ("b", 0), "type"), Problem("worse", ("c",), "type")], set(), "bc", {"b": 1, "c": 1}),
    ([Problem("a check failed")], set(), "abc", {"a": 1, "b": 1, "c": 1}),
    ([Problem("bad", ("zz",), "type")], set(), "abc", {"a": 1, "b": 1, "c": 1}),
    ([], {"c"}, "c", {"c": 0}),
]


@pytest.mark.parametrize(("errors", "cut", "asked", "shown"), AGAIN, ids=[
    "no error: all", "one field named", "two fields named, one at a depth", "an error on the whole: all",
    "an error at no field: all", "a cut field"])
def test_a_retry_asks_again_the_fields_its_errors_name_each_shown_its_own(errors, cut, asked, shown):
    state = Asked(PARTS)
    state.joined(PARTS, [gen(b'{"%s":"v"}' % p.name.encode(), complete=p.name not in cut) for p in PARTS])
    last = Attempt("{}", Usage(), list(errors), cut=bool(cut))
    assert "".join(p.name for p in state.again(last)) == asked
    assert {name: len(h[-1].errors) for name, h in state.history.items()} == shown


class Bill(BaseModel):
    shop: str
    total: float = Field(gt=0)


class PartsEngine:
    """An engine whose parts' answers are scripted per field and attempt (a part's grammar is its field's name)."""

    tokenizer, retries_cut, batch_size, asks_apart = None, True, 8, True

    def __init__(self, script: dict[str, list[str]], screen: float | None = None) -> None:
        self.script, self.screen, self.asked, self.screened = {k: list(v) for k, v in script.items()}, screen, [], []
        self.shown: dict[str, list[list[str]]] = {}

    def context(self) -> int | None:
        return None

    def prompt_ids(self, schema: Any, text: str, attempts: Any, opts: ExtractOptions) -> list[int]:
        names = list(schema.get("properties", {})) if isinstance(schema, dict) else []
        if len(names) == 1:
            self.shown.setdefault(names[0], []).append([a.text for a in attempts])
        return [1, 2, 3]

    def screens(self, target: Target, texts: Any, opts: ExtractOptions) -> list[Screened | None]:
        self.screened.append(list(texts))
        return [None if self.screen is None else Screened(self.screen, target.title) for _ in texts]

    def grammar(self, target: Target, text: str, offer: str, opts: ExtractOptions) -> Any:
        return next(iter(target.schema["properties"])) if offer != "refusal" else "refusal"

    def is_target(self, target: Target, text: str, opts: ExtractOptions) -> None:
        return None

    def generate(self, jobs: Any, opts: ExtractOptions, control: Control) -> list[Generation]:
        out = []
        for job in jobs:
            names = [p.grammar for p in job.parts]
            self.asked.append(names)
            out.append(job.join([gen(self.script[n].pop(0).encode()) for n in names]))
        return out


RETRIES = [  # (answers per field and attempt, checks, fields asked per attempt, result)
    ({"shop": ['{"shop": "Acme"}'], "total": ['{"total": -1}', '{"total": 5}']}, (),
     [["shop", "total"], ["total"]], Bill(shop="Acme", total=5)),
    ({"shop": ['{"shop": "Acme"}', '{"shop": "Acme Corp"}'], "total": ['{"total": 5}', '{"total": 12}']},
     (lambda b: "too cheap" if b.total < 10 else None,), [["shop", "total"], ["shop", "total"]],
     Bill(shop="Acme Corp", total=12)),
]


@pytest.mark.parametrize(("script", "checks", "asked", "result"), RETRIES, ids=[
    "an invalid field asked again alone", "a failed check on the whole asks every field again"])
def test_the_joined_object_is_validated_as_one_and_a_failure_retried(script, checks, asked, result):
    engine = PartsEngine(script)
    opts = ExtractOptions(fields="apart", checks=checks)
    out = extract_many(engine, Target(Bill, opts), ["Acme Corp, total 12 (5 off)"], opts, batch_size=8)
    assert (out, engine.asked) == ([result], asked)
    retried = asked[1][0]
    assert engine.shown[retried][1] == [script[retried][0]]  # its own answer before, as its retry's turn


@pytest.mark.parametrize(("score", "decoded"), [(-50.0, False), (50.0, True)], ids=["refused", "relevant"])
def test_the_screen_reads_a_document_once_whatever_its_fields(score, decoded):
    engine = PartsEngine({"shop": ['{"shop": "Acme"}'], "total": ['{"total": 5}']}, screen=score)
    opts = ExtractOptions(fields="apart")
    [out] = extract_many(engine, Target(Bill, opts), ["Acme, total 5"], opts, batch_size=8)
    assert engine.screened == [["Acme, total 5"]]
    assert (isinstance(out, Refusal), bool(engine.asked)) == (not decoded, decoded)


class Plain(PartsEngine):
    """An engine that cannot decode a job's parts."""

    asks_apart = False


@pytest.mark.parametrize(("engine", "control", "message"), [
    (Plain, Control(), "Plain does not"),
    (PartsEngine, Control(watch=lambda m: None), "cannot be streamed"),
], ids=["an engine that cannot", "a stream"])
def test_fields_apart_is_refused_where_it_cannot_run(engine, control, message):
    opts = ExtractOptions(fields="apart")
    with pytest.raises(InputError, match=message):
        Pipeline(engine({}), Target(Bill, opts), opts, control=control)


def test_a_documents_questions_feed_its_text_once(fake_engine):
    """The fields' prompts begin with the text's: it is one row's pass, its cache copied to each field's row."""
    engine, lm = fake_engine
    text = ("Acme Corp sold three widgets at 4.20 each on the 3rd of May; the bill came to 12.60 paid in cash. "
            "The clerk, Dana Reyes, wrote the receipt by hand and stamped it twice at the counter.")
    opts = ExtractOptions(fields="apart", refusal=False, max_tokens=24, max_retries=0)
    target = Target(Bill, opts)
    prompts = [engine.prompt_ids(p.target.schema, text, [], opts) for p in split(target)]
    lm.model.calls.clear()
    extract_many(engine, target, [text], opts, batch_size=8)
    shared = next(k for k in range(len(prompts[0])) if prompts[0][k] != prompts[1][k])
    assert lm.model.calls[0] == (1, shared)  # the prefix, fed once
    assert shared > len(engine.tokenizer(text)["input_ids"])
    rows, width = lm.model.calls[1]  # then each row's own question (and what the grammar forces behind it)
    assert rows == 2 and max(len(p) - shared for p in prompts) <= width < shared


@pytest.fixture(scope="module")
def fake_engine():
    from extractor.decode.prompt import PromptTemplate
    from extractor.engines.local import TransformersEngine
    from tests.decode.fakes import fake_lm, hf_tokenizer

    lm, vocab = fake_lm(hf_tokenizer("gpt2"))
    engine = object.__new__(TransformersEngine)
    engine.lm, engine.vocab, engine._grammars = lm, vocab, {}
    engine.template = PromptTemplate()
    return engine, lm
