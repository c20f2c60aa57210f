"""Each result traced to the text it came from, and checked: a value found nowhere in the text fails validation
where the options say it must come from the text (`ExtractOptions.grounding`)."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from extractor.errors import Problem
from extractor.schema import ir, json_schema, marks_text, target_ir
from extractor.schema.verbatim import verbatim_strings
from extractor.tracing import Trace, trace_value
from extractor.tracing.leaves import leaves, output_ranges, shapes

if TYPE_CHECKING:
    from extractor.decode.loop import Generation

GroundingMode = Literal["marked", "all", "off"]
"""Which values must be found in the text: those under a member marked `FromText`, every value the model wrote
(strings and numbers not fixed by the schema), or none."""


class Grounding:
    """How one text's results are traced and checked."""

    def __init__(self, target: Any, text: str, mode: GroundingMode = "marked", keep: bool = False,
                 verbatim: str = "all", repeatable: frozenset[Any] | None = None) -> None:
        self.target, self.text, self.mode, self.keep, self.verbatim = target, text, mode, keep, verbatim
        self.repeatable = repeatable
        """The arrays whose items may repeat (`fresh.path_matches` patterns); None: no repeat is left out."""

    def blanks(self, output: str) -> Blanks:
        """The output with every "" written for a verbatim string read as absent (see `blanks`)."""
        return blanks(output, self.target, self.verbatim)

    @property
    def active(self) -> bool:
        """Whether results are traced at all: kept for the caller, or checked against the text."""
        return self.keep or self.mode == "all" or (self.mode == "marked" and _marks(key(self.target)))

    def check(self, result: Any, gen: Generation | None) -> tuple[Trace | None, list[Problem]]:
        """The result's trace (None when nothing asks for it) and one error per value that must be found in the
        text and is not, worded for the model to read on the retry."""
        if not self.active:
            return None, []
        found = trace_result(result, self.text, self.target, gen)
        must = [v for v in found.not_found if self.mode == "all" or v.marked and self.mode == "marked"]
        errors = [Problem(f"{v.value!r} occurs nowhere in the text: write the value as the text gives it",
                          tuple(_located(p) for p in v.pointer.split("/")[1:]), "not_found") for v in must]
        return found, errors


def trace_result(result: Any, text: str, target: Any, gen: Generation | None = None) -> Trace:
    """`extractor.trace` of one result (not a refusal), with the decoder's record of what it copied where `gen` is
    given."""
    value = result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    return trace_value(value, text, schema_ir(key(target)), output=gen.data if gen is not None else b"",
                       copies=gen.copies if gen is not None else ())


def key(target: Any) -> str:
    """A target's JSON Schema as text: what its IR is kept under."""
    return json.dumps(json_schema(target), sort_keys=True)


@functools.lru_cache(maxsize=64)
def schema_ir(text: str) -> ir.Schema:
    """The target's IR (no refusal branch), read once per schema text."""
    return target_ir(json.loads(text), None)


@functools.lru_cache(maxsize=64)
def _marks(text: str) -> bool:
    """Whether some member of the target is marked `FromText` (the check then runs on every result)."""
    return marks_text(schema_ir(text))


def unescape(token: str) -> str:
    """One JSON pointer token as the member name it stands for (RFC 6901)."""
    return token.replace("~1", "/").replace("~0", "~")


def _located(token: str) -> str | int:
    """A pointer token as a Pydantic error's `loc` part: an item's index as an int."""
    token = unescape(token)
    return int(token) if token.isdigit() else token



@dataclass(frozen=True)
class Blanks:
    """An output with its empty copies read as absent."""

    output: str
    moved: bool
    """A list item was left out, so the output's places no longer match the decoder's record of its copies."""


def blanks(output: str, target: Any, verbatim: str = "all") -> Blanks:
    """`output` with each "" the model wrote for a verbatim string (one `verbatim` makes so: "all" and "auto" every
    plain string, "marked" those marked `Verbatim`) read as "the text does not hold it": null where the field may be
    null, left out where its member is not required or it is a list item. A verbatim string may copy nothing, and a
    small model writes "" for a value it did not find. Kept: a field whose schema allows "" itself (a `const` or
    `enum` member, a free string beside the copy), and one that must be given and may not be null (read as missing
    there, an error and a retry, the embedded model wrote "" again on every retry measured and the document lost
    its other fields: benchmarks/results/quality_dev_blanks_missing.md)."""
    if '""' not in output:
        return Blanks(output, False)
    try:
        data = json.loads(output)
    except ValueError:
        return Blanks(output, False)  # the parser reports it
    schema = _copied_ir(key(target), verbatim != "marked")
    raw, where, moved = output.encode(), output_ranges(output.encode()), False
    for leaf in reversed([v for v in leaves(data, schema) if v.verbatim and v.value == ""]):
        options, place = place_of(schema, leaf.pointer)
        if any(isinstance(n, ir.Const) and '""' in n.values or isinstance(n, ir.String) and not n.verbatim
               for n in options) or leaf.pointer not in where:
            continue
        start, end = where[leaf.pointer]
        if any(isinstance(n, ir.Null) for n in options):
            raw = raw[:start - 1] + b"null" + raw[end + 1:]
        elif place in ("optional", "item"):
            cut = cut_out(raw, start - 1, end + 1, place == "optional")
            raw, moved = raw[:cut[0]] + raw[cut[1]:], moved or place == "item"
    return Blanks(raw.decode(), moved)


@functools.lru_cache(maxsize=64)
def _copied_ir(text: str, plain: bool) -> ir.Schema:
    """The IR the output was decoded under, as far as its copies go: with `plain`, every plain string verbatim."""
    schema = json.loads(text)
    return target_ir(verbatim_strings(schema) if plain and isinstance(schema, dict) else schema, None)


def place_of(schema: ir.Schema, pointer: str) -> tuple[list[ir.Node], str]:
    """The shapes at a pointer, and what holds it: "required" or "optional" (an object's member), "item" (a list's
    item past its prefix), "fixed" (a prefix item, or the whole output)."""
    node: ir.Node | None = schema.root
    place = "fixed"
    for token in map(unescape, pointer.split("/")[1:]):
        options = shapes(node, schema.defs)
        member = next((p for n in options if isinstance(n, ir.Object) for p in n.properties if p.name == token), None)
        lists = [n for n in options if isinstance(n, ir.Array)]
        if member is not None:
            node, place = member.value, "required" if member.required else "optional"
        elif lists and token.isdigit():
            at = int(token)
            node, place = (lists[0].prefix[at], "fixed") if at < len(lists[0].prefix) else (lists[0].items, "item")
        else:
            node = next((n.additional for n in options if isinstance(n, ir.Object) and n.additional), None)
            place = "optional"
    return shapes(node, schema.defs), place


def cut_out(raw: bytes, start: int, end: int, member: bool) -> tuple[int, int]:
    """The bytes to remove to leave out the value at `start:end` (its quotes included), with its key where it is a
    member, and one comma beside it."""
    if member:
        colon = _back(raw, start - 1)
        closing = _back(raw, colon - 1)
        start = closing - 1
        while raw[start] != 0x22 or _escaped(raw, start):
            start -= 1
    before = _back(raw, start - 1)
    if before >= 0 and raw[before] == 0x2C:
        return before, end
    after = end
    while after < len(raw) and raw[after] in b" \t\r\n":
        after += 1
    if after < len(raw) and raw[after] == 0x2C:
        after += 1
        while after < len(raw) and raw[after] in b" \t\r\n":
            after += 1
        return start, after
    return start, end


def _back(raw: bytes, at: int) -> int:
    """The last byte at or before `at` that is not JSON whitespace."""
    while at >= 0 and raw[at] in b" \t\r\n":
        at -= 1
    return at


def _escaped(raw: bytes, at: int) -> bool:
    """Whether the byte at `at` follows an odd run of backslashes."""
    run = 0
    while at - run - 1 >= 0 and raw[at - run - 1] == 0x5C:
        run += 1
    return run % 2 == 1
