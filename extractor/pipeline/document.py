"""One document's steps, written once: checked → screened → its grammar → decoded (by the engine) → outcome →
judged (checks, the answer against the text) → traced and returned. The rounds in `rounds.py` and `batch.py` drive
these steps for one document, a batch, a stream or a long text's windows, on any `Engine`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from extractor.pipeline.engine import Control, Engine, Job, Offer
from extractor.errors import Attempt, ExtractionError, InputError, UnsatisfiableSchemaError
from extractor.pipeline.grounding import Grounding
from extractor.pipeline.inputs import nonempty
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.outcome import Cut, Invalid, outcome, returned
from extractor.pipeline.refusing import Screened, checks_answer, judged, screened_out
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
            if screen is not None and screen.score < self.opts.min_relevance and self.opts.refusal_model is Refusal:
                declined = Refusal(error=screened_out(screen, self.opts.min_relevance))
                doc.result = returned(declined, Trace(), [], self.with_trace, False)

    def grammar(self, doc: Document) -> Any:
        """The grammar the document is decoded with: target and refusal, or after the screen, one of them."""
        if not self.opts.constrained:
            return None
        offer = self._offer(doc.screen)
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
        """The document's next attempt for the engine: guards tightened after a cut attempt."""
        return Job(prompt, grammar, doc.text, bool(doc.attempts) and doc.attempts[-1].cut, self.target.repeatable)

    def settle(self, doc: Document, gen: Generation) -> Settled:
        """The attempt's outcome judged and recorded on the document: its result, or its error and whether the
        document is decoded again (an invalid output is; a cut one where the engine retries cut outputs)."""
        grounding = Grounding(self.target.spec, doc.text, self.opts.grounding,
                              keep=self.with_trace or checks_answer(doc.screen, self.opts))
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
