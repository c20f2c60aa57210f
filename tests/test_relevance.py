"""The relevance screen's announcements: the target by its title and fields, "a text", and each kind."""

import pytest

pytest.importorskip("torch", reason="the relevance screen runs the model (torch)")

from extractor.decode import relevance  # noqa: E402
from extractor.decode.relevance import (KINDS, NEUTRAL, PART_MARGIN, SHORT, SHORT_MARGIN,  # noqa: E402
                                        announcements, combine)

CASES = [
    ({"title": "Resume", "properties": {"name": {}, "skills": {}}},
     "The following text is a Resume. It gives the name, skills.\n\n", "The following text is a Resume.\n\n"),
    ({"title": "Invoice", "properties": {"number": {}}},
     "The following text is an Invoice. It gives the number.\n\n", "The following text is an Invoice.\n\n"),
    ({"type": "object"}, "The following text is a record. It gives details.\n\n",
     "The following text is a record.\n\n"),
]


@pytest.mark.parametrize("schema,about,titled", CASES)
def test_the_target_is_announced_with_its_fields_by_title_and_as_a_text_then_each_kind(schema, about, titled):
    said = announcements(schema)
    assert said[:3] == [about, titled, NEUTRAL]
    assert len(said) == 3 + len(KINDS) and "The following text is an encyclopedia article.\n\n" in said
    assert not any("e-mail" in s or "letter" in s for s in said)  # channels carry any kind of content


SCORES = [  # (about, titled, a text, kinds...) -> score
    ([-10.0, -12.0, -12.0, -15.0, -11.0], 1.0),  # the target beats every kind
    ([-20.0, -18.0, -20.5, -15.0, -11.0], -7.0),  # a kind wins, and "a text" barely loses: the kinds decide
    ([-20.0, -25.0, -40.0, -5.0], 20.0 - PART_MARGIN),  # one part of a document: wins against "a text"
]


@pytest.mark.parametrize("ll,expected", SCORES)
def test_the_score_is_the_kinds_ratio_or_the_text_ratio_less_the_margin(ll, expected):
    assert combine(ll) == pytest.approx(expected)


SHORT_SCORES = [  # (likelihoods, opening tokens) -> score: a short opening is judged against "a text" alone
    ([-10.0, -12.0, -12.0, -15.0, -11.0], SHORT - 1, 2.0 - SHORT_MARGIN),
    ([-20.0, -18.0, -8.0, -40.0], 1, -12.0 - SHORT_MARGIN),  # the kinds lose, but "a text" wins: refused
    ([-20.0, -18.0, -8.0, -40.0], SHORT, 22.0),  # the same rows on a longer opening: the kinds decide
]


@pytest.mark.parametrize("ll,tokens,expected", SHORT_SCORES)
def test_a_short_opening_is_scored_against_a_text_alone(ll, tokens, expected):
    assert combine(ll, tokens=tokens) == pytest.approx(expected)


READS = [  # opening tokens, enough -> the announcements read (by index), in order
    (SHORT - 1, None, [[0, 2]]),  # short: the target with its fields and "a text", one call
    (SHORT, 1e9, [[0, 1, 2], list(range(3, 3 + len(KINDS)))]),  # long, not cleared: the kinds after
    (SHORT, -1e9, [[0, 1, 2]]),  # long and cleared by the target's own rows
]


@pytest.mark.parametrize("tokens,enough,reads", READS)
def test_the_screen_reads_two_rows_of_a_short_text_and_the_kinds_of_a_long_one(monkeypatch, tokens, enough, reads):
    """Which rows `score` asks for, and that it combines them as `combine` does (likelihoods faked: no model)."""
    said, asked = announcements({"title": "Person", "properties": {"name": {}}}), []

    def fake(lm, prefixes, body):
        asked.append([said.index(p) for p in prefixes])
        return [-float(said.index(p)) for p in prefixes]  # the i-th announcement gives -i

    monkeypatch.setattr(relevance, "likelihoods", fake)
    monkeypatch.setattr(relevance, "opening", lambda lm, text: [7] * tokens)
    value = relevance.score(None, {"title": "Person", "properties": {"name": {}}}, "text", enough=enough)
    assert asked == reads
    if enough is None or enough > 0:
        assert value == pytest.approx(combine([-float(i) for i in range(len(said))], tokens=tokens))


def _plain(lm, prefixes, body):
    """The screen's reading as it was first written: each announcement and the body as one left-padded row, a
    whole log-softmax per position (the reference the packed reading must match)."""
    import torch

    tok = lm.tokenizer
    out = []
    for prefix in prefixes:
        ids = tok(prefix, add_special_tokens=False)["input_ids"] + body
        with torch.inference_mode():
            logits = lm.model(input_ids=torch.tensor([ids], device=lm.device)).logits[0, len(ids) - len(body) - 1:-1]
        out.append(float(logits.float().log_softmax(-1).gather(-1, torch.tensor(body)[:, None]).sum()))
    return out


TEXTS = [  # a one-sentence answer, a recipe, a text longer than one pass packs
    "Maria Lopez, 34, joined the lab in March as a research engineer after six years at a robotics startup.",
    "Whisk the eggs with a pinch of salt, then fold in the flour until no streaks remain.",
    "Oslo, Norway: rain through Tuesday, 4-7 °C, winds from the south-west. Snow above 800 m. " * 12,
]


@pytest.mark.parametrize("text", TEXTS, ids=["person", "recipe", "long"])
def test_the_packed_reading_gives_the_plain_readings_likelihoods(model_extractor, text):
    from extractor.decode.relevance import _read, opening

    lm = model_extractor.lm
    said = announcements({"title": "Person", "properties": {"name": {}, "age": {}, "occupation": {}}})[:9]
    body = opening(lm, text)  # the long text's nine rows take two passes
    assert _read(lm, said, body) == pytest.approx(_plain(lm, said, body), abs=2e-3)


def test_an_empty_text_is_as_likely_after_every_announcement(model_extractor):
    from extractor.decode.relevance import _read

    assert _read(model_extractor.lm, announcements({"title": "Person"})[:3], []) == [0.0, 0.0, 0.0]
