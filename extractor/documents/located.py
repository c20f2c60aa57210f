"""Where in a long text each scalar member of the target is stated: the text cut on a grid of short stretches, each
scored by BM25 for that member's own words (its name counted `NAME_WEIGHT` times, its title and description once, the
value shapes its name or format asks for), so a notice period is looked for where "notice" is written and a landlord
where "landlord" is, however far apart the two stand. No model pass; the best stretches, widened to whole words, are
what `pipeline/windowed.py` reads each member in (with the members whose best stretch is the same)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from extractor.documents import lexical
from extractor.documents.relevant import grid, regions

STRETCH = 256
"""Characters a stretch holds when a member is looked for: about a sentence or two, where one fact is stated."""
PAD = 256
"""Characters read on each side of a member's stretch (to the nearest space), so a sentence it cuts is read whole:
a snippet of about 768 characters, which the embedded model reads far better than a window of clauses."""
NAME_WEIGHT = 2.0
"""How many times a member's name words count against its description's: a document labels a value by its name
("Tenant", "notice"), while a description's words ("person", "property") are written all through a contract. Set by
looking at far_apart's dev documents; what it gives is measured by benchmarks/far_apart.py's `--located` runs."""
TOP = 2
"""Stretches a member is read in at most, the best first: the second only where the first wrote nothing."""
_SCALAR = frozenset({"string", "number", "integer", "boolean", "null"})


@dataclass(frozen=True)
class Located:
    """A scalar member's best stretches (`(start, end)` in the text, widened to whole words), the best first."""

    key: str
    snippets: tuple[tuple[int, int], ...]


def scalar_members(schema: dict[str, Any]) -> list[str]:
    """The target's top-level members that hold one scalar (a string, a number, a date, a flag, an enum of two or
    more values), `$ref`s into its definitions followed: the values a long text states once, in one sentence. A
    member the schema fixes (a `const`, a one-value enum) has nothing to read."""
    defs = lexical.definitions(schema)
    return [k for k, sub in lexical.mapping(schema.get("properties")).items() if _scalar(sub, defs, 0)]


def _scalar(node: Any, defs: dict[str, Any], depth: int) -> bool:
    if not isinstance(node, dict) or depth > 8:
        return False
    ref = node.get("$ref")
    if isinstance(ref, str):
        return _scalar(defs.get(ref.rsplit("/", 1)[-1]), defs, depth + 1)
    for key in ("anyOf", "oneOf"):
        if isinstance(node.get(key), list):
            return all(_scalar(b, defs, depth + 1) for b in node[key]) and bool(node[key])
    if "const" in node:  # its value fixed by the schema: nothing to read
        return False
    if "enum" in node:
        values = node["enum"] if isinstance(node["enum"], list) else []
        return len(values) > 1 and all(not isinstance(v, (dict, list)) for v in values)
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    return isinstance(kinds, list) and bool(kinds) and all(k in _SCALAR for k in kinds)


def member_scores(counted: Sequence[Counter[str]], schema: dict[str, Any], key: str) -> list[float]:
    """Each stretch's score for one member: BM25 of its name's words and value shapes, `NAME_WEIGHT` times, plus
    BM25 of the other words of its title and description."""
    sub = lexical.mapping(schema.get("properties")).get(key, {})
    query = lexical.terms({"properties": {key: sub}, **{k: schema[k] for k in ("$defs", "definitions") if k in schema}})
    name = set(lexical.words(key))
    named = [t for t in query if t in name or t.startswith("<")]
    rest = [t for t in query if t not in named]
    return [NAME_WEIGHT * a + b for a, b in zip(lexical.bm25(counted, named), lexical.bm25(counted, rest))]


def locate(text: str, schema: dict[str, Any], keys: Sequence[str]) -> list[Located]:
    """Each of `keys` (scalar members) with its best `TOP` stretches of the text, widened by `PAD`; a member none of
    whose words or shapes the text writes anywhere is left out (nothing says where it would be)."""
    spans = grid(len(text), STRETCH)
    counted = [lexical.stretch_terms(text[a:b]) for a, b in spans]
    out = []
    for key in keys:
        scores = member_scores(counted, schema, key)
        best = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))[:TOP]
        if best:
            out.append(Located(key, tuple(regions(text, spans, [i], PAD)[0] for i in best)))
    return out
