"""A review page: one self-contained HTML file showing each document's text with its traced values highlighted
beside the result, for a person to check extractions by the hundred (`extractor review`, `write_review`)."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from extractor.errors import ExtractorError
from extractor.schema import Refusal
from extractor.tracing import Trace, Traced

__all__ = ["Reviewed", "read_jsonl", "review_html", "reviewed", "write_review"]


@dataclass(frozen=True)
class Reviewed:
    """One document as the review page shows it."""

    name: str
    text: str
    result: Any = None
    """The result's JSON form (None when refused or failed)."""
    refused: bool = False
    refusal: str = ""
    """Why it was refused (the Refusal's `error`)."""
    error: dict[str, str] | None = None
    """{"type", "message"} of the error an extraction ended in."""
    trace: Trace = field(default_factory=Trace)


def reviewed(name: str, text: str, outcome: Any) -> Reviewed:
    """A document from what `extract(..., with_trace=True)` or `extract_many` returned for it: a `Traced`, a bare
    result (no spans), or the `ExtractorError` in its slot."""
    if isinstance(outcome, ExtractorError):
        return Reviewed(name, text, error={"type": type(outcome).__name__, "message": str(outcome)})
    result, found = (outcome.result, outcome.trace) if isinstance(outcome, Traced) else (outcome, Trace())
    if isinstance(result, Refusal):
        return Reviewed(name, text, refused=True, refusal=result.error)
    value = result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    return Reviewed(name, text, value, trace=found)


def read_jsonl(path: str | Path, texts: str | Path | Mapping[str, str] | None = None) -> list[Reviewed]:
    """The documents of an `extractor extract --trace` JSONL file. Each line's text is read from `texts` (a folder
    holding the files by name, or a mapping from the line's `file` to its text), else from the `file` itself."""
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            name = str(record["file"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number}: not a line of `extractor extract` output ({exc})") from None
        result = record.get("result")
        refused = bool(record.get("refused"))
        out.append(Reviewed(name, _text(name, texts), None if refused else result, refused,
                            str(result.get("error", "")) if refused and isinstance(result, dict) else "",
                            record.get("error"), Trace.from_json(record.get("trace", []))))
    return out


def _text(name: str, texts: str | Path | Mapping[str, str] | None) -> str:
    if isinstance(texts, Mapping):
        if name not in texts:
            raise ValueError(f"no text given for {name}")
        return texts[name]
    path = Path(texts) / Path(name).name if texts is not None else Path(name)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read the text of {name} at {path}: {exc.strerror}") from None


def review_html(documents: Sequence[Reviewed], title: str = "extractor review") -> str:
    """The page: its script, styles and every document inline (no network access, no external file)."""
    docs = [_document(d) for d in documents]
    values = [v for d in documents for v in d.trace]
    totals = {"refused": sum(d.refused for d in documents), "errors": sum(d.error is not None for d in documents),
              "values": len(values), **{s: sum(v.status == s for v in values) for s in ("copied", "found", "not_found")}}
    payload = json.dumps({"documents": docs, "totals": totals}, ensure_ascii=False)
    # inside <script>: no "</" or "<!--" can end it, and U+2028/2029 stay escaped
    payload = payload.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    here = files("extractor.review")
    return _PAGE.format(title=html.escape(title), css=here.joinpath("page.css").read_text(encoding="utf-8"),
                        js=here.joinpath("page.js").read_text(encoding="utf-8"), data=payload)


def write_review(documents: Iterable[Reviewed], path: str | Path, title: str = "extractor review") -> Path:
    """Write the review page of `documents` to `path`; the path written."""
    out = Path(path)
    out.write_text(review_html(list(documents), title), encoding="utf-8")
    return out


def _document(d: Reviewed) -> dict[str, Any]:
    """A document as the page's script reads it: spans also in UTF-16 units, JavaScript's string indices."""
    units = _utf16(d.text)
    trace = [{**v, "spans16": [[units(a), units(b)] for a, b in v["spans"]]} for v in d.trace.to_json()]
    return {"name": d.name, "text": d.text, "result": d.result, "refused": d.refused, "refusal": d.refusal,
            "error": d.error, "trace": trace, "not_found": sum(v["status"] == "not_found" for v in trace)}


def _utf16(text: str) -> Any:
    """Python string index -> JavaScript string index (characters past U+FFFF take two units there)."""
    if all(ord(c) < 0x10000 for c in text):
        return lambda i: i
    starts = [0]
    for c in text:
        starts.append(starts[-1] + (2 if ord(c) >= 0x10000 else 1))
    return lambda i: starts[i]


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
{css}</style>
</head>
<body>
<header><h1>{title}</h1><span class="stat" id="summary"></span><span class="stat" id="title"></span>
<span class="hint">j/k or ↑/↓: next/previous document · click a field or a highlight</span></header>
<main>
<nav><div id="filters" role="toolbar"></div><ul id="docs" role="listbox"></ul></nav>
<section id="text" aria-label="document text"></section>
<aside id="side"><div id="issues"></div><h2>Result</h2><div id="tree"></div></aside>
</main>
<script type="application/json" id="review-data">{data}</script>
<script>
{js}</script>
</body>
</html>
"""
