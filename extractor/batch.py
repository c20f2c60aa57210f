"""`Extractor.extract_many`'s rounds: every pending document decoded `batch_size` at a time, each round one
attempt of tenacity's retry policy, errors kept in their documents' slots."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from extractor.checks import model_checks
from extractor.errors import Attempt, ExtractionError, ExtractorError, IncompleteOutputError, InputError
from extractor.inputs import guards_for, nonempty
from extractor.masks import CompiledGrammar, Matcher
from extractor.options import ExtractOptions
from extractor.grounding import Grounding
from extractor.outcome import Invalid, outcome, retrying, returned, total
from extractor.refusing import Screened, checks_answer, judged, screened_out
from extractor.schema import Refusal
from extractor.tracing import Trace

if TYPE_CHECKING:
    from extractor.decode.loop import Generation


class Engine(Protocol):
    """What a batch uses of the `Extractor` running it (named here so this layer imports nothing above it)."""

    lm: Any
    vocab: Any

    def _fits(self, *args: Any, **kw: Any) -> Any: ...
    def _prompt(self, *args: Any, **kw: Any) -> Any: ...
    def _screen(self, *args: Any, **kw: Any) -> Any: ...
    def _grammar(self, *args: Any, **kw: Any) -> Any: ...
    def _is_target(self, *args: Any, **kw: Any) -> Any: ...


class Batch:
    """One `extract_many` call: its documents' prompts, grammars, attempts and results."""

    def __init__(self, ex: Engine, target: Any, texts: Sequence[str], options: ExtractOptions, batch_size: int,
                 on_attempt: Callable[[int, Attempt], None] | None,
                 matcher: Callable[[CompiledGrammar], Matcher] = CompiledGrammar.matcher,
                 with_trace: bool = False) -> None:
        self.ex, self.target, self.texts, self.options = ex, target, texts, options
        self.batch_size, self.on_attempt, self.matcher, self.with_trace = batch_size, on_attempt, matcher, with_trace
        self.checks = [*model_checks(target), *options.checks]
        self.attempts: list[list[Attempt]] = [[] for _ in texts]
        self.results: list[Any] = [None] * len(texts)
        self.grammars: dict[int, CompiledGrammar | None] = {}
        """Each document's grammar while it is decoded: compiled as its batch comes up, dropped once its attempt is
        decoded, compiled again for a retry (a grammar compiled per document, with copies of its text, can take tens
        of MB: a long text's cut windows, kept for retries that never came, held them all)."""
        self.screens: dict[int, Screened | None] = {}
        for i, text in enumerate(texts):
            try:
                nonempty(text)
                ex._fits(ex._prompt(target, text, [], options), options.max_tokens)
                screen = self.screens[i] = ex._screen(target, text, options) if options.constrained else None
                if screen is not None and screen.score < options.min_relevance and options.refusal_model is Refusal:
                    declined = Refusal(error=screened_out(screen, options.min_relevance))
                    self.results[i] = returned(declined, Trace(), [], with_trace, False)  # no answer: said so
            except ExtractorError as exc:  # this document only: the others still run
                self.results[i] = exc

    def run(self, progress: bool | None, with_usage: bool) -> list[Any]:
        """Rounds until no document is left to retry or the retry policy stops; one entry per text."""
        pending = [i for i, r in enumerate(self.results) if r is None]
        with _progress(len(self.texts), progress, getattr(self.target, "__name__", "extract")) as bar:
            bar.update(len(self.texts) - len(pending))
            try:
                for attempt in retrying(self.options.max_retries):  # one round per attempt
                    with attempt:
                        pending = self.round(pending, bar)
                        if pending:
                            raise Invalid()
            except Invalid:
                pass  # retries spent: each pending document keeps its last error
            bar.update(len(pending))
        if with_usage:
            return [(r, total(a)) for r, a in zip(self.results, self.attempts)]
        return self.results

    def round(self, pending: list[int], bar: Any) -> list[int]:
        """One attempt for every pending document, `batch_size` at a time; the documents to retry."""
        prompts = {}
        for i in list(pending):
            prompts[i] = self.ex._prompt(self.target, self.texts[i], self.attempts[i], self.options)
            try:
                self.ex._fits(prompts[i], self.options.max_tokens)
            except InputError as exc:
                self.results[i] = exc
                pending.remove(i)
                bar.update(1)
        pending.sort(key=lambda i: len(prompts[i]))  # similar lengths together: less padding
        retry = []
        for chunk in (pending[k:k + self.batch_size] for k in range(0, len(pending), self.batch_size)):
            failed = [i for i in chunk if not self.compiled(i)]
            bar.update(len(failed))
            chunk = [i for i in chunk if i not in failed]
            for i, gen in zip(chunk, self.decode(chunk, prompts)):
                self.grammars.pop(i, None)  # a retry compiles it again: kept, it would stay through every round
                if self.settle(i, gen):
                    retry.append(i)
                else:
                    bar.update(1)
        return retry

    def compiled(self, i: int) -> bool:
        """Document i's grammar ready (compiled where it is not yet); False, its error recorded, where it cannot
        be compiled (this document only: the others still run)."""
        if i not in self.grammars:
            try:
                self.grammars[i] = self.ex._grammar(self.target, self.texts[i], self.options, self.screens.get(i)) \
                    if self.options.constrained else None
            except ExtractorError as exc:
                self.results[i] = exc
                return False
        return True

    def decode(self, chunk: list[int], prompts: dict[int, list[int]]) -> list[Generation]:
        """One batch of documents, each with its own matcher and guards (strings bounded by its text, tightened
        after a cut attempt)."""
        from extractor.decode.loop import generate_many, jump_forward_options

        opts = self.options
        loop = replace(jump_forward_options(opts.jump_forward), max_tokens=opts.max_tokens, sampling=opts.sampling())
        cut = [bool(self.attempts[i]) and self.attempts[i][-1].cut for i in chunk]
        return generate_many(self.ex.lm, self.ex.vocab, [prompts[i] for i in chunk],
                             [self.matcher(g) if (g := self.grammars[i]) else None for i in chunk], loop,
                             guards=[guards_for(opts.guards, self.texts[i], c) for i, c in zip(chunk, cut)],
                             sources=[self.texts[i] for i in chunk])

    def settle(self, i: int, gen: Generation) -> bool:
        """Record document i's attempt; True when it is to be retried."""
        screen = self.screens.get(i)
        grounding = Grounding(self.target, self.texts[i], self.options.grounding,
                              keep=self.with_trace or checks_answer(screen, self.options))
        try:
            result, found = outcome(self.target, self.options.refusal_model, gen, self.attempts[i],
                                    self.options.max_tokens, self.checks,
                                    self.ex._is_target(self.target, self.texts[i], self.options), grounding)
            result, found = judged(result, found, screen, self.target, self.options)
            self.results[i] = returned(result, found, self.attempts[i], self.with_trace, False)
        except Invalid:
            self.results[i] = ExtractionError(self.attempts[i])
            return True
        except IncompleteOutputError as exc:
            self.results[i] = exc
            return self.options.constrained  # retried with tightened guards
        except ExtractorError as exc:
            self.results[i] = exc
        finally:
            if self.on_attempt is not None and self.attempts[i]:
                self.on_attempt(i, self.attempts[i][-1])
        return False


@contextlib.contextmanager
def _progress(total: int, show: bool | None, name: str) -> Iterator[Any]:
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=f"extract {name}", unit="doc", disable=(None if show is None else not show))
    try:
        yield bar
    finally:
        bar.close()
