"""The public surface: extract(Model, text) and a reusable Extractor."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from pydantic import BaseModel
from tenacity import Retrying

from extractor.automata import build_automaton
from extractor.decode.guards import Guards
from extractor.decode.prompt import PromptTemplate, encode, messages, retries
from extractor.checks import Check, model_checks
from extractor.errors import (
    Attempt, ExtractionError, ExtractorError, IncompleteOutputError, InputError, ModelLoadError,
    UnsatisfiableSchemaError,
)
from extractor.grammar import CompileOptions, Layout, LayoutName, compile_grammar
from extractor.masks import CompiledGrammar, TokenTrie
from extractor.schema import NormalizeOptions, Refusal, json_schema, nesting, quotes_source, recursive, target_ir
from extractor.inputs import at_least, guards_for, nonempty
from extractor.outcome import Cut, Invalid, accepts, outcome, retrying, total
from extractor.stream import stream
from extractor.tokens import Vocabulary

if TYPE_CHECKING:  # torch-backed: imported where a model is loaded or run, so compiling needs no torch
    from extractor.decode.loop import Generation
    from extractor.decode.sampling import SamplingOptions

T = TypeVar("T")

DEFAULT_LAYOUT: LayoutName = "pretty"
"""The layout `extract` forces unless told otherwise (chosen on benchmarks/quality.py's dev split)."""

MIN_RELEVANCE = -5.4
"""The relevance score below which `extract` offers only the refusal branch: `benchmarks/calibrate_refusal.py
--split dev` with the embedded model (best refusal F1 refusing at most 10% of answerable documents; any
value between -5.48 and -5.28 scores the same there)."""


def compile_schema(schema: type[Any] | dict[str, Any], tokenizer: Any, *, refusal: type[BaseModel] | None = None,
                   normalize: NormalizeOptions = NormalizeOptions(),
                   options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """Compile a Pydantic model or JSON Schema for a tokenizer (Vocabulary, tokenizer.json path, or HF tokenizer)."""
    vocab = _vocabulary(tokenizer)
    automaton = build_automaton(compile_grammar(target_ir(schema, refusal, normalize), options))
    return CompiledGrammar(automaton, vocab, _trie(vocab))


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
                source: str | None = None, layout: Layout | LayoutName = DEFAULT_LAYOUT) -> CompiledGrammar:
        """The grammar for a target (and refusal model), compiled once per Extractor and layout; a target
        with `Verbatim` fields is compiled per `source` document (and not cached); a recursive target nests
        at most as deeply as `source` is structured (`nesting`), compiled once per depth."""
        schema = json_schema(target)
        text = json.dumps(schema, sort_keys=True)
        depth = nesting(source) if source is not None and isinstance(schema, dict) and recursive(schema) else None
        if text not in self._quotes:
            self._quotes[text] = quotes_source(target_ir(schema, None))
        if self._quotes[text]:
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
    def extract(self, target: type[T], text: str, **kw: Any) -> T | Refusal: ...
    @overload
    def extract(self, target: dict[str, Any], text: str, **kw: Any) -> Any: ...

    def extract(self, target: Any, text: str, *, max_tokens: int = 1024, temperature: float = 0.0,
                top_p: float = 1.0, top_k: int = 0, seed: int | None = None, repetition_penalty: float = 1.0,
                refusal: bool | type[BaseModel] = True, max_retries: int | Retrying = 1, constrained: bool = True,
                jump_forward: bool | str = True, guards: bool | Guards = True, checks: Sequence[Check] = (),
                on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
                layout: Layout | LayoutName = DEFAULT_LAYOUT, examples: Sequence[tuple[str, Any]] = (),
                system: str | None = None, messages: Sequence[dict[str, str]] | None = None,
                min_relevance: float | None = MIN_RELEVANCE, _matcher: Callable[[CompiledGrammar], Any] | None = None) -> Any:
        """Extract one `target` from `text`; a Refusal when the model declines.

        `jump_forward` feeds text the schema forces (keys, quotes, braces) many tokens per forward pass;
        True (= "verified") keeps each forced token only where the model would have picked it, so the
        output is what token-by-token decoding gives, and also drafts tokens copied from `text` while
        a value is written (verified the same way); "canonical" trusts the tokenizer's split of forced
        text (output may differ); False is off. `guards` stops small models' loops (see `Guards`;
        True: the defaults, with no string longer than `text`; False: none). Raises
        `IncompleteOutputError` when `max_tokens` cuts the output of the last attempt (a cut attempt is
        retried like a failed validation, with `Guards.tightened()`: loops stop sooner and the output wraps
        up within the budget), `ExtractionError` when every attempt fails validation.

        `checks`: callables run on the parsed object (with the target's `@check` methods); a message
        they return or raise fails the attempt, and the retry sees it. `max_retries` is an int or a
        tenacity `Retrying` (its stop and wait are used; only failed validations are retried).
        `on_attempt(attempt)` is called after every attempt (text, errors, usage). `with_usage=True`
        returns `(result, usage)`, the usage summed over the attempts. Empty text, or a prompt longer
        than the model's context, raises `InputError` before anything is generated.

        `layout`: the whitespace the grammar forces ("pretty", the default: indented like
        `json.dumps(indent=2)`; "compact", "spaced", "free", or a `Layout`). Prompt: `examples` are
        (text, answer) pairs shown as earlier turns (answers as target instances or JSON-able values,
        written in `layout`); `system` replaces the system message (`{schema}`, `{title}`, `{refusal}` filled
        in, other braces kept); `messages` replaces the whole chat (then `text` is only the source for
        grounding, drafts and guards).

        `min_relevance`: with a refusal branch, the text is screened first (`Extractor.relevance`): below
        this score only the refusal branch is offered (the model says why it declines), at or above it only
        the target. None: no screen, both branches offered and the model chooses.
        """
        from extractor.decode.loop import generate
        from extractor.decode.sampling import SamplingOptions

        nonempty(text)
        at_least(1, max_tokens=max_tokens)
        if not isinstance(max_retries, Retrying):
            at_least(0, max_retries=max_retries)
        refusal_model = (Refusal if refusal is True else refusal) or None
        chat = Chat(examples, system, messages, refusal_model, layout)
        first = self._prompt(target, text, [], chat)
        self._fits(first, max_tokens)  # a text over the context is refused before anything is compiled for it
        grammar = self._grammar(target, refusal_model, text, layout, min_relevance) if constrained else None
        sampling = SamplingOptions(temperature=temperature, top_p=top_p, top_k=top_k, seed=seed,
                                   repetition_penalty=repetition_penalty)
        every = [*model_checks(target), *checks]
        attempts: list[Attempt] = []
        try:
            for attempt in retrying(max_retries):
                with attempt:
                    prompt = self._prompt(target, text, attempts, chat) if attempts else first
                    self._fits(prompt, max_tokens)
                    matcher = None if grammar is None else (_matcher or CompiledGrammar.matcher)(grammar)
                    tight = bool(attempts) and attempts[-1].cut
                    gen = generate(self.lm, self.vocab, prompt, matcher, max_tokens=max_tokens, sampling=sampling,
                                   jump_forward=jump_forward, guards=guards_for(guards, text, tight), source=text)
                    try:
                        result = outcome(target, refusal_model, gen, attempts, max_tokens, every,
                                          self._is_target(target, refusal_model, text, layout, constrained))
                    except IncompleteOutputError as exc:
                        if grammar is None:
                            raise
                        raise Cut(exc) from None
                    finally:
                        if on_attempt is not None and attempts:
                            on_attempt(attempts[-1])
                    return (result, total(attempts)) if with_usage else result
        except Invalid:
            raise ExtractionError(attempts) from None
        except Cut as cut:
            raise cut.error from None
        raise AssertionError("unreachable")  # pragma: no cover

    def extract_stream(self, target: Any, text: str, **kw: Any) -> Iterator[Any]:
        """Yield partial results while generating: the target built (unvalidated, `model_construct`)
        from the top-level fields complete so far, each time one more completes; then the final
        validated result (or Refusal). Errors are raised as by `extract`. Jump-forward is off."""
        return stream(self.extract, target, text, **kw)

    def _fits(self, prompt: list[int], max_tokens: int) -> None:
        """Refuse before generating when the prompt alone overflows the model's context."""
        limit = getattr(getattr(self.lm.model, "config", None), "max_position_embeddings", None)
        if isinstance(limit, int) and len(prompt) >= limit:
            raise InputError(f"the prompt is {len(prompt)} tokens but the model's context is {limit} tokens; "
                             f"shorten the text (the answer needs up to max_tokens={max_tokens} more)")

    def extract_many(self, target: Any, texts: Sequence[str], *, batch_size: int = 8, max_tokens: int = 1024,
                     temperature: float = 0.0, top_p: float = 1.0, top_k: int = 0, seed: int | None = None,
                     repetition_penalty: float = 1.0, refusal: bool | type[BaseModel] = True,
                     max_retries: int | Retrying = 1,
                     constrained: bool = True, jump_forward: bool | str = True, guards: bool | Guards = True,
                     checks: Sequence[Check] = (), progress: bool | None = None,
                     layout: Layout | LayoutName = DEFAULT_LAYOUT, examples: Sequence[tuple[str, Any]] = (),
                     system: str | None = None, min_relevance: float | None = MIN_RELEVANCE,
                     on_attempt: Callable[[int, Attempt], None] | None = None,
                     with_usage: bool = False) -> list[Any]:
        """Extract one `target` from each text, `batch_size` documents decoded together.

        Returns one entry per text, in order: what `extract` would return (the target instance or a
        Refusal) or, where `extract` would raise, the `ExtractorError` itself (`IncompleteOutputError`,
        `ExtractionError`) in that slot, so one bad document never loses the others' results
        (`isinstance(r, ExtractorError)` picks them out). Other exceptions propagate. Rows finish
        independently; failed validations (Pydantic, `@check` methods, `checks`) are retried in later
        batches with their errors fed back. A text `extract` would refuse before generating (empty, over
        the context, no value for a required Verbatim field) gets its `InputError` or schema error in its
        slot. `progress` shows a tqdm bar (None: only on a terminal). `on_attempt(index, attempt)` is
        called after every attempt with the document's index; `with_usage=True` makes each entry a
        `(result, Usage)` pair, usage summed over that document's attempts. `max_retries`: an int or a tenacity
        `Retrying`, whose stop and wait apply to rounds (every document still failing is retried in the next
        round). Options as in `extract`.
        """
        from extractor.decode.sampling import SamplingOptions

        if isinstance(texts, (str, bytes)):
            raise InputError(f"texts must be a sequence of str, not one {type(texts).__name__} (use extract)")
        at_least(1, max_tokens=max_tokens, batch_size=batch_size)
        if not isinstance(max_retries, Retrying):
            at_least(0, max_retries=max_retries)
        refusal_model = (Refusal if refusal is True else refusal) or None
        sampling = SamplingOptions(temperature=temperature, top_p=top_p, top_k=top_k, seed=seed,
                                   repetition_penalty=repetition_penalty)
        every = [*model_checks(target), *checks]
        chat = Chat(examples, system, None, refusal_model, layout)
        attempts: list[list[Attempt]] = [[] for _ in texts]
        results: list[Any] = [None] * len(texts)
        grammars: dict[int, CompiledGrammar | None] = {}
        for i, text in enumerate(texts):
            try:
                nonempty(text)
                self._fits(self._prompt(target, text, [], chat), max_tokens)
                grammars[i] = self._grammar(target, refusal_model, text, layout, min_relevance) if constrained else None
            except ExtractorError as exc:  # this document only: the others still run
                results[i] = exc

        def settle(i: int, gen: Generation) -> bool:
            """Record document i's attempt; True when it is to be retried."""
            try:
                results[i] = outcome(target, refusal_model, gen, attempts[i], max_tokens, every,
                                     self._is_target(target, refusal_model, texts[i], layout, constrained))
            except Invalid:
                results[i] = ExtractionError(attempts[i])
                return True
            except IncompleteOutputError as exc:
                results[i] = exc
                return grammars[i] is not None  # retried with tightened guards
            except ExtractorError as exc:
                results[i] = exc
            finally:
                if on_attempt is not None and attempts[i]:
                    on_attempt(i, attempts[i][-1])
            return False

        def round_(pending: list[int], bar: Any) -> list[int]:
            """One attempt for every pending document, `batch_size` at a time; the documents to retry."""
            prompts = {}
            for i in list(pending):
                prompts[i] = self._prompt(target, texts[i], attempts[i], chat)
                try:
                    self._fits(prompts[i], max_tokens)
                except InputError as exc:
                    results[i] = exc
                    pending.remove(i)
                    bar.update(1)
            pending.sort(key=lambda i: len(prompts[i]))  # similar lengths together: less padding
            retry = []
            for chunk in (pending[k:k + batch_size] for k in range(0, len(pending), batch_size)):
                gens = self._batch(chunk, prompts, texts, grammars, max_tokens, sampling, jump_forward, guards,
                                   attempts)
                for i, gen in zip(chunk, gens):
                    if settle(i, gen):
                        retry.append(i)
                    else:
                        bar.update(1)
            return retry

        pending = [i for i in range(len(texts)) if results[i] is None]
        with _progress(len(texts), progress, getattr(target, "__name__", "extract")) as bar:
            bar.update(len(texts) - len(pending))
            try:
                for attempt in retrying(max_retries):  # one round per attempt: every document still pending
                    with attempt:
                        pending = round_(pending, bar)
                        if pending:
                            raise Invalid()
            except Invalid:
                pass  # retries spent: each pending document keeps its last error
            bar.update(len(pending))
        if with_usage:
            return [(r, total(a)) for r, a in zip(results, attempts)]
        return results

    def _batch(self, chunk: list[int], prompts: dict[int, list[int]], texts: Sequence[str],
               grammars: dict[int, CompiledGrammar | None], max_tokens: int, sampling: SamplingOptions,
               jump_forward: bool | str, guards: bool | Guards, attempts: list[list[Attempt]]) -> list[Generation]:
        """Decode one batch of documents, each with its own matcher and guards (strings bounded by its text,
        tightened after a cut attempt)."""
        from extractor.decode.loop import generate_many, jump_forward_options

        options = replace(jump_forward_options(jump_forward), max_tokens=max_tokens, sampling=sampling)
        return generate_many(self.lm, self.vocab, [prompts[i] for i in chunk],
                             [grammars[i].matcher() if grammars[i] else None for i in chunk], options,
                             guards=[guards_for(guards, texts[i], bool(attempts[i]) and attempts[i][-1].cut)
                                     for i in chunk], sources=[texts[i] for i in chunk])

    def relevance(self, target: Any, text: str, *, enough: float | None = None) -> float:
        """How much likelier the model finds `text` announced as the target than as another kind of document
        (log-likelihood ratio in nats; see decode/relevance.py): high for a résumé given `Resume`, low for a
        poem. With `enough`, a lower bound at or above it may come back instead (fewer passes)."""
        from extractor.decode.relevance import score

        schema = json_schema(target)
        return score(self.lm, schema if isinstance(schema, dict) else {}, text, enough=enough)

    def _grammar(self, target: Any, refusal: type[BaseModel] | None, text: str, layout: Layout | LayoutName,
                 min_relevance: float | None) -> CompiledGrammar:
        """The grammar one text is decoded with: target and refusal, or after the relevance screen, one of them."""
        if refusal is None or min_relevance is None:
            return self.compile(target, refusal, source=text, layout=layout)
        if self.relevance(target, text, enough=min_relevance) >= min_relevance:
            try:
                return self.compile(target, None, source=text, layout=layout)
            except UnsatisfiableSchemaError:
                pass  # no substring of the text fits a required Verbatim field: the refusal is all there is
        return self.compile(refusal, None, layout=layout)

    def _is_target(self, target: Any, refusal: type[BaseModel] | None, text: str, layout: Layout | LayoutName,
                   constrained: bool) -> Callable[[bytes], bool] | None:
        """For a dict target with a refusal branch: whether the target alone (no refusal) accepts an output,
        its grammar compiled only when an output looks like a refusal."""
        if not (constrained and refusal is not None and isinstance(target, dict)):
            return None
        return lambda data: accepts(self.compile(target, None, source=text, layout=layout), data)

    def prompt(self, target: Any, text: str, **kw: Any) -> str:
        """The first attempt's prompt as the model sees it (chat template applied), to check or tune wording;
        `kw`: `extract`'s `examples`, `system`, `messages`, `refusal`, `layout`."""
        refusal = kw.get("refusal", True)
        chat = Chat(kw.get("examples", ()), kw.get("system"), kw.get("messages"),
                    (Refusal if refusal is True else refusal) or None, kw.get("layout", DEFAULT_LAYOUT))
        return self.lm.tokenizer.decode(self._prompt(target, text, [], chat))

    def _prompt(self, target: Any, text: str, attempts: list[Attempt], chat: Chat | None = None) -> list[int]:
        return chat_prompt(self.lm.tokenizer, self.template, target, text, attempts, chat or Chat())


def chat_prompt(tokenizer: Any, template: PromptTemplate, target: Any, text: str, attempts: list[Attempt],
                chat: Chat) -> list[int]:
    """The chat prompt's token ids, with earlier failed attempts and their errors as turns of the conversation
    (shared by every decoding loop: this library's and a serving engine's)."""
    history = [(a.text, "\n".join(map(str, a.errors))) for a in attempts if not a.cut]  # a cut is no answer
    if chat.messages is not None:
        return encode(tokenizer, [*chat.messages, *retries(template, history)])
    layout = Layout.named(chat.layout)
    shots = [(shown, layout.dumps(_plain(answer))) for shown, answer in chat.examples]
    return encode(tokenizer, messages(json_schema(target), text, template, history, examples=shots,
                                      refusal=chat.refusal is not None, system=chat.system))


@dataclass(frozen=True)
class Chat:
    """What the prompt is made of besides the target and the text."""

    examples: Sequence[tuple[str, Any]] = ()
    system: str | None = None
    messages: Sequence[dict[str, str]] | None = None
    refusal: type[BaseModel] | None = Refusal
    layout: Layout | LayoutName = DEFAULT_LAYOUT


def _plain(answer: Any) -> Any:
    """An example answer as JSON data: a Pydantic instance dumped in field order, anything else as is."""
    return answer.model_dump(mode="json") if isinstance(answer, BaseModel) else answer


@contextlib.contextmanager
def _progress(total: int, show: bool | None, name: str) -> Iterator[Any]:
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=f"extract {name}", unit="doc", disable=(None if show is None else not show))
    try:
        yield bar
    finally:
        bar.close()


_DEFAULTS: dict[tuple[str | None, str | None], Extractor] = {}
_LOCK = threading.Lock()


@overload
def extract(target: type[T], text: str, *, model: str | None = None, **kw: Any) -> T | Refusal: ...
@overload
def extract(target: dict[str, Any], text: str, *, model: str | None = None, **kw: Any) -> Any: ...


def extract(target: Any, text: str, *, model: str | None = None, device: str | None = None, **kw: Any) -> Any:
    """Extract `target` from `text` with a model loaded once per process (the embedded one by default)."""
    return _default(model, device).extract(target, text, **kw)


def extract_stream(target: Any, text: str, *, model: str | None = None, device: str | None = None,
                   **kw: Any) -> Iterator[Any]:
    """`Extractor.extract_stream` with the process-wide model: partial results, then the final one."""
    return _default(model, device).extract_stream(target, text, **kw)


def extract_many(target: Any, texts: Sequence[str], *, model: str | None = None, device: str | None = None,
                 **kw: Any) -> list[Any]:
    """`Extractor.extract_many` with the process-wide model: one result (or ExtractorError) per text."""
    return _default(model, device).extract_many(target, texts, **kw)


def _default(model: str | None, device: str | None) -> Extractor:
    with _LOCK:
        extractor = _DEFAULTS.get((model, device))
        if extractor is None:
            extractor = _DEFAULTS[(model, device)] = Extractor(model, device=device)
    return extractor


_TRIES: dict[str, TokenTrie] = {}


def _trie(vocab: Vocabulary) -> TokenTrie:
    """One trie per vocabulary per process: building it walks every token."""
    if vocab.fingerprint not in _TRIES:
        _TRIES[vocab.fingerprint] = TokenTrie(vocab)
    return _TRIES[vocab.fingerprint]


def _vocabulary(tokenizer: Any) -> Vocabulary:
    if isinstance(tokenizer, Vocabulary):
        return tokenizer
    if isinstance(tokenizer, (str, Path)):
        return Vocabulary.from_tokenizer_file(tokenizer)
    return Vocabulary.from_hf(tokenizer)
