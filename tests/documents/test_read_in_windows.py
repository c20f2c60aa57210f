"""Reading a long text in windows, with a stand-in model: what each window answers is scripted, so the routing,
the merge, the refusal of a document no window answers, the follow-up and the trace's spans are checked exactly."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from extractor import (
    ExtractionError, ExtractOptions, IncompleteOutputError, InputError, MissingFieldsError, Refusal,
)
from extractor.tracing import Span, Trace, Traced, ValueTrace
from extractor.pipeline import windowed
from extractor.pipeline.windowed import read_in_windows, token_ends, window_size


class Deal(BaseModel):
    buyer: str
    seller: str
    items: list[str] = []


def tokenizer(text: str, **_: Any) -> dict[str, Any]:
    return {"offset_mapping": [(m.start(), m.end()) for m in re.finditer(r"\S+\s*", text)]}


class Stub:
    """An engine whose windows answer from a script (its `extract_many` the batch read): `answers(text)` (or
    `answers(told, text)`, `told` the target's description) gives a window's object."""

    tokenizer = staticmethod(tokenizer)

    def __init__(self, answers, relevance=lambda text: 0.0, context: int = 10_000) -> None:
        self.answers, self.scores, self.limit, self.calls, self.told = answers, relevance, context, [], []

    def context(self) -> int:
        return self.limit

    def prompt_ids(self, target: Any, text: str, attempts: list, opts: ExtractOptions) -> list[int]:
        return [0] * (20 + len(tokenizer(text)["offset_mapping"]))

    def window_batch(self, tokens: int) -> dict[str, Any]:
        return {}

    def relevance_scores(self, target: Any, texts: list[str]) -> list[float]:
        return [self.scores(text) for text in texts]

    def extract_many(self, target: dict, texts: list[str], options: ExtractOptions, **kw: Any) -> list[Any]:
        self.calls.append((sorted(target["properties"]), texts))
        self.told.append(str(target.get("description", "")))
        out = []
        for text in texts:
            answer = self.answers(self.told[-1], text) if self.answers.__code__.co_argcount == 2 else \
                self.answers(text)
            if isinstance(answer, Exception):
                out.append(answer)
                continue
            value = {k: v for k, v in answer.items() if k in target["properties"]}
            leaves = [(f"/{k}", v) for k, v in value.items()]
            leaves += [(f"/{k}/{i}", item) for k, v in value.items() if isinstance(v, list) for i, item in enumerate(v)]
            spans = [ValueTrace(p, v, "copied", tuple(Span(m.start(), m.end()) for m in re.finditer(
                rf"(?<!\w){re.escape(str(v))}(?!\w)", text))) for p, v in leaves
                if isinstance(v, (str, int)) and re.search(rf"(?<!\w){re.escape(str(v))}(?!\w)", text)]
            out.append(Traced(value, Trace(tuple(spans))))
        return out


def reading(stub: Stub) -> tuple[Stub, Any]:
    """The stub as the engine and its batch read."""
    return stub, stub.extract_many


DOC = " ".join(f"filler{i}" for i in range(200)) + " Buyer: Ann Lee. " + " ".join(f"more{i}" for i in range(200)) \
    + " Seller: Bob Roe."


def names(text: str) -> dict[str, Any]:
    return {"buyer": "Ann Lee" if "Ann Lee" in text else None, "seller": "Bob Roe" if "Bob Roe" in text else None,
            "items": []}


@pytest.fixture
def windows_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows read without each member also read where its words stand (`windowed.LOCATE`): these tests count the
    windows' own reads; tests/documents/test_located.py reads members where they stand."""
    monkeypatch.setattr(windowed, "LOCATE", False)

def test_a_text_that_fits_is_read_whole() -> None:
    stub = Stub(names)
    assert window_size(stub, Deal, "Buyer: Ann Lee", ExtractOptions(), stub.prompt_ids(None, "Buyer: Ann Lee", [], None)) is None
    assert window_size(stub, Deal, DOC, ExtractOptions(window=100), stub.prompt_ids(None, DOC, [], None)) == 100


def test_windows_merge_into_one_object_traced_into_the_document() -> None:
    stub = Stub(names)
    traced = read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(overlap=8), 100, with_trace=True)
    assert traced.result == Deal(buyer="Ann Lee", seller="Bob Roe")
    assert len(traced.trace.windows) >= 4
    for value in traced.trace:
        assert [s.of(DOC) for s in value.spans] == [value.value]


def test_a_document_no_window_answers_is_refused_and_says_why() -> None:
    result = read_in_windows(*reading(Stub(lambda text: {"buyer": None, "seller": None, "items": []})), Deal, DOC,
                             ExtractOptions(), 100)
    assert isinstance(result, Refusal) and "none of its" in result.error


def test_a_missing_member_is_looked_for_again_in_the_likeliest_windows_then_named() -> None:
    stub = Stub(lambda text: {"buyer": "Ann Lee" if "Ann Lee" in text else None, "seller": None},
                relevance=lambda text: 1.0 if "Seller" in text else 0.0)
    with pytest.raises(MissingFieldsError) as caught:
        read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(), 100)
    assert caught.value.missing == ["/seller"] and caught.value.partial["buyer"] == "Ann Lee"
    members, texts = stub.calls[-1]
    assert members == ["seller"] and "Seller" in texts[0] and len(texts) == 2  # the likeliest window first


def test_a_window_whose_list_max_tokens_cuts_is_read_again_in_halves(windows_only) -> None:
    items = [f"item{i}" for i in range(60)]
    doc = "Buyer: Ann Lee. Seller: Bob Roe. " + " ".join(f"{item}." for item in items)

    def listed(text: str) -> Any:
        found = [w for w in re.findall(r"item\d+", text)]
        if len(found) > 20:  # the answer would run past max_tokens
            return IncompleteOutputError('{"items": ["item', 40)
        return {**names(text), "items": found}

    stub = Stub(listed)
    traced = read_in_windows(stub, stub.extract_many, Deal, doc, ExtractOptions(overlap=4, max_tokens=60), 60,
                             with_trace=True)
    assert traced.result.items == items  # every item once, in text order, the overlaps collapsed
    assert len(stub.calls) > 1 and len(traced.trace.windows) > 2
    ends = [w.end for w in traced.trace.windows]
    assert ends == sorted(ends) and traced.trace.windows[-1].end == len(doc)


def test_a_window_too_short_to_hold_a_list_longer_than_the_budget_is_halved_once_not_again(windows_only) -> None:
    doc = "Buyer: Ann Lee. Seller: Bob Roe. " + " ".join(f"item{i}." for i in range(200))
    looping = Stub(lambda text: IncompleteOutputError('{"items": ["item', 40) if "item100." in text else names(text))
    traced = read_in_windows(looping, looping.extract_many, Deal, doc, ExtractOptions(overlap=4, max_tokens=600), 60,
                             with_trace=True)  # windows of 60 tokens, a fifth of the answer's budget: a loop
    assert len(looping.calls) == 2 and len(traced.trace.unread) == 1  # read, then its halves, and no more


def test_windows_that_stay_cut_are_named_on_the_trace_or_raised_never_refused() -> None:
    cut = IncompleteOutputError('{"buyer": "', 40)
    every = Stub(lambda text: cut)
    with pytest.raises(IncompleteOutputError):
        read_in_windows(every, every.extract_many, Deal, DOC, ExtractOptions(), 100)
    some = Stub(lambda text: cut if "more100 " in text else names(text))
    traced = read_in_windows(some, some.extract_many, Deal, DOC, ExtractOptions(), 100, with_trace=True)
    assert traced.result.buyer == "Ann Lee" and len(traced.trace.unread) == 1
    last = traced.trace.windows[traced.trace.unread[0]]
    assert "more100 " in DOC[last.start:last.end]


def test_token_ends_come_from_the_tokenizers_offsets_or_every_four_characters() -> None:
    assert token_ends(tokenizer, "ab cd") == [3, 5]
    assert token_ends(lambda text, **_: {}, "abcdefghij") == [4, 8, 10]


@pytest.mark.parametrize("tokens, batch", [(100, 8), (1_024, 8), (2_048, 4), (4_000, 2), (8_000, 1), (40_000, 1)])
def test_windows_decode_together_only_as_many_as_bound_the_cache(tokens: int, batch: int) -> None:
    from extractor.api import Extractor

    assert Extractor.window_batch(None, tokens) == {"batch_size": batch}  # type: ignore[arg-type]


@pytest.mark.parametrize("partial, inside", [
    ('{"items": ["a", "b', True),
    ('{"items": [{"name": "x"}, {"name": "y', True),
    ('{"name": "Ann [Lee', False),
    ('{"items": ["a"], "name": "Ann', False),
    ('{"name": "say \\"[\\" here', False),
    ('[', True),
    ('', False),
], ids=["strings", "objects", "bracket_in_string", "closed_list", "escaped_quote", "bare", "empty"])
def test_only_an_answer_cut_inside_a_list_is_read_again_in_halves(partial: str, inside: bool) -> None:
    from extractor.pipeline.windowed import in_list

    assert in_list(partial) is inside


@pytest.mark.parametrize("partial, whole", [
    ('{"buyer": "Ann Lee", "seller": "2014. Zaller, Imagine and Kingsmen', {"buyer": "Ann Lee"}),
    ('{\n  "buyer": "Ann Lee",\n  "total": 12', {"buyer": "Ann Lee"}),  # a number cut may be a prefix of it
    ('{"buyer": "A, B", "items": ["a", "b"], "seller": "C', {"buyer": "A, B", "items": ["a", "b"]}),
    ('{"buyer": "Ann", "items": ["a", "b', {"buyer": "Ann"}),  # a list cut misses its last items
    ('{"buyer": {"name": "x", "city": "y"}, "seller": {"name": "z"', {"buyer": {"name": "x", "city": "y"}}),
    ('{"buyer": "say \\", here", "seller": "', {"buyer": 'say ", here'}),
    ('{"buyer": "Ann Lee', None),
    ('{"buyer": null, "seller": "B', {"buyer": None}),
    ('["a", "b', None),
    ('', None),
    ('{"a": ' + "[" * 100_000 + "]" * 100_000 + ', "b": "', None),  # deeper than the parser reads: no error
], ids=["string running on", "number", "list whole", "list cut", "objects", "escaped quote and comma", "nothing whole",
        "null", "not an object", "empty", "nested past the parser"])
def test_a_cut_answer_keeps_the_members_it_wrote_whole(partial: str, whole: Any) -> None:
    from extractor.pipeline.windowed import completed

    assert completed(partial) == whole


def test_a_window_cut_in_a_string_gives_the_members_written_before_it(windows_only) -> None:
    doc = DOC.replace("Seller: Bob Roe.", "Seller: Bob Roe, who writes on and on")
    run_on = Stub(lambda text: IncompleteOutputError('{"buyer": "Ann Lee", "seller": "Bob Roe, who writes on', 40)
                  if "Ann Lee" in text else names(text))
    traced = read_in_windows(run_on, run_on.extract_many, Deal, doc, ExtractOptions(), 100, with_trace=True)
    assert traced.result.buyer == "Ann Lee" and traced.result.seller == "Bob Roe"
    cut = [traced.trace.windows[i] for i in traced.trace.unread]  # still named: what they hold past the cut was
    assert cut and all("Ann Lee" in doc[w.start:w.end] for w in cut)  # not read
    assert [doc[s.start:s.end] for s in traced.trace["/buyer"].spans] == ["Ann Lee"]


def differ(deal: Deal) -> None:
    if deal.buyer == deal.seller:
        raise ValueError("the buyer and the seller must differ")


class Priced(BaseModel):
    buyer: str
    total: float

    @field_validator("total")
    @classmethod
    def positive(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("a total is positive")
        return value


def test_a_merged_object_a_check_rejects_is_read_again_whole_with_the_error_fed_back(windows_only) -> None:
    def answers(told: str, text: str) -> dict[str, Any]:
        if "must differ" in told:
            return names(text)
        return {"buyer": "Ann Lee" if "Ann Lee" in text else None, "seller": "Ann Lee" if "Ann Lee" in text else None}

    stub = Stub(answers)
    traced = read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(checks=[differ]), 100, with_trace=True)
    assert traced.result == Deal(buyer="Ann Lee", seller="Bob Roe")
    (first, texts), (again, every) = stub.calls
    assert first == again == ["buyer", "items", "seller"] and every == texts  # every member, every window
    assert "must differ" in stub.told[-1] and '"seller": "Ann Lee"' in stub.told[-1]


def test_a_merged_member_validation_rejects_is_read_again_alone_where_it_came_from() -> None:
    doc = DOC.replace("Seller: Bob Roe.", "Total: 12.50.")

    def answers(told: str, text: str) -> dict[str, Any]:
        total = (12.5 if "rejected" in told else -12.5) if "12.50" in text else None
        return {"buyer": "Ann Lee" if "Ann Lee" in text else None, "total": total}

    stub = Stub(answers, relevance=lambda text: 1.0 if "filler0 " in text else 0.0)  # every window read (no focus):
    traced = read_in_windows(stub, stub.extract_many, Priced, doc, ExtractOptions(focus=False), 100,  # the likeliest
                             with_trace=True)  # by the relevance screen
    assert traced.result == Priced(buyer="Ann Lee", total=12.5)
    members, texts = stub.calls[-1]
    assert members == ["total"] and len(texts) == 3  # where it came from, and the two likeliest windows
    assert any("12.50" in t for t in texts) and any("filler0 " in t for t in texts)
    assert "a total is positive" in stub.told[-1]


@pytest.mark.parametrize("retries, readings", [(0, 1), (2, 3)])
def test_a_merged_object_still_rejected_when_retries_are_spent_raises_with_every_attempt(retries, readings,
                                                                                           windows_only) -> None:
    stub = Stub(lambda told, text: {"buyer": "Ann Lee", "seller": "Ann Lee"})
    with pytest.raises(ExtractionError) as caught:
        read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(checks=[differ], max_retries=retries), 100)
    assert len(stub.calls) == readings
    rejected = [a for a in caught.value.attempts if any("must differ" in str(e) for e in a.errors)]
    assert len(rejected) == readings


def test_windows_that_all_fail_before_decoding_raise_their_own_error() -> None:
    refused = InputError("the prompt is 9000 tokens but the model's context is 8192 tokens")
    every = Stub(lambda text: refused)
    with pytest.raises(InputError) as caught:
        read_in_windows(every, every.extract_many, Deal, DOC, ExtractOptions(), 100)
    assert caught.value is refused
