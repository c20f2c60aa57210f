"""What a new user sees first, `make demo` and the quick start's examples, holds no value its text does not: every
value printed is found in the text it came from (the embedded model, the default options: strings copied, numbers
among the text's own)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

import schemas
from extractor import Refusal
from extractor.tracing import Traced

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
README = ROOT / "README.md"


class Contact(BaseModel):
    """A person and how to reach them."""

    name: str = Field(description="Full name")
    email: str | None = Field(default=None, description="E-mail address; null if not given")
    phones: list[str] = Field(description="Phone numbers as written; empty list if none")


QUICKSTART = "Call Dana Reyes on +1 415 555 0192 or mail dana@reyes.io"
CASES = {  # what each text is extracted as
    "demo-resume": (schemas.Resume, (DATA / "resume.txt").read_text()),  # make demo
    "quickstart-contact": (Contact, QUICKSTART),  # docs/quickstart.md
    "contact": (schemas.ContactCard, (DATA / "contact.txt").read_text()),
    "event": (schemas.Event, (DATA / "event.txt").read_text()),
    "invoice": (schemas.Invoice, (DATA / "invoice.txt").read_text()),
}


@pytest.fixture(scope="module")
def extracted(model_extractor) -> Callable[[str], Traced]:
    """A case's traced result, extracted once for every check of this module that reads it (a Resume takes
    seconds)."""
    done: dict[str, Traced] = {}

    def get(case: str) -> Traced:
        if case not in done:
            done[case] = model_extractor.extract(*CASES[case], with_trace=True)
        return done[case]
    return get


@pytest.mark.parametrize("case", CASES)
def test_every_value_printed_is_in_the_text(extracted, case):
    result = extracted(case)
    assert isinstance(result, Traced) and not isinstance(result.result, Refusal)
    missing = [(v.pointer, v.value) for v in result.trace if v.status == "not_found"]
    assert missing == []


def folded(result: dict) -> str:
    """A result as README.md shows it: one key a line, a list on one line, a list of objects one object a line."""
    def value(v) -> str:
        if isinstance(v, list) and any(isinstance(i, dict) for i in v):
            return "[\n" + ",\n".join(f"    {json.dumps(i, ensure_ascii=False)}" for i in v) + "\n  ]"
        return json.dumps(v, ensure_ascii=False)
    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {value(v)}" for k, v in result.items()) + "\n}\n"


def test_readme_shows_what_make_demo_prints(extracted):
    """README.md's JSON block is what `make demo` extracts (its Python blocks: tests/test_docs_outputs.py);
    `DOCS_UPDATE=1` writes it."""
    resume = extracted("demo-resume").result
    readme = README.read_text(encoding="utf-8")
    shown = re.search(r"```json\n(.*?)```", readme, re.S)
    if os.environ.get("DOCS_UPDATE") == "1":
        README.write_text(readme[:shown.start(1)] + folded(resume.model_dump(mode="json")) + readme[shown.end(1):],
                          encoding="utf-8")
    else:
        assert shown.group(1) == folded(resume.model_dump(mode="json")), "DOCS_UPDATE=1 writes it"
