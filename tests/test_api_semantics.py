"""Checks with retries, attempt hooks, usage, streaming, grounded fields and bad input, on the embedded model."""

from __future__ import annotations

import json

from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel, Field
from tenacity import Retrying, stop_after_attempt

from extractor import (
    ExtractionError, ExtractOptions, FromText, IncompleteOutputError, InputError, InvalidSchemaError, Refusal,
    UnsatisfiableSchemaError, Verbatim, check, trace,
)
from extractor.schema import json_schema

CONTACT = (Path(__file__).resolve().parents[1] / "examples" / "data" / "contact.txt").read_text()
RESUME = (Path(__file__).resolve().parents[1] / "examples" / "data" / "resume.txt").read_text()


class Person(BaseModel):
    name: Annotated[str, Verbatim]
    email: Annotated[str, Verbatim]


def test_failed_checks_are_retried_and_every_attempt_kept(model_extractor):
    seen = []
    with pytest.raises(ExtractionError) as err:
        model_extractor.extract(Person, CONTACT, max_tokens=60, checks=[lambda p: "always wrong"],
                                on_attempt=seen.append, max_retries=Retrying(stop=stop_after_attempt(2)))
    attempts = err.value.attempts
    assert len(attempts) == 2 and seen == attempts
    assert all([str(e) for e in a.errors] == ["<lambda>: always wrong"] and a.usage.completion_tokens > 0 for a in attempts)
    history = model_extractor.lm.tokenizer.decode(model_extractor.prompt_ids(json_schema(Person), CONTACT, attempts[:1]))
    assert "always wrong" in history


def test_extract_many_takes_the_same_retry_policy_per_round(model_extractor):
    seen = []
    [result] = model_extractor.extract_many(Person, [CONTACT], max_tokens=60, checks=[lambda p: "always wrong"],
                                            on_attempt=lambda i, a: seen.append(a), progress=False,
                                            max_retries=Retrying(stop=stop_after_attempt(3)))
    assert isinstance(result, ExtractionError) and len(result.attempts) == 3 and seen == result.attempts


def test_verbatim_fields_are_copied_from_the_text_and_usage_is_returned(model_extractor):
    person, usage = model_extractor.extract(Person, CONTACT, max_tokens=60, with_usage=True)
    if not isinstance(person, Refusal):
        assert person.name in CONTACT and person.email in CONTACT
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0 and usage.forward_passes > 0


def test_stream_yields_growing_partials_then_the_validated_result(model_extractor):
    parts = list(model_extractor.extract_stream(Person, CONTACT, max_tokens=60))
    final = parts[-1]
    assert isinstance(final, (Person, Refusal))
    if isinstance(final, Person):
        partial_fields = [set(p.model_fields_set) for p in parts[:-1]]
        assert partial_fields[0] == {"name"} and partial_fields[-1] == {"name", "email"}
        assert parts[-2].name == final.name


def test_a_stream_decodes_on_the_calling_thread_and_stops_when_closed(model_extractor, monkeypatch):
    import threading

    from extractor.masks import Matcher

    steps: list[str] = []
    advance = Matcher.advance

    def counted(self, token):
        steps.append(threading.current_thread().name)
        return advance(self, token)

    monkeypatch.setattr(Matcher, "advance", counted)
    stream = model_extractor.extract_stream(Person, CONTACT, max_tokens=60)
    next(stream)
    taken = len(steps)
    stream.close()
    assert taken and set(steps) == {threading.current_thread().name} and len(steps) == taken


def test_bad_input_is_refused_before_generating(model_extractor):
    with pytest.raises(InputError, match="empty"):
        model_extractor.extract(Person, "  \n")
    with pytest.raises(InputError, match="context is 8192 tokens"):  # free generation has no windows
        model_extractor.extract(Person, "word " * 20000, constrained=False)


@pytest.mark.parametrize("call,error,message", [
    (lambda ex: ex.extract(Person, "\u200b\u2060\ufeff \n"), InputError, "invisible"),
    (lambda ex: ex.extract(Person, None), InputError, "must be a str, not NoneType"),
    (lambda ex: ex.extract(Person, b"Bob"), InputError, "decode bytes first"),
    (lambda ex: ex.extract(Person, "Bob \ud800 Smith"), InputError, "lone surrogate at character 4"),
    (lambda ex: ex.extract(Person, "Bob", temperature=-1), InputError, "temperature must be ≥ 0, got -1"),
    (lambda ex: ex.extract(Person, "Bob", top_p=2), InputError, "top_p must be in"),
    (lambda ex: ex.extract(Person, "Bob", max_retries=-1), InputError, "max_retries must be an int ≥ 0"),
    (lambda ex: ex.extract(Person, "Bob", max_tokens=0), InputError, "max_tokens must be an int ≥ 1"),
    (lambda ex: ex.extract_many(Person, ["Bob"], batch_size=0), InputError, "batch_size must be an int ≥ 1"),
    (lambda ex: ex.extract_many(Person, "Bob"), InputError, "sequence of str"),
    (lambda ex: ex.extract(Person, "Bob", max_token=5), InputError, "unknown option 'max_token'"),
    (lambda ex: ex.extract(Person, "Bob", {"max_tokens": 5}), InputError, "must be an ExtractOptions, not dict"),
    (lambda ex: ex.extract_many(Person, ["Bob"], messages=[]), InputError, "not messages"),
    (lambda ex: ex.extract(42, "Bob"), InvalidSchemaError, "not 42"),
    (lambda ex: ex.extract([1, 2], "Bob"), InvalidSchemaError, "not \\[1, 2\\]"),
], ids=["invisible", "none", "bytes", "surrogate", "temperature", "top_p", "retries", "max_tokens", "batch_size",
        "one_text", "unknown_option", "options_dict", "many_messages", "int_schema", "list_schema"])
def test_bad_arguments_raise_typed_errors_that_name_them(model_extractor, call, error, message):
    with pytest.raises(error, match=message):
        call(model_extractor)


def test_extract_many_keeps_a_text_it_cannot_read_in_its_slot_at_any_length(model_extractor):
    unreadable = ["Bob \ud800 Smith " * 100, "\u200b" * 3000]  # longer than a window of 64 tokens
    results = model_extractor.extract_many(Person, unreadable, window=64, max_tokens=20, progress=False)
    assert all(isinstance(r, InputError) for r in results), results
    assert "lone surrogate" in str(results[0]) and "empty" in str(results[1])
    assert isinstance(model_extractor.extract_many(Person, (t for t in ["  "]))[0], InputError)  # any iterable
    with pytest.raises(InputError, match="sequence of str, not int"):
        model_extractor.extract_many(Person, 42)


RECIPE = (Path(__file__).resolve().parents[1] / "examples" / "data" / "no_answer.txt").read_text()


class Reachable(BaseModel):
    name: str
    email: Annotated[str, Verbatim, Field(pattern=r"^[^@\s]+@[^@\s]+\.[a-z]+$")]


class Contact(BaseModel):
    name: str
    email: str


def test_a_text_without_the_answer_is_refused_and_without_refusal_fabricated(model_extractor):
    """A pancake recipe has no email: with a grounded email field the model can only decline; with a
    plain one and no refusal branch, the grammar forces an answer: by default a span of the recipe (plain strings
    are copies), written freely an invented one (and its trace says so)."""
    refused = model_extractor.extract(Reachable, RECIPE, max_tokens=60)
    assert isinstance(refused, Refusal) and refused.error
    with pytest.raises(UnsatisfiableSchemaError, match="Verbatim"):
        model_extractor.extract(Reachable, RECIPE, refusal=False)
    copied = model_extractor.extract(Contact, RECIPE, refusal=False, max_tokens=80)
    assert isinstance(copied, Contact) and " ".join(copied.email.split()) in " ".join(RECIPE.split())
    assert trace(copied, RECIPE)["/email"].status in ("copied", "found")
    invented = model_extractor.extract(Contact, RECIPE, refusal=False, verbatim="marked", max_tokens=80)
    assert isinstance(invented, Contact) and invented.email not in RECIPE
    assert trace(invented, RECIPE)["/email"].status == "not_found"


class Sourced(BaseModel):
    name: str
    email: Annotated[str, FromText]


def test_a_from_text_value_found_nowhere_fails_and_is_retried_with_the_error_fed_back(model_extractor):
    """A recipe has no email: forced to answer and writing freely (not copying), the model invents one, and each
    attempt fails saying so."""
    with pytest.raises(ExtractionError) as caught:
        model_extractor.extract(Sourced, RECIPE, refusal=False, max_tokens=80, max_retries=1, verbatim="marked")
    attempts = caught.value.attempts
    assert len(attempts) == 2
    for attempt in attempts:
        [error] = attempt.errors
        assert error.loc == ("email",) and error.type == "not_found"
        assert json.loads(attempt.text)["email"] in error.msg
    prompt = model_extractor.prompt(Sourced, RECIPE)  # the first prompt; the retry's holds the error too
    assert "occurs nowhere in the text" not in prompt
    assert "occurs nowhere in the text" in model_extractor.lm.tokenizer.decode(
        model_extractor.prompt_ids(json_schema(Sourced), RECIPE, attempts[:1], ExtractOptions(refusal=False, verbatim="marked")))


class Picky(BaseModel):
    name: Annotated[str, Verbatim]

    @check
    def never(self) -> str:
        return "never good enough"


def test_extract_many_runs_checks_compiles_verbatim_per_text_and_keeps_bad_texts_in_their_slot(model_extractor):
    reported: list[int] = []
    paired = model_extractor.extract_many(Picky, [CONTACT, "   ", RECIPE], max_tokens=40, max_retries=0,
                                          refusal=False, progress=False, with_usage=True,
                                          on_attempt=lambda index, attempt: reported.append(index))
    results, usages = [r for r, _ in paired], [u for _, u in paired]
    assert sorted(reported) == [0, 2]  # one attempt each; the blank text never reached the model
    assert usages[0].completion_tokens > 0 and usages[2].completion_tokens > 0 and usages[1].completion_tokens == 0
    assert isinstance(results[1], InputError)
    for result in (results[0], results[2]):  # each text's own substrings, then the @check method fails them
        assert isinstance(result, ExtractionError), repr(result)
        assert [str(e) for e in result.attempts[0].errors] == ["never: never good enough"]
    for result, text in ((results[0], CONTACT), (results[2], RECIPE)):
        assert json.loads(result.attempts[0].text)["name"] in text


class Skills(BaseModel):
    name: str
    skills: list[str]


def test_a_cut_attempt_is_retried_with_tightened_guards_that_wrap_up_in_time(model_extractor):
    """Twelve tokens cannot hold the résumé's skills: the first attempt is cut; the retry steers to a whole
    object within the same budget (lists closed early), and both attempts are kept."""
    seen = []
    result = model_extractor.extract(Skills, RESUME, max_tokens=24, refusal=False, on_attempt=seen.append)
    assert isinstance(result, Skills) and [a.cut for a in seen] == [True, False]
    assert seen[1].usage.completion_tokens <= 24
    with pytest.raises(IncompleteOutputError) as err:
        model_extractor.extract(Skills, RESUME, max_tokens=24, refusal=False, max_retries=0)
    assert [a.cut for a in err.value.attempts] == [True]
    many = model_extractor.extract_many(Skills, [RESUME], max_tokens=24, refusal=False, progress=False)
    assert many == [result]


def test_the_relevance_screen_refuses_an_unrelated_text_for_any_kind_of_target(model_extractor):
    """A recipe scores below the threshold for a contact; the skills of a résumé stay above it (one part of a
    document: it loses to "a résumé" but wins against "a text"); the recipe comes back as a Refusal for a
    Pydantic target and for the same target as a JSON Schema dict."""
    from extractor.pipeline.calibration import MIN_RELEVANCE

    recipe, skills = model_extractor.relevance(Contact, RECIPE), model_extractor.relevance(Skills, RESUME)
    assert recipe < MIN_RELEVANCE < skills
    assert model_extractor.relevance(Contact, RECIPE, enough=MIN_RELEVANCE) == pytest.approx(recipe, abs=1e-3)
    assert MIN_RELEVANCE <= model_extractor.relevance(Skills, RESUME, enough=MIN_RELEVANCE) <= skills + 1e-3
    assert isinstance(model_extractor.extract(Contact, RECIPE, max_tokens=60), Refusal)
    refused = model_extractor.extract(Contact.model_json_schema(), RECIPE, max_tokens=60)
    assert isinstance(refused, Refusal) and refused.error


def test_a_screened_out_text_is_refused_saying_why_without_decoding(model_extractor):
    seen = []
    refused, usage = model_extractor.extract(Contact, RECIPE, on_attempt=seen.append, with_usage=True)
    assert isinstance(refused, Refusal) and seen == [] and usage.completion_tokens == 0
    assert refused.error.startswith("no Contact in the text: it does not read as one (relevance -")
    assert "it reads most like a recipe" in refused.error
    [many] = model_extractor.extract_many(Contact, [RECIPE], progress=False, with_trace=True)
    assert many.result == refused and len(many.trace) == 0


def test_a_text_writing_no_value_its_target_asks_for_is_refused_when_it_reads_little_like_one(model_extractor):
    """A textbook page given as a job posting scores above `min_relevance` but below `VALUELESS`, and writes no
    salary, date or e-mail address: refused before decoding, saying so (the screen's score alone would decode it)."""
    import schemas

    [page] = [json.loads(line) for line in (Path(__file__).parents[1] / "benchmarks" / "data" / "quality" /
                                            "documents.jsonl").read_text().splitlines() if '"job-posting-034"' in line]
    refused, usage = model_extractor.extract(schemas.JobPosting, page["text"], with_usage=True)
    assert isinstance(refused, Refusal) and usage.completion_tokens == 0
    assert refused.error.startswith("no JobPosting in the text: it writes no amount, date or e-mail address, the "
                                    "kinds of value its fields ask for, and reads little like one (relevance -")
    from extractor.pipeline.calibration import MIN_RELEVANCE, VALUELESS

    assert MIN_RELEVANCE <= model_extractor.relevance(schemas.JobPosting, page["text"]) < VALUELESS  # screen alone: read


def test_the_screen_reads_what_it_read_before_from_memory(model_extractor, monkeypatch):
    """Screening a text again reads nothing; screening it for another target reads only that target's own
    announcements (the kinds of document and "a text" are the same for every target)."""
    from extractor.decode import relevance
    from extractor.masks.lru import ByteLRU

    monkeypatch.setattr(model_extractor.lm, "screened", ByteLRU(1 << 20))  # what other tests screened left out
    before = model_extractor.relevance(Contact, RECIPE)
    read = []

    def counted(lm, prefixes, body):
        read.append(list(prefixes))
        return real(lm, prefixes, body)

    real = relevance._read
    monkeypatch.setattr(relevance, "_read", counted)
    assert model_extractor.relevance(Contact, RECIPE) == before and read == []
    model_extractor.relevance(Skills, RECIPE)
    assert read == [relevance.announcements(Skills.model_json_schema())[:2]]


def test_a_generic_target_on_a_text_of_another_kind_is_screened_out_unless_the_screen_is_off(model_extractor):
    """A known limit of the screen, kept visible: a one-field target with an uninformative title scores below
    the threshold on a contact text (the text reads as "a contact list", not as "a Name"); `min_relevance=None`
    (or a lower threshold) lets the model answer."""
    from extractor.pipeline.calibration import MIN_RELEVANCE

    class Name(BaseModel):
        name: str

    text = (Path(__file__).resolve().parents[1] / "examples" / "data" / "contact.txt").read_text(encoding="utf-8")
    assert model_extractor.relevance(Name, text) < MIN_RELEVANCE
    assert isinstance(model_extractor.extract(Name, text, max_tokens=40), Refusal)
    assert isinstance(model_extractor.extract(Name, text, max_tokens=40, min_relevance=None), Name)


def test_examples_system_and_messages_shape_the_prompt(model_extractor):
    shown = model_extractor.prompt(Contact, CONTACT, examples=[("Ann Lee, ann@lee.io", Contact(name="Ann Lee",
                                                                                                email="ann@lee.io"))],
                                   system='Return {"name", "email"} for the {title}.')
    assert 'Return {"name", "email"} for the Contact.' in shown
    assert '{\n  "name": "Ann Lee",\n  "email": "ann@lee.io"\n}' in shown  # the example, in the output layout
    chat = [{"role": "system", "content": "Extract the person as JSON."}, {"role": "user", "content": CONTACT}]
    result = model_extractor.extract(Contact, CONTACT, messages=chat, max_tokens=60, min_relevance=None)
    assert isinstance(result, (Contact, Refusal))


def test_every_entry_point_returns_the_trace_when_asked(model_extractor):
    """extract, extract_many, extract_stream (its last item) and aextract give the same Traced result."""
    import asyncio

    from extractor import Traced, aextract

    options = dict(max_tokens=60, min_relevance=None, refusal=False)
    one = model_extractor.extract(Contact, CONTACT, with_trace=True, **options)
    assert isinstance(one, Traced) and isinstance(one.result, Contact)
    assert one.trace["/name"].status == "copied" and one.trace["/name"].spans[0].of(CONTACT) == one.result.name
    [many] = model_extractor.extract_many(Contact, [CONTACT], progress=False, with_trace=True, **options)
    *_, last = model_extractor.extract_stream(Contact, CONTACT, with_trace=True, **options)
    awaited = asyncio.run(aextract(Contact, CONTACT, extractor=model_extractor, with_trace=True, **options))
    assert many.result == last.result == awaited.result == one.result
    assert [v.pointer for v in last.trace] == [v.pointer for v in one.trace]  # streamed: no drafts, found not copied
