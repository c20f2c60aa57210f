"""Conflicts between the windows of a long text decided by the model: where windows wrote different values for a
scalar member, the candidates are offered back as a choice (the member as an `enum` of them, null too where the
member allows it) over the text around each candidate's span, and the model's choice is kept, with every
candidate and its log-likelihood on the trace's `Conflict`. The choice is the model's answer as written: ranking
the values again each in its own sentence lost a buried document's own values to words of the text around it (a
résumé's name to "Salary" from a contract; docs/long-documents.md has the figures)."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from typing import Any

from extractor.documents.merge import Merged, member, value_key
from extractor.documents.windows import Window
from extractor.errors import Attempt, ExtractorError
from extractor.pipeline.engine import Engine
from extractor.pipeline.grounding import unescape
from extractor.pipeline.options import ExtractOptions
from extractor.schema.window import admits_null
from extractor.tracing.record import Candidate, Conflict, Span, Trace

AROUND = 300
"""Characters of the document shown on each side of a candidate's span."""
GAP = "\n[...]\n"
"""What stands between two stretches of the document in the choice's text."""
Found = dict[int, tuple[Any, Trace, int]]
"""Each answer's object, trace and window (as `windowed` keeps them)."""
Read = Callable[..., list[Any]]


@dataclass(frozen=True)
class Offered:
    """One conflict offered to the model: the member's name and schema, the candidates, the text they stand in."""

    name: str
    schema: dict[str, Any]
    candidates: tuple[Candidate, ...]
    sources: tuple[tuple[int, str], ...]
    """Each candidate's (answer, pointer in that answer's object); (-1, "") for null."""
    text: str


def offer(root: dict[str, Any], conflict: Conflict, sources: tuple[tuple[int, str], ...], found: Found,
          parts: list[Window], document: str) -> Offered | None:
    """The choice a conflict over a scalar is offered as: None where a value is no scalar or no candidate
    stands in the text (the merge's pick stays)."""
    seen: dict[Hashable, tuple[Candidate, tuple[int, str]]] = {}
    for key, at in sources:
        value, trace, w = found[key]
        leaf = _at(value, at)
        if isinstance(leaf, (dict, list)) or leaf is None:
            return None
        mark = value_key(leaf)
        span = _span(trace, at, parts[w], document)
        if mark not in seen or (seen[mark][0].span is None and span is not None):
            seen[mark] = (Candidate(leaf, parts[w].index, span), (key, at))
    placed = sorted(seen.values(), key=lambda c: (c[0].span is None, c[0].span.start if c[0].span else 0))
    if len(placed) < 2 or all(c.span is None for c, _ in placed):
        return None
    name = unescape(conflict.pointer.rsplit("/", 1)[-1]) or "value"
    own = member(root, conflict.pointer)
    values = [c.value for c, _ in placed]
    nullable = admits_null(own)
    said = {k: own[k] for k in ("description", "title") if isinstance(own, dict) and k in own}
    schema = {"type": "object", "properties": {name: {**said, "enum": [*values, *([None] if nullable else [])]}},
              "required": [name], "additionalProperties": False}
    candidates = tuple(c for c, _ in placed) + ((Candidate(None, -1),) if nullable else ())
    sources_ = tuple(s for _, s in placed) + (((-1, ""),) if nullable else ())
    return Offered(name, schema, candidates, sources_, _around([c.span for c in candidates if c.span], document))


def decide(engine: Engine, read: Read, offered: Offered, opts: ExtractOptions,
           kept: Callable[[Attempt], None]) -> tuple[int, tuple[Candidate, ...]] | None:
    """The model's choice among an offer's candidates (its index) and the candidates with their log-likelihoods
    where the engine gives them; None where the choice could not be read. Where the engine holds a local model, the
    choice's prompt is read once and kept: the answer's decoding and each candidate's likelihood go on from it."""
    outputs: list[str] = []

    def seen(_: int, attempt: Attempt) -> None:
        outputs.append(attempt.text)
        kept(attempt)

    lm = getattr(engine, "lm", None)
    store, prompt = _prompts(lm), []
    if store is not None:
        prompt = engine.prompt_ids(offered.schema, offered.text, [], opts)
        store.read(lm, prompt)
    try:
        answer = read(offered.schema, [offered.text], opts, on_attempt=seen, progress=False)[0]
        if isinstance(answer, ExtractorError) or not isinstance(answer.result, dict):
            return None
        chosen = answer.result.get(offered.name)
        index = next((i for i, c in enumerate(offered.candidates) if value_key(c.value) == value_key(chosen)), None)
        if index is None:
            return None
        scores = _likelihoods(lm if store is not None else None, prompt, offered, outputs[-1] if outputs else "",
                              chosen)
        return index, tuple(replace(c, loglik=s) for c, s in zip(offered.candidates, scores))
    finally:
        if store is not None:
            store.forget(prompt)


def apply(merged: Merged, conflict: Conflict, offered: Offered, index: int, candidates: tuple[Candidate, ...],
          found: Found) -> Conflict:
    """The merged object with the chosen candidate in the conflict's place (and its origin); the conflict as the
    trace records it."""
    pick, (key, at) = candidates[index], offered.sources[index]
    _put(merged.value, conflict.pointer, pick.value)
    if key >= 0:
        merged.origin[conflict.pointer] = (key, at)
    else:
        merged.origin.pop(conflict.pointer, None)
    others = tuple((c.value, c.window) for i, c in enumerate(candidates) if i != index and c.window >= 0)
    window = found[key][2] if key >= 0 else -1
    return Conflict(conflict.pointer, pick.value, window, others, candidates, chosen=True)


def _prompts(lm: Any) -> Any:
    """The local model's kept prompts (None without one: a serving engine gives no likelihoods)."""
    if getattr(lm, "model", None) is None:
        return None
    from extractor.decode.kept import kept_rows

    return kept_rows(lm, "prompts")


def _likelihoods(lm: Any, prompt: list[int], offered: Offered, output: str, chosen: Any) -> list[float | None]:
    """Each candidate's log-likelihood (nats) as the value of the model's answer, after the prompt and the answer's
    bytes before the value, where the engine holds a local model (None each elsewhere: the engine interface gives
    no likelihoods)."""
    written = json.dumps(chosen, ensure_ascii=False)
    at = output.find(written, output.find(json.dumps(offered.name)) + 1)
    if lm is None or at < 0:
        return [None] * len(offered.candidates)
    from extractor.decode.relevance import continuations

    def ids(text: str) -> list[int]:
        return list(lm.tokenizer(text, add_special_tokens=False)["input_ids"])

    row = prompt + ids(output[:at])  # read on from the kept prompt
    try:
        return list(continuations(lm, row, [ids(json.dumps(c.value, ensure_ascii=False))
                                            for c in offered.candidates]))
    finally:
        _prompts(lm).forget(row)


def _around(spans: list[Span], document: str) -> str:
    """The document around each span (`AROUND` characters each side, widened to whole words), stretches that
    overlap joined, in document order."""
    cuts: list[list[int]] = []
    for span in sorted(spans, key=lambda s: s.start):
        start, end = max(0, span.start - AROUND), min(len(document), span.end + AROUND)
        while start > 0 and not document[start - 1].isspace() and span.start - start < 2 * AROUND:
            start -= 1
        while end < len(document) and not document[end].isspace() and end - span.end < 2 * AROUND:
            end += 1
        if cuts and start <= cuts[-1][1]:
            cuts[-1][1] = max(cuts[-1][1], end)
        else:
            cuts.append([start, end])
    return GAP.join(document[a:b].strip() for a, b in cuts)


def _span(trace: Trace, pointer: str, window: Window, document: str) -> Span | None:
    """Where the window's text holds its value at `pointer`, in the document."""
    try:
        own = trace[pointer]
    except KeyError:
        return None
    if not own.grounded or not own.spans:
        return None
    first = own.spans[0]
    return Span(window.offset(document, first.start), window.offset(document, first.end))


def _steps(pointer: str) -> list[str]:
    return [unescape(s) for s in pointer.split("/")[1:]]


def _at(value: Any, pointer: str) -> Any:
    for step in _steps(pointer):
        value = value[int(step)] if isinstance(value, list) else value.get(step) if isinstance(value, dict) else None
    return value


def _put(value: Any, pointer: str, new: Any) -> None:
    steps = _steps(pointer)
    for step in steps[:-1]:
        value = value[int(step)] if isinstance(value, list) else value[step]
    if isinstance(value, list):
        value[int(steps[-1])] = new
    else:
        value[steps[-1]] = new
