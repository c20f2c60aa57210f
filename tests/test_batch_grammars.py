"""`extract_many`'s batches compile each document's grammar when its batch comes up and drop it once the
document is settled, so a call over many documents (a long text's windows) holds one batch's grammars at a time;
a document whose grammar cannot be compiled gets the error in its slot and the others still run."""

from __future__ import annotations

from typing import Any

from extractor import ExtractOptions, UnsatisfiableSchemaError
from extractor.pipeline.batch import Batch
from extractor.decode.loop import Generation
from extractor.pipeline.engine import Control, Job
from extractor.pipeline.document import Pipeline
from extractor.pipeline.target import Target

TARGET = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


class Engine:
    """Grammars are tokens that count how many are alive; the third text's cannot be compiled; every answer is
    `answer` (complete or cut)."""

    tokenizer, retries_cut, batch_size = None, True, 2

    def __init__(self, answer: str = '{"a": 1}', complete: bool = True) -> None:
        self.answer, self.complete = answer, complete
        self.alive: set[int] = set()
        self.most = 0
        self.compiled: list[str] = []
        self.held: list[int] = []
        self.batch: Batch | None = None

    def context(self) -> None:
        return None

    def prompt_ids(self, target: Any, text: str, *args: Any) -> list[int]:
        return [1, 2]

    def screens(self, target: Any, texts: Any, opts: Any) -> list[None]:
        return [None] * len(texts)

    def is_target(self, *args: Any) -> None:
        return None

    def grammar(self, target: Any, text: str, *args: Any) -> object:
        self.compiled.append(text)
        if text == "t2":
            raise UnsatisfiableSchemaError("no value fits", "/a")
        self.alive.add(int(text[1:]))
        self.most = max(self.most, len(self.alive))
        return object()

    def generate(self, jobs: list[Job], opts: Any, control: Control) -> list[Generation]:
        assert self.batch is not None
        self.held.append(len(self.batch.grammars))
        self.alive.intersection_update(int(i) for i in self.batch.grammars)
        return [Generation(self.answer, self.answer.encode(), complete=self.complete) for _ in jobs]


def batch_of(engine: Engine, texts: list[str], **options: Any) -> Batch:
    opts = ExtractOptions(refusal=False, min_relevance=None, **options)
    engine.batch = Batch(Pipeline(engine, Target(TARGET, opts), opts), texts, 2)  # type: ignore[arg-type]
    return engine.batch


def test_grammars_live_for_their_batch_only_and_a_failing_one_stays_in_its_slot() -> None:
    engine = Engine()
    batch = batch_of(engine, [f"t{i}" for i in range(7)])
    results = [d.result for d in batch.run()]
    assert isinstance(results[2], UnsatisfiableSchemaError)
    assert [r for i, r in enumerate(results) if i != 2] == [{"a": 1}] * 6
    assert engine.most <= 3 and batch.grammars == {}  # a batch of two (and one left from the last), none after


def test_a_document_to_retry_does_not_keep_its_grammar_between_rounds() -> None:
    engine = Engine('{"a": ', complete=False)  # every answer cut
    texts = ["t0", "t1", "t3", "t4"]
    batch = batch_of(engine, texts, max_retries=1)
    batch.run()
    assert sorted(engine.compiled) == sorted(texts * 2)  # compiled again for the retry
    assert max(engine.held) <= 2 and batch.grammars == {}  # one batch's grammars at a time, in every round
