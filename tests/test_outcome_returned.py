"""What an extraction call returns keeps the trace it was given, an empty one included: a long text refused
because no window holds anything still says which windows were read."""

from __future__ import annotations

import pytest

from extractor.errors import Attempt, Usage
from extractor.pipeline.outcome import returned
from extractor.schema import Refusal
from extractor.tracing import Span, Trace, Traced

READ = Trace(windows=(Span(0, 10), Span(8, 20)))


@pytest.mark.parametrize("found, windows", [
    (READ, (Span(0, 10), Span(8, 20))),  # no values, so len() is 0: still the trace given
    (None, ()),
])
def test_a_refusals_trace_keeps_the_windows_read(found, windows):
    out = returned(Refusal(error="no Person in the text"), found, [], with_trace=True, with_usage=False)
    assert isinstance(out, Traced) and out.trace.windows == windows


def test_usage_is_summed_beside_the_traced_result():
    attempts = [Attempt("{}", Usage(prompt_tokens=3, completion_tokens=2), []) for _ in range(2)]
    out, usage = returned({}, READ, attempts, with_trace=True, with_usage=True)
    assert out.trace is READ and usage.prompt_tokens == 6 and usage.completion_tokens == 4
