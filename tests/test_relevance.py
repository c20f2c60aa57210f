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


SHORT_SCORES = [  # (likelihoods, opening tokens) -> score: a short opening's "a text" ratio takes SHORT_MARGIN
    ([-10.0, -12.0, -12.0, -15.0, -9.0], SHORT - 1, 2.0 - SHORT_MARGIN),  # the ratio against "a text" wins
    ([-20.0, -25.0, -40.0, -5.0], SHORT - 1, 20.0 - SHORT_MARGIN),
    ([-20.0, -25.0, -40.0, -5.0], SHORT, 20.0 - PART_MARGIN),  # the same rows on a longer opening
    ([-20.0, -18.0, -8.0, -40.0], 1, 22.0),  # "a text" wins but the kinds lose: the kinds' ratio stands
]


@pytest.mark.parametrize("ll,tokens,expected", SHORT_SCORES)
def test_a_short_opening_takes_the_short_margin(ll, tokens, expected):
    assert combine(ll, tokens=tokens) == pytest.approx(expected)


READS = [  # opening tokens, enough -> the announcements read (by index), in order
    (SHORT - 1, -1e9, [[0, 2]]),  # short and cleared: the target with its fields and "a text", one call
    (SHORT - 1, 1e9, [[0, 2], [0, 1, 2], list(range(3, 3 + len(KINDS)))]),  # not cleared: the rest after
    (SHORT - 1, None, [[0, 1, 2], list(range(3, 3 + len(KINDS)))]),  # the whole score asked for
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
    if enough is None or enough > 0:  # read to the end: what `combine` gives
        assert value == pytest.approx(combine([-float(i) for i in range(len(said))], tokens=tokens))
    else:  # cleared early: the ratio against "a text" less the margin for the opening's length
        assert value == pytest.approx(2.0 - (SHORT_MARGIN if tokens < SHORT else PART_MARGIN))


LEGAL = 3 + KINDS.index("legal text")  # the guessed kind's row, read once
KIND_READS = [  # (guess, below) -> rows asked, score, kind; the i-th announcement gives -i, so the target gives 0
    (None, None, [[0, 1], list(range(3, 3 + len(KINDS)))], 3.0, KINDS[0]),  # every kind: the first is likeliest
    ("legal text", -1e9, [[0, 1, LEGAL], [j for j in range(3, 3 + len(KINDS)) if j != LEGAL]], 3.0, KINDS[0]),
    ("legal text", 1e9, [[0, 1, LEGAL]], 3.0 + KINDS.index("legal text"), "legal text"),
    ("legal text", None, [[0, 1, LEGAL], [j for j in range(3, 3 + len(KINDS)) if j != LEGAL]], 3.0, KINDS[0]),
]


@pytest.mark.parametrize("guess,below,reads,score,kind", KIND_READS,
                         ids=["no guess", "guess not below", "guess below: the rest unread", "no bar"])
def test_the_kinds_ratio_reads_the_other_kinds_only_where_the_guess_does_not_decide(monkeypatch, guess, below, reads,
                                                                                    score, kind):
    schema = {"title": "Person", "properties": {"name": {}}}
    said, asked = announcements(schema), []

    def fake(lm, prefixes, body):
        asked.append([said.index(p) for p in prefixes])
        return [-float(said.index(p)) for p in prefixes]

    monkeypatch.setattr(relevance, "likelihoods", fake)
    assert relevance.kind(None, schema, [7] * 64, below=below, guess=guess) == (pytest.approx(score), kind)
    assert asked == reads


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


MARIA = "Maria Lopez, 34, joined the lab in March as a research engineer after six years at a robotics startup."
WEATHER = "Oslo: rain through Tuesday, 4-7 °C, winds from the south-west. Snow above 800 m."
FOG = "Fog will linger along the coast until midday. Showers move inland in the afternoon."
SHORT_TEXTS = [  # (Person's fields, text, refused at the default threshold)
    (("name", "age", "occupation"), MARIA, False),  # a plain answer (it was refused when the kinds decided)
    (("name", "age", "occupation"), WEATHER, True),  # the short set's Person on a weather report
    (("name", "age", "occupation"), FOG, True),  # a dev weather report: -3.8 before the kinds held a forecast
    (("name", "email", "phone"), WEATHER, False),  # a known limit: against "a text" it passes as a contact
]


@pytest.mark.parametrize("fields,text,refused", SHORT_TEXTS)
def test_short_texts_at_the_default_threshold(model_extractor, fields, text, refused):
    from extractor.decode.relevance import score
    from extractor.pipeline.calibration import MIN_RELEVANCE

    schema = {"title": "Person", "type": "object", "properties": {f: {"type": "string"} for f in fields}}
    assert (score(model_extractor.lm, schema, text) < MIN_RELEVANCE) is refused


LIKELIEST = [  # (text, the kind it reads most like)
    (WEATHER, "weather forecast"),
    (FOG, "weather forecast"),
    ("Whisk the eggs with a pinch of salt, then fold in the flour until no streaks remain.", "recipe"),
]


@pytest.mark.parametrize("text,kind", LIKELIEST)
def test_a_refused_text_is_named_by_the_kind_it_reads_most_like(model_extractor, text, kind):
    from extractor.decode.relevance import likeliest

    schema = {"title": "Person", "type": "object", "properties": {"name": {"type": "string"}}}
    assert likeliest(model_extractor.lm, schema, text) == kind


def test_the_guessed_kind_counts_when_it_is_the_likeliest(monkeypatch):
    schema = {"title": "Person", "properties": {"name": {}}}
    said = announcements(schema)
    legal = said[LEGAL]
    monkeypatch.setattr(relevance, "likelihoods",
                        lambda lm, prefixes, body: [0.0 if p == legal else -float(said.index(p)) for p in prefixes])
    assert relevance.kind(None, schema, [7] * 64, below=-1e9, guess="legal text") == (0.0, "legal text")
