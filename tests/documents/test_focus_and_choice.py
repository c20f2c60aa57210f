"""Only the part of a long text that reads as the target is decoded (the rest gives nothing); conflicts between
windows are offered back to the model as a choice, kept on the trace with their candidates (a stand-in engine,
scripted)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions
from extractor.documents import lexical
from extractor.pipeline import windowed
from extractor.pipeline.windowed import MAX_REGIONS, PAD, STRETCH, read_in_windows
from extractor.tracing import Trace
from tests.documents.test_read_in_windows import Stub, reading

CONTRACT = " ".join(f"clause{i} Schedule applies." for i in range(60))
CARD = "Contact card. Name: Dana Reyes. Title: Engineer. Company: Acme Ltd."
LONG_CONTRACT = " ".join(f"clause{i} Schedule applies." for i in range(400))  # about 10,000 characters


class Card(BaseModel):
    name: str | None = None
    title: str | None = None
    skills: list[str] = []


def card_answers(text: str) -> dict[str, Any]:
    """What a small model writes in every window: the card's values where it holds them, contract words elsewhere."""
    if "Dana Reyes" in text:
        return {"name": "Dana Reyes", "title": "Engineer", "skills": ["Acme Ltd."]}
    return {"name": "Schedule", "title": "Schedule", "skills": ["clause1"] if "clause1 " in text else []}


def buried(at: int) -> str:
    """The card inside the long contract, before clause `at`."""
    words = LONG_CONTRACT.split(" clause")
    return " clause".join([*words[:at], CARD, *words[at:]]) if at else f"{CARD} {LONG_CONTRACT}"


@pytest.mark.parametrize("card_at, focus, name, skills, reads_far", [
    (0, True, "Dana Reyes", ["Acme Ltd."], False),
    (200, True, "Dana Reyes", ["Acme Ltd."], False),
    (399, True, "Dana Reyes", ["Acme Ltd."], False),
    (200, False, "Dana Reyes", ["clause1", "Acme Ltd."], True),  # every window read: the contract's values too
], ids=["start", "middle", "end", "focus_off"])
def test_only_the_part_that_reads_as_the_target_is_decoded(card_at: int, focus: bool, name: str, skills: list[str],
                                                            reads_far: bool) -> None:
    doc = buried(card_at)
    stub = Stub(card_answers)
    traced = read_in_windows(stub, stub.extract_many, Card, doc, ExtractOptions(focus=focus), 60, with_trace=True)
    assert (traced.result.name, traced.result.skills) == (name, skills)
    read = [t for _, texts in stub.calls for t in texts]
    card = doc.index(CARD)
    assert any(CARD in t for t in read)
    far = [w for w in traced.trace.windows if w.end < card - 2 * PAD or w.start > card + len(CARD) + 2 * PAD]
    assert bool(far) == reads_far  # nothing far from the card is decoded with focus on
    assert all(w.start >= card - 2 * PAD and w.end <= card + len(CARD) + 2 * PAD for w in traced.trace.windows) \
        != reads_far


def filled(stretch: str) -> str:
    """A long text of `stretch` repeated, the card buried in its middle."""
    words = (stretch * (10_000 // len(stretch))).split(" ")
    return " ".join([*words[:len(words) // 2], CARD, *words[len(words) // 2:]])


def every_third(line: str) -> str:
    """A long letter with `line` in every third block of it, the card in its middle."""
    pad = "Plain words of a long letter go on here. " * 12
    blocks = [(line if i % 3 == 0 else "") + pad for i in range(20)]
    return " ".join(blocks[:10] + [CARD] + blocks[10:])


@pytest.mark.parametrize("doc, everything", [
    (buried(200), False),  # contract words nowhere in the card: the card's stretches alone
    (every_third("Card of Lee Park, name and title: Clerk. "), True),  # spread through: nothing stands out (PEAK)
    (every_third("Name: Lee Park, title: Clerk. "), False),  # the card's own words stand out
    (filled("Card of Lee Park, name and title: Clerk, skills: filing. "), True),  # the target's words all through
    (filled("Nothing here to read at all. "), False),  # the card's words found in its stretch alone
    (" ".join(["No words of the target."] * 500), True),  # none anywhere: nothing tells stretches apart
], ids=["buried_card", "spread_through", "standing_out", "one_kind_all_read", "card_in_plain_text",
        "nothing_of_the_target"])
def test_a_stretch_is_read_where_it_scores_near_the_best(doc: str, everything: bool) -> None:
    stub = Stub(card_answers)
    traced = read_in_windows(stub, stub.extract_many, Card, doc, ExtractOptions(focus=True), 60, with_trace=True)
    every = read_in_windows(*reading(Stub(card_answers)), Card, doc, ExtractOptions(focus=False), 60,
                            with_trace=True)
    assert (traced.trace.windows == every.trace.windows) == everything
    assert traced.trace.windows[0].start == 0 or not everything


def test_a_text_of_one_window_is_not_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical, "stretch_terms", lambda *a: pytest.fail("a text read whole was scored"))
    stub = Stub(card_answers)
    traced = read_in_windows(stub, stub.extract_many, Card, CARD, ExtractOptions(focus=True), 60,
                             with_trace=True)
    assert traced.result.name == "Dana Reyes"


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


@pytest.mark.parametrize("target, text, other", [
    (Card, "Contact card. Name: Dana Reyes. Title: Engineer. Company: Acme Ltd. Email: dana@acme.example", CONTRACT),
], ids=["card_against_contract"])
def test_a_stretch_of_the_targets_kind_outscores_other_text(target, text: str, other: str) -> None:
    from extractor.pipeline.target import Target
    from extractor.pipeline.windowed import stretch_scores

    (mine, theirs), _ = stretch_scores(Target(target, ExtractOptions()), [text, other[:STRETCH]])
    assert mine > theirs == 0.0


DECOY = "Name: Lee Park, title: Clerk, skills: filing."


def decoyed(*at: int) -> str:
    """The card at clause 200 and a decoy (the target's words, not a card) before each clause in `at`."""
    words = buried(200).split(" clause")
    for k in sorted(at, reverse=True):
        words.insert(k, DECOY)
    return " clause".join(words)


def region_answers(text: str) -> dict[str, Any]:
    """The card's window writes its name and title and no skills; a decoy's window a name and skills."""
    if "Dana Reyes" in text:
        return {"name": "Dana Reyes", "title": "Engineer", "skills": []}
    if "Lee Park" in text:
        return {"name": "Lee Park", "title": None, "skills": ["filing"]}
    return {"name": None, "title": None, "skills": []}


def test_the_best_regions_members_are_taken_from_it_alone_and_the_others_fill_what_it_left_empty() -> None:
    stub = Stub(region_answers)
    traced = read_in_windows(stub, stub.extract_many, Card, decoyed(40), ExtractOptions(focus=True), 60,
                             with_trace=True)
    assert (traced.result.name, traced.result.title, traced.result.skills) == ("Dana Reyes", "Engineer", ["filing"])
    assert not [c for c in traced.trace.conflicts if c.pointer == "/name"]  # the decoy's name never competed


def test_at_most_max_regions_are_read_the_best_first() -> None:
    doc = decoyed(20, 80, 140, 260, 320)
    stub = Stub(region_answers)
    traced = read_in_windows(stub, stub.extract_many, Card, doc, ExtractOptions(focus=True), 60, with_trace=True)
    card = doc.index(CARD)
    starts = sorted({w.start for w in traced.trace.windows})
    gaps = sum(1 for x, y in zip(starts, starts[1:]) if y - x > 4 * PAD)
    assert gaps + 1 <= MAX_REGIONS < 6  # six regions scored near the best, three read
    assert any(w.start <= card < w.end for w in traced.trace.windows)  # the card's, the best, among them
    assert traced.result.name == "Dana Reyes"


class Entry(BaseModel):
    date: str
    amount: float


class Statement(BaseModel):
    holder: str | None = None
    entries: list[Entry] = []


def test_a_text_whose_rows_all_write_the_targets_value_shapes_is_read_whole() -> None:
    rows = "\n".join(f"| {1 + i % 28:02d}/01/2025 | Shop {i} | {i + 0.5:.2f} |" for i in range(400))
    doc = f"STATEMENT\nHolder: Dana Reyes\n\n{rows}\n"
    stub = Stub(lambda text: {"holder": None, "entries": []})
    traced = read_in_windows(stub, stub.extract_many, Statement, doc, ExtractOptions(focus=True), 60,
                             with_trace=True)
    every = read_in_windows(*reading(Stub(lambda text: {"holder": None, "entries": []})), Statement, doc,
                            ExtractOptions(focus=False), 60, with_trace=True)
    assert traced.trace.windows == every.trace.windows and len(every.trace.windows) > MAX_REGIONS


class Notice(BaseModel):
    name: str | None = None
    title: str | None = None
    company: str | None = None
    notice_days: int | None = None


NOTICE = "Either side may end it: the notice period is 60 days."
NOTICE_CARD = f"{CARD} Job title: Engineer. Company name: Acme Ltd."
"""The card, its members' words written twice: its region scores best."""


def notice_answers(text: str) -> dict[str, Any]:
    """The card's window writes the card (and `notice_days` where `card_notice`); a short stretch holding the notice
    sentence writes its days; a window of clauses writes nothing."""
    if "Dana Reyes" in text:
        return {"name": "Dana Reyes", "title": "Engineer", "company": "Acme Ltd.",
                "notice_days": 14 if "14 days" in text else None}
    return {"notice_days": 60} if NOTICE in text and len(text) < 2000 else {}


@pytest.mark.parametrize("card, notice_days, looked_for", [
    (NOTICE_CARD, 60, True),
    (NOTICE_CARD + " Notice: 14 days.", 14, False),
], ids=["left_empty", "written_by_the_region"])
def test_with_focus_a_member_the_best_region_left_empty_is_looked_for_where_its_words_stand(
        card: str, notice_days: int, looked_for: bool) -> None:
    words = LONG_CONTRACT.split(" clause")
    doc = " clause".join([*words[:100], card, *words[100:350], NOTICE, *words[350:]])
    stub = Stub(notice_answers)
    traced = read_in_windows(stub, stub.extract_many, Notice, doc, ExtractOptions(focus=True, conflicts="merge"), 60,
                             with_trace=True)
    assert (traced.result.name, traced.result.notice_days) == ("Dana Reyes", notice_days)
    asked = [keys for keys, _ in stub.calls]
    assert (["notice_days"] in asked) == looked_for  # only the member the region left empty, never the card's
    assert all(keys == ["notice_days"] for keys in asked[1:])


@pytest.mark.parametrize("focus_from, reads_far", [(10**6, True), (500, False)], ids=["short_text", "long_text"])
def test_without_the_model_in_process_only_a_text_of_more_than_focus_from_tokens_is_focused_by_default(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, focus_from: int, reads_far: bool) -> None:
    monkeypatch.setattr(windowed, "FOCUS_FROM", focus_from)
    doc = buried(200)
    stub = Stub(card_answers)
    with caplog.at_level("INFO", logger="extractor"):
        traced = read_in_windows(stub, stub.extract_many, Card, doc, ExtractOptions(), 60, with_trace=True)
    said = [r.getMessage() for r in caplog.records if "region(s) that hold the target" in r.getMessage()]
    assert bool(said) != reads_far  # a text focused by its length alone says so, and how to read it all
    card = doc.index(CARD)
    far = [w for w in traced.trace.windows if w.end < card - 2 * PAD or w.start > card + len(CARD) + 2 * PAD]
    assert bool(far) == reads_far
    assert traced.result.name == "Dana Reyes"


@pytest.mark.parametrize("page", ["README.md", "docs/long-documents.md", "docs/architecture.md", "docs/guide.md"])
def test_the_pages_quote_the_length_from_which_texts_are_focused(page: str) -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / page).read_text(encoding="utf-8")
    assert f"{windowed.FOCUS_FROM:,} tokens" in " ".join(text.split())


@pytest.mark.parametrize("ratios, other", [
    ([], False),  # nothing outside the regions
    ([-6.0, -2.0, 5.0], True),  # two of three read as another kind
    ([2.0, 3.0, -9.0], False),  # one of three
    ([windowed.OTHER_KIND] * 3, False),  # at the margin: not under it
    ([-3.0, -1.0, 1.0, 9.0, 9.0, 9.0], False),  # half: not more
    ([-3.0, -1.0, 1.0, 1.7, 9.0, 9.0], True),  # four of six
], ids=["nothing_outside", "two_of_three", "one_of_three", "at_the_margin", "half", "four_of_six"])
def test_the_rest_of_a_text_reads_as_another_kind_where_most_of_its_stretches_do(ratios: list[float],
                                                                                 other: bool) -> None:
    assert windowed.other_kind(ratios) == other


@pytest.mark.parametrize("ratios, focused", [([-5.0] * 6, True), ([5.0] * 6, False), (None, False)],
                         ids=["another_kind", "the_target_all_through", "no_model_here"])
def test_by_default_a_shorter_text_is_read_in_part_only_where_the_rest_reads_as_another_kind(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, ratios: list[float] | None,
        focused: bool) -> None:
    asked = []
    monkeypatch.setattr(windowed, "outside_kinds", lambda engine, target, text, picked: asked.append(picked) or ratios)
    doc = buried(200)
    stub = Stub(card_answers)
    with caplog.at_level("INFO", logger="extractor"):
        traced = read_in_windows(stub, stub.extract_many, Card, doc, ExtractOptions(), 60, with_trace=True)
    assert len(asked) == 1 and all(a < b for a, b in asked[0])  # asked once, of the regions found
    said = [r.getMessage() for r in caplog.records if "reads as another kind of document" in r.getMessage()]
    assert bool(said) == focused
    card = doc.index(CARD)
    far = [w for w in traced.trace.windows if w.end < card - 2 * PAD or w.start > card + len(CARD) + 2 * PAD]
    assert bool(far) != focused
    assert (traced.result.name, traced.result.skills) == (("Dana Reyes", ["Acme Ltd."]) if focused else
                                                          ("Dana Reyes", ["clause1", "Acme Ltd."]))


def test_the_rest_is_read_in_stretches_spread_outside_the_regions_each_kind_guessed_from_the_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from extractor.decode import relevance

    read = []

    def kind(lm, schema, body, *, below=None, guess=None):
        read.append((body, guess))
        return -1.0, f"kind{len(read)}"

    monkeypatch.setattr(relevance, "opening", lambda lm, text, tokens: text)
    monkeypatch.setattr(relevance, "kind", kind)
    engine = type("Engine", (), {"lm": object()})()
    text = LONG_CONTRACT
    picked = [(2048, 3072)]
    ratios = windowed.outside_kinds(engine, windowed._target(Card, ExtractOptions()), text, picked)
    stretches = [text[a:b] for a, b in windowed.grid(len(text), STRETCH) if b <= 2048 or a >= 3072]
    assert ratios == [-1.0] * windowed.OUTSIDE_SAMPLE
    assert [body for body, _ in read] == [stretches[j * len(stretches) // windowed.OUTSIDE_SAMPLE]
                                          for j in range(windowed.OUTSIDE_SAMPLE)]
    assert [guess for _, guess in read] == [None, *(f"kind{i}" for i in range(1, windowed.OUTSIDE_SAMPLE))]
    assert windowed.outside_kinds(Stub(card_answers), windowed._target(Card, ExtractOptions()), text, picked) is None
