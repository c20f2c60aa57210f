"""Extraction over a Ray Dataset: actors that each load a model once and run `extract_many` on their batches,
one output row per input row, whatever happened to it."""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pyarrow as pa
from pydantic import BaseModel

from extractor.api import Extractor
from extractor.errors import InputError, Usage
from extractor.pipeline.inputs import at_least
from extractor.pipeline.options import ExtractOptions
from extractor.outputs.records import GAPS, gaps

if TYPE_CHECKING:
    import ray.data

log = logging.getLogger(__name__)

RESULT_FIELDS = [
    pa.field("result", pa.string()),  # the target instance (or refusal) as JSON; null where the row failed
    pa.field("refused", pa.bool_()),
    pa.field("error_type", pa.string()),  # the exception's class name, where the row failed
    pa.field("error_message", pa.string()),
    pa.field("trace", pa.string()),  # `Trace.to_json()` as JSON: each value's spans in the text
    *(pa.field(name, pa.string()) for name in GAPS),  # `gaps`' lists as JSON, null where a text has none
    pa.field("prompt_tokens", pa.int64()),
    pa.field("completion_tokens", pa.int64()),
    pa.field("forward_passes", pa.int64()),
    pa.field("seconds", pa.float64()),  # decoding time over the row's attempts (a batch's rows decode together)
    pa.field("prefill_seconds", pa.float64()),
]
"""What each output row holds beside its id: typed once, so every batch's table has the same schema (a batch
without a failure would otherwise type its error columns as null)."""

SKIPPED = "skipped"
"""The column a corpus job adds: True for a row whose id its output already holds (not extracted again)."""

READ_ERROR = "read_error"
"""An optional input column: where a row could not be read (a file that is not UTF-8), its message, written as
that row's `InputError` without extracting."""


class Engine(Protocol):
    """What an actor needs of its model: `Extractor` and `VLLMExtractor` both fit."""

    def extract_many(self, target: Any, texts: Sequence[str], options: ExtractOptions | None = None, *,
                     with_usage: bool = False, with_trace: bool = False, progress: bool | None = None,
                     **kw: Any) -> list[Any]: ...


ModelSpec = str | Path | Callable[[], Engine] | None
"""A model for `Extractor(model)` (None: the embedded one), or a function building the engine in each actor (a
model object with its tokenizer, a template, a `VLLMExtractor`)."""


class ExtractBatches:
    """A Ray Data actor: the model loaded once, torch's threads set, then `extract_many` per batch."""

    _engine: Engine | None

    def __init__(self, target: Any, *, model: ModelSpec, options: ExtractOptions, text_column: str, id_column: str,
                 batch_size: int, torch_threads: int, done: frozenset[Any] | None = None) -> None:
        self.model, self.torch_threads, self._engine = model, torch_threads, None
        self.target, self.options, self.batch_size = target, options, batch_size
        self.text_column, self.id_column, self.done = text_column, id_column, done
        refusal = options.refusal_model
        self.refused: Callable[[Any], bool] = lambda r: refusal is not None and isinstance(r, refusal)

    def __call__(self, batch: pa.Table) -> pa.Table:
        """One output row per input row, in order: its result, refusal or error, trace and usage."""
        ids = batch.column(self.id_column)
        texts = batch.column(self.text_column).to_pylist()
        unread = batch.column(READ_ERROR).to_pylist() if READ_ERROR in batch.column_names else [None] * len(texts)
        skip = [self.done is not None and i in self.done for i in ids.to_pylist()]
        entries: list[Any] = [InputError(message) if message else None for message in unread]
        todo = [k for k, e in enumerate(entries) if e is None and not skip[k]]
        for k, entry in zip(todo, self._extract([texts[k] for k in todo])):
            entries[k] = entry
        rows = [self._row(e) if e is not None and not s else {} for e, s in zip(entries, skip)]
        columns = {f.name: pa.array([r.get(f.name) for r in rows], f.type) for f in RESULT_FIELDS}
        table = pa.table({self.id_column: ids, **columns})
        return table.append_column(SKIPPED, pa.array(skip, pa.bool_())) if self.done is not None else table

    @property
    def engine(self) -> Engine:
        """The model, loaded on the first batch with rows to extract (a resumed job's done rows need none)."""
        if self._engine is None:
            import torch

            torch.set_num_threads(self.torch_threads)  # per actor: actors sharing a node must not each take all
            self._engine = self.model() if callable(self.model) else Extractor(self.model)
        return self._engine

    def _extract(self, texts: list[Any]) -> list[Any]:
        """`extract_many`'s (result or error, usage) per text; where the batch call itself raises (not one
        document's `ExtractorError`, which it keeps in its slot), each text alone, so only the one at fault fails.
        An engine that cannot load fails the batch (Ray retries it), not its rows."""
        if not texts:
            return []
        engine = self.engine
        if len(texts) > 1:
            try:
                return self._many(engine, texts)
            except Exception:  # which text broke it is found below
                log.warning("a batch of %d texts raised; extracting them one by one", len(texts), exc_info=True)
        out = []
        for text in texts:
            try:
                out.extend(self._many(engine, [text]))
            except Exception as exc:  # noqa: BLE001  (a corpus row of its own: written with its error)
                out.append((exc, Usage()))
        return out

    def _many(self, engine: Engine, texts: list[Any]) -> list[Any]:
        kw = {"batch_size": self.batch_size} if isinstance(engine, Extractor) else {}
        return engine.extract_many(self.target, texts, self.options, with_usage=True, with_trace=True,
                                   progress=False, **kw)

    def _row(self, entry: Any) -> dict[str, Any]:
        value, usage = entry if isinstance(entry, tuple) else (entry, Usage())
        row: dict[str, Any] = {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                               "forward_passes": usage.forward_passes, "seconds": usage.seconds,
                               "prefill_seconds": usage.prefill_seconds}
        if isinstance(value, BaseException):
            return {**row, "refused": False, "error_type": type(value).__name__, "error_message": str(value)}
        result = value.result
        dumped = result.model_dump_json(by_alias=True) if isinstance(result, BaseModel) \
            else json.dumps(result, ensure_ascii=False)
        return {**row, "result": dumped, "refused": self.refused(result),
                "trace": json.dumps(value.trace.to_json(), ensure_ascii=False),
                **{name: json.dumps(found, ensure_ascii=False) for name, found in gaps(value.trace).items()}}


@dataclass(frozen=True, kw_only=True)
class Workers:
    """The actors of an extraction: how many, what each reserves and holds, how often a dead one is replaced."""

    model: ModelSpec = None
    """What each actor loads once (see `ModelSpec`); the embedded model by default."""
    concurrency: int = 1
    """Actors, each with its own copy of the model: throughput grows with them until the cores (or GPUs) run out."""
    num_cpus: float = 1.0
    """CPUs Ray reserves per actor (a scheduling figure: set `torch_threads` to match)."""
    num_gpus: float = 0
    """GPUs Ray reserves per actor (a fraction shares one)."""
    batch_size: int = 8
    """Rows per actor call, decoded together (`extract_many`'s batch): larger pads more, smaller passes more often."""
    torch_threads: int = 1
    """torch's threads in each actor: more than its share of the cores makes actors on a node fight for them."""
    retries: int = 3
    """Restarts of an actor that dies (the model loaded again) and retries of the batch it held."""

    def __post_init__(self) -> None:
        at_least(1, concurrency=self.concurrency, batch_size=self.batch_size, torch_threads=self.torch_threads)
        at_least(0, retries=self.retries)
        if not self.num_cpus >= 0 or not self.num_gpus >= 0:
            raise InputError(f"num_cpus and num_gpus must be ≥ 0, got {self.num_cpus!r} and {self.num_gpus!r}")

    @classmethod
    def of(cls, workers: Workers | None, settings: dict[str, Any]) -> Workers:
        """`workers` (or the defaults) with `settings` applied; an unknown name is an InputError naming it."""
        unknown = sorted(set(settings) - {f.name for f in fields(cls)})
        if unknown:
            raise InputError(f"unknown worker setting(s) {', '.join(map(repr, unknown))}")
        return replace(workers or cls(), **settings)


def extract_dataset(ds: ray.data.Dataset, target: Any, *, text_column: str = "text", id_column: str = "id",
                    options: ExtractOptions | None = None, workers: Workers | None = None,
                    **settings: Any) -> ray.data.Dataset:
    """`ds` as one row per input row: its id, `result` as JSON, `refused`, `error_type`/`error_message` where it
    failed (never dropped), `trace` and token usage, computed by actors holding the model (`Workers`, whose fields
    may be given as keywords: `concurrency=2, torch_threads=1`).

    Greedy results are those of `Extractor.extract_many` on the same texts. An actor that dies mid-batch is
    restarted (loading the model again) and its batch retried, up to `retries` times each. An actor takes a whole
    block at a time: give `ds` blocks of about `batch_size` rows (`override_num_blocks` when reading), or one large
    block keeps the other actors idle. (`ds.repartition(target_num_rows_per_block=...)` does it where the cluster has
    CPUs beyond the actors': its tasks wait for a free one.)"""
    return actors(ds, target, text_column, id_column, options or ExtractOptions(), Workers.of(workers, settings))


def _pool(size: int) -> Any:
    """`size` actors, each sent one block at a time: with Ray's default of four in flight, the first actor to load
    its model takes the first four blocks (a small corpus: all of them) while the others are still starting."""
    import ray.data

    return ray.data.ActorPoolStrategy(size=size, max_tasks_in_flight_per_actor=1)


def actors(ds: ray.data.Dataset, target: Any, text_column: str, id_column: str, options: ExtractOptions,
           workers: Workers, done: frozenset[Any] | None = None) -> ray.data.Dataset:
    """The actor stage; with `done`, rows with those ids pass through unextracted, marked `skipped`."""
    import ray.data

    columns = ds.columns(fetch_if_missing=False)  # known without running anything, or not checked here
    missing = [c for c in (text_column, id_column) if columns is not None and c not in columns]
    if missing:
        raise InputError(f"the dataset has no column {', '.join(map(repr, missing))}; its columns: {columns}")
    kwargs = {"model": workers.model, "options": options, "text_column": text_column, "id_column": id_column,
              "batch_size": workers.batch_size, "torch_threads": workers.torch_threads, "done": done}
    with warnings.catch_warnings():  # Ray 2.60 takes restarts and retries only as `ray_remote_args`, deprecated
        warnings.simplefilter("ignore", DeprecationWarning)
        return ds.map_batches(ExtractBatches, fn_constructor_args=(target,), fn_constructor_kwargs=kwargs,
                              batch_size=workers.batch_size, batch_format="pyarrow",
                              compute=_pool(workers.concurrency), num_cpus=workers.num_cpus,
                              num_gpus=workers.num_gpus, max_restarts=workers.retries,
                              max_task_retries=workers.retries)
