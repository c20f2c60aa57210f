"""The actor's rows, with an engine that needs no model: one typed row per input row, every failure in its own row,
done rows passed through, and a batch whose engine call raises split so only the text at fault fails."""

from __future__ import annotations

from typing import Any

import json

import pyarrow as pa
import pytest
from jobdata import TRACES, Person

from extractor import ExtractOptions, InputError, Refusal
from extractor.errors import Usage
from extractor.integrations.ray.workers import (
    GAPS,
    READ_ERROR,
    RESULT_FIELDS,
    SKIPPED,
    ExtractBatches,
)
from extractor.tracing import Trace, Traced


class Engine:
    """Answers from the text alone: "BOOM" breaks the whole call, "no" is refused, a blank text is an InputError, a
    text `TRACES` names has that trace."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def extract_many(self, target: Any, texts: list[str], options: Any = None, **kw: Any) -> list[Any]:
        assert kw == {"with_usage": True, "with_trace": True, "progress": False}
        self.calls.append(list(texts))
        if any("BOOM" in t for t in texts):
            raise RuntimeError("the engine broke")
        return [(InputError("empty") if not t.strip() else Traced(Refusal(error="no") if t == "no" else
                                                                    Person(name=t, email=f"{t}@x.org"),
                                                                    TRACES.get(t, Trace())),
                 Usage(prompt_tokens=len(t))) for t in texts]


def _run(texts: list[str], done: frozenset[str] | None = None, read_errors: list[str | None] | None = None,
         ) -> tuple[pa.Table, Engine]:
    engine = Engine()
    actor = ExtractBatches(Person, model=lambda: engine, options=ExtractOptions(), text_column="text",
                           id_column="id", batch_size=8, torch_threads=1, done=done)
    columns = {"id": [f"d{k}" for k in range(len(texts))], "text": texts}
    if read_errors is not None:
        columns[READ_ERROR] = read_errors
    return actor(pa.table(columns, pa.schema([("id", pa.string()), ("text", pa.string())] +
                                            ([(READ_ERROR, pa.string())] if read_errors is not None else [])))), engine


@pytest.mark.parametrize("texts,errors,calls", [
    (["ann", "bob"], [None, None], [["ann", "bob"]]),
    (["ann", " "], [None, "InputError"], [["ann", " "]]),  # the engine's own error, in its slot
    (["ann", "BOOM", "bob"], [None, "RuntimeError", None], [["ann", "BOOM", "bob"], ["ann"], ["BOOM"], ["bob"]]),
    (["BOOM"], ["RuntimeError"], [["BOOM"]]),
    ([], [], []),
])
def test_one_row_per_text_with_its_error(texts: list[str], errors: list[str | None], calls: list[list[str]]) -> None:
    table, engine = _run(texts)
    assert table.schema == pa.schema([("id", pa.string()), *RESULT_FIELDS])  # typed even where all are null
    assert table.column("error_type").to_pylist() == errors
    assert engine.calls == calls
    results = table.column("result").to_pylist()
    assert [r is None for r in results] == [e is not None for e in errors]


def test_a_refusal_is_a_result_marked_refused() -> None:
    table, _ = _run(["ann", "no"])
    assert table.column("refused").to_pylist() == [False, True]
    assert Refusal.model_validate_json(table.column("result")[1].as_py()) == Refusal(error="no")
    assert table.column("prompt_tokens").to_pylist() == [3, 2]


@pytest.mark.parametrize("text,gaps", [
    ("ann", {}),  # a text read whole
    (" ", {}),  # a failed row
    ("unread", {"unread": [{"window": 1, "start": 30, "end": 80}]}),
    ("left_out", {"left_out": [{"pointer": "/emails/1", "item": {"address": None}, "windows": [0, 1],
                                "missing": ["/emails/1/address"]}]}),
    ("conflicts", {"conflicts": [{"pointer": "/name", "kept": "Ann", "window": 0,
                                  "others": [{"value": "Anne", "window": 1}], "chosen": False, "candidates": []}]}),
    ("repeated", {"repeated": [{"pointer": "/emails/1", "item": {"address": "ann@x.org"}}]}),
])
def test_what_a_text_read_in_windows_lacks_is_in_its_row_as_json(text: str, gaps: dict[str, list[dict]]) -> None:
    table, _ = _run([text])
    row = table.to_pylist()[0]
    assert {name: json.loads(row[name]) for name in GAPS if row[name] is not None} == gaps


def test_rows_done_before_pass_through_and_unread_ones_fail_unextracted() -> None:
    table, engine = _run(["ann", "bob", "cy"], done=frozenset({"d1"}), read_errors=[None, None, "not UTF-8"])
    assert table.column(SKIPPED).to_pylist() == [False, True, False]
    assert table.column("error_type").to_pylist() == [None, None, "InputError"]
    assert table.column("error_message")[2].as_py() == "not UTF-8"
    assert engine.calls == [["ann"]]


def test_a_batch_with_nothing_to_extract_loads_no_model() -> None:
    def model() -> Engine:
        raise AssertionError("loaded")

    actor = ExtractBatches(Person, model=model, options=ExtractOptions(), text_column="text", id_column="id",
                           batch_size=8, torch_threads=1, done=frozenset({"a"}))
    assert actor(pa.table({"id": ["a"], "text": ["ann"]})).column(SKIPPED).to_pylist() == [True]
