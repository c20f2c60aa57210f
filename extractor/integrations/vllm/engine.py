"""`VLLMExtractor`: the `extract` API on a vLLM engine. Prompts, parsing, Pydantic validation, checks, retries
with the errors fed back, and `Refusal` are the library's own; decoding is vLLM's (continuous batching, its
KV cache, parallelism), masked by the extractor backend."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from extractor.decode.guards import Guards
from extractor.decode.loop import Generation
from extractor.decode.prompt import PromptTemplate, chat_prompt
from extractor.pipeline.engine import Control, Job, Offer
from extractor.errors import Attempt, ExtractorError, InputError, Usage
from extractor.integrations.vllm.plugin import ENV, register
from extractor.integrations.vllm.spec import with_options
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.outcome import accepts
from extractor.pipeline.refusing import Screened
from extractor.pipeline.rounds import extract_many
from extractor.schema import Refusal, values_from_text
from extractor.pipeline.target import Target


class VLLMExtractor:
    """A vLLM engine loaded once; `extract_many` hands every document to vLLM's scheduler at once.

    The relevance screen is `extract`'s (decode/relevance.py), read off vLLM's prompt log-probabilities. What
    differs: no jump-forward (vLLM samples forced tokens one by one), and the default `Guards` only, with
    `wrap_up` on from the first attempt (the plugin tells each grammar its request's `max_tokens`), so an
    output ends complete within the budget instead of being cut and retried; with `guards=False` a cut output
    is not retried, its `IncompleteOutputError` is returned (or raised by `extract`)."""

    retries_cut = False
    """A cut output is returned as its error: the default guards' `wrap_up` ends outputs within the budget."""
    batch_size: int | None = None
    """vLLM's scheduler batches the documents itself."""
    asks_apart = False
    """`fields="apart"` is refused: the server keeps no text prefix to share between one text's questions."""

    def __init__(self, model: str | None = None, *, template: PromptTemplate = PromptTemplate(),
                 **engine: Any) -> None:
        os.environ[ENV] = "1"  # read by the plugin in this process and in the engine's workers
        register()
        from vllm import LLM

        if model is None:  # the embedded model, in float32 as the relevance threshold was calibrated
            from extractor.decode.model import embedded_path

            model = embedded_path()
            engine.setdefault("dtype", "float32")
        self.llm = LLM(model=model, **engine)
        self.tokenizer = self.llm.get_tokenizer()
        self.template = template
        self._vocab: Any = None

    def extract(self, target: Any, text: str, options: ExtractOptions | None = None, **kw: Any) -> Any:
        """One document; raises where `extract_many` would put an error in the slot."""
        [result] = self.extract_many(target, [text], options, **kw)
        if isinstance(result, ExtractorError):
            raise result
        return result

    def extract_many(self, target: Any, texts: Sequence[str], options: ExtractOptions | None = None, *,
                     on_attempt: Callable[[int, Attempt], None] | None = None, with_usage: bool = False,
                     with_trace: bool = False, progress: bool | None = None, **overrides: Any) -> list[Any]:
        """One entry per text, as `Extractor.extract_many` returns them (errors in their slots), with the same
        `ExtractOptions` (`jump_forward` has no effect here; `guards` is True or False; no `messages`). With a
        refusal branch and `min_relevance`, each text is screened first, as by `extract`: below it the text is
        refused without decoding (the `Refusal` says why), at or above it only the target may be written, and an
        answer of doubtful relevance whose identifying values the text holds nowhere is refused (`max_unfounded`).
        `with_trace=True` makes each result a `Traced` (vLLM does not draft from the text, so values are found,
        never reported as copied). A text longer than the engine's `max_model_len` (or `window`) is read in
        windows and merged, as `Extractor` reads it. `progress` shows vLLM's own bar for each generate call (None:
        only on a terminal)."""
        opts = ExtractOptions.of(options, overrides)
        if opts.refusal_model not in (None, Refusal):
            raise InputError("VLLMExtractor offers the library's own Refusal model or none (refusal=True or False)")
        if isinstance(opts.guards, Guards) or opts.messages is not None:
            raise InputError("VLLMExtractor takes guards=True or False (the defaults or none) and no messages")
        return extract_many(self, Target(target, opts), texts, opts, batch_size=None, progress=progress,
                            on_attempt=on_attempt, with_usage=with_usage, with_trace=with_trace)

    def prompt_ids(self, schema: Any, text: str, attempts: Sequence[Attempt], opts: ExtractOptions) -> list[int]:
        """The chat prompt's token ids for a JSON Schema, as `Extractor` writes it."""
        return chat_prompt(self.tokenizer, self.template, schema, text, attempts, opts)

    def context(self) -> int | None:
        """The engine's `max_model_len`."""
        engine = self.llm.llm_engine
        config = getattr(engine, "model_config", None) or engine.vllm_config.model_config
        return int(config.max_model_len)

    def relevance_scores(self, target: Any, texts: list[str]) -> list[float]:
        return self.relevance(target, texts)

    def window_batch(self, tokens: int) -> dict[str, Any]:
        """vLLM schedules the windows itself, within its own key-value cache."""
        return {}

    def screens(self, target: Target, texts: Sequence[str], opts: ExtractOptions) -> list[Screened | None]:
        """The relevance screen's reading of each text, where a refusal branch is offered and the screen is on (as
        `extract` screens), every text in one batch."""
        if opts.refusal_model is None or opts.min_relevance is None or not texts:
            return [None] * len(texts)
        readings = self.relevance(target.spec, list(texts), kinds=True)
        return [Screened(score, target.title, kind if score < opts.min_relevance else None)
                for score, kind in readings]

    def grammar(self, target: Target, text: str, offer: Offer, opts: ExtractOptions) -> dict[str, Any]:
        """The schema a document is decoded with, as a request to the extractor backend: the target and the refusal
        object, or, after the relevance screen, the target alone; with `verbatim="all"`, its number and date fields
        narrowed to the document's values (a plain `enum`, which the backend compiles without the document)."""
        schema = target.schema
        own = values_from_text(schema, text) if opts.verbatim == "all" and isinstance(schema, dict) else schema
        return with_options(own, refusal=offer == "both" and opts.refusal_model is not None, layout=opts.layout,
                            guards=opts.guards)

    def generate(self, jobs: Sequence[Job], opts: ExtractOptions, control: Control) -> list[Generation]:
        """One attempt of every job in one generate call, vLLM's scheduler batching them."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt
        from vllm.sampling_params import StructuredOutputsParams

        prompts = [TokensPrompt(prompt_token_ids=job.prompt) for job in jobs]
        params = [SamplingParams(max_tokens=opts.max_tokens, temperature=opts.temperature, top_p=opts.top_p,
                                 top_k=opts.top_k, seed=opts.seed, repetition_penalty=opts.repetition_penalty,
                                 structured_outputs=None if job.grammar is None else
                                 StructuredOutputsParams(json=job.grammar)) for job in jobs]
        start = time.perf_counter()
        shown = sys.stderr.isatty() if control.progress is None else control.progress
        outputs = self.llm.generate(prompts, params, use_tqdm=shown)
        seconds = (time.perf_counter() - start) / len(jobs)  # the batch's time shared out
        return [_generation(out, seconds) for out in outputs]

    def relevance(self, target: Any, texts: Sequence[str], *, kinds: bool = False) -> list[Any]:
        """`Extractor.relevance` for each text: the announcements' likelihoods of the text's opening, read off
        vLLM's prompt log-probabilities (every row of every text in one batch). With `kinds`, each score comes
        with the kind of document the text reads most like."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        from extractor.decode.relevance import KINDS, SCREEN_TOKENS, announcements, combine

        schema = Target(target).schema
        said = [self.tokenizer(p, add_special_tokens=False)["input_ids"] for p in
                announcements(schema if isinstance(schema, dict) else {})]
        bodies = [self.tokenizer(t, add_special_tokens=False, split_special_tokens=True)["input_ids"][:SCREEN_TOKENS]
                  for t in texts]
        prompts = [TokensPrompt(prompt_token_ids=p + body) for body in bodies for p in said]
        outs = iter(self.llm.generate(prompts, SamplingParams(max_tokens=1, prompt_logprobs=0), use_tqdm=False))
        scores = []
        for body in bodies:
            rows = []
            for p in said:
                logprobs = next(outs).prompt_logprobs
                rows.append(sum(logprobs[len(p) + k][token].logprob for k, token in enumerate(body)))
            score = combine(rows, tokens=len(body))
            scores.append((score, KINDS[max(range(len(KINDS)), key=lambda k: rows[3 + k])]) if kinds else score)
        return scores

    def is_target(self, target: Target, text: str, opts: ExtractOptions) -> Callable[[bytes], bool] | None:
        """For a dict target with a refusal branch: whether the target alone accepts an output (its grammar
        compiled only when an output looks like a refusal), to tell a refusal-shaped answer from a refusal."""
        from extractor.masks.compiler import compile_schema
        from extractor.grammar import CompileOptions
        from extractor.tokens import Vocabulary

        schema = target.schema
        if not (opts.constrained and opts.refusal_model is not None and isinstance(schema, dict)):
            return None
        if self._vocab is None:
            self._vocab = Vocabulary.from_hf(self.tokenizer)
        return lambda data: accepts(compile_schema(schema, self._vocab, options=CompileOptions(layout=opts.layout)),
                                    data)


def _generation(out: Any, seconds: float) -> Generation:
    """vLLM's request output as one attempt of the decoding loop."""
    done = out.outputs[0]
    usage = Usage(prompt_tokens=len(out.prompt_token_ids or ()), completion_tokens=len(done.token_ids),
                  forward_passes=len(done.token_ids), seconds=seconds,
                  cached_tokens=getattr(out, "num_cached_tokens", None) or 0)  # its prefix cache's hits
    return Generation(done.text, done.text.encode(), list(done.token_ids), complete=done.finish_reason == "stop",
                      usage=usage)
