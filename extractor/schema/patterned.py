"""Strings of a form the text writes: a plain string field with a `pattern` (`constr(pattern=...)`: an order
number, a postcode, a code) is copied from the text where the text holds a value of that form, so a small model
cannot write `AJB-1234` for the `ABC-1234` it reads; where the text holds none, the field stays free (the form may
be one the text writes another way)."""

from __future__ import annotations

import json
from typing import Any

from extractor.errors import ExtractorError
from extractor.lang import json_terms as jt
from extractor.lang.dfa import part
from extractor.lang.pattern import PatternError, compile_pattern
from extractor.schema.verbatim import ASKS_FORM, free_counted_set, rewritten

QUOTE = 0x22
_KEPT = ("enum", "const", "format", "minLength", "maxLength", "x-verbatim", "contentEncoding")
"""A patterned string with any of these is left as it is: it names its values, asks for a form or a length (which
a copy is refused beside), or says itself whether it is copied."""
MAX_STEPS = 2_000_000
"""Characters the search for a pattern's values may read in one text (each start reads on until the pattern's
automaton dies): past it the field stays free."""


def patterned_from_text(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of `schema` in which every plain string field with a `pattern` (no enum, const, format or length, no
    description asking for a form, not under a member marked `"x-verbatim": false`) is a copy of the text
    (`x-verbatim`) where `text` holds a substring of its pattern."""
    found: dict[str, bool] = {}

    def copied(node: dict[str, Any], said: str, free: bool) -> dict[str, Any]:
        free_counted_set(node)
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
    """Whether some substring of `text`, each character spelled as a JSON string spells it, matches `pattern`
    whole: the language of a copy with that pattern (`Substrings` and the pattern's string, both) is not empty.
    Read as a scan of the pattern's automaton from each character, not by building the text's substring automaton
    (a second one per document, about a second on 30,000 characters); False where the engine refuses the pattern
    or the scan passes `MAX_STEPS`."""
    try:
        dfa = part(jt.string(content=compile_pattern(pattern)))
    except (PatternError, ExtractorError):
        return False
    rows, accept = dfa.rows, dfa.accept
    opened = rows[0][QUOTE]

    def ends(state: int) -> bool:
        return (closed := rows[state][QUOTE]) >= 0 and bool(accept[closed])

    if opened < 0:
        return False
    if ends(opened):  # the empty copy
        return True
    spelled = {ch: json.dumps(ch, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass") for ch in set(text)}
    steps = 0
    for start in range(len(text)):
        state, at = opened, start
        while at < len(text) and state >= 0:
            for byte in spelled[text[at]]:
                state = rows[state][byte]
                if state < 0:
                    break
            if state >= 0 and ends(state):
                return True
            at += 1
            steps += 1
            if steps > MAX_STEPS:
                return False
    return False
