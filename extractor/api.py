"""The public surface: extract(Model, text) and a reusable Extractor."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

from pydantic import BaseModel

from extractor.batch import Batch
from extractor.checks import model_checks
from extractor.compiler import compile_schema
from extractor.decode.prompt import PromptTemplate, chat_prompt
from extractor.errors import (
    Attempt, ExtractionError, ExtractorError, IncompleteOutputError, InputError, ModelLoadError,
    UnsatisfiableSchemaError,
)
from extractor.grammar import CompileOptions, Layout, LayoutName
from extractor.inputs import at_least, guards_for, nonempty
from extractor.masks import CompiledGrammar
from extractor.options import DEFAULT_LAYOUT, ExtractOptions, VerbatimMode
from extractor.grounding import Grounding
from extractor.outcome import Cut, Invalid, accepts, outcome, retrying, returned, total
from extractor.refusing import DOUBTFUL, Screened, checks_answer, judged, screened_out, title
from extractor.schema import Refusal, json_schema, nesting, quotes_source, recursive, target_ir
from extractor.schema.numbers import numbers_from_text
from extractor.schema.verbatim import verbatim_strings
from extractor.stream import stream
from extractor.tokens import Vocabulary
from extractor.tracing import Trace, Traced
from extractor.windowed import WINDOW_BATCH_TOKENS, read_in_windows, window_size

T = TypeVar("T")


class Extractor:
    """A model loaded once and reused; compiled schemas are cached per target."""

    def __init__(self, model: str | Any | None = None, tokenizer: Any = None, *, device: str | None = None,
                 template: PromptTemplate = PromptTemplate()) -> None:
        from extractor.decode.model import LoadedModel, load_model

        if model is None or isinstance(model, (str, Path)):
            self.lm = load_model(None if model is None else str(model), device=device, tokenizer=tokenizer)
        else:
            if tokenizer is None:
                raise ValueError("pass the tokenizer along with a model object")
            self.lm = LoadedModel.wrap(model, tokenizer)
            if device is not None:
                model.to(device)
        self.template = template
        self.vocab = Vocabulary.from_hf(self.lm.tokenizer, size=self.lm.logits_width)
        if not self.vocab.eos_ids:
            raise ModelLoadError("the tokenizer has no end-of-sequence token: generation could never stop")
        self._grammars: dict[tuple[Any, Any], CompiledGrammar] = {}
        self._quotes: dict[str, bool] = {}  # schema text -> has Verbatim fields (compiled per document)

    def compile(self, target: type[Any] | dict[str, Any], refusal: type[BaseModel] | None = Refusal,
                source: str | None = None, layout: Layout | LayoutName = DEFAULT_LAYOUT,
                verbatim: VerbatimMode = "marked") -> CompiledGrammar:
        """The grammar for a target (and refusal model), compiled once per Extractor and layout; a target
        with `Verbatim` fields is compiled per `source` document (only its verbatim rules are rebuilt: the
        others' automata are kept by structure); a recursive target nests
        at most as deeply as `source` is structured (`nesting`), compiled once per depth. `verbatim="auto"`
        makes the target's plain string fields `Verbatim` first (`verbatim_strings`); `"all"` also lets its plain
        number fields take only the numbers `source` writes (`numbers_from_text`), compiled per document."""
        schema = json_schema(target)
        if verbatim != "marked" and isinstance(schema, dict) and source is not None:
            target = schema = verbatim_strings(schema)
        text = json.dumps(schema, sort_keys=True)
        depth = nesting(source) if source is not None and isinstance(schema, dict) and recursive(schema) else None
        if text not in self._quotes:
            self._quotes[text] = quotes_source(target_ir(schema, None))
        per_document = self._quotes[text]
        if verbatim == "all" and isinstance(schema, dict) and source is not None:
            narrowed = numbers_from_text(schema, source)
            per_document = per_document or narrowed != schema  # the values offered are the document's
            target = schema = narrowed
        if per_document:
            try:
                return compile_schema(target, self.vocab, refusal=refusal,
                                      options=CompileOptions(source=source, layout=layout, max_nesting=depth))
            except UnsatisfiableSchemaError as exc:
                raise UnsatisfiableSchemaError(
                    "nothing in the text can fill the target's required Verbatim fields (no substring of it fits "
                    "them); with the refusal branch on (the default) the model would be made to decline") from exc
        key = (text, refusal, layout, depth)
        if key not in self._grammars:
            options = CompileOptions(layout=layout, max_nesting=depth)
            try:
                self._grammars[key] = compile_schema(target, self.vocab, refusal=refusal, options=options)
            except UnsatisfiableSchemaError:
                if depth is None:
                    raise
                return self.compile(target, refusal, None, layout)  # the schema itself needs deeper nesting
        return self._grammars[key]

    @overload
    def extract(self, target: type[T], text: str, options: ExtractOptions | None = None, *,
                with_trace: Literal[True], **kw: Any) -> Traced[T | Refusal]: ...
    @overload
    def extract(self, target: type[T], text: str, options: ExtractOptions | None = None, **kw: Any) -> T | Refusal: ...
    @overload
    def extract(self, target: dict[str, Any], text: str, options: ExtractOptions | None = None, **kw: Any) -> Any: ...

    def extract(self, target: Any, text: str, options: ExtractOptions | None = None, *,
                on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
                with_trace: bool = False, _matcher: Callable[[CompiledGrammar], Any] | None = None,
                **overrides: Any) -> Any:
        """Extract one `target` from `text`; a Refusal when the model declines.

        `options`: an `ExtractOptions`; any of its fields may also be given as a keyword (`max_tokens=256`),
        overriding it. `on_attempt(attempt)` is called after every attempt (text, errors, usage);
        `with_trace=True` returns a `Traced` (the result and where each of its values is in the text);
        `with_usage=True` returns `(result, usage)`, the usage summed over the attempts. A text longer than the
        model's context (or than `window` tokens) is read in windows and their objects merged by the schema
        (`windowed.py`; the trace says which windows disagreed). Raises `InputError` before generating (an empty
        text), `IncompleteOutputError` when `max_tokens` cuts the last attempt (a cut attempt is retried first,
        with `Guards.tightened()`), `ExtractionError` when every attempt fails validation (each kept on it with
        its usage), and `MissingFieldsError` when no window of a long text holds a required field.
        """
        from extractor.decode.loop import drain
        return drain(self._extracting(target, text, ExtractOptions.of(options, overrides), on_attempt=on_attempt,
                                     with_usage=with_usage, with_trace=with_trace, _matcher=_matcher))

    def _extracting(self, target: Any, text: str, opts: ExtractOptions, *,
                   on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
                   with_trace: bool = False,
                   _matcher: Callable[[CompiledGrammar], Any] | None = None) -> Generator[None, None, Any]:
        """`extract` one forward pass per step (what `extract_stream` drives); closing it stops decoding."""
        from extractor.decode.loop import generating
        nonempty(text)
        refusal, sampling = opts.refusal_model, opts.sampling()
        first = self._prompt(target, text, [], opts)
        size = window_size(self, target, text, opts, first) if opts.constrained else None
        if size is not None:  # longer than a window: read in windows, merged
            return read_in_windows(self, target, text, opts, size, on_attempt=on_attempt, with_usage=with_usage,
                                   with_trace=with_trace)
        self._fits(first, opts.max_tokens)  # unconstrained, a text over the context is refused before decoding
        screen = self._screen(target, text, opts) if opts.constrained else None
        if screen is not None and screen.score < opts.min_relevance and refusal is Refusal:  # no answer: said so
            declined = Refusal(error=screened_out(screen, opts.min_relevance))
            return returned(declined, Trace() if with_trace else None, [], with_trace, with_usage)
        grammar = self._grammar(target, text, opts, screen) if opts.constrained else None
        checks, attempts = [*model_checks(target), *opts.checks], []
        grounding = Grounding(target, text, opts.grounding, keep=with_trace or checks_answer(screen, opts))
        try:
            for attempt in retrying(opts.max_retries):
                with attempt:
                    prompt = self._prompt(target, text, attempts, opts) if attempts else first
                    self._fits(prompt, opts.max_tokens)
                    matcher = None if grammar is None else (_matcher or CompiledGrammar.matcher)(grammar)
                    guards = guards_for(opts.guards, text, bool(attempts) and attempts[-1].cut)
                    gen = yield from generating(self.lm, self.vocab, prompt, matcher, max_tokens=opts.max_tokens,
                                                sampling=sampling, jump_forward=opts.jump_forward, guards=guards,
                                                source=text)
                    try:
                        result, found = outcome(target, refusal, gen, attempts, opts.max_tokens, checks,
                                                self._is_target(target, text, opts), grounding)
                    except IncompleteOutputError as exc:
                        if grammar is None:
                            raise
                        raise Cut(exc) from None
                    finally:
                        if on_attempt is not None and attempts:
                            on_attempt(attempts[-1])
                    result, found = judged(result, found, screen, target, opts)
                    return returned(result, found, attempts, with_trace, with_usage)
        except Invalid:
            raise ExtractionError(attempts) from None
        except Cut as cut:
            raise cut.error from None
        raise AssertionError("unreachable")  # pragma: no cover

    def extract_stream(self, target: Any, text: str, options: ExtractOptions | None = None, *,
                       with_trace: bool = False, **overrides: Any) -> Iterator[Any]:
        """Yield partial results while generating: the target built (unvalidated, `model_construct`)
        from the top-level fields complete so far, each time one more completes; then the final
        validated result (or Refusal; a `Traced` with `with_trace=True`). Errors are raised as by `extract`.
        Jump-forward is off."""
        return stream(self, target, text, ExtractOptions.of(options, overrides), with_trace=with_trace)

    def _context(self) -> int | None:
        """The model's context in tokens, where its config says."""
        limit = getattr(getattr(self.lm.model, "config", None), "max_position_embeddings", None)
        return limit if isinstance(limit, int) else None

    def _tokenizer(self) -> Any:
        return self.lm.tokenizer

    def _relevance(self, target: Any, texts: list[str]) -> list[float]:
        return [self.relevance(target, text) for text in texts]

    def _window_batch(self, tokens: int) -> dict[str, Any]:
        """How many windows of `tokens` tokens decode together: as many as hold `WINDOW_BATCH_TOKENS` of text, so
        the key-value cache stays bounded whatever the window size."""
        return {"batch_size": max(1, min(8, WINDOW_BATCH_TOKENS // max(1, tokens)))}

    def _fits(self, prompt: list[int], max_tokens: int) -> None:
        """Refuse before generating when the prompt alone overflows the model's context."""
        limit = self._context()
        if limit is not None and len(prompt) >= limit:
            raise InputError(f"the prompt is {len(prompt)} tokens but the model's context is {limit} tokens; "
                             f"shorten the text (the answer needs up to max_tokens={max_tokens} more)")

    def extract_many(self, target: Any, texts: Sequence[str], options: ExtractOptions | None = None, *,
                     batch_size: int = 8, progress: bool | None = None,
                     on_attempt: Callable[[int, Attempt], None] | None = None, with_usage: bool = False,
                     with_trace: bool = False, _matcher: Callable[[CompiledGrammar], Any] = CompiledGrammar.matcher,
                     **overrides: Any) -> list[Any]:
        """Extract one `target` from each text, `batch_size` documents decoded together.

        Returns one entry per text, in order: what `extract` would return (the target instance or a
        Refusal) or, where `extract` would raise, the `ExtractorError` itself in that slot, so one bad
        document never loses the others' results (`isinstance(r, ExtractorError)` picks them out). Failed
        validations and cut outputs are retried in later rounds with their errors fed back (`max_retries`:
        its stop and wait apply to rounds). `progress` shows a tqdm bar (None: only on a terminal).
        `on_attempt(index, attempt)` is called after every attempt; `with_trace=True` makes each result a `Traced`;
        `with_usage=True` makes each entry a `(result, Usage)` pair. Options as in `extract` (`messages` excepted: it is one chat, not one per text).
        A text longer than a window is read in windows as `extract` reads it, its windows a batch of their own.
        """
        if isinstance(texts, (str, bytes)):
            raise InputError(f"texts must be a sequence of str, not one {type(texts).__name__} (use extract)")
        at_least(1, batch_size=batch_size)
        opts = ExtractOptions.of(options, overrides)
        if opts.messages is not None:
            raise InputError("extract_many builds one chat per text: pass examples or system, not messages")
        long = self._long(target, texts, opts)
        short = [i for i in range(len(texts)) if i not in long]
        calls = None if on_attempt is None else (lambda j, a: on_attempt(short[j], a))
        results = dict(zip(short, Batch(self, target, [texts[i] for i in short], opts, batch_size, calls, _matcher,
                                        with_trace).run(progress, with_usage)))
        for i, size in long.items():  # each long text's windows in a batch of their own
            try:
                results[i] = read_in_windows(self, target, texts[i], opts, size, with_usage=with_usage,
                                             with_trace=with_trace, on_attempt=None if on_attempt is None else
                                             (lambda a, i=i: on_attempt(i, a)))
            except ExtractorError as exc:
                results[i] = (exc, total(getattr(exc, "attempts", []))) if with_usage else exc
        return [results[i] for i in range(len(texts))]

    def _long(self, target: Any, texts: Sequence[str], opts: ExtractOptions) -> dict[int, int]:
        """The texts longer than a window, with their window size (a text that errs is left to the batch)."""
        long = {}
        for i, text in enumerate(texts):
            try:
                size = window_size(self, target, text, opts, self._prompt(target, text, [], opts)) \
                    if opts.constrained and isinstance(text, str) and text.strip() else None
            except ExtractorError:
                size = None
            if size is not None:
                long[i] = size
        return long

    def relevance(self, target: Any, text: str, *, enough: float | None = None) -> float:
        """How much likelier the model finds `text` announced as the target than as another kind of document
        (log-likelihood ratio in nats; see decode/relevance.py): high for a résumé given `Resume`, low for a
        poem. With `enough`, a lower bound at or above it may come back instead (fewer passes)."""
        from extractor.decode.relevance import score

        schema = json_schema(target)
        return score(self.lm, schema if isinstance(schema, dict) else {}, text, enough=enough)

    def _screen(self, target: Any, text: str, opts: ExtractOptions) -> Screened | None:
        """The relevance screen's reading of a text, where a refusal branch is offered and the screen is on (read
        as far as the decision needs: to `min_relevance`, or to DOUBTFUL where answers are checked)."""
        if opts.refusal_model is None or opts.min_relevance is None:
            return None
        from extractor.decode.relevance import likeliest

        schema = json_schema(target)
        enough = max(opts.min_relevance, DOUBTFUL) if opts.max_unfounded is not None else opts.min_relevance
        value = self.relevance(target, text, enough=enough)
        kind = likeliest(self.lm, schema, text) if value < opts.min_relevance and isinstance(schema, dict) else None
        return Screened(value, title(schema), kind)

    def _grammar(self, target: Any, text: str, opts: ExtractOptions, screen: Screened | None) -> CompiledGrammar:
        """The grammar one text is decoded with: target and refusal, or after the relevance screen, one of them."""
        refusal, layout = opts.refusal_model, opts.layout
        if refusal is None or screen is None:
            return self.compile(target, refusal, source=text, layout=layout, verbatim=opts.verbatim)
        if screen.score >= opts.min_relevance:
            try:
                return self.compile(target, None, source=text, layout=layout, verbatim=opts.verbatim)
            except UnsatisfiableSchemaError:
                pass  # no substring of the text fits a required Verbatim field: the refusal is all there is
        return self.compile(refusal, None, layout=layout)

    def _is_target(self, target: Any, text: str, opts: ExtractOptions) -> Callable[[bytes], bool] | None:
        """For a dict target with a refusal branch: whether the target alone (no refusal) accepts an output,
        its grammar compiled only when an output looks like a refusal."""
        if not (opts.constrained and opts.refusal_model is not None and isinstance(target, dict)):
            return None
        return lambda data: accepts(self.compile(target, None, source=text, layout=opts.layout,
                                                 verbatim=opts.verbatim), data)

    def prompt(self, target: Any, text: str, options: ExtractOptions | None = None, **overrides: Any) -> str:
        """The first attempt's prompt as the model sees it (chat template applied), to check or tune wording."""
        return self.lm.tokenizer.decode(self._prompt(target, text, [], ExtractOptions.of(options, overrides)))

    def _prompt(self, target: Any, text: str, attempts: list[Attempt], opts: ExtractOptions | None = None) -> list[int]:
        return chat_prompt(self.lm.tokenizer, self.template, target, text, attempts, opts or ExtractOptions())


_DEFAULTS: dict[tuple[str | None, str | None], Extractor] = {}
_LOCK = threading.Lock()


@overload
def extract(target: type[T], text: str, *, with_trace: Literal[True], model: str | None = None,
            **kw: Any) -> Traced[T | Refusal]: ...
@overload
def extract(target: type[T], text: str, *, model: str | None = None, **kw: Any) -> T | Refusal: ...
@overload
def extract(target: dict[str, Any], text: str, *, model: str | None = None, **kw: Any) -> Any: ...


def extract(target: Any, text: str, *, model: str | None = None, device: str | None = None, **kw: Any) -> Any:
    """Extract `target` from `text` with a model loaded once per process (the embedded one by default)."""
    return shared_extractor(model, device).extract(target, text, **kw)


def extract_stream(target: Any, text: str, *, model: str | None = None, device: str | None = None,
                   **kw: Any) -> Iterator[Any]:
    """`Extractor.extract_stream` with the process-wide model: partial results, then the final one."""
    return shared_extractor(model, device).extract_stream(target, text, **kw)


def extract_many(target: Any, texts: Sequence[str], *, model: str | None = None, device: str | None = None,
                 **kw: Any) -> list[Any]:
    """`Extractor.extract_many` with the process-wide model: one result (or ExtractorError) per text."""
    return shared_extractor(model, device).extract_many(target, texts, **kw)


def shared_extractor(model: str | None, device: str | None) -> Extractor:
    """The process-wide Extractor for a model and device, loaded on first use (the module functions use it)."""
    with _LOCK:
        extractor = _DEFAULTS.get((model, device))
        if extractor is None:
            extractor = _DEFAULTS[(model, device)] = Extractor(model, device=device)
    return extractor
