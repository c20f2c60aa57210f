"""Errors of reading in windows say what the caller needs: the members missing as JSON pointers on every path, and
why a window has no room for text (the prompt's size, the schema's share and largest part, what to change)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from extractor import ExtractOptions, InputError, MissingFieldsError
from extractor.schema import json_schema
from extractor.schema.window import window_form
from extractor.pipeline.windowed import read_in_windows, window_size
from tests.documents.test_read_in_windows import DOC, Stub, reading

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "e/mail": {"type": "string"}},
          "required": ["name", "e/mail"]}
FREE = {"type": "object", "properties": {"name": {"type": "string"}}}


@pytest.mark.parametrize("schema, answer, missing", [
    (PERSON, {"name": None, "e/mail": None}, ["/e~1mail", "/name"]),  # no window wrote anything
    (PERSON, {"name": "Ann Lee", "e/mail": None}, ["/e~1mail"]),  # the merge and its follow-up missed one
    (FREE, {"name": None}, [""]),  # nothing required, nothing written: the whole object
], ids=["nothing written", "one member missed", "nothing required"])
def test_missing_members_are_json_pointers_on_every_path(schema: dict[str, Any], answer: dict[str, Any],
                                                         missing: list[str]) -> None:
    with pytest.raises(MissingFieldsError) as caught:
        read_in_windows(*reading(Stub(lambda text: answer)), schema, DOC, ExtractOptions(refusal=False), 100)
    assert caught.value.missing == missing


class Sized(Stub):
    """A stand-in whose prompt grows with the schema's JSON, as a real one does (a token per four characters)."""

    def prompt_ids(self, target: Any, text: str, attempts: list, opts: ExtractOptions) -> list[int]:
        return [0] * (20 + len(json.dumps(json_schema(target))) // 4 + len(text.split()))


MEMBERS = [f"category number {i}" for i in range(1000)]
ROWS = [  # (schema, its largest part, context, max_tokens, whether a lower max_tokens makes room)
    ({"type": "object", "properties": {"name": {"type": "string"}, "category": {"enum": MEMBERS}}},
     "/properties/category", 4096, 512, False),
    ({"type": "object", "properties": {"kind": {"$ref": "#/$defs/Kind"}}, "$defs": {"Kind": {"enum": MEMBERS}}},
     "/$defs/Kind", 8192, 2400, True),
]


@pytest.mark.parametrize("schema, largest, context, max_tokens, lower", ROWS,
                         ids=["enum member, prompt past the context", "enum definition, max_tokens too large"])
def test_a_prompt_that_leaves_no_room_for_text_names_its_cause(schema: dict[str, Any], largest: str, context: int,
                                                               max_tokens: int, lower: bool) -> None:
    stub, opts = Sized(None, context=context), ExtractOptions(max_tokens=max_tokens)
    with pytest.raises(InputError) as caught:
        window_size(stub, schema, DOC, opts, stub.prompt_ids(schema, DOC, [], opts))
    message = str(caught.value)
    overhead, bare = len(stub.prompt_ids(window_form(schema), "", [], opts)), len(stub.prompt_ids({}, "", [], opts))
    assert f"the prompt takes {overhead} tokens before any text, {overhead - bare} of them the schema (" in message
    assert f"of it {largest})" in message and f"model's context ({context} tokens)" in message
    assert "longer context" in message and "fewer enum members" in message
    assert ("lower max_tokens" in message) == lower
