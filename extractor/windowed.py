"""A text longer than the model's context, read in windows: each window extracted under the target's window form
(every field may be null) as one batch, a window whose answer `max_tokens` cut read again in halves, the windows'
objects merged by the schema, required members still missing looked for once more in the likeliest windows, the
whole validated as one object (a rejected one's members read again, the errors fed back, as `extract` retries)."""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from pydantic import ValidationError

from extractor.checks import model_checks, run_checks
from extractor.documents.merge import Merged, escape, merge
from extractor.documents.windows import Window, windows
from extractor.errors import (
    Attempt, ExtractionError, ExtractorError, IncompleteOutputError, InputError, MissingFieldsError, Usage,
)
from extractor.outcome import Invalid, errors_of, parse, retrying, returned
from extractor.options import ExtractOptions
from extractor.refusing import title
from extractor.schema import Refusal, json_schema
from extractor.schema.window import window_form
from extractor.tracing import Span, Trace

MARGIN = 64
"""Tokens of the context kept free beside the prompt and `max_tokens` (a retry's prompt grows by its errors)."""
WINDOW_BATCH_TOKENS = 8_192
"""Tokens of window text an engine that batches windows itself decodes together: its key-value cache stays
bounded whatever the window size (8 windows of 1,024 tokens, 1 of 8,192)."""
SPLITS = 3
"""Times a window whose answer `max_tokens` cut inside a list (longer than the budget) is halved and read again."""
FOLLOW_UP = 2
"""Windows a required member still missing after the merge is looked for in again (the likeliest by the
relevance screen)."""


class Engine(Protocol):
    """What reading in windows needs of an engine (`Extractor`, `VLLMExtractor`)."""

    def extract_many(self, *args: Any, **kw: Any) -> list[Any]: ...
    def _prompt(self, target: Any, text: str, attempts: list[Attempt], opts: ExtractOptions) -> list[int]: ...
    def _context(self) -> int | None: ...
    def _tokenizer(self) -> Any: ...
    def _relevance(self, target: Any, texts: list[str]) -> list[float]: ...
    def _window_batch(self, tokens: int) -> dict[str, Any]: ...


def window_size(ex: Engine, target: Any, text: str, opts: ExtractOptions, prompt: list[int]) -> int | None:
    """Tokens of text one window holds where `text` (whose first prompt is `prompt`) must be read in windows;
    None where it is read whole, as it always was."""
    limit = ex._context()
    fits = limit is None or len(prompt) + opts.max_tokens <= limit
    if fits and opts.window is None:
        return None
    whole = len(prompt) - len(ex._prompt(target, " ", [], opts)) + 1
    if fits and whole <= opts.window:
        return None
    schema = json_schema(target)
    if not isinstance(schema, dict):
        raise InputError(f"the text ({whole} tokens) is longer than a window and {target!r} has no JSON Schema "
                         f"object to read it in windows with")
    overhead = len(ex._prompt(window_form(schema), "", [], _window_options(opts)))
    room = limit - overhead - opts.max_tokens - MARGIN if limit is not None else 1 << 62
    if room < _least(opts):
        raise InputError(_no_room(ex, window_form(schema), limit, overhead, room, opts))
    return min(room, opts.window or room)


def _least(opts: ExtractOptions) -> int:
    """Tokens of text a window must have room for: 64, or the window asked for where it is smaller."""
    return min(64, opts.window or 64)


def _no_room(ex: Engine, form: dict[str, Any], limit: int | None, overhead: int, room: int,
             opts: ExtractOptions) -> str:
    """Why a window has no room for text, so the caller knows what to change: the prompt's size without text, the
    schema's share of it (its JSON is in the prompt), the schema's largest part, and what would make room (a lower
    max_tokens only where it can)."""
    share = overhead - len(ex._prompt({}, "", [], _window_options(opts)))
    parts = [(f"/{kind}/{escape(k)}", v) for kind in ("properties", "$defs") for k, v in form.get(kind, {}).items()]
    name, part = max(parts, key=lambda p: len(json.dumps(p[1])), default=("", form))
    largest = f" ({100 * len(json.dumps(part)) // len(json.dumps(form))}% of it {name})" if parts else ""
    fixes = ["use a model with a longer context", "shrink the schema (fewer enum members, shorter descriptions)"]
    fixes += ["lower max_tokens"] if room + opts.max_tokens > _least(opts) else []
    return (f"the prompt takes {overhead} tokens before any text, {share} of them the schema{largest}, so the "
            f"model's context ({limit} tokens) leaves {room} tokens for the text beside max_tokens={opts.max_tokens}: "
            f"{', '.join(fixes[:-1])} or {fixes[-1]}")


def read_in_windows(ex: Engine, target: Any, text: str, opts: ExtractOptions, size: int, *,
                    on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
                    with_trace: bool = False, progress: bool | None = None) -> Any:
    """`extract` of a text longer than a window: what `extract` returns for it (see the module's docstring)."""
    schema = json_schema(target)
    ends = token_ends(ex._tokenizer(), text)
    parts = windows(text, ends, size, min(opts.overlap, size // 4))
    texts = [w.text(text) for w in parts]
    attempts: list[Attempt] = []

    def kept(i: int, attempt: Attempt) -> None:
        attempts.append(attempt)
        if on_attempt is not None:
            on_attempt(attempt)

    wopts = _window_options(opts)
    shown = None if progress is None and len(parts) > 4 else progress or False
    batch = ex._window_batch(size)
    results = ex.extract_many(window_form(schema), texts, wopts, with_trace=True, on_attempt=kept, progress=shown,
                              **batch)
    for _ in range(SPLITS):  # a window whose answer max_tokens cut is read again in halves
        cut = {i for i, r in enumerate(results) if isinstance(r, IncompleteOutputError) and in_list(r.partial)}
        halves = {i: _halves(text, ends, parts[i], opts.overlap) for i in cut}
        halves = {i: h for i, h in halves.items() if len(h) > 1}
        if not halves:
            break
        more = [w.text(text) for i in sorted(halves) for w in halves[i]]
        answers = iter(ex.extract_many(window_form(schema), more, wopts, with_trace=True, on_attempt=kept,
                                       progress=shown, **batch))
        parts = [w for i, old in enumerate(parts) for w in halves.get(i, [old])]
        results = [next(answers) if i in halves else r for i, r in enumerate(results) for _ in halves.get(i, [0])]
        parts, texts = [replace(w, index=j) for j, w in enumerate(parts)], [w.text(text) for w in parts]
    found = _values(results, range(len(parts)))
    failed = [r for r in results if isinstance(r, ExtractorError)]
    merged = merge(schema, [(i, v) for i, (v, _, _) in found.items()], lambda i, p: _grounded(found[i][1], p))
    if not _written(merged.value) and failed:  # not "nothing here": the windows that might hold it were not read
        last = failed[-1]
        if isinstance(last, IncompleteOutputError):
            raise IncompleteOutputError(last.partial, last.max_tokens, last.usage, data=last.data, attempts=attempts)
        raise ExtractionError(attempts)
    if not _written(merged.value):
        if opts.refusal_model is Refusal:
            declined = Refusal(error=f"no {title(schema)} in the text: none of its {len(parts)} windows holds "
                                     f"any of its fields")
            return returned(declined, Trace(windows=_spans(parts)), attempts, with_trace, with_usage)
        required = [f"/{escape(k)}" for k in sorted(schema.get("required") or [])]
        raise MissingFieldsError(required or [""], merged.value, attempts)  # "": the whole object, none required
    if merged.missing:
        _follow_up(ex, target, schema, texts, merged, wopts, kept, found)
    if merged.missing:
        raise MissingFieldsError(merged.missing, merged.value, attempts)
    rejected: Attempt | None = None
    try:
        for attempt in retrying(opts.max_retries):  # the merged object's attempts, as `extract`'s
            with attempt:
                if rejected is not None:
                    _reread(ex, target, schema, texts, merged, wopts, kept, found, rejected)
                result, rejected = _checked(target, merged.value, opts)
                if rejected is not None:
                    kept(-1, rejected)
                    raise Invalid()
    except Invalid:
        raise ExtractionError(attempts) from None
    unread = tuple(i for i, r in enumerate(results) if isinstance(r, ExtractorError))
    return returned(result, replace(_trace(merged, found, parts, text), unread=unread), attempts, with_trace,
                    with_usage)


def in_list(partial: str) -> bool:
    """Whether a cut JSON answer was cut inside a list (a list longer than the budget, which a shorter window
    shortens); a cut elsewhere, such as a string running on, is not helped by reading less text."""
    stack, quoted, escaped = [], False, False
    for ch in partial:
        if quoted:
            quoted, escaped = (ch != '"' or escaped), (ch == "\\" and not escaped)
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
    return "[" in stack


def _halves(text: str, ends: list[int], w: Window, overlap: int) -> list[Window]:
    """Window `w` cut in two on the text's structure (its table header kept on both); itself alone where it is
    too short to cut."""
    inner = [e - w.start for e in ends[bisect_right(ends, w.start):bisect_right(ends, w.end)]]
    size = (len(inner) + 1) // 2
    if size < 8:
        return [w]
    if not inner or inner[-1] < w.end - w.start:
        inner.append(w.end - w.start)
    cut = windows(text[w.start:w.end], inner, size, min(overlap, size // 4))
    return [Window(w.index, w.start + c.start, w.start + c.end, w.header) for c in cut]


def token_ends(tokenizer: Any, text: str) -> list[int]:
    """Where each of the text's tokens ends (string indices, ascending): from the tokenizer's offsets, or every
    four characters where it gives none (a slow tokenizer)."""
    try:
        offsets = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        ends = [int(end) for _, end in offsets]
    except (NotImplementedError, ValueError, TypeError, KeyError):
        ends = list(range(4, len(text), 4))
    out, last = [], 0
    for end in ends:
        last = max(last, min(end, len(text)))
        out.append(last)
    if not out or out[-1] < len(text):
        out.append(len(text))
    return out


def _window_options(opts: ExtractOptions) -> ExtractOptions:
    """A window's options: no refusal branch (the window form says "not here" with nulls), no screen, no checks
    (they are the whole object's), no retry (what a window's dict schema can fail is being cut, and a cut window
    is read again in halves instead)."""
    return replace(opts, refusal=False, min_relevance=None, max_unfounded=None, checks=(), grounding="off",
                   window=None, max_retries=0)


def _values(results: Sequence[Any], windows_of: Sequence[int], first: int = 0) -> dict[int, tuple[Any, Trace, int]]:
    """Each answer's object, trace and window, keyed from `first` on, where its window wrote one (a window whose
    attempts failed is left out: its attempts are kept with the others)."""
    return {first + j: (r.result, r.trace, windows_of[j]) for j, r in enumerate(results)
            if not isinstance(r, ExtractorError)}


def _grounded(trace: Trace, pointer: str) -> bool:
    try:
        return trace[pointer].grounded
    except KeyError:
        return False


def _written(value: Any) -> bool:
    """Whether a merged value holds anything: a leaf that is not null, an empty string or an empty list."""
    if isinstance(value, dict):
        return any(_written(v) for v in value.values())
    if isinstance(value, list):
        return any(_written(v) for v in value)
    return value not in (None, "")


def _follow_up(ex: Engine, target: Any, schema: dict[str, Any], texts: list[str], merged: Merged,
               wopts: ExtractOptions, kept: Callable[[int, Attempt], None],
               found: dict[int, tuple[Any, Trace, int]]) -> None:
    """Look for the top-level members still missing once more, alone, in the windows the relevance screen
    finds likeliest to be the target; fill what is found (its answers kept in `found` after the first pass's)."""
    keys = list(dict.fromkeys(_unescape(p.split("/")[1]) for p in merged.missing))
    wanted = _members(schema, keys)
    scores = ex._relevance(target, texts)
    ranked = sorted(range(len(texts)), key=lambda i: -scores[i])[:FOLLOW_UP]
    results = ex.extract_many(window_form(wanted), [texts[i] for i in ranked], wopts, with_trace=True,
                              on_attempt=lambda j, a: kept(ranked[j], a), progress=False)
    _fill(merged, keys, wanted, _values(results, ranked, first=max(found, default=-1) + 1), found)


def _checked(target: Any, value: Any, opts: ExtractOptions) -> tuple[Any, Attempt | None]:
    """The merged object as the target, validated and checked; else None and the attempt that names why."""
    data = json.dumps(value, ensure_ascii=False)
    try:
        result = parse(target, None, data)
    except (ValueError, ValidationError) as exc:
        return None, Attempt(data, Usage(), errors_of(exc))
    failed = run_checks(result, [*model_checks(target), *opts.checks])
    return (None, Attempt(data, Usage(), failed)) if failed else (result, None)


def _reread(ex: Engine, target: Any, schema: dict[str, Any], texts: list[str], merged: Merged, wopts: ExtractOptions,
            kept: Callable[[int, Attempt], None], found: dict[int, tuple[Any, Trace, int]], rejected: Attempt) -> None:
    """Read again the top-level members a rejected merged object's errors name (every member where an error names
    none, as a failed check), the errors fed back in the target's description: in the windows they were taken
    from and the likeliest by the relevance screen, or every window where every member is read again."""
    members = list(schema.get("properties") or {})
    named = [e["loc"][0] for e in rejected.errors if isinstance(e, dict) and e.get("loc") and e["loc"][0] in members]
    keys = list(dict.fromkeys(named)) if len(named) == len(rejected.errors) else members
    if not keys:
        return
    told = "; ".join(str(e["msg"]) if isinstance(e, dict) else str(e) for e in rejected.errors)
    wanted = _members(schema, keys, f"An earlier reading of the whole document was rejected ({told}); its values "
                                    f"were {json.dumps({k: merged.value.get(k) for k in keys}, ensure_ascii=False)}.")
    if keys == members:
        chosen = list(range(len(texts)))
    else:
        tops = ["/" + escape(k) for k in keys]
        taken = [found[source][2] for p, (source, _) in merged.origin.items() if any(_inside(p, t) for t in tops)]
        scores = ex._relevance(target, texts)
        chosen = sorted({*taken, *sorted(range(len(texts)), key=lambda i: -scores[i])[:FOLLOW_UP]})
    results = ex.extract_many(window_form(wanted), [texts[i] for i in chosen], wopts, with_trace=True,
                              on_attempt=lambda j, a: kept(chosen[j], a), progress=False)
    _fill(merged, keys, wanted, _values(results, chosen, first=max(found, default=-1) + 1), found, empty=False)


def _members(schema: dict[str, Any], keys: list[str], told: str = "") -> dict[str, Any]:
    """The target's schema cut to the top-level members `keys` (all required), `told` added to its description."""
    members = schema.get("properties") or {}
    doc = " ".join(d for d in (str(schema.get("description") or ""), told) if d)
    return {"type": "object", "properties": {k: members.get(k, True) for k in keys}, "required": keys,
            "additionalProperties": False, **({"description": doc} if doc else {}),
            **{k: schema[k] for k in ("$defs", "definitions", "title") if k in schema}}


def _fill(merged: Merged, keys: list[str], wanted: dict[str, Any], again: dict[int, tuple[Any, Trace, int]],
          found: dict[int, tuple[Any, Trace, int]], *, empty: bool = True) -> None:
    """Each of `keys` the answers `again` wrote (merged by `wanted`; an empty list or string too where `empty`) put
    in place of the merged object's, with its origin and conflicts; the answers kept in `found` beside the earlier
    ones."""
    filled = merge(wanted, [(i, v) for i, (v, _, _) in again.items()], lambda i, p: _grounded(again[i][1], p))
    found.update(again)
    for key in keys:
        value = (filled.value or {}).get(key)
        if value is not None and (empty or _written(value)):
            top = "/" + escape(key)
            merged.value[key] = value
            merged.missing = [p for p in merged.missing if not _inside(p, top)]
            merged.origin = {p: o for p, o in merged.origin.items() if not _inside(p, top)}
            merged.origin.update({p: o for p, o in filled.origin.items() if _inside(p, top)})
            merged.conflicts = [c for c in merged.conflicts if not _inside(c.pointer, top)]
            merged.conflicts += [c for c in filled.conflicts if _inside(c.pointer, top)]


def _inside(pointer: str, top: str) -> bool:
    return pointer == top or pointer.startswith(top + "/")


def _unescape(key: str) -> str:
    return key.replace("~1", "/").replace("~0", "~")


def _trace(merged: Merged, found: dict[int, tuple[Any, Trace, int]], parts: list[Window], text: str) -> Trace:
    """The merged object's trace: each leaf's trace in the window it was taken from, its spans placed in the
    document."""
    values = []
    for pointer, (source, at) in merged.origin.items():
        try:
            own = found[source][1][at]
        except KeyError:
            continue
        w = parts[found[source][2]]
        spans = tuple(Span(w.offset(text, s.start), w.offset(text, s.end)) for s in own.spans)
        values.append(replace(own, pointer=pointer, spans=spans))
    return Trace(tuple(values), tuple(merged.conflicts), tuple(merged.incomplete), _spans(parts))


def _spans(parts: list[Window]) -> tuple[Span, ...]:
    return tuple(Span(w.start, w.end) for w in parts)
