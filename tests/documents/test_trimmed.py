"""Focus's regions cut to the lines that read as the target and grown over those beside them that do, against the
kind of text around them (`windowed.trimmed`; the model's reading scripted: a line holding "CARD" reads as the
target, any other as the text around it)."""

from __future__ import annotations

import pytest

from extractor import ExtractOptions
from extractor.pipeline import windowed
from extractor.pipeline.windowed import LINE_MARGIN, REACH, STRETCH
from tests.documents.test_focus_and_choice import Card

CLAUSE = "The Receiving Party shall hold the Confidential Information in confidence at all times."


def text_with(card_lines: int, before: int = 40, after: int = 40) -> tuple[str, int, int]:
    """Contract lines, `card_lines` lines of a card, contract lines: the text and where the card starts and ends."""
    head = "\n".join(f"{CLAUSE} ({i})" for i in range(before)) + "\n"
    card = "\n".join(f"CARD line {i}: Dana Reyes, Engineer" for i in range(card_lines))
    return head + card + "\n" + "\n".join(f"{CLAUSE} [{i}]" for i in range(after)), len(head), len(head) + len(card)


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The model's reading: the kinds of the stretches outside the regions (all "legal text") and each line's ratio
    (+3 nats for a card line, 5 under the margin for a clause); the lines read are kept."""
    from extractor.decode import relevance

    read: list[str] = []

    def against(lm, schema, bodies, others):
        assert others[0] == relevance.as_kind("legal text") and len(others) == 1 + windowed.CONTEXTS
        assert all(o.startswith(relevance.NEUTRAL) and len(o) > windowed.STRETCH // 2 for o in others[1:])  # text
        read.extend(bodies)
        return [3.0 if "CARD" in b else LINE_MARGIN - 5.0 for b in bodies]

    monkeypatch.setattr(relevance, "opening", lambda lm, text, tokens: text)
    monkeypatch.setattr(relevance, "kind", lambda lm, schema, body, **kw: (-6.0, "legal text"))
    monkeypatch.setattr(relevance, "against", against)
    return read


def _stretches(text: str, best: tuple[int, int]) -> list[tuple[tuple[int, int], float]]:
    return [(s, 1.0 if s == best else 0.1) for s in windowed.grid(len(text), STRETCH)]


ENGINE = type("Engine", (), {"lm": object()})()
TARGET = windowed._target(Card, ExtractOptions())


@pytest.mark.parametrize("card_lines", [1, 5, 60], ids=["one_line", "five_lines", "longer_than_its_region"])
def test_a_region_becomes_the_lines_that_read_as_the_target(scripted: list[str], card_lines: int) -> None:
    text, start, end = text_with(card_lines)
    best = next(s for s in windowed.grid(len(text), STRETCH) if s[0] <= start < s[1])
    picked = [(max(0, best[0] - 512), min(len(text), best[1] + 512))]
    assert windowed.trimmed(ENGINE, TARGET, text, picked, _stretches(text, best))[0] == [(start, end)]
    assert all(len(b) <= windowed.LINE for b in scripted)


def test_a_region_grows_no_further_than_its_reach(scripted: list[str]) -> None:
    text, start, end = text_with(400, before=2)  # about 14,000 characters of card lines
    best = next(s for s in windowed.grid(len(text), STRETCH) if s[0] <= start + 7000 < s[1])
    (a, b), = windowed.trimmed(ENGINE, TARGET, text, [best], _stretches(text, best))[0]
    assert best[0] - REACH - STRETCH <= a < best[0] - REACH + STRETCH and b - best[1] <= REACH + STRETCH + 64
    assert len(scripted) == len(set(scripted))  # each line read once, however often the range grew


def test_a_line_under_the_margin_between_two_of_the_target_is_kept_where_they_outweigh_it(
        scripted: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from extractor.decode import relevance

    monkeypatch.setattr(relevance, "against", lambda lm, schema, bodies, others: [
        3.0 if "CARD" in b else (LINE_MARGIN - 1.0 if "gap" in b else LINE_MARGIN - 5.0) for b in bodies])
    text, start, end = text_with(3)
    text = text[:end] + "\na gap line\nCARD again" + text[end:]
    best = next(s for s in windowed.grid(len(text), STRETCH) if s[0] <= start < s[1])
    assert windowed.trimmed(ENGINE, TARGET, text, [best], _stretches(text, best))[0] == [
        (start, end + len("\na gap line\nCARD again"))]


def test_regions_that_meet_once_grown_are_joined(scripted: list[str]) -> None:
    text, start, end = text_with(30)
    grid = windowed.grid(len(text), STRETCH)
    first = next(s for s in grid if s[0] <= start < s[1])
    last = next(s for s in grid if s[0] < end <= s[1])
    assert first != last
    stretches = [(s, 1.0 if s in (first, last) else 0.1) for s in grid]
    assert windowed.trimmed(ENGINE, TARGET, text, [first, last], stretches) == ([(start, end)], {(start, end): 3.0})


def test_without_the_model_in_process_the_regions_stay_as_picked(scripted: list[str]) -> None:
    text, start, end = text_with(3)
    picked = [(0, 2048)]
    engine = type("Engine", (), {"lm": None})()
    assert windowed.trimmed(engine, TARGET, text, picked, _stretches(text, (0, 512))) == (picked, {})
    assert scripted == []


def test_each_region_is_told_by_how_well_its_lines_read_as_the_target(scripted: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from extractor.decode import relevance

    monkeypatch.setattr(relevance, "against", lambda lm, schema, bodies, others: [
        3.0 if "CARD" in b else (1.0 if "SIGN" in b else LINE_MARGIN - 5.0) for b in bodies])
    text, start, end = text_with(4, before=80)
    text = text.replace(f"{CLAUSE} (3)", "SIGN here: Malcolm Frank")  # a line of other text that reads a little
    sign, start = text.index("SIGN"), text.index("CARD line 0")
    end = text.index("\n", text.index("CARD line 3"))
    grid = windowed.grid(len(text), STRETCH)
    at = [next(s for s in grid if s[0] <= x < s[1]) for x in (sign, start)]
    stretches = [(s, 2.0 if s == at[0] else 1.0 if s == at[1] else 0.1) for s in grid]  # the sign block scores best
    regions, read_as = windowed.trimmed(ENGINE, TARGET, text, at, stretches)
    assert regions == [(sign, sign + len("SIGN here: Malcolm Frank")), (start, end)]
    assert read_as == {regions[0]: 1.0, regions[1]: 3.0}
