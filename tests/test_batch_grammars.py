"""`extract_many`'s batches compile each document's grammar when its batch comes up and drop it once the
document is settled, so a call over many documents (a long text's windows) holds one batch's grammars at a time;
a document whose grammar cannot be compiled gets the error in its slot and the others still run."""

from __future__ import annotations

from typing import Any

from extractor import ExtractOptions, UnsatisfiableSchemaError
from extractor.batch import Batch
from extractor.decode.loop import Generation

TARGET = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


class Engine:
    """Grammars are tokens that count how many are alive; the third text's cannot be compiled."""

    def __init__(self) -> None:
        self.lm = self.vocab = None
        self.alive: set[int] = set()
        self.most = 0

    def _fits(self, *args: Any) -> None:
        return None

    def _prompt(self, target: Any, text: str, *args: Any) -> list[int]:
        return [1, 2]

    def _screen(self, *args: Any) -> None:
        return None

    def _is_target(self, *args: Any) -> None:
        return None

    def _grammar(self, target: Any, text: str, *args: Any) -> object:
        if text == "t2":
            raise UnsatisfiableSchemaError("no value fits", "/a")
        self.alive.add(int(text[1:]))
        self.most = max(self.most, len(self.alive))
        return object()


def test_grammars_live_for_their_batch_only_and_a_failing_one_stays_in_its_slot(monkeypatch) -> None:
    engine = Engine()
    texts = [f"t{i}" for i in range(7)]

    def generate_many(lm, vocab, prompts, matchers, options, **kw) -> list[Generation]:
        return [Generation(text='{"a": 1}', data=b'{"a": 1}', complete=True) for _ in prompts]

    def dropped(batch: Batch) -> None:
        engine.alive.intersection_update(batch.grammars)

    monkeypatch.setattr("extractor.decode.loop.generate_many", generate_many)
    batch = Batch(engine, TARGET, texts, ExtractOptions(refusal=False, min_relevance=None), 2, None,
                  matcher=lambda grammar: None)
    original = batch.decode
    monkeypatch.setattr(batch, "decode", lambda chunk, prompts: (dropped(batch), original(chunk, prompts))[1])
    results = batch.run(progress=False, with_usage=False)
    assert isinstance(results[2], UnsatisfiableSchemaError)
    assert [r for i, r in enumerate(results) if i != 2] == [{"a": 1}] * 6
    assert engine.most <= 3 and batch.grammars == {}  # a batch of two (and one left from the last), none after


def test_a_document_to_retry_does_not_keep_its_grammar_between_rounds(monkeypatch) -> None:
    engine = Engine()
    texts = ["t0", "t1", "t3", "t4"]
    compiled: list[str] = []
    grammar = engine._grammar
    engine._grammar = lambda target, text, *a: (compiled.append(text), grammar(target, text, *a))[1]

    def generate_many(lm, vocab, prompts, matchers, options, **kw) -> list[Generation]:
        return [Generation(text='{"a": ', data=b'{"a": ', complete=False) for _ in prompts]  # every answer cut

    monkeypatch.setattr("extractor.decode.loop.generate_many", generate_many)
    batch = Batch(engine, TARGET, texts, ExtractOptions(refusal=False, min_relevance=None, max_retries=1), 2, None,
                  matcher=lambda grammar: None)
    held: list[int] = []
    original = batch.decode
    monkeypatch.setattr(batch, "decode", lambda chunk, prompts: (held.append(len(batch.grammars)),
                                                                 original(chunk, prompts))[1])
    batch.run(progress=False, with_usage=False)
    assert sorted(compiled) == sorted(texts * 2)  # compiled again for the retry
    assert max(held) <= 2 and batch.grammars == {}  # one batch's grammars at a time, in every round
