"""The output layout: which whitespace the grammar forces between JSON tokens.

A small model writes what the layout invites (after a compact `"skills":[` it tends to close the list at
once; after an indented line break it starts an item), and forced whitespace costs nothing with
jump-forward, so the layout is chosen for the quality of what the model writes, not for its length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from extractor.errors import InputError

LayoutName = Literal["compact", "spaced", "pretty", "free"]


@dataclass(frozen=True)
class Layout:
    """Whitespace around JSON punctuation; every byte of it is forced unless `flexible` is set."""

    indent: int | None = None
    """None: one line. n: `json.dumps(indent=n)`: members and items each on a line of their own,
    indented n spaces per level (levels past `MAX_DEPTH` keep that level's indentation); empty
    containers as `{}` and `[]`."""
    colon: str = ":"
    """Between a key and its value."""
    comma: str = ","
    """Between members or items on one line (with `indent`, a line break follows the comma instead)."""
    flexible: int | None = None
    """The model's own habit: up to this many bytes of any JSON whitespace around every `{ } [ ] , :`
    and the whole value, chosen by the model (each byte of freedom costs a sampled token). The bound
    stops a model from filling the gap forever. Exclusive with `indent`."""

    def __post_init__(self) -> None:
        if self.flexible is not None and (self.indent is not None or self.colon != ":" or self.comma != ","):
            raise ValueError("a flexible layout leaves all whitespace to the model: no indent or spaced separators")
        if self.indent is not None and not 0 <= self.indent <= 16:
            raise ValueError(f"indent must be between 0 and 16 spaces, not {self.indent}")

    def dumps(self, value: Any) -> str:
        """`value` as this layout writes it (a flexible layout: as the spaced one), for examples in a prompt."""
        if self.indent is not None:
            return json.dumps(value, indent=self.indent, separators=(",", self.colon), ensure_ascii=False)
        if self.flexible is not None:
            return json.dumps(value, ensure_ascii=False)
        return json.dumps(value, separators=(self.comma, self.colon), ensure_ascii=False)

    @classmethod
    def named(cls, layout: Layout | LayoutName) -> Layout:
        """A Layout, or one by name: compact, spaced, pretty (indent 2) or free (the model's whitespace)."""
        if isinstance(layout, Layout):
            return layout
        if layout not in LAYOUTS:
            raise InputError(f"layout must be a Layout or one of {sorted(LAYOUTS)}, not {layout!r}")
        return LAYOUTS[layout]


MAX_DEPTH = 8
"""Indentation levels with rules of their own; deeper values (recursive schemas) reuse the last."""

LAYOUTS: dict[str, Layout] = {
    "compact": Layout(),                          # {"a":1,"b":[1,2]}
    "spaced": Layout(colon=": ", comma=", "),     # {"a": 1, "b": [1, 2]}
    "pretty": Layout(indent=2, colon=": "),       # json.dumps(value, indent=2)
    "free": Layout(flexible=16),                  # whatever whitespace the model writes, 16 bytes at most per gap
}
