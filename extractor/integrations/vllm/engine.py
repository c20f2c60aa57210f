"""`VLLMExtractor`: the `extract` API on a vLLM engine. Prompts, parsing, Pydantic validation, checks, retries
with the errors fed back, and `Refusal` are the library's own; decoding is vLLM's (continuous batching, its
KV cache, parallelism), masked by the extractor backend."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from extractor.checks import model_checks
from extractor.decode.guards import Guards
from extractor.decode.loop import Generation
from extractor.decode.prompt import PromptTemplate, chat_prompt
from extractor.errors import Attempt, ExtractionError, ExtractorError, InputError, Usage
from extractor.inputs import nonempty
from extractor.integrations.vllm.plugin import ENV, register
from extractor.integrations.vllm.spec import with_options
from extractor.options import ExtractOptions
from extractor.grounding import Grounding
from extractor.outcome import Invalid, accepts, outcome, retrying, returned, total
from extractor.refusing import Screened, checks_answer, judged, screened_out, title
from extractor.schema import Refusal, json_schema
from extractor.schema.numbers import numbers_from_text
from extractor.tracing import Trace
from extractor.windowed import read_in_windows, window_size


class VLLMExtractor:
    """A vLLM engine loaded once; `extract_many` hands every document to vLLM's scheduler at once.

    The relevance screen is `extract`'s (decode/relevance.py), read off vLLM's prompt log-probabilities. What
    differs: no jump-forward (vLLM samples forced tokens one by one), and the default `Guards` only, with
    `wrap_up` on from the first attempt (the plugin tells each grammar its request's `max_tokens`), so an
    output ends complete within the budget instead of being cut and retried; with `guards=False` a cut output
    is not retried, its `IncompleteOutputError` is returned (or raised by `extract`)."""

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
        `with_trace=True` makes each result a `Traced` (vLLM does not draft from the text, so values are found, never reported as copied). A text longer
        than the engine's `max_model_len` (or `window`) is read in windows and merged, as `Extractor` reads it.
        `progress` shows vLLM's own bar for each generate call (None: only on a terminal)."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt
        from vllm.sampling_params import StructuredOutputsParams

        opts = ExtractOptions.of(options, overrides)
        refusal_model = opts.refusal_model
        if refusal_model not in (None, Refusal):
            raise InputError("VLLMExtractor offers the library's own Refusal model or none (refusal=True or False)")
        if isinstance(opts.guards, Guards) or opts.messages is not None:
            raise InputError("VLLMExtractor takes guards=True or False (the defaults or none) and no messages")
        schema, every = json_schema(target), [*model_checks(target), *opts.checks]
        attempts: list[list[Attempt]] = [[] for _ in texts]
        results: list[Any] = [None] * len(texts)
        pending = _usable(texts, results)
        for i, size in self._long(target, texts, pending, opts).items():  # longer than a window: read in windows
            pending.remove(i)
            kept = (lambda a, i=i: (attempts[i].append(a), on_attempt and on_attempt(i, a)))
            try:
                results[i] = read_in_windows(self, target, texts[i], opts, size, with_trace=with_trace,
                                             on_attempt=kept)
            except ExtractorError as exc:
                results[i] = exc
        screens = self._screens(target, texts, pending, opts)
        for i, screen in screens.items():
            if screen.score < opts.min_relevance:  # no answer: said so, nothing decoded
                declined = Refusal(error=screened_out(screen, opts.min_relevance))
                results[i] = returned(declined, Trace(), [], with_trace, False)
                pending.remove(i)
        requests = self._requests(schema, texts, pending, screens, opts)

        def round_(pending: list[int]) -> list[int]:
            """One attempt for every pending document in one generate call; the documents to retry."""
            prompts = [TokensPrompt(prompt_token_ids=self._prompt(target, texts[i], attempts[i], opts))
                       for i in pending]
            params = [SamplingParams(max_tokens=opts.max_tokens, temperature=opts.temperature, top_p=opts.top_p,
                                     top_k=opts.top_k, seed=opts.seed, repetition_penalty=opts.repetition_penalty,
                                     structured_outputs=StructuredOutputsParams(json=requests[i])
                                     if opts.constrained else None) for i in pending]
            start = time.perf_counter()
            outputs = self.llm.generate(prompts, params, use_tqdm=sys.stderr.isatty() if progress is None else progress)
            seconds = (time.perf_counter() - start) / len(pending)  # the batch's time shared out
            retry = []
            for i, out in zip(pending, outputs):
                screen = screens.get(i)
                grounding = Grounding(target, texts[i], opts.grounding, keep=with_trace or checks_answer(screen, opts))
                try:
                    result, found = outcome(target, refusal_model, _generation(out, seconds), attempts[i],
                                            opts.max_tokens, every, self._is_target(schema, opts), grounding)
                    result, found = judged(result, found, screen, target, opts)
                    results[i] = returned(result, found, attempts[i], with_trace, False)
                except Invalid:
                    results[i], _ = ExtractionError(attempts[i]), retry.append(i)
                except ExtractorError as exc:  # IncompleteOutputError (guards off): not retried
                    results[i] = exc
                if on_attempt is not None:
                    on_attempt(i, attempts[i][-1])
            return retry

        try:
            for attempt in retrying(opts.max_retries):  # the same retry path as Extractor.extract_many: rounds
                with attempt:
                    pending = round_(pending) if pending else pending
                    if pending:
                        raise Invalid()
        except Invalid:
            pass  # retries spent: each pending document keeps its last error
        if with_usage:
            return [(r, total(a)) for r, a in zip(results, attempts)]
        return results

    def _long(self, target: Any, texts: Sequence[str], pending: list[int], opts: ExtractOptions) -> dict[int, int]:
        """The texts longer than a window, with their window size."""
        if not opts.constrained:
            return {}
        sizes = {i: window_size(self, target, texts[i], opts, self._prompt(target, texts[i], [], opts))
                 for i in pending}
        return {i: size for i, size in sizes.items() if size is not None}

    def _prompt(self, target: Any, text: str, attempts: list[Attempt], opts: ExtractOptions) -> list[int]:
        return chat_prompt(self.tokenizer, self.template, target, text, attempts, opts)

    def _context(self) -> int | None:
        """The engine's `max_model_len`."""
        engine = self.llm.llm_engine
        config = getattr(engine, "model_config", None) or engine.vllm_config.model_config
        return int(config.max_model_len)

    def _tokenizer(self) -> Any:
        return self.tokenizer

    def _relevance(self, target: Any, texts: list[str]) -> list[float]:
        return self.relevance(target, texts)

    def _window_batch(self, tokens: int) -> dict[str, Any]:
        """vLLM schedules the windows itself, within its own key-value cache."""
        return {}

    def _screens(self, target: Any, texts: Sequence[str], pending: list[int],
                 opts: ExtractOptions) -> dict[int, Screened]:
        """The relevance screen's reading of each pending text, where a refusal branch is offered and the screen
        is on (as `extract` screens)."""
        if opts.refusal_model is None or opts.min_relevance is None or not pending:
            return {}
        schema = json_schema(target)
        readings = self.relevance(target, [texts[i] for i in pending], kinds=True)
        return {i: Screened(score, title(schema), kind if score < opts.min_relevance else None)
                for i, (score, kind) in zip(pending, readings)}

    def _requests(self, schema: Any, texts: Sequence[str], pending: list[int], screens: dict[int, Screened],
                  opts: ExtractOptions) -> dict[int, dict[str, Any]]:
        """The schema each document is decoded with: the target and the refusal object, or, after the relevance
        screen, the target alone; with `verbatim="all"`, its number fields narrowed to the document's numbers (a
        plain `enum`, which the backend compiles without the document)."""
        refusal, layout, guards = opts.refusal_model is not None, opts.layout, opts.guards

        def request(i: int) -> dict[str, Any]:
            own = numbers_from_text(schema, texts[i]) if opts.verbatim == "all" and isinstance(schema, dict) \
                else schema
            return with_options(own, refusal=refusal and i not in screens, layout=layout, guards=guards)
        return {i: request(i) for i in pending}

    def relevance(self, target: Any, texts: Sequence[str], *, kinds: bool = False) -> list[Any]:
        """`Extractor.relevance` for each text: the announcements' likelihoods of the text's opening, read off
        vLLM's prompt log-probabilities (every row of every text in one batch). With `kinds`, each score comes
        with the kind of document the text reads most like."""
        from vllm import SamplingParams
        from vllm.inputs import TokensPrompt

        from extractor.decode.relevance import KINDS, SCREEN_TOKENS, announcements, combine

        schema = json_schema(target)
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
            scores.append((combine(rows), KINDS[max(range(len(KINDS)), key=lambda k: rows[3 + k])]) if kinds
                          else combine(rows))
        return scores

    def _is_target(self, schema: Any, opts: ExtractOptions) -> Callable[[bytes], bool] | None:
        """For a dict target with a refusal branch: whether the target alone accepts an output (its grammar
        compiled only when an output looks like a refusal), to tell a refusal-shaped answer from a refusal."""
        from extractor.compiler import compile_schema
        from extractor.grammar import CompileOptions
        from extractor.tokens import Vocabulary

        if not (opts.constrained and opts.refusal_model is not None and isinstance(schema, dict)):
            return None
        if self._vocab is None:
            self._vocab = Vocabulary.from_hf(self.tokenizer)
        return lambda data: accepts(compile_schema(schema, self._vocab, options=CompileOptions(layout=opts.layout)),
                                    data)


def _usable(texts: Sequence[str], results: list[Any]) -> list[int]:
    """The indices of the texts that can be extracted from; the others get their InputError in `results`."""
    usable = []
    for i, text in enumerate(texts):
        try:
            nonempty(text)
            usable.append(i)
        except ExtractorError as exc:
            results[i] = exc
    return usable


def _generation(out: Any, seconds: float) -> Generation:
    """vLLM's request output as one attempt of the decoding loop."""
    done = out.outputs[0]
    usage = Usage(prompt_tokens=len(out.prompt_token_ids or ()), completion_tokens=len(done.token_ids),
                  forward_passes=len(done.token_ids), seconds=seconds)
    return Generation(done.text, done.text.encode(), list(done.token_ids), complete=done.finish_reason == "stop",
                      usage=usage)
