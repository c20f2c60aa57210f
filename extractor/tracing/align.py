"""Each leaf value of a result placed in the text: from the decoder's record of what it copied where it has one,
else by looking for the value in the text as written, then normalized, then read as a number, date or time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from extractor.schema import ir
from extractor.tracing import forms
from extractor.tracing.leaves import Leaf, leaves, output_ranges
from extractor.tracing.record import Span, Trace, ValueTrace
from extractor.tracing.views import MAX_SPANS, View, fold, folded_view, occurrences, visible_view, words, words_view


SHORT = 3
"""Values this short (once folded) are found only as written: in other cases they are other words."""


class Finder:
    """Looks values up in one text; its normalized views and its index of numbers and dates are built on first
    need, once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._visible: View | None = None
        self._folded: View | None = None
        self._words: View | None = None
        self._forms: dict[forms.Meaning, list[tuple[int, int]]] | None = None
        self._starts: np.ndarray | None = None

    def find(self, value: Any) -> tuple[str, list[tuple[int, int]], int] | None:
        """(how, spans, occurrences) of the first way the text holds `value`, or None."""
        if isinstance(value, str) and value.strip():
            written = value.strip()
            spans, count = self.exact(written)
            if count:
                return "exact", spans, count
            views = [("folded", written, self.visible)]  # as written, invisible characters aside: short values too
            views += [(how, needle, view) for how, needle, view in (("folded", fold(value), self.folded),
                                                                     ("words", words(value), self.words))
                      if len(needle) > SHORT]  # `UK` is not `.uk`, nor `IT` `it`: short values match as written
            for how, needle, view in views:
                spans, count = view().find(needle)
                if count:
                    return how, spans, count
        for meaning in sorted(forms.meanings(value), key=repr):
            spans = self.forms().get(meaning, [])
            if spans:
                return meaning[0], spans[:MAX_SPANS], len(spans)
        return None

    def exact(self, needle: str) -> tuple[list[tuple[int, int]], int]:
        """Occurrences of `needle` as written that cut no word in two."""
        starts, count = occurrences(self.text, needle)
        return [(at, at + len(needle)) for at in starts], count

    def visible(self) -> View:
        if self._visible is None:
            self._visible = visible_view(self.text)
        return self._visible

    def folded(self) -> View:
        if self._folded is None:
            self._folded = folded_view(self.text)
        return self._folded

    def words(self) -> View:
        if self._words is None:
            self._words = words_view(self.text)
        return self._words

    def forms(self) -> dict[forms.Meaning, list[tuple[int, int]]]:
        if self._forms is None:
            self._forms = forms.index(self.text)
        return self._forms

    def char(self, offset: int) -> int:
        """The string index of a byte offset of the text's UTF-8 form (a character's first byte)."""
        if self._starts is None:
            data = np.frombuffer(self.text.encode("utf-8"), dtype=np.uint8)
            self._starts = np.concatenate(([0], np.cumsum((data & 0xC0) != 0x80)))  # characters begun before
        return int(self._starts[offset])


def trace_leaves(items: Sequence[Leaf], finder: Finder, copied: dict[str, tuple[int, int]]) -> Trace:
    """The trace of a result's leaves; `copied`: pointer -> the text's (start, end) the decoder copied it from."""
    out = []
    for leaf in items:
        value = leaf.value
        if value is None or isinstance(value, str) and not value.strip():
            out.append(ValueTrace(leaf.pointer, value, "absent", marked=leaf.marked))
            continue
        if leaf.pointer in copied:
            start, end = copied[leaf.pointer]
            out.append(ValueTrace(leaf.pointer, value, "copied", (Span(start, end),), "decoder", 1, leaf.marked))
            continue
        found = None if isinstance(value, bool) else finder.find(value)
        if found is None:
            status = "fixed" if leaf.fixed else "not_found"
            out.append(ValueTrace(leaf.pointer, value, status, marked=leaf.marked))
            continue
        how, spans, count = found
        status, how = ("copied", "verbatim") if leaf.verbatim and how == "exact" else ("found", how)
        out.append(ValueTrace(leaf.pointer, value, status, tuple(Span(a, b) for a, b in spans), how, count,
                              leaf.marked))
    return Trace(tuple(out))


def copied_spans(output: bytes, copies: Sequence[tuple[int, int, int]], finder: Finder,
                 values: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """For each leaf the decoder copied from the text (some run of `copies` inside it), the text's span of the
    whole value where the text holds it there byte for byte: pointer -> (start, end) string indices.
    `values`: pointer -> the leaf's value in the result (a leaf a validator changed is not claimed)."""
    if not copies:
        return {}
    source = finder.text.encode("utf-8")
    out = {}
    for pointer, (a, b) in output_ranges(output).items():
        string = a > 0 and output[a - 1] == 0x22
        try:
            decoded = json.loads(b'"' + output[a:b] + b'"') if string else json.loads(output[a:b])
        except ValueError:
            continue
        if pointer not in values or values[pointer] != decoded or isinstance(decoded, bool) or decoded is None:
            continue
        whole = decoded.encode("utf-8") if string else output[a:b]
        for o, s, n in copies:
            start = max(o, a)
            if start >= min(o + n, b):
                continue  # this run is not inside the value
            try:
                before = json.loads(b'"' + output[a:start] + b'"').encode("utf-8") if string else output[a:start]
            except ValueError:
                continue
            anchor = s + (start - o) - len(before)
            if anchor >= 0 and source[anchor:anchor + len(whole)] == whole:
                out[pointer] = (finder.char(anchor), finder.char(anchor + len(whole)))
                break
    return out


def trace_value(value: Any, text: str, schema: ir.Schema, *, output: bytes = b"",
                copies: Sequence[tuple[int, int, int]] = ()) -> Trace:
    """The trace of a result's JSON form `value` against `text`, read beside the target's IR."""
    items = leaves(value, schema)
    finder = Finder(text)
    copied = copied_spans(output, copies, finder, {leaf.pointer: leaf.value for leaf in items}) if output else {}
    return trace_leaves(items, finder, copied)


def agrees(value: Any, written: str, how: str) -> bool:
    """Whether `written` (the text under a span) is `value` under the normalization `how` names: the check every
    span of a trace passes (tests and the benchmarks count the spans that would not)."""
    if how in ("decoder", "verbatim", "exact") and isinstance(value, str):
        return written == value.strip()
    if how == "folded":
        return fold(written) == fold(value)
    if how == "words":
        return words(written) == words(value)
    return bool(forms.meanings(value) & forms.meanings(written))
