"""A list item written more often than the text writes it is left out of the answer after decoding (the first
copies kept), kept on the trace; an item the text repeats, an array that may repeat, and an array whose bounds need
the item stay as written."""

import json
from typing import Annotated

import pytest
from pydantic import BaseModel, Field, field_validator, model_validator

from extractor import ExtractOptions
from extractor.decode.loop import Generation
from extractor.pipeline.document import Document, Pipeline
from extractor.pipeline.grounding import Grounding
from extractor.pipeline.outcome import Parsed, outcome
from extractor.pipeline.repeats import unrepeated
from extractor.pipeline.target import Target
from extractor.tracing import Repeated


class Job(BaseModel):
    company: str
    title: str
    start_year: int | None = None


class Resume(BaseModel):
    name: str
    skills: list[str] = []
    jobs: list[Job] = []
    years: list[int] = []


class Bounded(BaseModel):
    skills: Annotated[list[str], Field(min_length=3)]


class Sorted(BaseModel):
    skills: list[str]

    @field_validator("skills")
    @classmethod
    def in_order(cls, skills: list[str]) -> list[str]:
        return sorted(skills)


class Counted(BaseModel):
    skills: list[str]

    @model_validator(mode="after")
    def three(self) -> "Counted":
        if len(self.skills) != 3:
            raise ValueError("three skills")
        return self


TEXT = "Ada Lovelace. Skills: Python, SQL. Acme 2018 engineer. Beta 2019 manager. Python again."
ACME = {"company": "Acme", "title": "engineer", "start_year": 2018}
TUPLE = {"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}] * 2,
                                                   "items": False}}}
CONTAINS = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"},
                                                    "contains": {"const": "SQL"}, "minContains": 2}}}
MAY_REPEAT = {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "string"},
                                                      "uniqueItems": False}}}

UNREPEATED = [  # (target, output, repeatable) -> the output read, and the pointers left out
    (Resume, '{"name": "Ada", "skills": ["SQL", "Python", "SQL", "SQL"]}', frozenset(),
     '{"name": "Ada", "skills": ["SQL", "Python"]}', ["/skills/2", "/skills/3"]),
    (Resume, '{"name": "Ada", "skills": ["Python", "Python", "Python"]}', frozenset(),  # the text writes it twice
     '{"name": "Ada", "skills": ["Python", "Python"]}', ["/skills/2"]),
    (Resume, '{\n  "name": "Ada",\n  "years": [\n    2018,\n    2018\n  ]\n}', frozenset(),
     '{\n  "name": "Ada",\n  "years": [\n    2018\n  ]\n}', ["/years/1"]),  # a number, pretty layout
    (Resume, json.dumps({"name": "Ada", "jobs": [ACME, ACME, {**ACME, "start_year": 2019}]}), frozenset(),
     json.dumps({"name": "Ada", "jobs": [ACME, {**ACME, "start_year": 2019}]}), ["/jobs/1"]),  # an object whole
    (Resume, '{"name": "Ada", "skills": ["SQL", "SQL"]}', frozenset({("skills",)}),  # the array may repeat
     '{"name": "Ada", "skills": ["SQL", "SQL"]}', []),
    (Bounded, '{"skills": ["SQL", "SQL", "SQL", "SQL"]}', frozenset(),  # minItems 3: one may go
     '{"skills": ["SQL", "SQL", "SQL"]}', ["/skills/1"]),
    (TUPLE, '{"pair": ["SQL", "SQL"]}', frozenset(), '{"pair": ["SQL", "SQL"]}', []),  # a prefix is fixed
    (CONTAINS, '{"xs": ["SQL", "SQL"]}', frozenset(), '{"xs": ["SQL", "SQL"]}', []),  # contains counts them
    (Resume, '{"name": "Ada", "skills": [true, true]}', frozenset(), '{"name": "Ada", "skills": [true, true]}', []),
]


@pytest.mark.parametrize("target,output,repeatable,read,left", UNREPEATED)
def test_a_repeat_the_text_does_not_make_is_left_out(target, output, repeatable, read, left):
    got = unrepeated(output, json.loads(output), TEXT, target, repeatable)
    assert got.output == read
    assert [r.pointer for r in got.repeated] == left


@pytest.mark.parametrize("target,kept", [(MAY_REPEAT, ["SQL", "SQL"]), ({**MAY_REPEAT, "properties": {
    "xs": {"type": "array", "items": {"type": "string"}}}}, ["SQL"])])
def test_an_array_that_may_repeat_by_its_schema_keeps_its_repeats(target, kept):
    pipeline = Pipeline(_Engine(), Target(target), ExtractOptions(), with_trace=True)
    doc = Document(0, TEXT)
    pipeline.settle(doc, Generation('{"xs": ["SQL", "SQL"]}', b'{"xs": ["SQL", "SQL"]}', complete=True))
    assert doc.result.result == {"xs": kept}


OUTCOMES = [  # (target, output, repeatable) -> the result, and the trace's record of what was left out
    (Resume, '{"name": "Ada Lovelace", "skills": ["SQL", "SQL"]}', frozenset(),
     Resume(name="Ada Lovelace", skills=["SQL"]), (Repeated("/skills/1", "SQL"),)),
    (Resume, '{"name": "Ada Lovelace", "skills": ["SQL", "SQL"]}', None,  # the rule off: as written
     Resume(name="Ada Lovelace", skills=["SQL", "SQL"]), ()),
    (Counted, '{"skills": ["SQL", "SQL", "Python"]}', frozenset(),  # its validator needs all three: as written
     Counted(skills=["SQL", "SQL", "Python"]), ()),
    (Sorted, '{"skills": ["SQL", "SQL", "Python"]}', frozenset(),  # sorted, the repeat's place is Python's: as written
     Sorted(skills=["Python", "SQL", "SQL"]), ()),
    (Sorted, '{"skills": ["Python", "SQL", "SQL"]}', frozenset(),  # sorting moves nothing: left out
     Sorted(skills=["Python", "SQL"]), (Repeated("/skills/2", "SQL"),)),
    (Resume, '{"name": "Ada Lovelace", "skills": [], "jobs": [{"company": "Acme", "title": "engineer"}, '
     '{"company": "Acme", "title": "engineer", "start_year": null}]}', frozenset(),  # alike once validated
     Resume(name="Ada Lovelace", jobs=[Job(company="Acme", title="engineer")]),
     (Repeated("/jobs/1", {"company": "Acme", "title": "engineer", "start_year": None}),)),
]


@pytest.mark.parametrize("target,output,repeatable,expected,repeated", OUTCOMES)
def test_an_attempt_is_parsed_with_its_repeats_left_out_and_traced(target, output, repeatable, expected, repeated):
    gen = Generation(output, output.encode(), complete=True)
    grounding = Grounding(target, TEXT, keep=True, repeatable=repeatable)
    attempt, came = outcome(target, None, gen, [], 64, [], None, grounding)
    assert isinstance(came, Parsed) and came.result == expected and attempt.errors == []
    assert attempt.text == output  # the attempt kept as written
    assert came.trace.repeated == repeated
    assert [v.pointer for v in came.trace if v.pointer.startswith("/skills")] == \
        [f"/skills/{i}" for i in range(len(expected.skills))]


@pytest.mark.parametrize("options,left_out", [
    (ExtractOptions(), True),
    (ExtractOptions(fresh_items=False), False),
    (ExtractOptions(guards=False), False),
    (ExtractOptions(constrained=False), False),
])
def test_the_options_that_turn_the_rule_off_keep_repeats(options, left_out):
    pipeline = Pipeline(_Engine(), Target(Resume), options, with_trace=True)
    doc = Document(0, TEXT)
    output = '{"name": "Ada Lovelace", "skills": ["SQL", "SQL"]}'
    pipeline.settle(doc, Generation(output, output.encode(), complete=True))
    assert doc.result.result.skills == (["SQL"] if left_out else ["SQL", "SQL"])
    assert len(doc.result.trace.repeated) == left_out


class _Engine:
    """The engine seam as far as settling an attempt reads it."""

    retries_cut = True

    def is_target(self, target, text, opts):
        return None
