"""Windows that read as another kind of document give nothing: which stretches are read, which windows are dropped,
and a long text read with the rule on (stand-in model, scripted stretch scores)."""

from __future__ import annotations

from typing import Any

import pytest

from extractor import ExtractOptions
from extractor.documents.relevant import grid
from extractor.pipeline import windowed
from extractor.pipeline.windowed import read_in_windows, readings
from tests.documents.test_read_in_windows import DOC, Deal, Stub, names

SPANS = grid(100, 10)  # ten stretches of ten characters
WINDOWS = [(0, 40), (35, 70), (65, 100)]  # each overlaps the next by one stretch
FAR, NEAR = -10.0, -1.0  # another kind by more than the margin (4), and by less
ROWS = [  # (each stretch's score, windows dropped, stretches read in order)
    ([FAR] * 5 + [2.0] + [FAR] * 4, [True, False, True], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    ([NEAR] + [FAR] * 9, [False, True, True], [0, 3, 4, 5, 6, 7, 8, 9]),  # a window stops at its first clear one
    ([FAR] * 10, [False, False, False], list(range(10))),  # every window another kind: nothing told apart
    ([FAR] * 3 + [-4.0] + [FAR] * 6, [False, False, True], [0, 1, 2, 3, 6, 7, 8, 9]),  # at the margin: kept
]


@pytest.mark.parametrize("scores, dropped, read", ROWS,
                         ids=["the needle's window kept", "a clear first stretch", "all dropped", "at the margin"])
def test_a_window_every_stretch_of_which_reads_as_another_kind_is_dropped(scores: list[float], dropped: list[bool],
                                                                          read: list[int]) -> None:
    asked: list[int] = []

    def score(i: int) -> tuple[float, str]:
        asked.append(i)
        return scores[i], "legal text"

    out = readings(WINDOWS, SPANS, score, 4.0)
    assert [r.dropped for r in out] == dropped and asked == read  # each stretch read once
    assert [r.window for r in out] == [0, 1, 2]
    for r, (start, end) in zip(out, WINDOWS):
        assert r.score == max(scores[i] for i in read if SPANS[i][0] < end and SPANS[i][1] > start)


class Scored(Stub):
    """A stand-in with a model in this process: its stretches' kinds are scripted (see `kinds`)."""

    lm = object()


def test_values_of_windows_read_as_another_kind_stay_on_the_trace_not_in_the_result(monkeypatch) -> None:
    from extractor.decode import relevance

    def wrote(text: str) -> dict[str, Any]:  # every window writes a seller: a filler word where it holds none
        return {**names(text), "seller": names(text)["seller"] or text.split()[0]}

    monkeypatch.setattr(windowed, "KIND_MARGIN", 4.0)
    monkeypatch.setattr(windowed, "LOCATE", False)  # the windows' readings alone (test_located.py: with members)
    monkeypatch.setattr(relevance, "opening", lambda lm, text, tokens: text)
    monkeypatch.setattr(relevance, "kind", lambda lm, schema, body, below, guess: (
        (1.0, "form") if "Ann Lee" in body or "Bob Roe" in body else (-9.0, "legal text")))
    stub = Scored(wrote)
    traced = read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(overlap=8), 100, with_trace=True)
    assert traced.result == Deal(buyer="Ann Lee", seller="Bob Roe")
    readings_ = traced.trace.readings
    assert len(readings_) == len(traced.trace.windows) >= 4
    for r in readings_:
        w = traced.trace.windows[r.window]
        text = w.of(DOC)
        near = [DOC[a:b] for a, b in grid(len(DOC), windowed.STRETCH) if a < w.end and b > w.start]
        holds = any("Ann Lee" in t or "Bob Roe" in t for t in near)  # a stretch it overlaps holds a name
        assert r.dropped is not holds and r.kind == ("form" if holds else "legal text")
        assert r.wrote == (wrote(text) if r.dropped else None)
    dropped = {r.window for r in readings_ if r.dropped}
    others = {w for c in traced.trace.conflicts for _, w in c.others}
    assert dropped and others and not dropped & others  # the kept windows' fillers met Bob Roe, the dropped' never


def test_off_every_window_gives_and_none_is_read_as_a_kind(monkeypatch) -> None:
    monkeypatch.setattr(windowed, "KIND_MARGIN", None)
    stub = Scored(names)
    traced = read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(overlap=8), 100, with_trace=True)
    assert traced.result == Deal(buyer="Ann Lee", seller="Bob Roe") and traced.trace.readings == ()


def test_with_the_model_elsewhere_every_window_gives_and_none_is_read(monkeypatch) -> None:
    monkeypatch.setattr(windowed, "KIND_MARGIN", 4.0)
    stub = Stub(names)  # no `lm`: an engine whose model runs elsewhere (a vLLM server) has no likelihoods to read
    traced = read_in_windows(stub, stub.extract_many, Deal, DOC, ExtractOptions(overlap=8), 100, with_trace=True)
    assert traced.result == Deal(buyer="Ann Lee", seller="Bob Roe") and traced.trace.readings == ()


def test_the_review_page_holds_each_windows_reading_and_what_a_dropped_one_wrote() -> None:
    from extractor.review import Reviewed, review_html
    from extractor.tracing import Trace
    from extractor.tracing.record import Reading
    from tests.test_review_read import _payload

    found = Trace(readings=(Reading(0, 2.5, "form"), Reading(1, -9.0, "legal text", True, {"seller": "Schedule"}),
                            Reading(2, float("-inf"), "")))
    [shown] = _payload(review_html([Reviewed("deal.txt", "Buyer: Ann Lee", {"buyer": "Ann Lee"}, trace=found)]))
    assert shown["readings"] == [
        {"window": 0, "score": 2.5, "kind": "form", "dropped": False, "wrote": None},
        {"window": 1, "score": -9.0, "kind": "legal text", "dropped": True, "wrote": {"seller": "Schedule"}},
        {"window": 2, "score": None, "kind": "", "dropped": False, "wrote": None},  # no stretch: JSON has no -inf
    ]


def test_no_member_is_looked_for_inside_a_window_read_as_another_kind(monkeypatch) -> None:
    from extractor.decode import relevance
    from extractor.documents.located import locate

    doc = " ".join(f"filler{i}" for i in range(30)) + " the buyer of the goods pays. " + DOC  # "buyer" in a clause
    monkeypatch.setattr(windowed, "KIND_MARGIN", 4.0)
    monkeypatch.setattr(relevance, "opening", lambda lm, text, tokens: text)
    monkeypatch.setattr(relevance, "kind", lambda lm, schema, body, below, guess: (
        (1.0, "form") if "Ann Lee" in body or "Bob Roe" in body else (-9.0, "legal text")))
    stub = Scored(names)
    traced = read_in_windows(stub, stub.extract_many, Deal, doc, ExtractOptions(overlap=8), 100, with_trace=True)
    readings_ = traced.trace.readings
    dropped = [traced.trace.windows[r.window] for r in readings_ if r.dropped]
    located = traced.trace.windows[len(readings_):]
    (buyer,) = locate(doc, Deal.model_json_schema(), ["buyer"])
    assert any(d.start <= a and b <= d.end for a, b in buyer.snippets for d in dropped)  # the clause's stretch
    assert dropped and located and not any(d.start <= w.start and w.end <= d.end for w in located for d in dropped)
    assert traced.result == Deal(buyer="Ann Lee", seller="Bob Roe")
