"""Windows of other text give nothing and the likeliest window's scalars win; conflicts between windows are offered
back to the model as a choice, kept on the trace with their candidates (a stand-in engine, scripted)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions
from extractor.documents.focus import narrowed, stretches
from extractor.pipeline.windowed import RELEVANCE_MARGIN, read_in_windows
from extractor.tracing import Span, Trace, ValueTrace
from tests.documents.test_read_in_windows import Stub

CONTRACT = " ".join(f"clause{i} Schedule applies." for i in range(60))
CARD = "Contact card. Name: Dana Reyes. Title: Engineer. Company: Acme Ltd."


class Card(BaseModel):
    name: str | None = None
    title: str | None = None
    skills: list[str] = []


def reads_as_card(text: str) -> float:
    """A stand-in relevance screen: a stretch holding the card reads as the target, contract text does not."""
    return 3.0 if "Contact card" in text or "Dana" in text else -20.0


def card_answers(text: str) -> dict[str, Any]:
    """What a small model writes in every window: the card's values where it holds them, contract words elsewhere."""
    if "Dana Reyes" in text:
        return {"name": "Dana Reyes", "title": "Engineer", "skills": ["Acme Ltd."]}
    return {"name": "Schedule", "title": "Schedule", "skills": ["clause1"] if "clause1 " in text else []}


@pytest.mark.parametrize("card_at, focus, min_relevance, name, skills", [
    (0, True, -5.56, "Dana Reyes", ["Acme Ltd."]),
    (30, True, -5.56, "Dana Reyes", ["Acme Ltd."]),
    (59, True, -5.56, "Dana Reyes", ["Acme Ltd."]),
    (30, True, None, "Dana Reyes", ["clause1", "Acme Ltd."]),  # the screen off: every window's values, the choice
    (30, False, -5.56, "Dana Reyes", ["clause1", "Acme Ltd."]),  # focus off (the default): the same
], ids=["start", "middle", "end", "screen_off", "focus_off"])
def test_windows_of_other_text_give_nothing_and_the_cards_window_wins(card_at, focus, min_relevance, name,
                                                                      skills) -> None:
    words = CONTRACT.split(" clause")
    doc = " clause".join([*words[:card_at], CARD, *words[card_at:]]) if card_at else f"{CARD} {CONTRACT}"
    stub = Stub(card_answers, relevance=reads_as_card)
    opts = ExtractOptions(focus=focus, min_relevance=min_relevance)
    traced = read_in_windows(stub, stub.extract_many, Card, doc, opts, 60, with_trace=True)
    assert (traced.result.name, traced.result.skills) == (name, skills)
    assert len(traced.trace.windows) >= 3
    chosen = [c for c in traced.trace.conflicts if c.pointer == "/name"]
    assert [c.chosen for c in chosen] == ([True] if min_relevance is None or not focus else [])


def scored(card: float, other: float):
    """A stand-in relevance screen giving the card's stretches one score and contract text another."""
    return lambda text: card if "Contact card" in text or "Dana" in text else other


def nowhere(text: str) -> dict[str, Any]:
    """Every window writes a name its text does not hold: nothing grounded, nothing to screen."""
    return {"name": "Zed", "title": None, "skills": []}


@pytest.mark.parametrize("relevance, answers, name, skills", [
    (scored(17.3, 11.3), card_answers, "Dana Reyes", ["Acme Ltd."]),
    (scored(-8.0, -8.0), card_answers, "Dana Reyes", ["clause1", "Acme Ltd."]),
    (scored(3.0, 3.0 - RELEVANCE_MARGIN), card_answers, "Dana Reyes", ["clause1", "Acme Ltd."]),
    (scored(3.0, 2.99 - RELEVANCE_MARGIN), card_answers, "Dana Reyes", ["Acme Ltd."]),
    (scored(17.3, 11.3), nowhere, "Zed", []),
], ids=["buried_card_wins_over_high_contract", "one_kind_all_kept", "tie_at_the_margin_counts", "just_below_nulled",
        "no_grounded_values_kept"])
def test_a_stretch_counts_within_the_margin_of_the_best_stretch(relevance, answers, name, skills) -> None:
    words = CONTRACT.split(" clause")
    doc = " clause".join([*words[:30], CARD, *words[30:]])
    stub = Stub(answers, relevance=relevance)
    traced = read_in_windows(stub, stub.extract_many, Card, doc, ExtractOptions(focus=True), 60, with_trace=True)
    assert (traced.result.name, traced.result.skills) == (name, skills)
    assert len(traced.trace.windows) >= 3


def leaf(pointer: str, value: Any, start: int | None) -> ValueTrace:
    return ValueTrace(pointer, value, "copied" if start is not None else "not_found",
                      () if start is None else (Span(start, start + 4),))


@pytest.mark.parametrize("value, traced, dropped, kept, moved", [
    ({"a": "x", "b": "y"}, [leaf("/a", "x", 0), leaf("/b", "y", 600)], {"/b"}, {"a": "x", "b": None}, ["/a"]),
    ({"l": ["p", "q", "r"]}, [leaf("/l/0", "p", 0), leaf("/l/1", "q", 600), leaf("/l/2", "r", 10)], {"/l/1"},
     {"l": ["p", "r"]}, ["/l/0", "/l/1"]),
    ({"l": [{"n": "p", "m": "z"}, {"n": "q"}]}, [leaf("/l/0/n", "p", 600), leaf("/l/0/m", "z", 600),
                                                 leaf("/l/1/n", "q", 0)], {"/l/0/n", "/l/0/m"},
     {"l": [{"n": "q"}]}, ["/l/0/n"]),
], ids=["scalar_nulled", "list_item_left_out", "object_item_left_out"])
def test_narrowing_nulls_leaves_drops_empty_items_and_moves_the_trace(value, traced, dropped, kept, moved) -> None:
    out, trace = narrowed(value, Trace(tuple(traced)), lambda p: p not in dropped)
    assert out == kept and [v.pointer for v in trace] == moved
    assert [v.value for v in trace] == [v.value for v in traced if v.pointer not in dropped]


@pytest.mark.parametrize("spans, size, expected", [
    ([0, 10, 600], 512, {0: ["/a", "/b"], 1: ["/c"]}),
    ([None, 10], 512, {0: ["/b"]}),
    ([], 512, {}),
], ids=["two_stretches", "ungrounded_left_out", "none"])
def test_stretches_group_grounded_values_by_where_they_stand(spans, size, expected) -> None:
    trace = Trace(tuple(leaf(p, "v", s) for p, s in zip(("/a", "/b", "/c"), spans)))
    assert stretches(trace, 2_000, size) == expected


class Terms(BaseModel):
    effective: str | None = None
    notice_days: int | None = None


OPENING = "This Agreement is made as of 3 February 2024 between Acme Ltd and Bolt plc."
CLOSING = "Termination. Either party may terminate this Agreement by giving 120 days' written notice."
LONG = OPENING + " " + CONTRACT + " " + CLOSING


def terms_answers(text: str) -> dict[str, Any]:
    """Windows misread the date's day as the notice period; the chooser (the member an enum) picks 120 where its
    text shows the notice clause."""
    if "notice_days" in text:  # never: the choice's text is the document's
        raise AssertionError
    answer: dict[str, Any] = {"effective": "3 February 2024" if "3 February" in text else None, "notice_days": None}
    if "3 February" in text:
        answer["notice_days"] = 3
    if "120 days" in text:
        answer["notice_days"] = 120
    return answer


class Chooser(Stub):
    """The stand-in engine, whose choice among a conflict's candidates is the one in a clause about notice."""

    def extract_many(self, target: dict, texts: list[str], options: ExtractOptions, **kw: Any) -> list[Any]:
        member = next(iter(target["properties"].values()))
        if "enum" not in member:
            return super().extract_many(target, texts, options, **kw)
        self.offered = (member["enum"], texts[0])
        from extractor.tracing import Traced

        return [Traced({"notice_days": 120 if "notice" in texts[0] else member["enum"][0]}, Trace())]


def test_a_conflict_is_offered_back_as_a_choice_and_kept_with_its_candidates_on_the_trace() -> None:
    stub = Chooser(terms_answers)
    traced = read_in_windows(stub, stub.extract_many, Terms, LONG, ExtractOptions(), 60, with_trace=True)
    assert traced.result.notice_days == 120 and traced.result.effective == "3 February 2024"
    enum, text = stub.offered
    assert enum == [3, 120, None] and "3 February 2024" in text and "120 days" in text and "[...]" in text
    (conflict,) = [c for c in traced.trace.conflicts if c.pointer == "/notice_days"]
    assert conflict.chosen and conflict.kept == 120 and [c.value for c in conflict.candidates] == [3, 120, None]
    spans = [c.span for c in conflict.candidates]
    assert LONG[spans[0].start:spans[0].end] == "3" and LONG[spans[1].start:spans[1].end] == "120"
    assert spans[2] is None and all(c.loglik is None for c in conflict.candidates)  # the stub gives none
    assert conflict.window == conflict.candidates[1].window != conflict.candidates[0].window
