"""A target's fields asked apart (`fields="apart"`): an object target split into one-field targets, each asked as a
short question after the text (the text's prompt is the questions' shared prefix, encoded once), and their answers
joined into one output that the document's path parses, validates, checks and traces as it does any answer."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from extractor.errors import Attempt, Usage
from extractor.pipeline.target import Target

if TYPE_CHECKING:
    from extractor.decode.loop import Generation

SPLIT_KEYWORDS = frozenset({"type", "properties", "required", "title", "description", "additionalProperties",
                            "$defs", "definitions", "$schema", "$id"})
"""The keywords an object target split into its fields may hold: none of them ties one field to another, so the
fields' answers, each valid, join into a valid object. A target with any other (`minProperties`,
`dependentRequired`, `patternProperties`, `allOf`, ...) is asked whole."""


@dataclass(frozen=True)
class Part:
    """One field of the target asked on its own: its name and its one-field target."""

    name: str
    target: Target


def split(target: Target) -> tuple[Part, ...]:
    """One part per top-level field of an object target whose keywords relate no two fields (`SPLIT_KEYWORDS`,
    no undeclared keys allowed); () where the target is asked whole (any other target, or one field)."""
    schema = target.schema
    if not (isinstance(schema, dict) and schema.get("type") == "object" and set(schema) <= SPLIT_KEYWORDS):
        return ()
    properties, required = schema.get("properties", {}), set(schema.get("required", ()))
    if schema.get("additionalProperties", False) is not False or len(properties) < 2:
        return ()
    shared = {k: v for k, v in schema.items() if k not in ("properties", "required")}
    return tuple(Part(name, Target({**shared, "properties": {name: sub},
                                    "required": [name] if name in required or admits_null(sub) else []}))
                 for name, sub in properties.items())


def admits_null(schema: Any) -> bool:
    """Whether a field's schema lets it be null: a field that may be null is asked to be written (null where the
    text has none), not left out."""
    if not isinstance(schema, dict):
        return schema is True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(admits_null(s) for key in ("anyOf", "oneOf") for s in schema.get(key, ()))


@dataclass
class Asked:
    """One document's fields asked apart: each part's latest answer, and each part's own earlier attempts (what
    its retry prompt shows)."""

    parts: tuple[Part, ...]
    answers: dict[str, Generation] = field(default_factory=dict)
    history: dict[str, list[Attempt]] = field(default_factory=dict)

    def again(self, last: Attempt | None) -> tuple[Part, ...]:
        """The parts this attempt asks: all at first; after a failed attempt, those its errors name (an error's
        first `loc` key) or its cut left unfinished, each shown its own answer and errors; all where an error
        names no field."""
        if last is None:
            return self.parts
        names = {p.name for p in self.parts}
        placed = [e.loc[0] if e.loc and e.loc[0] in names else None for e in last.errors]
        unfinished = {name for name, gen in self.answers.items() if not gen.complete}
        asked = names if None in placed else {*placed, *unfinished} - {None}
        for part in self.parts:
            gen = self.answers.get(part.name)
            if part.name in asked and gen is not None:
                errors = [e for e, at in zip(last.errors, placed) if at in (None, part.name)]
                self.history.setdefault(part.name, []).append(Attempt(gen.text, gen.usage, errors, not gen.complete))
        return tuple(p for p in self.parts if p.name in asked) or self.parts

    def joined(self, asked: Sequence[Part], gens: Sequence[Generation]) -> Generation:
        """This attempt's answers recorded, and every part's latest answer joined into one output (`join`)."""
        self.answers.update((p.name, gen) for p, gen in zip(asked, gens))
        return join([(p.name, self.answers[p.name]) for p in self.parts], fresh=list(gens))


def join(answers: Sequence[tuple[str, Generation]], fresh: Sequence[Generation]) -> Generation:
    """The parts' answers (field name, answer), in the target's field order, as one output: each answer's members
    spliced into one object (the first answer's whitespace around them, as the layout wrote it), the decoder's
    copies moved with them. A part that wrote the refusal object is the whole answer; a cut part leaves the output
    cut. Usage is `fresh`'s (the answers decoded this attempt): tokens summed, passes and seconds the longest
    row's (the parts decode together)."""
    from extractor.decode.loop import Generation

    usage = _usage([g.usage for g in fresh])
    for name, gen in answers:
        if gen.complete and not _answers(gen, name):
            return Generation(gen.text, gen.data, list(gen.token_ids), True, usage, copies=gen.copies)
    indent, end = _around(answers[0][1])
    data, copies, cut = bytearray(b"{" + indent), [], False
    for _, gen in answers:
        start, inner = _members(gen)
        cut = cut or not gen.complete
        if not inner:
            continue
        data += b"," + indent if len(data) > 1 + len(indent) else b""
        copies += [(at - start + len(data), src, n) for at, src, n in gen.copies if start <= at < start + len(inner)]
        data += inner
    data += b"" if cut else end + b"}"
    return Generation(_text(bytes(data)), bytes(data), [t for _, g in answers for t in g.token_ids], not cut, usage,
                      forced_tokens=sum(g.forced_tokens for g in fresh),
                      copied_tokens=sum(g.copied_tokens for g in fresh), copies=tuple(copies),
                      guard_steps=sum(g.guard_steps for g in fresh))


def _around(gen: Generation) -> tuple[bytes, bytes]:
    """The whitespace a part's answer writes after its `{` and before its `}` (the layout's)."""
    opening = gen.data[gen.data.find(b"{") + 1:]
    closing = gen.data[:gen.data.rfind(b"}")]
    return opening[:len(opening) - len(opening.lstrip())], closing[len(closing.rstrip()):]


def _members(gen: Generation) -> tuple[int, bytes]:
    """Where a part's members start in its answer, and their bytes (as far as written, where it was cut)."""
    start = gen.data.find(b"{") + 1
    inner = gen.data[start:gen.data.rfind(b"}") if gen.complete else len(gen.data)]
    start += len(inner) - len(inner.lstrip())
    return start, inner.strip() if gen.complete else inner.lstrip()


def _answers(gen: Generation, name: str) -> bool:
    """Whether a part's complete answer is its one-field object (else it wrote the refusal object)."""
    try:
        value = json.loads(gen.data)
    except ValueError:
        return True  # not JSON: joined as written, and the whole fails to parse (and is retried)
    return isinstance(value, dict) and set(value) <= {name}


def _usage(usages: Sequence[Usage]) -> Usage:
    """The usage of parts decoded together as rows of one batch."""
    return Usage(prompt_tokens=sum(u.prompt_tokens for u in usages),
                 completion_tokens=sum(u.completion_tokens for u in usages),
                 forward_passes=max((u.forward_passes for u in usages), default=0),
                 seconds=max((u.seconds for u in usages), default=0.0),
                 prefill_seconds=max((u.prefill_seconds for u in usages), default=0.0),
                 cached_tokens=sum(u.cached_tokens for u in usages))


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
