"""A review page: one self-contained HTML file of documents beside their traced values, for a person to check them.

The page shows a list of documents with filters (all, refused, errors, values not found), the selected document's
text with each traced span highlighted in its field's colour, and beside it the refusal or error, the notes, the
values found nowhere in the text, where a long text's windows disagreed (each candidate, its window and its
log-likelihood, and whether the model chose the value kept) and the result as a tree. `extractor review` and `write_review` write it;
`review_html` returns it as a string.

Documents come in as `Reviewed` records: `reviewed(name, text, outcome)` turns what `extract(..., with_trace=True)`
or `extract_many` returned (a `Traced`, a bare result, a `Refusal` or the `ExtractorError` in its slot) into one;
`read_jsonl` reads the lines `extractor extract --trace` writes. Reading is defensive, because a results file may
come from anywhere: a line that cannot be read, or whose text cannot be, becomes a document holding the error
(`path:line: what`), never an exception, so one bad line does not lose the others; a trace entry that is not a
value's trace, or a span that is not a pair of integers, is left out with a note on the page. Texts are read from a
mapping, a folder, or the line's `file` relative to the results file; an absolute path, one climbing out with `..`
or a link leading out of that folder is refused unless `trust_paths`, since the page embeds what it reads.

The page is one file with nothing outside it: its script and styles (`page.js`, `page.css`, beside this module)
and every document are inlined, under a Content-Security-Policy that allows no network access. The documents are
embedded as JSON inside a script element, escaped so that nothing in them can end it (`<`, U+2028/2029 and lone
surrogates written as escapes); a document JSON cannot hold (NaN, a value too deep) is shown as that error, so
only it is lost. Spans are also given in UTF-16 units, JavaScript's string indices, and spans outside the text
(the text was edited since) are dropped with a note. The script puts document text into the page only as text
nodes, and renders only the selected document, so a page of thousands of documents opens at once."""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from extractor.errors import ExtractorError
from extractor.schema import Refusal
from extractor.tracing import STATUSES, Conflict, Span, Trace, Traced, ValueTrace
from extractor.tracing.record import Candidate

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
    notes: tuple[str, ...] = ()
    """What the page flags beside the document: parts of its trace left out as unreadable (entries, spans outside
    the text), the extraction's own error when the text could not be read, and list items taken out of the result
    as repeats the text does not make (`Trace.repeated`)."""


def reviewed(name: str, text: str, outcome: Any) -> Reviewed:
    """A document from what `extract(..., with_trace=True)` or `extract_many` returned for it: a `Traced`, a bare
    result (no spans), or the `ExtractorError` in its slot."""
    if isinstance(outcome, ExtractorError):
        return Reviewed(name, text, error={"type": type(outcome).__name__, "message": str(outcome)})
    result, found = (outcome.result, outcome.trace) if isinstance(outcome, Traced) else (outcome, Trace())
    if isinstance(result, Refusal):
        return Reviewed(name, text, refused=True, refusal=result.error)
    value = result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    notes = _repeated([{"pointer": r.pointer, "item": r.item} for r in found.repeated], [])
    return Reviewed(name, text, value, trace=found, notes=tuple(notes))


def read_jsonl(path: str | Path, texts: str | Path | Mapping[str, str] | None = None, *,
               trust_paths: bool = False) -> list[Reviewed]:
    """The documents of an `extractor extract --trace` JSONL file, one per line that is not blank. A line that
    cannot be read, or whose text cannot be, is a document holding the error (`path:line: what`), never an
    exception: one bad line does not lose the others.

    Each line's text is read from `texts`: a mapping from the line's `file` to its text, or a folder holding the
    files by base name; without `texts`, from the line's `file` taken relative to the results file's folder. A
    path that is absolute, climbs with `..` or leads out of that folder through a link is refused (the page
    embeds what it reads, and a results file may come from anywhere), unless `trust_paths`. A `texts` path that is
    not a folder is a ValueError, before the results are read."""
    path = Path(path)
    if texts is not None and not isinstance(texts, Mapping) and not Path(texts).is_dir():
        raise ValueError(f"cannot read texts from {texts}: not a folder")
    try:
        with path.open("rb") as lines:  # line by line, split at b"\n" only: U+2028 may stand inside a string
            return [_read_line(raw, path, number, texts, trust_paths) for number, raw in enumerate(lines, 1)
                    if raw.strip()]
    except OSError as exc:  # the results file's own: `_text` turns a text's into its document's error
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None


def _read_line(raw: bytes, path: Path, number: int, texts: str | Path | Mapping[str, str] | None,
               trust: bool) -> Reviewed:
    """One line as a document: its record checked field by field, its trace entry by entry, its text read."""
    where, line = f"{path}:{number}", f"line {number}"
    try:
        record = json.loads(raw.decode("utf-8"), parse_constant=_not_json, parse_float=_finite)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        return _broken(line, f"{where}: not a line of JSON ({exc})")
    if not isinstance(record, dict) or not isinstance(record.get("file"), str) or not record["file"]:
        return _broken(line, f'{where}: not a record with a "file" name ({_kind(record)})')
    name, refused, result = record["file"], record.get("refused", False), record.get("result")
    if not isinstance(refused, bool):
        return _broken(name, f'{where}: "refused" is {_kind(refused)}, not true or false')
    refusal = _string(result.get("error", "")) if refused and isinstance(result, dict) else ""
    error = _error(record.get("error"))
    text, unread = _text(name, texts, path.parent, trust)
    if unread:
        notes = (f"the extraction's own error: {error['type']}: {error['message']}",) if error else ()
        return Reviewed(name, "", None if refused else result, refused, refusal,
                        {"type": "TextNotRead", "message": f"{where}: {unread}"}, notes=notes)
    found, notes = _trace(record.get("trace"))
    found = Trace(found.values, _conflicts(record.get("conflicts"), notes))
    notes += _repeated(record.get("repeated"), notes)
    return Reviewed(name, text, None if refused else result, refused, refusal, error, found, tuple(notes))


def _broken(name: str, message: str) -> Reviewed:
    """A line that is no document, listed as an error so that the page still counts it."""
    return Reviewed(name, "", error={"type": "BadLine", "message": message})


def _not_json(token: str) -> Any:
    """NaN and Infinity: Python reads them, JSON (and the page) cannot hold them."""
    raise ValueError(f"{token} is not a JSON number")


def _finite(token: str) -> float:
    """A float that overflows (1e400) would be Infinity on the page."""
    value = float(token)
    if not math.isfinite(value):
        raise ValueError(f"{token[:40]} is too large for a JSON number")
    return value


def _kind(value: Any) -> str:
    """What a value is, for a message: its JSON type and the start of its text."""
    kinds = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return f"{kinds.get(type(value), type(value).__name__)} {json.dumps(value)[:40]}"


def _string(value: Any) -> str:
    """A string shown as is; anything else as its JSON text."""
    return value if isinstance(value, str) else json.dumps(value)


def _error(value: Any) -> dict[str, str] | None:
    """{"type", "message"} from the record's `error`: an object as `extract` writes, or anything else as the
    message (a bare string is an error too, not one to lose)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {"type": _string(value.get("type", "Error")), "message": _string(value.get("message", ""))}
    return {"type": "Error", "message": _string(value)}


def _text(name: str, texts: str | Path | Mapping[str, str] | None, home: Path, trust: bool) -> tuple[str, str]:
    """(the text of the line's `file`, "") or ("", why it was not read)."""
    if isinstance(texts, Mapping):
        text = texts.get(name)
        return (text, "") if isinstance(text, str) else ("", f"no text given for {name}")
    folder, relative = (Path(texts), Path(Path(name).name)) if texts is not None else (home, Path(name))
    try:
        path = (folder / relative).resolve()
        if not trust:
            if relative.is_absolute() or ".." in relative.parts or not relative.parts:
                return "", f"{name} is refused: an absolute path or one climbing out with .. (--trust-paths reads it)"
            if not path.is_relative_to(folder.resolve()):
                return "", f"{name} is refused: {folder / relative} links out of {folder} (--trust-paths reads it)"
        if not path.is_file():
            return "", f"no file {folder / relative}" if not path.exists() else f"{folder / relative} is not a file"
        return path.read_text(encoding="utf-8"), ""
    except UnicodeDecodeError as exc:
        return "", f"{folder / relative} is not UTF-8 text ({exc.reason} at byte {exc.start})"
    except (OSError, ValueError) as exc:  # ValueError: a name holding a NUL or a lone surrogate
        return "", f"cannot read {folder / relative!r}: {getattr(exc, 'strerror', None) or exc}"


def _trace(data: Any) -> tuple[Trace, list[str]]:
    """The trace of a line, each entry checked: one that is not a value's trace is left out, with a note."""
    if data is None:
        return Trace(), []
    if not isinstance(data, list):
        return Trace(), [f"the trace is {_kind(data)}, not a list: left out"]
    values, notes = [], []
    for number, entry in enumerate(data):
        value = _value_trace(entry, notes)
        if isinstance(value, str):
            notes.append(f"trace entry {number} left out: {value}")
        else:
            values.append(value)
    return Trace(tuple(values)), notes


def _value_trace(entry: Any, notes: list[str]) -> ValueTrace | str:
    """One trace entry, or why it is none. Spans that are not pairs of integers are dropped, with a note."""
    if not isinstance(entry, dict) or not isinstance(entry.get("pointer"), str):
        return f'not an object with a "pointer" string: {_kind(entry)}'
    pointer, status, spans = entry["pointer"], entry.get("status"), entry.get("spans", [])
    if not isinstance(status, str) or status not in STATUSES:
        return f"{pointer}: its status is not one of {', '.join(STATUSES)}: {_kind(status)}"
    if not isinstance(spans, list):
        notes.append(f"{pointer}: its spans are {_kind(spans)}, not a list: dropped")
        spans = []
    pairs = [Span(*s) for s in spans if isinstance(s, list) and len(s) == 2 and all(_integer(i) for i in s)]
    if len(pairs) < len(spans):
        notes.append(f"{pointer}: {len(spans) - len(pairs)} span(s) not a pair of integers: dropped")
    how, occurrences, marked = entry.get("how", ""), entry.get("occurrences", len(pairs)), entry.get("marked", False)
    return ValueTrace(pointer, entry.get("value"), status, tuple(pairs), how if isinstance(how, str) else "",
                      occurrences if _integer(occurrences) else len(pairs), marked is True)


def _conflicts(data: Any, notes: list[str]) -> tuple[Conflict, ...]:
    """A line's conflicts (`extractor extract` writes them for a long text), each checked: one that is not an
    object with a pointer, or whose candidates or others are not a list of objects, is left out with a note."""
    if data is None:
        return ()
    out = []
    for number, c in enumerate(data if isinstance(data, list) else [data]):
        others, candidates = c.get("others", []) if isinstance(c, dict) else 0, \
            c.get("candidates", []) if isinstance(c, dict) else 0
        if not (isinstance(c, dict) and isinstance(c.get("pointer"), str) and _integer(c.get("window", -1))
                and isinstance(others, list) and isinstance(candidates, list)
                and all(isinstance(x, dict) for x in [*others, *candidates])):
            notes.append(f"conflict {number} left out: not an object with a pointer, a window and lists of "
                         f"objects: {_kind(c)}")
            continue
        made = tuple(Candidate(x.get("value"), x["window"] if _integer(x.get("window")) else -1,
                               Span(*x["span"]) if _pair(x.get("span")) else None,
                               float(x["loglik"]) if isinstance(x.get("loglik"), (int, float)) else None)
                     for x in candidates)
        out.append(Conflict(c["pointer"], c.get("kept"), c.get("window", -1),
                            tuple((x.get("value"), x["window"] if _integer(x.get("window")) else -1) for x in others),
                            made, c.get("chosen") is True))
    return tuple(out)


def _repeated(data: Any, notes: list[str]) -> list[str]:
    """A note per list item taken out of the result as a repeat the text does not make (a record's `repeated`);
    an entry that is not an object with a pointer is left out with a note of its own."""
    out = []
    for number, r in enumerate(data if isinstance(data, list) else [] if data is None else [data]):
        if isinstance(r, dict) and isinstance(r.get("pointer"), str):
            item = json.dumps(r.get("item"), ensure_ascii=False)
            out.append(f"taken out, a repeat the text does not make: {r['pointer']} "
                       f"{item if len(item) <= 80 else item[:79] + '…'}")
        else:
            notes.append(f"repeat {number} left out: not an object with a pointer: {_kind(r)}")
    return out


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(_integer(i) for i in value) and value[0] <= value[1]


def _integer(value: Any) -> bool:
    """An int and not a bool (True is an int to Python, not to JSON)."""
    return isinstance(value, int) and not isinstance(value, bool)


def review_html(documents: Sequence[Reviewed], title: str = "extractor review") -> str:
    """The page: its script, styles and every document inline (no network access, no external file)."""
    payload = "[" + ",".join(_embedded(d) for d in documents) + "]"
    # inside <script>: no "</" or "<!--" can end it, U+2028/2029 stay escaped, and a lone surrogate (a JSON line
    # may escape one) is written as its escape, which UTF-8 cannot encode but JSON can
    payload = _UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", payload)
    here = files("extractor.review")
    return _PAGE.format(title=html.escape(_SURROGATE.sub("\ufffd", title)),
                        css=here.joinpath("page.css").read_text(encoding="utf-8"),
                        js=here.joinpath("page.js").read_text(encoding="utf-8"), data=payload)


_UNSAFE = re.compile("[<\u2028\u2029\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def write_review(documents: Iterable[Reviewed], path: str | Path, title: str = "extractor review") -> Path:
    """Write the review page of `documents` to `path`; the path written."""
    out = Path(path)
    out.write_text(review_html(list(documents), title), encoding="utf-8")
    return out


def _embedded(d: Reviewed) -> str:
    """A document's JSON on the page; one that JSON cannot hold (NaN, a value too deep or of no JSON type) is
    shown as that error instead, so that it alone is lost, not the page."""
    try:
        return json.dumps(_document(d), ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError, RecursionError) as exc:
        return json.dumps(_document(Reviewed(d.name, "", error={"type": "NotJSON", "message": str(exc)})),
                          ensure_ascii=False)


def _document(d: Reviewed) -> dict[str, Any]:
    """A document as the page's script reads it: spans also in UTF-16 units, JavaScript's string indices. Spans
    outside the text (reversed, or past its end: the text was edited since) are dropped, with a note."""
    units, notes, trace = _utf16(d.text), list(d.notes), []
    for v in d.trace.to_json():
        spans = [(a, b) for a, b in v["spans"] if _integer(a) and _integer(b) and 0 <= a <= b <= len(d.text)]
        if len(spans) < len(v["spans"]):
            notes.append(f"{v['pointer']}: {len(v['spans']) - len(spans)} span(s) outside the text "
                         f"({len(d.text)} characters): dropped")
        trace.append({**v, "spans": spans, "spans16": [[units(a), units(b)] for a, b in spans]})
    conflicts = [{"pointer": c.pointer, "kept": c.kept, "window": c.window, "chosen": c.chosen,
                  "others": [{"value": v, "window": w} for v, w in c.others],
                  "candidates": [{"value": x.value, "window": x.window, "loglik": x.loglik,
                                  "spans16": [[units(x.span.start), units(x.span.end)]]
                                  if x.span is not None and 0 <= x.span.start <= x.span.end <= len(d.text) else []}
                                 for x in c.candidates]} for c in d.trace.conflicts]
    readings = [{"window": r.window, "score": r.score if math.isfinite(r.score) else None, "kind": r.kind,
                 "dropped": r.dropped, "wrote": r.wrote} for r in d.trace.readings]
    return {"name": d.name, "text": d.text, "result": d.result, "refused": d.refused, "refusal": d.refusal,
            "error": d.error, "trace": trace, "notes": notes, "conflicts": conflicts, "readings": readings}


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
