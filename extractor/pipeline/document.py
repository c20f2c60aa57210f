"""One document's steps, written once: checked → screened → its grammar → decoded (by the engine) → outcome →
judged (checks, the answer against the text) → traced and returned. The rounds in `rounds.py` and `batch.py` drive
these steps for one document, a batch, a stream or a long text's windows, on any `Engine`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from extractor.pipeline.engine import Control, Engine, Job, Offer
from extractor.pipeline.fields import Asked, Part, split
from extractor.errors import Attempt, ExtractionError, InputError, UnsatisfiableSchemaError
from extractor.pipeline.grounding import Grounding
from extractor.pipeline.inputs import nonempty
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.outcome import Cut, Invalid, outcome, returned
from extractor.pipeline.refusing import Screened, before_decoding, checks_answer, judged
from extractor.schema import Refusal
from extractor.pipeline.target import Target
from extractor.tracing import Trace

if TYPE_CHECKING:
    from extractor.decode.loop import Generation


@dataclass
class Document:
    """One text on its way through the pipeline: its screen, attempts and what it came to."""

    index: int
    """Its place among the call's texts."""
    text: str
    attempts: list[Attempt] = field(default_factory=list)
    screen: Screened | None = None
    result: Any = None
    """The value returned for it, or the `ExtractorError` in its slot; None while it is still decoded."""
    asked: Asked | None = None
    """Its fields' answers and attempts where they are asked apart (`fields="apart"`)."""


@dataclass(frozen=True)
class Apart:
    """A document's grammars where its fields are asked apart: one per field, by name."""

    grammars: dict[str, Any]


@dataclass(frozen=True)
class Settled:
    """What an attempt means for its document: done (its result recorded), or to be decoded again."""

    retry: bool


class Pipeline:
    """One call's steps for each of its documents: one engine, target and options."""

    def __init__(self, engine: Engine, target: Target, opts: ExtractOptions, *, with_trace: bool = False,
                 on_attempt: Callable[[int, Attempt], None] | None = None, control: Control = Control()) -> None:
        self.engine, self.target, self.opts = engine, target, opts
        self.with_trace, self.on_attempt, self.control = with_trace, on_attempt, control
        if opts.fields == "apart" and not getattr(engine, "asks_apart", False):
            raise InputError(f"fields='apart' needs an engine that decodes a document's fields together; "
                             f"{type(engine).__name__} does not: use fields='together'")
        if opts.fields == "apart" and control.watch is not None:
            raise InputError("fields='apart' cannot be streamed (a stream's partial objects are one answer's): "
                             "use fields='together'")

    @cached_property
    def parts(self) -> tuple[Part, ...]:
        """The target's fields asked apart, where `fields="apart"` and the target splits (else ())."""
        return split(self.target) if self.opts.fields == "apart" else ()

    def prompt(self, doc: Document) -> list[int]:
        """The document's next prompt, earlier failed attempts as turns."""
        return self.engine.prompt_ids(self.target.schema, doc.text, doc.attempts, self.opts)

    def fits(self, prompt: list[int]) -> None:
        """Refuse before generating when the prompt alone overflows the model's context."""
        limit = self.engine.context()
        if limit is not None and len(prompt) >= limit:
            raise InputError(f"the prompt is {len(prompt)} tokens but the model's context is {limit} tokens; "
                             f"shorten the text (the answer needs up to max_tokens={self.opts.max_tokens} more)")

    def admit(self, index: int, text: str) -> Document:
        """A document whose text can be extracted from and whose first prompt fits (else InputError)."""
        nonempty(text)
        doc = Document(index, text)
        self.fits(self.prompt(doc))
        return doc

    def screen(self, docs: list[Document]) -> None:
        """The relevance screen's reading of each document; one that does not read as the target gets the library's
        `Refusal` saying why (no answer, nothing decoded)."""
        if not (docs and self.opts.constrained):
            return
        for doc, screen in zip(docs, self.engine.screens(self.target, [d.text for d in docs], self.opts)):
            doc.screen = screen
            if screen is None or self.opts.refusal_model is not Refusal:
                continue
            reason = before_decoding(screen, self.target.schema, doc.text, self.opts.min_relevance,
                                     self.opts.require_values)
            if reason is not None:
                doc.result = returned(Refusal(error=reason), Trace(), [], self.with_trace, False)

    def grammar(self, doc: Document) -> Any:
        """The grammar the document is decoded with: target and refusal, or after the screen, one of them."""
        if not self.opts.constrained:
            return None
        offer = self._offer(doc.screen)
        if self.parts and offer != "refusal":
            try:
                return Apart({p.name: self.engine.grammar(p.target, doc.text, offer, self.opts) for p in self.parts})
            except UnsatisfiableSchemaError:
                if offer == "both":
                    raise
                offer = "refusal"  # a required field no substring of the text fits: the refusal is all
        if offer == "target":
            try:
                return self.engine.grammar(self.target, doc.text, offer, self.opts)
            except UnsatisfiableSchemaError:
                offer = "refusal"  # no substring of the text fits a required Verbatim field: the refusal is all
        return self.engine.grammar(self.target, doc.text, offer, self.opts)

    def _offer(self, screen: Screened | None) -> Offer:
        if self.opts.refusal_model is None or screen is None:
            return "both"
        return "target" if screen.score >= self.opts.min_relevance else "refusal"

    def job(self, doc: Document, prompt: list[int], grammar: Any) -> Job:
        """The document's next attempt for the engine: guards tightened after a cut attempt; its fields asked
        apart where its grammar is theirs (`Apart`)."""
        tight = bool(doc.attempts) and doc.attempts[-1].cut
        if not isinstance(grammar, Apart):
            return Job(prompt, grammar, doc.text, tight, self.target.repeatable)
        doc.asked = doc.asked or Asked(self.parts)
        asked = doc.asked.again(doc.attempts[-1] if doc.attempts else None)
        parts = tuple(Job(self.engine.prompt_ids(p.target.schema, doc.text, doc.asked.history.get(p.name, []),
                                                 self.opts), grammar.grammars[p.name], doc.text, tight,
                          p.target.repeatable) for p in asked)
        return Job(prompt, None, doc.text, tight, self.target.repeatable, parts, partial(doc.asked.joined, asked))

    def settle(self, doc: Document, gen: Generation) -> Settled:
        """The attempt's outcome judged and recorded on the document: its result, or its error and whether the
        document is decoded again (an invalid output is; a cut one where the engine retries cut outputs)."""
        guards = self.opts.guards_for(doc.text, repeatable=self.target.repeatable)
        grounding = Grounding(self.target.spec, doc.text, self.opts.grounding,
                              keep=self.with_trace or checks_answer(doc.screen, self.opts), verbatim=self.opts.verbatim,
                              repeatable=guards.repeatable if self.opts.constrained and guards.fresh_items else None)
        is_target = self.engine.is_target(self.target, doc.text, self.opts)
        attempt, came = outcome(self.target.spec, self.opts.refusal_model, gen, doc.attempts, self.opts.max_tokens,
                                self.target.checks, is_target, grounding)
        doc.attempts.append(attempt)
        if self.on_attempt is not None:
            self.on_attempt(doc.index, attempt)
        if isinstance(came, Invalid):
            doc.result = ExtractionError(doc.attempts)
            return Settled(retry=True)
        if isinstance(came, Cut):
            doc.result = came.error
            return Settled(retry=self.opts.constrained and self.engine.retries_cut)
        result, found = judged(came.result, came.trace, doc.screen, self.target.spec, self.opts)
        doc.result = returned(result, found, doc.attempts, self.with_trace, False)
        return Settled(retry=False)
