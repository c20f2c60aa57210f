"""The refusal decision after decoding: an answer of doubtful relevance whose identifying values the text holds
nowhere is refused, saying which values and why; everything else stands."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions, InputError, Refusal, trace
from extractor.pipeline.calibration import DOUBTFUL
from extractor.pipeline.refusing import Screened, identifying, judged, screened_out
from extractor.pipeline.calibration import DOUBTFUL
from extractor.pipeline.grounding import key, schema_ir

WEATHER = "Oslo, Norway: rain through Tuesday, 4-7 °C, winds from the south-west. Snow above 800 m."


class Person(BaseModel):
    name: str
    email: str
    city: str
    skills: list[str]
    nickname: str | None = None


INVENTED = Person(name="Norway", email="Norway.com", city="Bergen", skills=["rain"], nickname="Nor")
FOUND = Person(name="Oslo", email="Norway", city="Oslo", skills=["rain", "snow"])


def test_identifying_values_are_those_written_under_required_top_level_members():
    values = identifying(trace(INVENTED, WEATHER), schema_ir(key(Person)))
    assert [v.pointer for v in values] == ["/name", "/email", "/city", "/skills/0"]  # not the optional nickname


CASES = [  # (answer, relevance, max_unfounded, refused)
    (INVENTED, DOUBTFUL - 1, 0.5, True),  # email, city found nowhere: 2 of 4
    (INVENTED, DOUBTFUL - 1, 0.75, False),
    (INVENTED, DOUBTFUL + 1, 0.5, False),  # plainly the target: the trace decides nothing
    (INVENTED, DOUBTFUL - 1, None, False),  # the check is off
    (FOUND, -100.0, 0.25, False),  # every value is in the text
]


@pytest.mark.parametrize("answer,relevance,share,refused", CASES)
def test_a_doubtful_answer_made_up_from_nothing_is_refused(answer, relevance, share, refused):
    options = ExtractOptions(max_unfounded=share)
    screen = Screened(relevance, "Person")
    result, found = judged(answer, trace(answer, WEATHER), screen, Person, options)
    assert isinstance(result, Refusal) == refused
    if refused:
        assert result.error.startswith("no Person in the text: 2 of its 4 identifying values are found nowhere")
        assert "email='Norway.com'" in result.error and "city='Bergen'" in result.error
        assert len(found) == 0
    else:
        assert result is answer


def test_only_the_librarys_own_refusal_is_made_and_no_screen_means_no_judgement():
    class Declined(BaseModel):
        reason: str

    screen = Screened(-100.0, "Person")
    mine = ExtractOptions(refusal=Declined)
    assert judged(INVENTED, trace(INVENTED, WEATHER), screen, Person, mine)[0] is INVENTED
    assert judged(INVENTED, trace(INVENTED, WEATHER), None, Person, ExtractOptions())[0] is INVENTED


def test_a_screened_out_text_says_what_it_reads_like():
    said = screened_out(Screened(-9.25, "Person", "news article"), -5.4)
    assert said == ("no Person in the text: it does not read as one (relevance -9.2, below min_relevance -5.4); "
                    "it reads most like a news article")


@pytest.mark.parametrize("share", [0, 1.5, -0.1])
def test_max_unfounded_is_a_share(share):
    with pytest.raises(InputError, match="max_unfounded"):
        ExtractOptions(max_unfounded=share)


EXACT = [  # (the whole score, read lazily; refused)
    (DOUBTFUL + 2, False),  # the kinds lift it out of doubt: the answer stands
    (DOUBTFUL - 2, True),
]


@pytest.mark.parametrize("whole,refused", EXACT)
def test_a_bound_below_doubtful_is_read_to_the_end_only_for_an_answer_the_trace_would_refuse(whole, refused):
    read = []
    screen = Screened(DOUBTFUL - 3, "Person", exact=lambda: read.append(whole) or whole)
    result, _ = judged(INVENTED, trace(INVENTED, WEATHER), screen, Person, ExtractOptions(max_unfounded=0.5))
    assert isinstance(result, Refusal) == refused and read == [whole]
    if refused:
        assert result.error.endswith(f"relevance {whole:.1f}")
    assert judged(FOUND, trace(FOUND, WEATHER), screen, Person, ExtractOptions(max_unfounded=0.5))[0] is FOUND
    assert read == [whole]  # every value found: nothing more is read
