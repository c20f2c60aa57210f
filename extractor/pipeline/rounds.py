"""The rounds that drive the document pipeline: one document a forward pass at a time (what `extract` and a stream
run), a batch of documents (`extract_many`, on any engine), and a text longer than a window, read in windows."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import replace
from typing import Any

from extractor.pipeline.batch import Batch
from extractor.pipeline.engine import Control, Engine, SteppingEngine
from extractor.errors import Attempt, ExtractorError, InputError
from extractor.pipeline.inputs import nonempty
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.outcome import rounds, total
from extractor.pipeline.document import Document, Pipeline
from extractor.pipeline.target import Target
from extractor.pipeline.windowed import read_in_windows, window_size


def extracting(engine: SteppingEngine, target: Target, text: str, opts: ExtractOptions, *,
               on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
               with_trace: bool = False, control: Control = Control()) -> Generator[None, None, Any]:
    """One document's rounds, one forward pass per step; closing it stops decoding. Its error is raised."""
    nonempty(text)
    told = None if on_attempt is None else (lambda i, a: on_attempt(a))
    pipe = Pipeline(engine, target, opts, with_trace=with_trace, on_attempt=told, control=control)
    doc = Document(0, text)
    first = pipe.prompt(doc)
    size = window_size(engine, target, text, opts, first) if opts.constrained else None
    if size is not None:  # longer than a window: read in windows, merged
        return read_in_windows(engine, _windows(engine, control), target, text, opts, size, on_attempt=on_attempt,
                               with_usage=with_usage, with_trace=with_trace)
    pipe.fits(first)  # unconstrained, a text over the context is refused before decoding
    pipe.screen([doc])
    if doc.result is None:  # not refused by the screen
        yield from _decoded(engine, pipe, doc, first)
    if isinstance(doc.result, ExtractorError):
        raise doc.result
    return (doc.result, total(doc.attempts)) if with_usage else doc.result


def extract_many(engine: Engine, target: Target, texts: Sequence[str], opts: ExtractOptions, *,
                 batch_size: int | None, progress: bool | None = None,
                 on_attempt: Callable[[int, Attempt], None] | None = None, with_usage: bool = False,
                 with_trace: bool = False, control: Control = Control()) -> list[Any]:
    """One entry per text: its result, or the `ExtractorError` in its slot; a text longer than a window read in
    windows, its windows a batch of their own."""
    texts = _listed(texts)
    long = _long(engine, target, texts, opts)
    short = [i for i in range(len(texts)) if i not in long]
    told = None if on_attempt is None else (lambda j, a: on_attempt(short[j], a))
    docs = Reader(engine, control).documents(target, [texts[i] for i in short], opts, batch_size=batch_size,
                                             progress=progress, on_attempt=told, with_trace=with_trace)
    results = {i: (d.result, total(d.attempts)) if with_usage else d.result for i, d in zip(short, docs)}
    for i, size in long.items():
        try:
            results[i] = read_in_windows(engine, _windows(engine, control), target, texts[i], opts, size,
                                         with_usage=with_usage, with_trace=with_trace, on_attempt=None
                                         if on_attempt is None else (lambda a, i=i: on_attempt(i, a)))
        except ExtractorError as exc:
            results[i] = (exc, total(getattr(exc, "attempts", []))) if with_usage else exc
    return [results[i] for i in range(len(texts))]


def _decoded(engine: SteppingEngine, pipe: Pipeline, doc: Document, first: list[int]) -> Generator[None, None, None]:
    """The document decoded under the retry policy until it settles or the retries are spent."""
    grammar = pipe.grammar(doc)
    for state in rounds(pipe.opts.max_retries):
        prompt = pipe.prompt(doc) if doc.attempts else first
        pipe.fits(prompt)
        gen = yield from engine.stepping(pipe.job(doc, prompt, grammar), pipe.opts, pipe.control)
        if not pipe.settle(doc, gen).retry:
            return
        state.set_result(True)


class Reader:
    """A batch read on one engine, as reading in windows asks for its windows."""

    def __init__(self, engine: Engine, control: Control) -> None:
        self.engine, self.control = engine, control

    def documents(self, target: Target, texts: Sequence[str], opts: ExtractOptions, *, batch_size: int | None,
                  progress: bool | None, on_attempt: Callable[[int, Attempt], None] | None,
                  with_trace: bool) -> list[Document]:
        """The batch's documents, each settled: our bar where we batch, the engine's where it schedules them."""
        control = replace(self.control, progress=progress)
        pipe = Pipeline(self.engine, target, opts, with_trace=with_trace, on_attempt=on_attempt, control=control)
        return Batch(pipe, texts, batch_size).run(progress if batch_size else False)

    def __call__(self, target: Any, texts: Sequence[str], opts: ExtractOptions, *,
                 on_attempt: Callable[[int, Attempt], None], progress: bool | None = None,
                 **batch: int | None) -> list[Any]:
        """Each text's traced result, or its error, in order (`batch_size` as the engine's windows ask, else its
        default)."""
        docs = self.documents(Target(target, opts), texts, opts, batch_size=batch.get("batch_size",
                              self.engine.batch_size), progress=progress, on_attempt=on_attempt, with_trace=True)
        return [d.result for d in docs]


def _windows(engine: Engine, control: Control) -> Reader:
    """The reader of a long text's windows: halted as the call is, unwatched (a window's output is not the
    target's, and a watcher keeping each window's matcher would keep its grammar too)."""
    return Reader(engine, replace(control, watch=None))


def _listed(texts: Any) -> list[Any]:
    """The call's texts as a list (any iterable of them); one text alone, or no iterable, is an InputError."""
    if isinstance(texts, (str, bytes)):
        raise InputError(f"texts must be a sequence of str, not one {type(texts).__name__} (use extract)")
    try:
        return list(texts)
    except TypeError:
        raise InputError(f"texts must be a sequence of str, not {type(texts).__name__}") from None


def _long(engine: Engine, target: Target, texts: Sequence[str], opts: ExtractOptions) -> dict[int, int]:
    """The texts longer than a window, with their window size (a text that errs is left to the batch)."""
    if not opts.constrained:
        return {}
    long = {}
    for i, text in enumerate(texts):
        try:
            nonempty(text)
            size = window_size(engine, target, text, opts, engine.prompt_ids(target.schema, text, [], opts))
        except ExtractorError:
            size = None
        if size is not None:
            long[i] = size
    return long
