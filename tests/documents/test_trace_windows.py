"""A long text's trace names windows (indices into `trace.windows`), not the keys its answers are kept under: a
member read again in a window is an answer keyed past the windows."""

from __future__ import annotations

import pytest

from extractor.documents.merge import Merged
from extractor.documents.windows import Window
from extractor.pipeline.windowed import _trace
from extractor.tracing import Conflict, Incomplete, Trace

TEXT = "a" * 30
PARTS = [Window(0, 0, 10), Window(1, 10, 20), Window(2, 20, 30)]
FOUND = {0: ({}, Trace(), 0), 2: ({}, Trace(), 2), 3: ({}, Trace(), 2), 4: ({}, Trace(), 0)}
"""Windows 0 and 2 answered (1 failed); answers 3 and 4 are members read again in windows 2 and 0."""


@pytest.mark.parametrize("conflict, window, others", [
    (Conflict("/a", 1, 3, ((2, 4),)), 2, ((2, 0),)),  # read again: keys 3 and 4 are windows 2 and 0
    (Conflict("/a", 1, 2, ((2, 0),)), 2, ((2, 0),)),  # the first reading: keys are windows
    (Conflict("/a", 1, 1, ((2, 0),), chosen=True), 1, ((2, 0),)),  # the model's choice names windows already
])
def test_a_conflict_names_windows(conflict, window, others):
    trace = _trace(Merged({"a": 1}, conflicts=[conflict]), FOUND, PARTS, TEXT)
    assert (trace.conflicts[0].window, trace.conflicts[0].others) == (window, others)


@pytest.mark.parametrize("keys, windows", [((3, 4), (2, 0)), ((0, 2), (0, 2))])
def test_a_left_out_item_names_windows(keys, windows):
    trace = _trace(Merged({"a": []}, incomplete=[Incomplete("/a/0", {}, keys, ("/a/0/b",))]), FOUND, PARTS, TEXT)
    assert trace.left_out[0].windows == windows
