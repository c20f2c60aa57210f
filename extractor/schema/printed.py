"""Date fields as the text prints them, and date fields asked: under `verbatim="all"` a copied string field whose
name says it is a date takes only the dates the text writes, as written, and an optional date field narrowed to the
text's dates has its key written (null or one of those dates) rather than left out."""

from __future__ import annotations

import re
from typing import Any

from extractor.lang.written import readings
from extractor.schema.dates import FORMATS
from extractor.schema.numbers import COMPUTED, MAX_VALUES
from extractor.schema.verbatim import _WALKED, _WALKED_LIST, _WALKED_ONE, rewritten

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
    """`_dated` applied to the members named as dates, through the keywords that hold subschemas only (an `enum`,
    `const` or `default` value is data, left as it is)."""
    return rewritten(node, lambda out, said, free: _date_members(out, written))


def _date_members(out: dict[str, Any], written: list[str]) -> dict[str, Any]:
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
    if not isinstance(before, dict) or not isinstance(after, dict):
        return after
    out = dict(after)
    for key in _WALKED:
        if isinstance(after.get(key), dict) and isinstance(before.get(key), dict):
            out[key] = {name: asked(before[key].get(name), sub) for name, sub in after[key].items()}
    for key in _WALKED_ONE:
        if isinstance(after.get(key), dict):
            out[key] = asked(before.get(key), after[key])
    for key in _WALKED_LIST:
        if isinstance(after.get(key), list) and isinstance(before.get(key), list) and \
                len(after[key]) == len(before[key]):
            out[key] = [asked(b, a) for b, a in zip(before[key], after[key])]
    props, was = out.get("properties"), before.get("properties")
    if isinstance(props, dict) and isinstance(was, dict):
        required = list(_listed(out, "required"))
        required += [name for name, sub in props.items()
                     if name not in required and sub != was.get(name) and _dated_format(was.get(name)) and
                     _nullable(sub) and sub.get("default") is None]
        if required:
            out["required"] = required
    return out


def _listed(node: dict[str, Any], key: str) -> list[Any]:
    """A keyword's list, or none where the schema gives something else there (normalize says what is wrong)."""
    value = node.get(key)
    return value if isinstance(value, list) else []


def _dated_format(node: Any) -> bool:
    """A schema whose value (or one of its `anyOf` members) is a date, time or date-time string."""
    return isinstance(node, dict) and (node.get("format") in FORMATS or
                                       any(_dated_format(member) for member in _listed(node, "anyOf")))


def _nullable(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    return kind == "null" or (isinstance(kind, list) and "null" in kind) or None in _listed(node, "enum") or \
        any(_nullable(member) for member in _listed(node, "anyOf"))
