"""A text longer than the model's context, read in windows: each window extracted under the target's window form
(every field may be null) as one batch, a window whose answer `max_tokens` cut read again in halves, each scalar
member read again alone in the short stretches that name it, the windows' objects merged by the schema, required
members still missing looked for once more in the likeliest windows, the whole validated as one object (a rejected
one's members read again, the errors fed back, as `extract` retries)."""

from __future__ import annotations

import json
import logging
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from pydantic import ValidationError

from extractor.pipeline.checks import run_checks
from extractor.pipeline.choice import apply, decide, offer
from extractor.documents import lexical
from extractor.documents.located import locate, scalar_members
from extractor.documents.relevant import best_run, counted, grid, joined, lines, regions
from extractor.documents.merge import Merged, escape, merge
from extractor.documents.windows import Window, windows
from extractor.errors import (
    Attempt, ExtractionError, ExtractorError, IncompleteOutputError, InputError, MissingFieldsError, Usage,
)
from extractor.pipeline.engine import Engine
from extractor.pipeline.grounding import unescape
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.outcome import errors_of, parse, returned, rounds
from extractor.schema import Refusal
from extractor.pipeline.target import Target
from extractor.schema.window import window_form
from extractor.tracing import Span, Trace, trace
from extractor.tracing.record import Reading

log = logging.getLogger("extractor")

MARGIN = 64
"""Tokens of the context kept free beside the prompt and `max_tokens` (a retry's prompt grows by its errors)."""
SPLITS = 3
"""Times a window whose answer `max_tokens` cut inside a list (longer than the budget) is halved and read again."""
HALVED_FROM = 3
"""A window cut inside a list is halved once, and again only while a half holds more than `max_tokens / HALVED_FROM`
tokens: a shorter one's items fit the answer (an item's JSON is rarely three times its line), so its cut is a loop
that more halves would only repeat, each to the budget (a 400-token résumé region took ten minutes, read again as
2, 4 and 8 windows)."""
FOLLOW_UP = 2
"""Windows a required member still missing after the merge is looked for in again (the likeliest by the
relevance screen)."""
STRETCH = 512
"""Characters of a long text scored at a time when looking for the target before any window is decoded."""
STRETCH_TOKENS = 64
"""Tokens of each stretch read where a window's kind is read (`window_readings`): its opening, enough to say what
it is."""
FOCUS_SHARE = 0.7
"""Share of the best stretch's score a stretch must reach to be read with `focus` (scores: `documents.lexical`,
BM25 of the target's words and value shapes). Chosen on the dev split's needles (benchmarks/window_signals.py,
24 documents each inside 40,000 and 200,000 characters of contract text; results/window_signals_lexical_dev.md):
at 0.7 every buried document is read, beside 5 and 19 regions of contract text in all (0.5: 19 and 31), while 0.5
would read 45 of 48 far-apart facts against 33."""
UNIFORM = 0.5
"""Share of the stretches writing one value shape the target asks for (`lexical.spread`) from which a text is read
whole with `focus`: it is of the target's kind throughout, its items everywhere (benchmarks/long_lists.py's
statement writes a date and an amount in every stretch, its programme a time; on the dev split's needles the
contract around the document wrote one in at most 15% of its stretches)."""
PEAK = 5.0
"""How many times the text's mean stretch score its best stretch must reach for `focus` to read only the best regions:
where the target's words are spread through the text (a contract read for its parties scores alike all through),
the best region is not where its facts are, and the text is read whole. Chosen on the dev split
(benchmarks/window_signals.py): the long Kleister-NDA dev-0 contracts scored 2.52 and 3.41, 43 of 48 dev needles
over it (one under it is read whole, as without `focus`); 3 of 19 long train contracts score over it all the same,
which is why by default a text under `FOCUS_FROM` is focused only where the rest of it reads as another kind of
document (`OTHER_KIND`): theirs reads as the target."""
FOCUS_FROM = 32_768
"""Tokens a text must hold for `focus=None` (the default) to read only its regions: a text whose every window the
embedded model reads in minutes. The needle benchmark's 200,000-character texts are past it, its 40,000-character
ones far under, and the longest Kleister-NDA contract holds 17,770 (tests/test_focus_from.py; docs/long-documents.md
measures both sides)."""
OTHER_KIND = 1.75
"""Nats: a text of two windows or more but at most `FOCUS_FROM` tokens is focused by default only where more than
half of the stretches read outside its regions (`outside_kinds`) read as the target against the likeliest other
kind of document (`relevance.kind`) by less than this: the rest is another kind of text (a contract around a
buried résumé) and reading it gives only the values a small model copies from clauses, while a long document of
the target's kind (a contract read for its parties) is read whole, its facts being anywhere. Chosen on the dev
split (benchmarks/outside_kinds.py, results/outside_kinds_dev.md): every needle inside 40,000 characters of
contract text has 4 of its 6 stretches under it or more, each long Kleister-NDA train contract whose best stretch
stands out 3 or fewer (at 0 one needle has 3)."""
OUTSIDE_SAMPLE = 6
"""Stretches outside the regions read for `OTHER_KIND`, spread evenly through the text (each a few rows of the
model over its opening, `STRETCH_TOKENS`)."""
MAX_REGIONS = 3
"""Regions read at most with `focus`, the best-scored first: the time stays bounded where many stretches of other
text score near the best (a résumé's words are common in contracts)."""
PAD = 512
"""Characters read beside each stretch that counts, so a document that starts or ends beside it is read whole."""
LINE = 256
"""Characters of a line read at a time where a region is cut to the lines that read as the target (`trimmed`): a
longer line is read in pieces."""
LINE_MARGIN = -7.0
"""Nats: where the engine's model is in this process, each region is cut to the run of lines around its best
stretch whose ratios (the line announced as the target against read after the text around the regions,
`relevance.against`) less this add up to the most (`trimmed`): the clauses beside a buried document are left out
(on the dev split's needles, 250 characters of contract text on each side of the document alone took its field F1
from 0.531 to 0.382: results/needle_beside_dev.md), and a document longer than its region is read whole. Chosen on
the dev split's needles at 40,000 characters, with the rows: against the kinds alone the lines of contract text
read as the target often enough that every margin kept clauses or cut the document; after two stretches of the
text around as well, they read as that text (results/needle_trim_dev.md measures what the cut gives)."""
CONTEXTS = 2
"""Stretches outside the regions (the second and third of `outside_kinds`' sample) each line of a region is also
read after (`relevance.as_context`): a line of the text around the document goes on like them, one of the document
does not, whatever kind of document the model takes the text around it for."""
REACH = 4096
"""Characters beyond its best stretch a region's lines are read to on each side (a `STRETCH` more at a time, only
where its run of lines reaches the lines read)."""
KIND_MARGIN: float | None = None
"""Nats by which every stretch of a window must read likelier as another kind of document than as the target
(`decode/relevance.py`'s kinds: a contract's clauses read as "legal text" around a buried invoice) for the window
to give nothing to the merge (`window_readings`); None: every window gives what it wrote. None by default: on the
dev split's needles at 40,000 characters a margin of 0 drops the contract around the document in one case of four
and no Kleister or far_apart window, -4 drops far_apart windows holding facts (benchmarks/results/
window_kinds_dev.md, docs/long-documents.md)."""

LOCATE = True
"""Whether each scalar member of the target is also read alone in the short stretches of a long text that name it
(`documents/located.py`), its value there preferred in the merge over the windows' (`_Reading.locate`); measured
with and without in docs/long-documents.md (benchmarks/far_apart.py, benchmarks/needle.py: `--located on|off`)."""
LOCATED = float("inf")
"""The merge's rank of a member's value read where its words stand: above every window's."""


class Read(Protocol):
    """A batch read of window texts under a form of the target (each text's `Traced` result, or its error)."""

    def __call__(self, target: Any, texts: list[str], opts: ExtractOptions, *,
                 on_attempt: Callable[[int, Attempt], None], progress: bool | None = None,
                 **batch: int | None) -> list[Any]: ...


def _target(target: Any, opts: ExtractOptions) -> Target:
    return target if isinstance(target, Target) else Target(target, opts)


def window_size(engine: Engine, target: Target | Any, text: str, opts: ExtractOptions,
                prompt: list[int]) -> int | None:
    """Tokens of text one window holds where `text` (whose first prompt is `prompt`) must be read in windows;
    None where it is read whole, as it always was."""
    target = _target(target, opts)
    limit = engine.context()
    fits = limit is None or len(prompt) + opts.max_tokens <= limit
    if fits and opts.window is None:
        return None
    whole = len(prompt) - len(engine.prompt_ids(target.schema, " ", [], opts)) + 1
    if fits and whole <= opts.window:
        return None
    schema = target.schema
    if not isinstance(schema, dict):
        raise InputError(f"the text ({whole} tokens) is longer than a window and {target.spec!r} has no JSON Schema "
                         f"object to read it in windows with")
    overhead = len(engine.prompt_ids(window_form(schema), "", [], _window_options(opts)))
    room = limit - overhead - opts.max_tokens - MARGIN if limit is not None else 1 << 62
    if room < _least(opts):
        raise InputError(_no_room(engine, window_form(schema), limit, overhead, room, opts))
    return min(room, opts.window or room)


def _least(opts: ExtractOptions) -> int:
    """Tokens of text a window must have room for: 64, or the window asked for where it is smaller."""
    return min(64, opts.window or 64)


def _no_room(engine: Engine, form: dict[str, Any], limit: int | None, overhead: int, room: int,
             opts: ExtractOptions) -> str:
    """Why a window has no room for text, so the caller knows what to change: the prompt's size without text, the
    schema's share of it (its JSON is in the prompt), the schema's largest part, and what would make room (a lower
    max_tokens only where it can)."""
    share = overhead - len(engine.prompt_ids({}, "", [], _window_options(opts)))
    parts = [(f"/{kind}/{escape(k)}", v) for kind in ("properties", "$defs") for k, v in form.get(kind, {}).items()]
    name, part = max(parts, key=lambda p: len(json.dumps(p[1])), default=("", form))
    largest = f" ({100 * len(json.dumps(part)) // len(json.dumps(form))}% of it {name})" if parts else ""
    fixes = ["use a model with a longer context", "shrink the schema (fewer enum members, shorter descriptions)"]
    fixes += ["lower max_tokens"] if room + opts.max_tokens > _least(opts) else []
    return (f"the prompt takes {overhead} tokens before any text, {share} of them the schema{largest}, so the "
            f"model's context ({limit} tokens) leaves {room} tokens for the text beside max_tokens={opts.max_tokens}: "
            f"{', '.join(fixes[:-1])} or {fixes[-1]}")


def read_in_windows(engine: Engine, read: Read, target: Target | Any, text: str, opts: ExtractOptions, size: int, *,
                    on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
                    with_trace: bool = False, progress: bool | None = None) -> Any:
    """`extract` of a text longer than a window: what `extract` returns for it (see the module's docstring)."""
    reading = _Reading(engine, read, _target(target, opts), text, opts, on_attempt)
    reading.first(size, progress)
    merged = reading.merged()
    if merged is None:
        declined = Refusal(error=f"no {reading.target.title} in the text: none of its {len(reading.parts)} windows "
                                 f"holds any of its fields")
        return returned(declined, Trace(windows=_spans(reading.parts), readings=tuple(reading.readings)),
                        reading.attempts, with_trace, with_usage)
    reading.choose(merged)
    result = reading.validated(merged)
    unread = tuple(i for i, r in enumerate(reading.results) if isinstance(r, ExtractorError))
    return returned(result, replace(_trace(merged, reading.found, reading.parts, text), unread=unread,
                                    readings=tuple(reading.readings)),
                    reading.attempts, with_trace, with_usage)


class _Reading:
    """One long text read in windows: its windows, their answers and every attempt made."""

    def __init__(self, engine: Engine, read: Read, target: Target, text: str, opts: ExtractOptions,
                 on_attempt: Callable[[Attempt], None] | None) -> None:
        self.engine, self.read, self.target, self.text, self.opts = engine, read, target, text, opts
        self.schema: dict[str, Any] = target.schema
        self.on_attempt, self.attempts, self.wopts = on_attempt, [], _window_options(opts)
        self.parts: list[Window] = []
        self.texts: list[str] = []
        self.results: list[Any] = []
        self.found: dict[int, tuple[Any, Trace, int]] = {}
        self.regions: list[tuple[int, int]] = []
        """The regions read with `focus`, in text order (none without it)."""
        self.read_as: dict[tuple[int, int], float] = {}
        """How well each region's lines read as the target, where the model read them (`trimmed`)."""
        self.stretches: list[tuple[tuple[int, int], float]] = []
        """The stretches of the text scored before any window was read, with their scores (none without `focus`)."""
        self.score: dict[int, float] = {}
        """Each window's relevance: the best score of the stretches it overlaps (none without `focus`)."""
        self.readings: list[Reading] = []
        """Each window read as the target against other kinds (none where `KIND_MARGIN` is None)."""
        self.located: set[int] = set()
        """The answers (keys of `found`) of members read where their words stand (`locate`)."""
        self.whole = 0
        """How many windows the whole text is cut into (more than are read where `focus` picks regions)."""

    def kept(self, i: int, attempt: Attempt) -> None:
        self.attempts.append(attempt)
        if self.on_attempt is not None:
            self.on_attempt(attempt)

    def first(self, size: int, progress: bool | None) -> None:
        """The windows worth reading (`found`) read under the window form; a window whose answer max_tokens cut
        inside a list read again in halves."""
        text, opts = self.text, self.opts
        ends = token_ends(self.engine.tokenizer, text)
        parts = self.found_windows(ends, size, min(opts.overlap, size // 4))
        shown = None if progress is None and len(parts) > 4 else progress or False
        batch, form = self.engine.window_batch(size), window_form(self.schema)
        results = self.read(form, [w.text(text) for w in parts], self.wopts, on_attempt=self.kept, progress=shown,
                            **batch)
        for level in range(SPLITS):
            cut = {i for i, r in enumerate(results) if isinstance(r, IncompleteOutputError) and in_list(r.partial)
                   and (level == 0 or HALVED_FROM * _tokens(ends, parts[i]) > opts.max_tokens)}
            halves = {i: h for i in cut if len(h := _halves(text, ends, parts[i], opts.overlap)) > 1}
            if not halves:
                break
            more = [w.text(text) for i in sorted(halves) for w in halves[i]]
            answers = iter(self.read(form, more, self.wopts, on_attempt=self.kept, progress=shown, **batch))
            parts = [w for i, old in enumerate(parts) for w in halves.get(i, [old])]
            results = [next(answers) if i in halves else r for i, r in enumerate(results) for _ in halves.get(i, [0])]
            parts = [replace(w, index=j) for j, w in enumerate(parts)]
        self.parts, self.texts, self.results = parts, [w.text(text) for w in parts], results
        self.score = {i: self.scored(w) for i, w in enumerate(parts)} if self.stretches else {}
        self.found = self.best_first({**_values(results, range(len(parts))), **self.salvaged(form)})
        if KIND_MARGIN is not None and len(parts) > 1:
            self.readings = window_readings(self.engine, self.target, text, parts, KIND_MARGIN)
            self.readings = [replace(r, wrote=self.found[r.window][0] if r.dropped and r.window in self.found else None)
                             for r in self.readings]
            dropped = {r.window for r in self.readings if r.dropped}  # (no readings where the model is elsewhere)
            self.found = {k: v for k, v in self.found.items() if k not in dropped}
        self.locate(batch, ends, size)

    def salvaged(self, form: dict[str, Any]) -> dict[int, tuple[Any, Trace, int]]:
        """What the windows still cut wrote whole before the cut (`completed`), each traced in its window's text: a
        string running on to `max_tokens` (a clause copied as a receipt's total) loses itself, not the members
        written before it. The windows stay named on `trace.unread`: what they hold past the cut is not read."""
        return {i: (value, trace(value, self.texts[i], form), i) for i, r in enumerate(self.results)
                if isinstance(r, IncompleteOutputError) and (value := completed(r.partial)) is not None}

    def locate(self, batch: dict[str, int | None], ends: list[int], size: int) -> None:
        """Each scalar member looked for in the short stretches whose words name it (`documents/located.py`) and
        read there under the window form of the target cut to the members whose best stretch it is (in the schema's
        order, so two parties named in one sentence are told apart by it; a stretch longer than a window cut into
        windows); a member no reading wrote is read again in its next stretch. The first value written gives the
        member, ranked above every window in the merge, so a notice period read in the sentence that says "notice"
        outranks a window of clauses that copied another number, which stays on `trace.conflicts`. Without the
        target's other members before it, a number member is the first value the model writes (under the whole form
        a notice period took a date's day written before it). The stretches read are listed after the windows in
        `trace.windows`; none inside a window read as another kind of document (`KIND_MARGIN`) is read. With `focus`
        and regions picked, only the members the best region's windows left empty are looked for, in the whole text
        (however few windows the regions made): the document found keeps what it wrote."""
        if not LOCATE or self.whole < 2:
            return
        dropped = [self.parts[r.window] for r in self.readings if r.dropped]
        wrote = _wrote(self.found, self.best_region())
        keys = [k for k in scalar_members(self.schema) if k not in wrote]
        found = [(f.key, [s for s in f.snippets if not any(w.start <= s[0] and s[1] <= w.end for w in dropped)])
                 for f in locate(self.text, self.schema, keys)]
        pending = dict(found)
        for rank in range(max((len(spans) for _, spans in found), default=0)):
            together: dict[tuple[int, int], list[str]] = {}  # members whose stretch this is, in the schema's order
            for key, spans in pending.items():
                if len(spans) > rank:
                    together.setdefault(spans[rank], []).append(key)
            for span, keys in together.items():
                for key, hit in self.read_located(keys, _within(self.text, ends, *span, size, 0), batch).items():
                    n = max(self.found, default=-1) + 1
                    self.found[n] = ({key: hit[1]}, hit[2], hit[0])
                    self.located.add(n)
                    del pending[key]

    def read_located(self, keys: list[str], parts: list[Window], batch: dict[str, int | None]
                     ) -> dict[str, tuple[int, Any, Trace]]:
        """The windows `parts` of one stretch read under the window form of the target cut to `keys`, added to the
        windows read; each member's first value written, with the window it came from and that answer's trace."""
        first = len(self.parts)
        parts = [replace(w, index=first + j) for j, w in enumerate(parts)]
        texts = [w.text(self.text) for w in parts]
        results = self.read(window_form(_members(self.schema, keys)), texts, self.wopts, on_attempt=self.kept,
                            progress=False, **batch)
        self.parts, self.texts, self.results = [*self.parts, *parts], [*self.texts, *texts], [*self.results, *results]
        out: dict[str, tuple[int, Any, Trace]] = {}
        for j, r in enumerate(results):
            if not isinstance(r, ExtractorError) and isinstance(r.result, dict):
                for key in keys:
                    if key not in out and _written(r.result.get(key)):
                        out[key] = (first + j, r.result[key], r.trace)
        return out

    def found_windows(self, ends: list[int], size: int, overlap: int) -> list[Window]:
        """The windows read: with `focus`, the text is scored in stretches of `STRETCH` characters before any
        window is decoded, and only the regions around the stretches scoring at least `FOCUS_SHARE` of the best,
        each cut to its lines that read as the target (`trimmed`), are cut into windows (every window where all
        count, where the target's value shapes stand all through the text, `UNIFORM`, or where its best stretch
        does not stand out, `PEAK`); else every window of the text. By default (`focus=None`) past `FOCUS_FROM`
        tokens, and on a shorter text of two windows or more where the rest of it reads as another kind of document
        (`outside_kinds`, `OTHER_KIND`)."""
        text = self.text
        every = windows(text, ends, size, overlap)
        self.whole = len(every)
        if self.opts.focus is False or len(every) < 2:
            return every
        by_kind = self.opts.focus is None and len(ends) <= FOCUS_FROM  # focused only where the rest is other text
        spans = grid(len(text), STRETCH)
        scores, spread = stretch_scores(self.target, [text[a:b] for a, b in spans])
        stretches = list(zip(spans, scores))
        picked = focus_regions(text, stretches, spread)
        kinds = outside_kinds(self.engine, self.target, text, picked) if by_kind and picked is not None else None
        if by_kind and (kinds is None or not other_kind(kinds)):
            return every  # read whole, its windows ranked as without focus (no stretch scores)
        self.stretches = stretches
        if picked is None:
            return every
        self.regions, self.read_as = trimmed(self.engine, self.target, text, picked, stretches)
        if self.opts.focus is None:  # focused by default: said, as nothing else would show it
            why = (f"the rest reads as another kind of document: {sum(r < OTHER_KIND for r in kinds)} of {len(kinds)} "
                   f"stretches outside the regions under {OTHER_KIND} nats" if kinds is not None
                   else f"focus=None does so past {FOCUS_FROM} tokens")
            log.info("a text of %d tokens: only the %d region(s) that hold the target are read, %d of %d characters "
                     "(%s; focus=False reads every window)", len(ends), len(self.regions),
                     sum(b - a for a, b in self.regions), len(text), why)
        parts = [w for a, b in self.regions for w in _within(text, ends, a, b, size, overlap)]
        return [replace(w, index=j) for j, w in enumerate(parts)]

    def best_first(self, found: dict[int, tuple[Any, Trace, int]]) -> dict[int, tuple[Any, Trace, int]]:
        """With `focus`, a top-level member the best region's windows wrote is taken from them alone (`best_region`):
        the other regions' windows (text that read worse: a clause around a buried invoice) give only the members it
        left empty, so they neither outvote it in a conflict nor add items to its lists."""
        if len(self.regions) < 2:
            return found
        best = self.best_region()
        wrote = _wrote(found, best)
        return {i: (v if w in best or not isinstance(v, dict) else {k: x for k, x in v.items() if k not in wrote},
                    t, w) for i, (v, t, w) in found.items()}

    def best_region(self) -> set[int]:
        """The windows of the region whose lines read best as the target where the model read them (`trimmed`), else
        of the best-scored one (none where `focus` picked no regions)."""
        if not self.regions:
            return set()
        a, b = max(self.regions, key=lambda r: self.read_as[r] if self.read_as else _region_score(self.stretches, r))
        return {i for i, w in enumerate(self.parts) if a <= w.start < b}

    def scored(self, w: Window) -> float:
        """A window's relevance: the best score of the stretches whose middle it holds (of those it overlaps where
        it holds no middle)."""
        inside = [s for (a, b), s in self.stretches if w.start <= (a + b) // 2 < w.end]
        return max(inside or [s for (a, b), s in self.stretches if a < w.end and b > w.start] or [float("-inf")])

    def merged(self) -> Merged | None:
        """The windows' objects merged, the members still missing looked for once more; None where no window holds
        anything and the library's `Refusal` says so (else the error that says why)."""
        failed = [r for r in self.results if isinstance(r, ExtractorError)]
        found = self.found
        merged = merge(self.schema, [(i, v) for i, (v, _, _) in found.items()], lambda i, p: _grounded(found[i][1], p),
                       self.rank)
        if not _written(merged.value) and failed:  # not "nothing here": the windows that might hold it were not read
            last = failed[-1]
            if isinstance(last, IncompleteOutputError):
                raise IncompleteOutputError(last.partial, last.max_tokens, last.usage, data=last.data,
                                            attempts=self.attempts)
            if not self.attempts:  # no window was decoded (each refused before it): its own error says why
                raise last
            raise ExtractionError(self.attempts)
        if not _written(merged.value):
            if self.opts.refusal_model is Refusal:
                return None
            required = [f"/{escape(k)}" for k in sorted(self.schema.get("required") or [])]
            raise MissingFieldsError(required or [""], merged.value, self.attempts)  # "": the whole object
        if merged.missing:  # looked for once more, alone, in the likeliest windows
            keys = list(dict.fromkeys(unescape(p.split("/")[1]) for p in merged.missing))
            self.again(merged, keys, _members(self.schema, keys), self.likeliest(), empty=True)
        if merged.missing:
            raise MissingFieldsError(merged.missing, merged.value, self.attempts)
        return merged

    def choose(self, merged: Merged) -> None:
        """Each conflict over a scalar offered back to the model as a choice among the windows' values (see
        `choice.py`), its choice kept in the merged object and the conflict's record; the merge's pick stays
        where the choice cannot be offered or read. Off where `conflicts` is "merge"."""
        if self.opts.conflicts != "model" or not self.opts.constrained:
            return
        for n, conflict in enumerate(merged.conflicts):
            offered = offer(self.schema, conflict, merged.sources.get(conflict.pointer, ()), self.found, self.parts,
                            self.text)
            decided = None if offered is None else decide(self.engine, self.read, offered, self.wopts,
                                                          lambda a: self.kept(-1, a))
            if offered is not None and decided is not None:
                merged.conflicts[n] = apply(merged, conflict, offered, *decided, self.found)

    def validated(self, merged: Merged) -> Any:
        """The merged object as the target, validated and checked; a rejected one's members read again with the
        errors fed back, under the retry policy (as `extract` retries)."""
        rejected: Attempt | None = None
        for state in rounds(self.opts.max_retries):  # the merged object's attempts, as `extract`'s
            if rejected is not None:
                self.reread(merged, rejected)
            result, rejected = _checked(self.target, merged.value)
            if rejected is None:
                return result
            self.kept(-1, rejected)
            state.set_result(True)
        raise ExtractionError(self.attempts)

    def reread(self, merged: Merged, rejected: Attempt) -> None:
        """Read again the top-level members a rejected merged object's errors name (every member where an error
        names none, as a failed check), the errors fed back in the target's description: in the windows they were
        taken from and the likeliest by the relevance screen, or every window where every member is read again."""
        members = list(self.schema.get("properties") or {})
        named = [e.loc[0] for e in rejected.errors if e.loc and e.loc[0] in members]
        keys = list(dict.fromkeys(named)) if len(named) == len(rejected.errors) else members
        if not keys:
            return
        told = "; ".join(e.msg for e in rejected.errors)
        values = json.dumps({k: merged.value.get(k) for k in keys}, ensure_ascii=False)
        wanted = _members(self.schema, keys, f"An earlier reading of the whole document was rejected ({told}); its "
                                             f"values were {values}.")
        if keys == members:
            chosen = self.given()
        else:
            tops = ["/" + escape(k) for k in keys]
            taken = [self.found[source][2] for p, (source, _) in merged.origin.items()
                     if any(_inside(p, t) for t in tops)]
            chosen = sorted({*taken, *self.likeliest()})
        self.again(merged, keys, wanted, chosen, empty=False)

    def rank(self, key: int) -> float:
        """An answer's rank in the merge: its window's relevance (none screened: all equal)."""
        return LOCATED if key in self.located else self.score.get(self.found[key][2], 0.0)

    def likeliest(self) -> list[int]:
        """The windows likeliest to be the target: by their stretches' scores, else by the relevance screen."""
        scores = [self.score.get(i, float("-inf")) for i in range(len(self.texts))] if self.score else \
            self.engine.relevance_scores(self.target.spec, self.texts)
        return sorted(self.given(), key=lambda i: -scores[i])[:FOLLOW_UP]

    def given(self) -> list[int]:
        """The windows that give to the result: all but those read as another kind of document (`readings`)."""
        return [i for i in range(len(self.texts)) if not (i < len(self.readings) and self.readings[i].dropped)]

    def again(self, merged: Merged, keys: list[str], wanted: dict[str, Any], chosen: list[int], *,
              empty: bool) -> None:
        """The members `keys` read again under `wanted` in the windows `chosen`, and filled in (see `_fill`)."""
        results = self.read(window_form(wanted), [self.texts[i] for i in chosen], self.wopts,
                            on_attempt=lambda j, a: self.kept(chosen[j], a), progress=False)
        again = _values(results, chosen, first=max(self.found, default=-1) + 1)
        _fill(merged, keys, wanted, again, self.found, self.rank, empty=empty)


def focus_regions(text: str, stretches: Sequence[tuple[tuple[int, int], float]], spread: float,
                  share: float = FOCUS_SHARE) -> list[tuple[int, int]] | None:
    """What `focus` reads of a text whose stretches were scored (`stretch_scores`): the regions around the stretches
    scoring at least `share` of the best, the best-scored `MAX_REGIONS` of them in text order; None where the text is
    read whole (every stretch counts, the target's value shapes stand all through it, `UNIFORM`, or its best
    stretch does not stand out, `PEAK`)."""
    spans, scores = [s for s, _ in stretches], [x for _, x in stretches]
    chosen = counted(scores, share)
    if len(chosen) == len(spans) or spread >= UNIFORM or lexical.peak(scores) < PEAK:
        return None
    ranked = sorted(regions(text, spans, chosen, PAD), key=lambda r: -_region_score(stretches, r))
    return sorted(ranked[:MAX_REGIONS])


def outside_kinds(engine: Engine, target: Target, text: str, picked: Sequence[tuple[int, int]]) -> list[float] | None:
    """How much the stretches outside the regions `picked` read as the target against the likeliest other kind of
    document (`relevance.kind` of each one's opening), `OUTSIDE_SAMPLE` of them spread evenly through the text, the
    last one's kind guessed first; a ratio at or above `OTHER_KIND` is exact, one below it may be an upper bound (what
    `other_kind` decides is the same). None where the engine's model is not in this process (no likelihoods)."""
    reads = _outside_reads(engine, target, text, picked)
    return None if reads is None else [ratio for _, ratio, _ in reads]


def _outside_reads(engine: Engine, target: Target, text: str,
                   picked: Sequence[tuple[int, int]]) -> list[tuple[tuple[int, int], float, str]] | None:
    """`outside_kinds`' stretches, each with its ratio and the kind it was read against (the model keeps what it
    read: a second call reads nothing again)."""
    lm = getattr(engine, "lm", None)
    if lm is None or not isinstance(target.schema, dict):
        return None
    from extractor.decode.relevance import kind, opening

    outside = [(a, b) for a, b in grid(len(text), STRETCH) if not any(a < end and b > start for start, end in picked)]
    if len(outside) > OUTSIDE_SAMPLE:
        outside = [outside[j * len(outside) // OUTSIDE_SAMPLE] for j in range(OUTSIDE_SAMPLE)]
    out: list[tuple[tuple[int, int], float, str]] = []
    guess = None
    for a, b in outside:
        ratio, guess = kind(lm, target.schema, opening(lm, text[a:b], STRETCH_TOKENS), below=OTHER_KIND, guess=guess)
        out.append(((a, b), ratio, guess))
    return out


def trimmed(engine: Engine, target: Target, text: str, picked: Sequence[tuple[int, int]],
            stretches: Sequence[tuple[tuple[int, int], float]]
            ) -> tuple[list[tuple[int, int]], dict[tuple[int, int], float]]:
    """The regions `picked`, each cut to the lines around its best stretch that read as the target against the
    text around the regions (`_run`); joined where they meet; and how well each reads as the target (the mean ratio
    of its lines, the best of those joined). As picked, unread, where the engine's model is not in this process (no
    likelihoods) or nothing lies outside the regions."""
    reads = _outside_reads(engine, target, text, picked)
    if not reads:
        return list(picked), {}
    from extractor.decode.relevance import as_context, as_kind

    others = [*(as_kind(k) for k in sorted({k for _, _, k in reads})),
              *(as_context(text[a:b]) for (a, b), _, _ in reads[1:1 + CONTEXTS])]
    lm = engine.lm  # type: ignore[attr-defined]
    read: dict[tuple[int, int], float] = {}
    best = [max(((s, x) for s, x in stretches if s[0] < b and s[1] > a), key=lambda p: p[1])[0] for a, b in picked]
    runs = [_run(lm, target, text, span, others, read) for span in best]
    regions = joined([(a, b) for a, b, _ in runs])
    return regions, {(a, b): max(m for x, y, m in runs if a <= x and y <= b) for a, b in regions}


def _run(lm: Any, target: Target, text: str, best: tuple[int, int], others: list[str],
         read: dict[tuple[int, int], float]) -> tuple[int, int, float]:
    """The run of lines around the stretch `best` whose ratios (`relevance.against` of each line's opening, after
    the target's announcements and the rows `others`; kept in `read`) less `LINE_MARGIN` add up to the most
    (`best_run`), and their mean ratio: the lines of `best` read first, a `STRETCH` more on a side (up to `REACH`)
    wherever the run ends within half a stretch of the last line read there."""
    from extractor.decode.relevance import against, opening

    (sa, sb), (lo, hi) = best, best
    while True:
        pieces = lines(text, lo, hi, LINE)
        new = [p for p in pieces if p not in read]
        read.update(zip(new, against(lm, target.schema, [opening(lm, text[x:y], STRETCH_TOKENS) for x, y in new],
                                     others)))
        inside = [i for i, (x, y) in enumerate(pieces) if x < sb and y > sa]  # never none: `best` scored above 0
        first, last = best_run([read[p] - LINE_MARGIN for p in pieces], max(inside, key=lambda i: read[pieces[i]]))
        lower = pieces[first][0] - lo < STRETCH // 2 and lo > 0 and sa - lo < REACH
        upper = hi - pieces[last][1] < STRETCH // 2 and hi < len(text) and hi - sb < REACH
        if not lower and not upper:
            run = [read[p] for p in pieces[first:last + 1]]
            return pieces[first][0], pieces[last][1], sum(run) / len(run)
        lo, hi = max(0, lo - STRETCH) if lower else lo, min(len(text), hi + STRETCH) if upper else hi


def other_kind(ratios: Sequence[float], margin: float = OTHER_KIND) -> bool:
    """Whether the text outside the regions reads as another kind of document: more than half of its stretches'
    ratios (`outside_kinds`) under `margin`; not where nothing lies outside them."""
    return 2 * sum(r < margin for r in ratios) > len(ratios)


def _region_score(stretches: Sequence[tuple[tuple[int, int], float]], region: tuple[int, int]) -> float:
    """A region's score: the best of the stretches it overlaps."""
    return max((s for (a, b), s in stretches if a < region[1] and b > region[0]), default=float("-inf"))


def stretch_scores(target: Target, texts: list[str]) -> tuple[list[float], float]:
    """How much each stretch of a long text holds the target: BM25 of the target schema's words and value shapes
    (`documents.lexical`), the stretches the collection, no model pass, so any engine scores alike; and the spread
    of its value shapes over the stretches (`lexical.spread`)."""
    if not isinstance(target.schema, dict):
        return [0.0] * len(texts), 0.0
    query = lexical.terms(target.schema)
    counted = [lexical.stretch_terms(t) for t in texts]
    return lexical.bm25(counted, query), lexical.spread(counted, query)


def window_readings(engine: Engine, target: Target, text: str, parts: Sequence[Window],
                    margin: float) -> list[Reading]:
    """Each window read as the target against the likeliest other kind of document (`readings`), each stretch of
    `STRETCH` characters by its opening (`STRETCH_TOKENS`; `relevance.kind`, the last stretch's kind guessed
    first); none where the engine's model is not in this process (no likelihoods to read)."""
    lm = getattr(engine, "lm", None)
    if lm is None or not isinstance(target.schema, dict):
        return []
    from extractor.decode.relevance import kind, opening

    spans, guess = grid(len(text), STRETCH), None

    def read(i: int) -> tuple[float, str]:
        nonlocal guess
        score, guess = kind(lm, target.schema, opening(lm, text[slice(*spans[i])], STRETCH_TOKENS), below=-margin,
                            guess=guess)
        return score, guess

    return readings([(w.start, w.end) for w in parts], spans, read, margin)


def readings(windows_at: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]],
             read: Callable[[int], tuple[float, str]], margin: float) -> list[Reading]:
    """Each window's best stretch (score and other kind, `read(i)` for stretch i), its stretches read in text order
    until one reads as the target within `margin` nats (each read once); a window whose every stretch reads as
    another kind by more is dropped, unless every window is (nothing tells them apart)."""
    known: dict[int, tuple[float, str]] = {}
    best = []
    for start, end in windows_at:
        top = (float("-inf"), "")
        for i in (i for i, (a, b) in enumerate(spans) if a < end and b > start):
            known[i] = known[i] if i in known else read(i)
            top = max(top, known[i])
            if top[0] >= -margin:
                break
        best.append(top)
    drop = [score < -margin for score, _ in best]
    return [Reading(i, score, other, dropped=d and not all(drop))
            for i, ((score, other), d) in enumerate(zip(best, drop))]


def completed(partial: str) -> dict[str, Any] | None:
    """The members a cut JSON object answer wrote whole before the cut (those followed by a `,` at its top level),
    as an object; None where it completed none. The member under way at the cut is left out, whole: a string cut
    is not the value, a number cut may be a prefix of it, a list cut misses its last items."""
    last = _cut(partial)[1]
    if last < 0 or not partial.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(partial[:last] + "}")
    except (ValueError, RecursionError):  # (a cut answer nested past what the parser reads)
        return None
    return value if isinstance(value, dict) and value else None


def in_list(partial: str) -> bool:
    """Whether a cut JSON answer was cut inside a list (a list longer than the budget, which a shorter window
    shortens); a cut elsewhere, such as a string running on, is not helped by reading less text."""
    return "[" in _cut(partial)[0]


def _cut(partial: str) -> tuple[list[str], int]:
    """A cut JSON answer's brackets still open at the cut, and where its last `,` at the top level of an object
    stands (-1: none); strings and their escapes read past."""
    stack: list[str] = []
    quoted, escaped, last = False, False, -1
    for at, ch in enumerate(partial):
        if quoted:
            quoted, escaped = (ch != '"' or escaped), (ch == "\\" and not escaped)
        elif ch == '"':
            quoted = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}" and stack:
            stack.pop()
        elif ch == "," and stack == ["{"]:
            last = at
    return stack, last


def _tokens(ends: list[int], w: Window) -> int:
    """Tokens of the text window `w` holds (`ends`: where the text's tokens end)."""
    return bisect_right(ends, w.end) - bisect_right(ends, w.start)


def _halves(text: str, ends: list[int], w: Window, overlap: int) -> list[Window]:
    """Window `w` cut in two on the text's structure (its table header kept on both); itself alone where it is
    too short to cut."""
    size = (_tokens(ends, w) + 1) // 2
    if size < 8:
        return [w]
    return [replace(c, index=w.index, header=w.header) for c in _within(text, ends, w.start, w.end, size, overlap)]


def _within(text: str, ends: list[int], start: int, end: int, size: int, overlap: int) -> list[Window]:
    """`text[start:end]` cut into windows of at most `size` tokens (`ends`: where the whole text's tokens end),
    placed in the text."""
    inner = [e - start for e in ends[bisect_right(ends, start):bisect_right(ends, end)]]
    if not inner or inner[-1] < end - start:
        inner.append(end - start)
    cut = windows(text[start:end], inner, size, min(overlap, size // 4))
    return [Window(c.index, start + c.start, start + c.end,
                   None if c.header is None else (start + c.header[0], start + c.header[1])) for c in cut]


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


def _wrote(found: dict[int, tuple[Any, Trace, int]], windows: set[int]) -> set[str]:
    """The top-level members the answers of `windows` wrote."""
    return {k for v, _, w in found.values() if w in windows and isinstance(v, dict) for k, x in v.items()
            if _written(x)}


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


def _checked(target: Target, value: Any) -> tuple[Any, Attempt | None]:
    """The merged object as the target, validated and checked; else None and the attempt that names why."""
    data = json.dumps(value, ensure_ascii=False)
    try:
        result = parse(target.spec, None, data)
    except (ValueError, ValidationError) as exc:
        return None, Attempt(data, Usage(), errors_of(exc))
    failed = run_checks(result, target.checks)
    return (None, Attempt(data, Usage(), failed)) if failed else (result, None)


def _members(schema: dict[str, Any], keys: list[str], told: str = "") -> dict[str, Any]:
    """The target's schema cut to the top-level members `keys` (all required), `told` added to its description."""
    members = schema.get("properties") or {}
    doc = " ".join(d for d in (str(schema.get("description") or ""), told) if d)
    return {"type": "object", "properties": {k: members.get(k, True) for k in keys}, "required": keys,
            "additionalProperties": False, **({"description": doc} if doc else {}),
            **{k: schema[k] for k in ("$defs", "definitions", "title") if k in schema}}


def _fill(merged: Merged, keys: list[str], wanted: dict[str, Any], again: dict[int, tuple[Any, Trace, int]],
          found: dict[int, tuple[Any, Trace, int]], rank: Callable[[int], float], *, empty: bool = True) -> None:
    """Each of `keys` the answers `again` wrote (merged by `wanted`; an empty list or string too where `empty`) put
    in place of the merged object's, with its origin and conflicts; the answers kept in `found` beside the earlier
    ones."""
    found.update(again)
    filled = merge(wanted, [(i, v) for i, (v, _, _) in again.items()], lambda i, p: _grounded(again[i][1], p), rank)
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
            merged.sources.update({p: s for p, s in filled.sources.items() if _inside(p, top)})


def _inside(pointer: str, top: str) -> bool:
    return pointer == top or pointer.startswith(top + "/")


def _trace(merged: Merged, found: dict[int, tuple[Any, Trace, int]], parts: list[Window], text: str) -> Trace:
    """The merged object's trace: each leaf's trace in the window it was taken from, its spans placed in the
    document; the merge's conflicts and left-out items name windows, not the answers' keys (a member read again
    is keyed past the windows)."""
    values = []
    for pointer, (source, at) in merged.origin.items():
        try:
            own = found[source][1][at]
        except KeyError:
            continue
        w = parts[found[source][2]]
        spans = tuple(Span(w.offset(text, s.start), w.offset(text, s.end)) for s in own.spans)
        values.append(replace(own, pointer=pointer, spans=spans))
    conflicts = tuple(c if c.chosen else replace(c, window=found[c.window][2],
                                                 others=tuple((v, found[k][2]) for v, k in c.others))
                      for c in merged.conflicts)
    incomplete = tuple(replace(i, windows=tuple(found[k][2] for k in i.windows)) for i in merged.incomplete)
    return Trace(tuple(values), conflicts, incomplete, _spans(parts))


def _spans(parts: list[Window]) -> tuple[Span, ...]:
    return tuple(Span(w.start, w.end) for w in parts)
