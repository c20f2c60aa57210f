"""The transformers engine: a causal LM loaded in this process, its vocabulary, and grammars compiled for it (cached
per target), decoded by this library's masked loop (decode/loop.py). It implements `engine.Engine`."""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from extractor.masks.compiler import compile_schema
from extractor.decode.prompt import PromptTemplate, chat_prompt
from extractor.pipeline.engine import Control, Job, Offer
from extractor.errors import Attempt, ModelLoadError, UnsatisfiableSchemaError
from extractor.grammar import CompileOptions, Layout, LayoutName
from extractor.masks import CompiledGrammar
from extractor.pipeline.options import DEFAULT_LAYOUT, ExtractOptions, VerbatimMode
from extractor.pipeline.outcome import accepts
from extractor.pipeline.calibration import DOUBTFUL, VALUELESS
from extractor.pipeline.refusing import Screened
from extractor.schema import Refusal
from extractor.pipeline.target import Target, TextForm
from extractor.tokens import Vocabulary

if TYPE_CHECKING:
    from extractor.decode.loop import Generation

WINDOW_BATCH_TOKENS = 8_192
"""Tokens of window text decoded together: the key-value cache stays bounded whatever the window size (8 windows of
1,024 tokens, 1 of 8,192)."""


class TransformersEngine:
    """A model loaded once and reused; compiled schemas are cached per target."""

    retries_cut = True
    asks_apart = True
    batch_size: int | None = 8
    """Documents decoded together unless a call says otherwise."""

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

    @property
    def tokenizer(self) -> Any:
        return self.lm.tokenizer

    def compile(self, target: type[Any] | dict[str, Any], refusal: type[BaseModel] | None = Refusal,
                source: str | None = None, layout: Layout | LayoutName = DEFAULT_LAYOUT,
                verbatim: VerbatimMode = "marked") -> CompiledGrammar:
        """The grammar for a target (and refusal model), compiled once per Extractor and layout; a target
        with `Verbatim` fields is compiled per `source` document (only its verbatim rules are rebuilt: the
        others' automata are kept by structure); a recursive target nests at most as deeply as `source` is
        structured, compiled once per depth. `verbatim="auto"` makes the target's plain string fields `Verbatim`
        first; `"all"` also lets its plain number and date fields take only the values `source` writes,
        compiled per document (`Target.for_text`)."""
        return self._compiled(Target(target).for_text(source, verbatim), refusal, source, layout)

    def _compiled(self, form: TextForm, refusal: type[BaseModel] | None, source: str | None,
                  layout: Layout | LayoutName) -> CompiledGrammar:
        """The grammar of a target's form for `source`: compiled for it alone where it copies from it, else
        shared."""
        if form.per_document:
            try:
                return compile_schema(form.spec, self.vocab, refusal=refusal,
                                      options=CompileOptions(source=source, layout=layout, max_nesting=form.depth))
            except UnsatisfiableSchemaError as exc:
                raise UnsatisfiableSchemaError(
                    "nothing in the text can fill the target's required fields that come from it (Verbatim strings "
                    "no substring fits, or dates the text does not write); with the refusal branch on (the "
                    "default) the model would be made to decline") from exc
        try:
            return self._shared(form, refusal, layout)
        except UnsatisfiableSchemaError:
            if form.depth is None:
                raise
            return self._shared(replace(form, depth=None), refusal, layout)  # the schema needs deeper nesting

    def _shared(self, form: TextForm, refusal: type[BaseModel] | None, layout: Layout | LayoutName) -> CompiledGrammar:
        """A grammar that copies nothing from its text, compiled once per schema, refusal, layout and depth."""
        key = (form.key, refusal, layout, form.depth)
        if key not in self._grammars:
            options = CompileOptions(layout=layout, max_nesting=form.depth)
            self._grammars[key] = compile_schema(form.spec, self.vocab, refusal=refusal, options=options)
        return self._grammars[key]

    def context(self) -> int | None:
        """The model's context in tokens, where its config says."""
        limit = getattr(getattr(self.lm.model, "config", None), "max_position_embeddings", None)
        return limit if isinstance(limit, int) else None

    def prompt_ids(self, schema: Any, text: str, attempts: Sequence[Attempt],
                   opts: ExtractOptions | None = None) -> list[int]:
        """The chat prompt's token ids for a JSON Schema, earlier failed attempts and their errors as turns."""
        return chat_prompt(self.lm.tokenizer, self.template, schema, text, attempts, opts or ExtractOptions())

    def relevance(self, target: Any, text: str, *, enough: float | None = None) -> float:
        """How much likelier the model finds `text` announced as the target than as another kind of document
        (log-likelihood ratio in nats; see decode/relevance.py): high for a résumé given `Resume`, low for a
        poem. With `enough`, a lower bound at or above it may come back instead (fewer rows read)."""
        from extractor.decode.relevance import score

        schema = Target(target).schema
        return score(self.lm, schema if isinstance(schema, dict) else {}, text, enough=enough)

    def relevance_scores(self, target: Any, texts: list[str]) -> list[float]:
        return [self.relevance(target, text) for text in texts]

    def screens(self, target: Target, texts: Sequence[str], opts: ExtractOptions) -> list[Screened | None]:
        """The relevance screen's reading of each text, where a refusal branch is offered and the screen is on:
        read as far as `min_relevance` needs (the target's own rows alone where they clear it); where answers are
        checked or texts writing no value asked for refused, and the reading is below DOUBTFUL (or VALUELESS), the
        rest is read only where that decision needs it."""
        if opts.refusal_model is None or opts.min_relevance is None:
            return [None] * len(texts)
        from extractor.decode.relevance import likeliest, score

        schema = target.schema
        spec = schema if isinstance(schema, dict) else {}
        readings: list[Screened | None] = []
        for text in texts:
            value = score(self.lm, spec, text, enough=opts.min_relevance)
            kind = likeliest(self.lm, spec, text) if value < opts.min_relevance and isinstance(schema, dict) else None
            decides = opts.max_unfounded is not None or opts.require_values
            doubtful = decides and opts.min_relevance <= value < max(DOUBTFUL, VALUELESS)
            readings.append(Screened(value, target.title, kind, partial(score, self.lm, spec, text) if doubtful
                                     else None))
        return readings

    def grammar(self, target: Target, text: str, offer: Offer, opts: ExtractOptions) -> CompiledGrammar:
        """The compiled grammar one text is decoded with."""
        if offer == "refusal":
            return self.compile(opts.refusal_model, None, layout=opts.layout)
        refusal = opts.refusal_model if offer == "both" else None
        return self._compiled(target.for_text(text, opts.verbatim), refusal, text, opts.layout)

    def is_target(self, target: Target, text: str, opts: ExtractOptions) -> Callable[[bytes], bool] | None:
        """For a dict target with a refusal branch: whether the target alone (no refusal) accepts an output,
        its grammar compiled only when an output looks like a refusal."""
        if not (opts.constrained and opts.refusal_model is not None and isinstance(target.spec, dict)):
            return None
        return lambda data: accepts(self.grammar(target, text, "target", opts), data)

    def generate(self, jobs: Sequence[Job], opts: ExtractOptions, control: Control) -> list[Generation]:
        """One batch of documents, each with its own matcher and guards (strings bounded by its text, tightened
        after a cut attempt); a document whose fields are asked apart is a batch of its own, its fields' rows
        sharing its text's prompt (fed once, its key-value cache copied to each row)."""
        from extractor.decode import loop

        whole = [k for k, j in enumerate(jobs) if not j.parts]
        out = dict(zip(whole, self._rows([jobs[k] for k in whole], opts, control, loop.generate_many)))
        for k, job in enumerate(jobs):
            if job.parts:
                out[k] = job.join(self._rows(job.parts, opts, control, loop.generate_many))
        return [out[k] for k in range(len(jobs))]

    def _rows(self, jobs: Sequence[Job], opts: ExtractOptions, control: Control, run: Callable[..., Any]) -> Any:
        """`run` (the loop's `generate_many` or its stepping form) over jobs decoded as rows of one batch."""
        if not jobs:
            return []
        return run(self.lm, self.vocab, [j.prompt for j in jobs],
                   [control.matcher(j.grammar) if j.grammar else None for j in jobs], opts.decoding(),
                   guards=[opts.guards_for(j.text, j.tight, j.repeatable) for j in jobs], sources=[j.text for j in jobs])

    def stepping(self, job: Job, opts: ExtractOptions, control: Control) -> Generator[None, None, Generation]:
        """One document decoded a forward pass per step (its fields, asked apart, as rows of one batch)."""
        from extractor.decode.loop import generating, generating_many

        if job.parts:
            return _joined(job, self._rows(job.parts, opts, control, generating_many))
        matcher = None if job.grammar is None else control.matcher(job.grammar)
        return generating(self.lm, self.vocab, job.prompt, matcher, max_tokens=opts.max_tokens,
                          sampling=opts.sampling(), jump_forward=opts.jump_forward,
                          guards=opts.guards_for(job.text, job.tight, job.repeatable), source=job.text)

    def window_batch(self, tokens: int) -> dict[str, Any]:
        """How many windows of `tokens` tokens decode together: as many as hold `WINDOW_BATCH_TOKENS` of text, so
        the key-value cache stays bounded whatever the window size."""
        return {"batch_size": max(1, min(8, WINDOW_BATCH_TOKENS // max(1, tokens)))}


def _joined(job: Job, steps: Generator[None, None, list[Generation]]) -> Generator[None, None, Generation]:
    """The parts' stepping decoding, then their generations joined as the job's."""
    gens = yield from steps
    return job.join(gens)
