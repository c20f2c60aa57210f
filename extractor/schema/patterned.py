"""Strings of a form the text writes: a plain string field with a `pattern` (`constr(pattern=...)`: an order
number, a postcode, a code) is copied from the text where the text holds a value of that form, so a small model
cannot write `AJB-1234` for the `ABC-1234` it reads; where the text holds none, the field stays free (the form may
be one the text writes another way)."""

from __future__ import annotations

from typing import Any

from extractor.errors import ExtractorError
from extractor.lang import json_terms as jt
from extractor.lang.budget import Budget, metered
from extractor.lang.dfa import build_dfa
from extractor.lang.pattern import PatternError, compile_pattern
from extractor.lang.regex import Both, Substrings
from extractor.schema.verbatim import ASKS_FORM, counted_set, rewritten

_KEPT = ("enum", "const", "format", "minLength", "maxLength", "x-verbatim", "contentEncoding")
"""A patterned string with any of these is left as it is: it names its values, asks for a form or a length (which
a copy is refused beside), or says itself whether it is copied."""
BUDGET = Budget(max_states=200_000, timeout=1.0)
"""What looking for a pattern's values in one text may build (the copy rule the compile then reuses): past it the
field stays free."""


def patterned_from_text(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of `schema` in which every plain string field with a `pattern` (no enum, const, format or length, no
    description asking for a form, not under a member marked `"x-verbatim": false`) is a copy of the text
    (`x-verbatim`) where `text` holds a substring of its pattern."""
    found: dict[str, bool] = {}

    def copied(node: dict[str, Any], said: str, free: bool) -> dict[str, Any]:
        if counted_set(node):  # copies are not counted toward its minItems: its strings stay free
            node["items"] = {**node["items"], "x-verbatim": False}
        pattern = node.get("pattern")
        if node.get("type") == "string" and isinstance(pattern, str) and not free and \
                not any(k in node for k in _KEPT) and not ASKS_FORM.search(said):
            if pattern not in found:
                found[pattern] = writes(text, pattern)
            if found[pattern]:
                node["x-verbatim"] = True
        return node

    return rewritten(schema, copied)


def writes(text: str, pattern: str) -> bool:
    """Whether some substring of `text` matches `pattern` whole, as the grammar of a copy with that pattern reads
    it (the automaton its rule is made of); False where the engine refuses the pattern or the search outgrows
    `BUDGET`."""
    try:
        with metered(BUDGET):
            return bool(build_dfa(Both((Substrings(text), jt.string(content=compile_pattern(pattern))))).accept.any())
    except (PatternError, ExtractorError):
        return False
