"""The public surface: extract(Model, text) and a reusable Extractor."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar, overload

from extractor.pipeline.engine import Control
from extractor.errors import Attempt, InputError
from extractor.pipeline.inputs import at_least
from extractor.engines.local import TransformersEngine
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.rounds import extract_many as rounds_many
from extractor.pipeline.rounds import extracting
from extractor.schema import Refusal
from extractor.pipeline.stream import stream
from extractor.pipeline.target import Target
from extractor.tracing import Traced

T = TypeVar("T")


class Extractor(TransformersEngine):
    """A model loaded once and reused (`Extractor(model, tokenizer, device=, template=)`); compiled schemas are
    cached per target. Every call runs the document pipeline (pipeline/document.py) on this transformers engine."""

    @overload
    def extract(self, target: type[T], text: str, options: ExtractOptions | None = None, *,
                with_trace: Literal[True], **kw: Any) -> Traced[T | Refusal]: ...
    @overload
    def extract(self, target: type[T], text: str, options: ExtractOptions | None = None, **kw: Any) -> T | Refusal: ...
    @overload
    def extract(self, target: dict[str, Any], text: str, options: ExtractOptions | None = None, **kw: Any) -> Any: ...

    def extract(self, target: Any, text: str, options: ExtractOptions | None = None, *,
                on_attempt: Callable[[Attempt], None] | None = None, with_usage: bool = False,
                with_trace: bool = False, control: Control = Control(), **overrides: Any) -> Any:
        """Extract one `target` from `text`; a Refusal when the model declines.

        `options`: an `ExtractOptions`; any of its fields may also be given as a keyword (`max_tokens=256`),
        overriding it. `on_attempt(attempt)` is called after every attempt (text, errors, usage);
        `with_trace=True` returns a `Traced` (the result and where each of its values is in the text);
        `with_usage=True` returns `(result, usage)`, the usage summed over the attempts. A text longer than the
        model's context (or than `window` tokens) is read in windows and their objects merged by the schema
        (`pipeline/windowed.py`; the trace says which windows disagreed). Raises `InputError` before generating (an
        empty text), `IncompleteOutputError` when `max_tokens` cuts the last attempt (a cut attempt is retried first,
        with `Guards.tightened()`), `ExtractionError` when every attempt fails validation (each kept on it with
        its usage), and `MissingFieldsError` when no window of a long text holds a required field. `control`: hooks
        to watch or stop the call from another thread (`aio.py` sets them).
        """
        from extractor.decode.loop import drain

        opts = ExtractOptions.of(options, overrides)
        return drain(extracting(self, Target(target, opts), text, opts, on_attempt=on_attempt, with_usage=with_usage,
                                with_trace=with_trace, control=control))

    def extract_stream(self, target: Any, text: str, options: ExtractOptions | None = None, *,
                       with_trace: bool = False, **overrides: Any) -> Iterator[Any]:
        """Yield partial results while generating: the target built (unvalidated, `model_construct`)
        from the top-level fields complete so far, each time one more completes; then the final
        validated result (or Refusal; a `Traced` with `with_trace=True`). Errors are raised as by `extract`.
        Jump-forward is off."""
        return stream(self, target, text, ExtractOptions.of(options, overrides), with_trace=with_trace)

    def extract_many(self, target: Any, texts: Sequence[str], options: ExtractOptions | None = None, *,
                     batch_size: int = 8, progress: bool | None = None,
                     on_attempt: Callable[[int, Attempt], None] | None = None, with_usage: bool = False,
                     with_trace: bool = False, control: Control = Control(), **overrides: Any) -> list[Any]:
        """Extract one `target` from each text, `batch_size` documents decoded together.

        Returns one entry per text, in order: what `extract` would return (the target instance or a
        Refusal) or, where `extract` would raise, the `ExtractorError` itself in that slot, so one bad
        document never loses the others' results (`isinstance(r, ExtractorError)` picks them out). Failed
        validations and cut outputs are retried in later rounds with their errors fed back (`max_retries`:
        its stop and wait apply to rounds). `progress` shows a tqdm bar (None: only on a terminal).
        `on_attempt(index, attempt)` is called after every attempt; `with_trace=True` makes each result a `Traced`;
        `with_usage=True` makes each entry a `(result, Usage)` pair. Options as in `extract` (`messages` excepted:
        it is one chat, not one per text). A text longer than a window is read in windows as `extract` reads it,
        its windows a batch of their own.
        """
        at_least(1, batch_size=batch_size)
        opts = ExtractOptions.of(options, overrides)
        if opts.messages is not None:
            raise InputError("extract_many builds one chat per text: pass examples or system, not messages")
        return rounds_many(self, Target(target, opts), texts, opts, batch_size=batch_size, progress=progress,
                           on_attempt=on_attempt, with_usage=with_usage, with_trace=with_trace, control=control)

    def prompt(self, target: Any, text: str, options: ExtractOptions | None = None, **overrides: Any) -> str:
        """The first attempt's prompt as the model sees it (chat template applied), to check or tune wording."""
        opts = ExtractOptions.of(options, overrides)
        return self.lm.tokenizer.decode(self.prompt_ids(Target(target, opts).schema, text, [], opts))


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
