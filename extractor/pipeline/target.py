"""A target resolved once per call: its JSON Schema, title and checks, and its form for one text (the verbatim and
values-from-text rewrites, the nesting depth), read by compile, prompt, screen, trace and merge alike instead of each
deriving them again."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from extractor.decode.fresh import repeatable_arrays
from extractor.pipeline.checks import Check, model_checks
from extractor.pipeline.refusing import title
from extractor.schema import json_schema, nesting, quotes_source, recursive, target_ir, values_from_text
from extractor.schema.printed import asked, printed_dates
from extractor.schema.verbatim import verbatim_strings

if TYPE_CHECKING:
    from extractor.pipeline.options import ExtractOptions, VerbatimMode


@dataclass(frozen=True)
class TextForm:
    """The target as one text is decoded under it."""

    spec: Any
    """What is compiled: the target, or its schema rewritten for the text."""
    key: str
    """The schema's text before its numbers and dates are narrowed to the text's (what a shared grammar is cached
    under)."""
    depth: int | None
    """How deeply a recursive target may nest in this text (None: not recursive, or no text)."""
    per_document: bool
    """The grammar copies from this text (verbatim fields, numbers and dates it writes), so it is compiled for it
    alone."""


class Target:
    """One call's target: each derived form computed on first use (a bad schema fails where it always did)."""

    def __init__(self, spec: Any, opts: ExtractOptions | None = None) -> None:
        self.spec = spec
        self._extra: tuple[Check, ...] = tuple(opts.checks) if opts is not None else ()

    @cached_property
    def schema(self) -> Any:
        """The JSON Schema (a dict, or a bool for `True`/`False` targets)."""
        return json_schema(self.spec)

    @cached_property
    def key(self) -> str:
        """The schema as text: what its IR and grammars are kept under."""
        return json.dumps(self.schema, sort_keys=True)

    @property
    def title(self) -> str:
        return title(self.schema)

    @cached_property
    def repeatable(self) -> frozenset[Any]:
        """The arrays whose items may repeat (the schema's `uniqueItems: false`), as the guards name them."""
        return repeatable_arrays(self.schema) if isinstance(self.schema, dict) else frozenset()

    @cached_property
    def checks(self) -> list[Check]:
        """The model's `@check` methods, then the call's own."""
        return [*model_checks(self.spec), *self._extra]

    @cached_property
    def _verbatim(self) -> tuple[dict[str, Any], str]:
        """The schema with its plain string fields `Verbatim` (where "auto" and "all" start, whatever the text), and
        its key."""
        schema = verbatim_strings(self.schema)
        return schema, json.dumps(schema, sort_keys=True)

    def for_text(self, source: str | None, verbatim: VerbatimMode) -> TextForm:
        """The target's form for `source`: `verbatim="auto"` makes plain string fields `Verbatim`, `"all"` also lets
        plain number, date and time fields take only the values the text writes (`values_from_text`), and a copied
        string field named as a date only the dates the text writes, as written (`printed_dates`), an optional date
        field so narrowed being asked (`asked`); a recursive target nests at most as deeply as the text is
        structured."""
        spec, schema, key = self.spec, self.schema, self.key
        shaped = isinstance(schema, dict) and source is not None
        if verbatim != "marked" and shaped:
            schema, key = self._verbatim
            spec = schema
        depth = nesting(source) if shaped and recursive(schema) else None
        per_document = _quotes(key)
        if verbatim == "all" and shaped:
            narrowed = asked(schema, printed_dates(values_from_text(schema, source), source))
            per_document = per_document or narrowed != schema  # the values offered are the document's
            spec = narrowed
        return TextForm(spec, key, depth, per_document)


@functools.lru_cache(maxsize=256)
def _quotes(key: str) -> bool:
    """Whether a schema has Verbatim fields (its grammar is then compiled per document)."""
    return quotes_source(target_ir(json.loads(key), None))

