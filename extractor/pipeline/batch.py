"""A batch's rounds: every pending document decoded `batch_size` at a time (or all at once where the engine schedules
them itself), each round one attempt of the retry policy, errors kept in their documents' slots."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from extractor.errors import ExtractorError
from extractor.pipeline.outcome import rounds
from extractor.pipeline.document import Document, Pipeline


class Batch:
    """One batch of documents through the pipeline: their prompts, grammars, attempts and results."""

    def __init__(self, pipe: Pipeline, texts: Sequence[str], batch_size: int | None) -> None:
        self.pipe, self.batch_size = pipe, batch_size
        self.docs = [self._admitted(i, text) for i, text in enumerate(texts)]
        self.grammars: dict[int, Any] = {}
        """Each document's grammar while it is decoded: compiled as its batch comes up, dropped once its attempt is
        decoded, compiled again for a retry (a grammar compiled per document, with copies of its text, can take tens
        of MB: a long text's cut windows, kept for retries that never came, held them all)."""
        pipe.screen([d for d in self.docs if d.result is None])

    def _admitted(self, i: int, text: str) -> Document:
        try:
            return self.pipe.admit(i, text)
        except ExtractorError as exc:  # this document only: the others still run
            return Document(i, text, result=exc)

    def run(self, progress: bool | None = False) -> list[Document]:
        """Rounds until no document is left to retry or the retry policy stops; one document per text."""
        pending = [i for i, d in enumerate(self.docs) if d.result is None]
        with _progress(len(self.docs), progress, getattr(self.pipe.target.spec, "__name__", "extract")) as bar:
            bar.update(len(self.docs) - len(pending))
            for state in rounds(self.pipe.opts.max_retries):  # one round per attempt
                pending = self.round(pending, bar) if pending else pending
                state.set_result(bool(pending))
            bar.update(len(pending))  # retries spent: each pending document keeps its last error
        return self.docs

    def round(self, pending: list[int], bar: Any) -> list[int]:
        """One attempt for every pending document, `batch_size` at a time; the documents to retry."""
        prompts = {}
        for i in list(pending):
            try:
                prompts[i] = self.pipe.prompt(self.docs[i])
                self.pipe.fits(prompts[i])
            except ExtractorError as exc:
                self.docs[i].result = exc
                pending.remove(i)
                bar.update(1)
        size = self.batch_size or max(1, len(pending))
        if self.batch_size:
            pending.sort(key=lambda i: len(prompts[i]))  # similar lengths together: less padding
        retry = []
        for chunk in (pending[k:k + size] for k in range(0, len(pending), size)):
            failed = [i for i in chunk if not self.compiled(i)]
            bar.update(len(failed))
            chunk = [i for i in chunk if i not in failed]
            jobs = [self.pipe.job(self.docs[i], prompts[i], self.grammars[i]) for i in chunk]
            for i, gen in zip(chunk, self.decode(jobs)):
                self.grammars.pop(i, None)  # a retry compiles it again: kept, it would stay through every round
                if self.settle(i, gen):
                    retry.append(i)
                else:
                    bar.update(1)
        return retry

    def decode(self, jobs: list[Any]) -> list[Any]:
        """One batch of attempts, decoded together by the engine."""
        return self.pipe.engine.generate(jobs, self.pipe.opts, self.pipe.control) if jobs else []

    def compiled(self, i: int) -> bool:
        """Document i's grammar ready (compiled where it is not yet); False, its error recorded, where it cannot
        be compiled (this document only: the others still run)."""
        if i not in self.grammars:
            try:
                self.grammars[i] = self.pipe.grammar(self.docs[i])
            except ExtractorError as exc:
                self.docs[i].result = exc
                return False
        return True

    def settle(self, i: int, gen: Any) -> bool:
        """Record document i's attempt; True when it is to be retried."""
        try:
            return self.pipe.settle(self.docs[i], gen).retry
        except ExtractorError as exc:
            self.docs[i].result = exc
            return False


@contextlib.contextmanager
def _progress(total: int, show: bool | None, name: str) -> Iterator[Any]:
    from tqdm.auto import tqdm

    bar = tqdm(total=total, desc=f"extract {name}", unit="doc", disable=(None if show is None else not show))
    try:
        yield bar
    finally:
        bar.close()
