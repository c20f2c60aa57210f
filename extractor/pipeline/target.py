"""A target resolved once per call: its JSON Schema, title and checks, and its form for one text (the verbatim and
values-from-text rewrites, the nesting depth), read by compile, prompt, screen, trace and merge alike instead of each
deriving them again."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from extractor.decode.fresh import repeatable_arrays
from extractor.lang.written import readings
from extractor.pipeline.checks import Check, model_checks
from extractor.pipeline.refusing import title
from extractor.schema import json_schema, nesting, quotes_source, recursive, target_ir, values_from_text
from extractor.schema.dates import FORMATS
from extractor.schema.numbers import COMPUTED, MAX_VALUES
from extractor.schema.verbatim import verbatim_strings

if TYPE_CHECKING:
    from extractor.pipeline.options import ExtractOptions, VerbatimMode


@dataclass(frozen=True)
class TextForm:
    """The target as one text is decoded under it."""

    spec: Any
    """What is compiled: the target, or its schema rewritten for the text."""
    key: str
    """The schema's text before its numbers and dates are narrowed to the text's (what a shared grammar is cached
    under)."""
    depth: int | None
    """How deeply a recursive target may nest in this text (None: not recursive, or no text)."""
    per_document: bool
    """The grammar copies from this text (verbatim fields, numbers and dates it writes), so it is compiled for it
    alone."""


class Target:
    """One call's target: each derived form computed on first use (a bad schema fails where it always did)."""

    def __init__(self, spec: Any, opts: ExtractOptions | None = None) -> None:
        self.spec = spec
        self._extra: tuple[Check, ...] = tuple(opts.checks) if opts is not None else ()

    @cached_property
    def schema(self) -> Any:
        """The JSON Schema (a dict, or a bool for `True`/`False` targets)."""
        return json_schema(self.spec)

    @cached_property
    def key(self) -> str:
        """The schema as text: what its IR and grammars are kept under."""
        return json.dumps(self.schema, sort_keys=True)

    @property
    def title(self) -> str:
        return title(self.schema)

    @cached_property
    def repeatable(self) -> frozenset[Any]:
        """The arrays whose items may repeat (the schema's `uniqueItems: false`), as the guards name them."""
        return repeatable_arrays(self.schema) if isinstance(self.schema, dict) else frozenset()

    @cached_property
    def checks(self) -> list[Check]:
        """The model's `@check` methods, then the call's own."""
        return [*model_checks(self.spec), *self._extra]

    @cached_property
    def _verbatim(self) -> tuple[dict[str, Any], str]:
        """The schema with its plain string fields `Verbatim` (where "auto" and "all" start, whatever the text), and
        its key."""
        schema = verbatim_strings(self.schema)
        return schema, json.dumps(schema, sort_keys=True)

    def for_text(self, source: str | None, verbatim: VerbatimMode) -> TextForm:
        """The target's form for `source`: `verbatim="auto"` makes plain string fields `Verbatim`, `"all"` also lets
        plain number, date and time fields take only the values the text writes (`values_from_text`), and a copied
        string field named as a date only the dates the text writes, as written (`printed_dates`), an optional date
        field so narrowed being asked (`asked`); a recursive target nests at most as deeply as the text is
        structured."""
        spec, schema, key = self.spec, self.schema, self.key
        shaped = isinstance(schema, dict) and source is not None
        if verbatim != "marked" and shaped:
            schema, key = self._verbatim
            spec = schema
        depth = nesting(source) if shaped and recursive(schema) else None
        per_document = _quotes(key)
        if verbatim == "all" and shaped:
            narrowed = asked(schema, printed_dates(values_from_text(schema, source), source))
            per_document = per_document or narrowed != schema  # the values offered are the document's
            spec = narrowed
        return TextForm(spec, key, depth, per_document)


@functools.lru_cache(maxsize=256)
def _quotes(key: str) -> bool:
    """Whether a schema has Verbatim fields (its grammar is then compiled per document)."""
    return quotes_source(target_ir(json.loads(key), None))


_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
"""The words of a field's name (`purchase_date`, `dateOfBirth`, `DATE2`)."""
_TIMED = re.compile(r"\b(times?|timestamps?|hours?|clock)\b", re.IGNORECASE)
"""A field or description asking for a time as well as a date (`date and time of the visit`)."""


def printed_dates(schema: Any, text: str) -> Any:
    """A copy of `schema` in which each string field copied from the text (`x-verbatim`) whose name says it is a
    date (`date`, `purchase_date`, `dateOfBirth`; not `update`, not a time as well, not computed) takes only the
    dates the text writes, each exactly as written (`12-01-19`, `13 MAY 2018`): copied freely, a date field ran on
    into the time printed after it (`19-03-2018 18:08:38`) or took some other number. A text writing no date
    (or more than `MAX_VALUES`) leaves the fields as they were."""
    written = sorted({text[start:end] for start, end, meaning in readings(text) if meaning[0] == "date"})
    return _walk(schema, written) if 0 < len(written) <= MAX_VALUES else schema


def _walk(node: Any, written: list[str]) -> Any:
    if isinstance(node, list):
        return [_walk(sub, written) for sub in node]
    if not isinstance(node, dict):
        return node
    out = {key: _walk(sub, written) for key, sub in node.items()}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {name: _dated(sub, written) if _names_date(name, sub) else sub
                             for name, sub in out["properties"].items()}
    return out


def _names_date(name: str, node: Any) -> bool:
    words = {w.lower() for w in _WORDS.findall(name)}
    said = node.get("description", "") if isinstance(node, dict) else ""
    said = said if isinstance(said, str) else ""
    return "date" in words and not _TIMED.search(" ".join(words)) and not _TIMED.search(said) and \
        not COMPUTED.search(said)


def _dated(node: Any, written: list[str]) -> Any:
    """A copied string schema (or the copied string members of its `anyOf`) narrowed to the dates written."""
    if not isinstance(node, dict):
        return node
    if node.get("x-verbatim") is True and node.get("type") == "string":
        return {**{k: v for k, v in node.items() if k != "x-verbatim"}, "enum": written}
    if isinstance(node.get("anyOf"), list):
        return {**node, "anyOf": [_dated(member, written) for member in node["anyOf"]]}
    return node


def asked(before: Any, after: Any) -> Any:
    """`after` (`before` with values narrowed to the text's) in which each optional date, time or date-time field
    that may be null and was narrowed to the text's values is required: the model writes its key and then null or
    a date the text writes, where it used to close the object before it and leave out a date the text writes
    (other fields narrowed so were not: asking an optional number in each of a list's items made it add items)."""
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return [asked(b, a) for b, a in zip(before, after)]
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    out = {key: asked(before.get(key), sub) for key, sub in after.items()}
    props, was = out.get("properties"), before.get("properties")
    if isinstance(props, dict) and isinstance(was, dict):
        required = list(out.get("required", []))
        required += [name for name, sub in props.items()
                     if name not in required and sub != was.get(name) and _dated_format(was.get(name)) and
                     _nullable(sub) and sub.get("default") is None]
        if required:
            out["required"] = required
    return out


def _dated_format(node: Any) -> bool:
    """A schema whose value (or one of its `anyOf` members) is a date, time or date-time string."""
    return isinstance(node, dict) and (node.get("format") in FORMATS or
                                       any(_dated_format(member) for member in node.get("anyOf", ())))


def _nullable(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind) or None in node.get("enum", ()) or \
        any(_nullable(member) for member in node.get("anyOf", ()))
