"""Date, time and date-time values whose date (or time) the text does not write, per set and method, read from a
quality result.

usage: python benchmarks/dates_written.py RESULT.json [--json OUT] [--md OUT]

RESULT.json is written by benchmarks/quality.py. A value counts where its field's schema has `format: date`,
`date-time` or `time` (pydantic's `date`, `datetime`, `time`) and its document's text does not write it: a date
not among the dates the text writes, read every way their forms allow (`extractor.schema.dates.text_dates`, the
reading the grammar narrows such fields to); a time whose hour and minute the text does not write; a date-time
whose date is not written, or whose time is neither written nor midnight (the time a date written alone takes).
Every date field of the labeled sets' targets is counted, whatever its description says (none asks for a computed
or relative date, which the grammar would leave free).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.repeated_items import counted  # noqa: E402
from extractor.schema.dates import FORMATS, MIDNIGHT, text_dates  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return counted(argv, __doc__, {"not_written": lambda out, doc: unwritten(out, doc["text"], schema_of(doc)),
                                   "date_values": lambda out, doc: list(dated(out, schema_of(doc)))}, markdown)


def schema_of(doc: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a document's target (a model of `schemas/`)."""
    import schemas

    return getattr(schemas, doc["target"]).model_json_schema()


def dated(value: Any, schema: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    """(JSON pointer, format, value) of every string of `value` that its schema gives a date, time or date-time
    format."""
    defs = schema.get("$defs", {})
    stack: list[tuple[Any, dict[str, Any], str]] = [(value, schema, "")]
    while stack:
        item, node, pointer = stack.pop()
        for branch in _branches(node, defs):
            if isinstance(item, str) and branch.get("format") in FORMATS:
                yield pointer, branch["format"], item
            elif isinstance(item, dict) and "properties" in branch:
                stack += [(v, branch["properties"][k], f"{pointer}/{k}") for k, v in item.items()
                          if k in branch["properties"]]
            elif isinstance(item, list) and isinstance(branch.get("items"), dict):
                stack += [(v, branch["items"], f"{pointer}/{i}") for i, v in enumerate(item)]
            else:
                continue
            break


def _branches(node: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The subschemas a value under `node` may follow: `$ref`s resolved, `anyOf`/`oneOf`/`allOf` spread."""
    if "$ref" in node:
        return _branches(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    spread = [b for key in ("anyOf", "oneOf", "allOf") for sub in node.get(key, []) for b in _branches(sub, defs)]
    return spread + [node]


def unwritten(value: Any, text: str, schema: dict[str, Any]) -> list[tuple[str, str]]:
    """(pointer, value) of each date, time or date-time value of `value` whose date or time `text` does not write."""
    written = text_dates(text)
    dates, times = set(written["date"]), {t[:5] for t in written["time"]}
    out = []
    for pointer, fmt, item in dated(value, schema):
        day, _, clock = item.partition("T") if fmt == "date-time" else (item, "", "")
        ok = {"date": lambda: day in dates, "time": lambda: item[:5] in times,
              "date-time": lambda: day[:10] in dates and (clock[:5] in times or clock[:8] == MIDNIGHT[:8])}[fmt]()
        if not ok:
            out.append((pointer, item))
    return out


def markdown(summary: dict[str, Any]) -> str:
    limit = summary["limit_per_target"]
    lines = [f"# Date values the text does not write ({summary['split']} split"
             + (f", the first {limit} per target)" if limit else ")"), "",
             f"Outcomes from `{summary['source']}` (commit `{summary['source_commit']}`). A value counts where its "
             "field has a date, time or date-time format and the text does not write that date (or time), read "
             "every way its forms allow.", "", *([summary["note"], ""] if summary.get("note") else []),
             "| method | set | documents | date values | not written | field F1 |", "|---|---|---:|---:|---:|---:|"]
    for method, per_set in summary["per_method"].items():
        for name, row in per_set.items():
            f1 = "–" if row["field_f1"] is None else f"{row['field_f1']:.3f}"
            lines.append(f"| {method} | {name} | {row['documents']} | {row['date_values']} | {row['not_written']} "
                         f"| {f1} |")
    examples = [f"- {method}, {name}: {e}" for method, per_set in summary["per_method"].items()
                for name, row in per_set.items() for e in row["examples"]]
    return "\n".join(lines + (["", "Examples:", ""] + examples if examples else [])) + "\n"


if __name__ == "__main__":
    main()
