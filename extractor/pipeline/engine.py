"""The public seam for model backends: what an engine provides the document pipeline (tokenizer, context length,
prompt rendering, relevance, a grammar per text, batched generation, cancellation hooks). The transformers engine
(`local.py`) and vLLM's (`integrations/vllm/engine.py`) implement it; a third backend implements it too and the
pipeline is unchanged."""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from extractor.masks import CompiledGrammar, Matcher

if TYPE_CHECKING:
    from extractor.decode.loop import Generation
    from extractor.errors import Attempt
    from extractor.pipeline.options import ExtractOptions
    from extractor.pipeline.refusing import Screened
    from extractor.pipeline.target import Target

Offer = Literal["both", "target", "refusal"]
"""What a text's grammar lets the model write: the target or the refusal object, the target alone (the screen
found the text relevant), or the refusal alone (the screen found it not)."""


@dataclass(frozen=True)
class Job:
    """One document's attempt as an engine decodes it."""

    prompt: list[int]
    grammar: Any
    """What the engine's `grammar` made for this text (None: unconstrained)."""
    text: str
    """The source text: what guards bound strings by and drafts copy from."""
    tight: bool = False
    """The attempt before was cut by max_tokens: guards tightened."""
    repeatable: frozenset[Any] = frozenset()
    """The arrays whose items may repeat (`Target.repeatable`): the guards let them."""
    parts: tuple[Job, ...] = ()
    """The document's fields asked apart (`fields="apart"`), each a job of its own: an engine whose `asks_apart` is
    True decodes them together (the text's prompt, their shared prefix, encoded once) and returns `join` of their
    generations, in order, as this job's (`prompt` and `grammar` are then unused)."""
    join: Callable[[list[Generation]], Generation] | None = None


@dataclass(frozen=True)
class Control:
    """How a call is watched and stopped from outside: `halt` set stops decoding at its next token, `watch` sees
    every matcher made (a stream reads the output so far from it), `progress` shows the engine's own bar."""

    halt: threading.Event | None = None
    watch: Callable[[Matcher], None] | None = None
    progress: bool | None = None

    def matcher(self, grammar: CompiledGrammar) -> Matcher:
        """A matcher for `grammar` that stops when halted and is shown to `watch`."""
        matcher = grammar.matcher() if self.halt is None else stoppable(grammar, self.halt)
        if self.watch is not None:
            self.watch(matcher)
        return matcher


class Engine(Protocol):
    """What a model backend provides the document pipeline."""

    tokenizer: Any
    retries_cut: bool
    """Whether an output cut by max_tokens is retried (with tightened guards) rather than returned as an error."""
    batch_size: int | None
    """Documents decoded together by default; None where the engine schedules them itself."""
    asks_apart: bool
    """Whether the engine decodes a job's `parts` (what `fields="apart"` needs)."""

    def context(self) -> int | None:
        """The model's context in tokens, where known."""

    def prompt_ids(self, schema: Any, text: str, attempts: Sequence[Attempt], opts: ExtractOptions) -> list[int]:
        """The chat prompt's token ids for a target's JSON Schema (`Target.schema`), earlier failed attempts as
        turns."""

    def relevance_scores(self, target: Any, texts: list[str]) -> list[float]:
        """Each text's relevance score for the target (decode/relevance.py)."""

    def screens(self, target: Target, texts: Sequence[str], opts: ExtractOptions) -> list[Screened | None]:
        """The relevance screen's reading of each text (None where the screen is off)."""

    def grammar(self, target: Target, text: str, offer: Offer, opts: ExtractOptions) -> Any:
        """What one text is decoded under, for this engine's `generate`."""

    def is_target(self, target: Target, text: str, opts: ExtractOptions) -> Callable[[bytes], bool] | None:
        """For a dict target with a refusal branch: whether the target alone accepts an output."""

    def generate(self, jobs: Sequence[Job], opts: ExtractOptions, control: Control) -> list[Generation]:
        """One attempt of every job, decoded together."""

    def window_batch(self, tokens: int) -> dict[str, Any]:
        """The batch options for windows of `tokens` tokens."""


class SteppingEngine(Engine, Protocol):
    """An engine that can decode one document a forward pass at a time (what a stream drives)."""

    def stepping(self, job: Job, opts: ExtractOptions, control: Control) -> Generator[None, None, Generation]:
        """`generate` of one job, yielding after each forward pass; closing it stops the decoding."""


def stoppable(grammar: CompiledGrammar, halt: threading.Event) -> Matcher:
    """A matcher for `grammar` that raises `Cancelled` (a BaseException: nothing in the decoding catches it) at its
    first step after `halt` is set: how a call running on a worker thread is stopped."""
    matcher = _StoppableMatcher(grammar)
    matcher.halt = halt
    return matcher


class Cancelled(BaseException):
    """Raised inside a decoding once its caller has stopped waiting for it (not an error: nobody listens)."""


class _StoppableMatcher(Matcher):
    halt: threading.Event

    def advance(self, token: int) -> None:
        if self.halt.is_set():
            raise Cancelled
        super().advance(token)

    def advance_bytes(self, data: bytes) -> None:
        if self.halt.is_set():
            raise Cancelled
        super().advance_bytes(data)
