"""Where in a long text the target is, read off its words before any model runs: each stretch of the text scored
by BM25 for the words of the target's schema (field names, titles, descriptions) and the shapes of the values it
asks for (an e-mail address, a phone number, a date, an amount, a year), the long text's own stretches as the
collection, so a word every stretch writes (a contract's "date" or "company") weighs nothing and a word or shape
only the buried document writes weighs most. Linear in the text, no model pass: a long text's relevant part is
found for the cost of a regex scan."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from extractor.lang.written import written

_WORD = re.compile(r"[^\W_]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
STOP = frozenset("""a an and are as at be by for from if in into is it its of on or that the this to was were with
without null none not stated given written text value values any each one own name names yyyy mm dd
hh iso format e g eg etc""".split())
"""Words a schema's descriptions use about the answer rather than the document ("null if not stated", "as written
in the text"): never looked for."""

SHAPES: dict[str, re.Pattern[str]] = {
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"\bhttps?://\S+|\bwww\.\S+", re.IGNORECASE),
    "phone": re.compile(r"(?<![\w.])\+?\(?\d[\d ().-]{6,}\d(?![\w.])"),
    "amount": re.compile(r"(?:[$€£¥₹]|\b(?:usd|eur|gbp|rm|chf|inr)\b)\s?\d[\d,.]*|\b\d[\d,]*[.,]\d{2}\b",
                         re.IGNORECASE),
    "date": re.compile(r"\b\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
                       r"[a-z]*\.?\s+\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
                       r"oct|nov|dec)[a-z]*\b", re.IGNORECASE),
    "year": re.compile(r"\b(?:19|20)\d{2}\b"),
    "time": re.compile(r"\b\d{1,2}[:.]\d{2}\s?(?:[ap]\.?m\.?)?(?![\d.:])|\b\d{1,2}\s?[ap]\.?m\.?\b", re.IGNORECASE),
}
"""Value shapes a stretch may write, each a term `<shape>` of its own: a field asking for that kind of value looks
for it."""

_NAMED = (("email", ("email", "mail")), ("url", ("url", "website", "link", "homepage", "linkedin")),
          ("phone", ("phone", "tel", "telephone", "mobile", "fax")),
          ("amount", ("total", "price", "amount", "cost", "fee", "subtotal", "tax", "salary", "paid", "balance")),
          ("date", ("date", "day", "deadline", "due")), ("year", ("year", "years")),
          ("time", ("time", "hour", "start", "end", "begin", "clock")))
"""Words in a field's name that say which shape its value has."""
_FORMATS = {"email": "email", "idn-email": "email", "uri": "url", "iri": "url", "date": "date", "date-time": "date",
            "time": "time"}

K1 = 1.2
B = 0.75
"""BM25's usual term saturation and length normalization (a term written often counts little more than twice; a
stretch cut short at the text's end is not favoured)."""


def words(text: str) -> list[str]:
    """A text's words, lower case, camelCase and snake_case split, a plural's `s` dropped; digits left to the
    shapes."""
    out = []
    for raw in _WORD.findall(_CAMEL.sub(" ", text)):
        word = raw.lower()
        if word.isdigit() or len(word) < 2:
            continue
        out.append(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return out


def terms(schema: dict[str, Any]) -> list[str]:
    """What the target's schema looks for: the words of its title, its fields' names, titles and descriptions
    (every level, `$ref`s into its definitions followed once), and `<shape>` for each value shape a field asks
    for; each once. A keyword whose value has the wrong type is passed over (the compile refuses it loudly)."""
    defs = definitions(schema)
    found: dict[str, None] = {}
    seen: set[str] = set()

    def add(text: Any) -> None:
        if isinstance(text, str):
            for w in words(text):
                if w not in STOP:
                    found.setdefault(w, None)

    def shapes(name: str, node: dict[str, Any]) -> Iterator[str]:
        lowered = set(words(name))
        for shape, cues in _NAMED:
            if lowered & {c.rstrip("s") if len(c) > 3 else c for c in cues}:
                yield shape
        if isinstance(node.get("format"), str) and node["format"] in _FORMATS:
            yield _FORMATS[node["format"]]
        kinds = node.get("type")
        if kinds == "number" or (isinstance(kinds, list) and "number" in kinds):
            yield "amount"

    def walk(node: Any, name: str = "") -> None:
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs and ref not in seen:
            seen.add(ref)
            walk(defs[ref.rsplit("/", 1)[-1]], name)
        add(node.get("title"))
        add(node.get("description"))
        if name:
            for shape in shapes(name, node):
                found.setdefault(f"<{shape}>", None)
        for key, sub in mapping(node.get("properties")).items():
            add(key)
            walk(sub, key)
        for key in ("items", "additionalProperties"):
            walk(node.get(key), name)
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in node.get(key) if isinstance(node.get(key), list) else ():
                walk(sub, name)

    walk(schema)
    return list(found)


def mapping(value: Any) -> dict[str, Any]:
    """A keyword's value where it is an object, else empty (a malformed keyword is the compile's to refuse)."""
    return value if isinstance(value, dict) else {}


def definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema's `$defs` and `definitions`, by name."""
    return {**mapping(schema.get("$defs")), **mapping(schema.get("definitions"))}


def asked(schema: dict[str, Any]) -> tuple[str, ...]:
    """The value shapes the target's fields ask for (`terms`' `<shape>` terms), by name, in the schema's order."""
    return tuple(t[1:-1] for t in terms(schema) if t.startswith("<"))


_READ = (("date", {"date", "day", "month"}), ("year", {"date", "month"}), ("time", {"time"}))
"""The meanings of the library's reader (`lang.written`) that write a date, a year or a time."""


def writes(text: str, shapes: Sequence[str]) -> frozenset[str]:
    """Which of `shapes` the text writes anywhere: by their patterns, and dates, years and times also as the grammar
    and the trace read them (`lang.written`, kept per text for the grammar's own narrowing: a calendar's
    `20260302T094500`, `10. April 2026`)."""
    found = {s for s in shapes if s in SHAPES and SHAPES[s].search(text)}
    if any(s in shapes and s not in found for s, _ in _READ):
        meant = {m[0] for m in written(text)}
        found |= {s for s, kinds in _READ if s in shapes and meant & kinds}
    return frozenset(found)


def stretch_terms(text: str) -> Counter[str]:
    """The words of one stretch and its `<shape>` terms, each counted."""
    counts = Counter(words(text))
    for shape, pattern in SHAPES.items():
        n = sum(1 for _ in pattern.finditer(text))
        if n:
            counts[f"<{shape}>"] = n
    return counts


def spread(counted: Sequence[Counter[str]], query: Sequence[str]) -> float:
    """The largest share of the stretches that write one of the value shapes the query asks for: near 1 where the
    whole text is of the target's kind (a statement's rows each write a date and an amount), low where its values
    stand in one place (a receipt buried in a contract)."""
    shapes = [t for t in query if t.startswith("<")]
    if not counted or not shapes:
        return 0.0
    return max(sum(1 for c in counted if c[t]) for t in shapes) / len(counted)


def peak(scores: Sequence[float]) -> float:
    """How far the best stretch stands out: its score over the mean of all (0 where none scores above 0)."""
    mean = sum(scores) / len(scores) if scores else 0.0
    return max(scores) / mean if mean > 0 else 0.0


def bm25(counted: Sequence[Counter[str]], query: Sequence[str]) -> list[float]:
    """BM25 of each stretch (its terms counted: `stretch_terms`) for the query's terms, the stretches themselves the
    collection (a term's weight is how few of them write it)."""
    n = len(counted)
    if not n:
        return []
    lengths = [sum(c.values()) for c in counted]
    mean = sum(lengths) / n or 1.0
    wanted = set(query)
    held = Counter(t for c in counted for t in c.keys() & wanted)
    weight = {t: math.log(1 + (n - held[t] + 0.5) / (held[t] + 0.5)) for t in dict.fromkeys(query) if held[t]}
    # (summed in the query's order, not a set's: the same scores under every hash seed)
    out = []
    for c, size in zip(counted, lengths):
        norm = K1 * (1 - B + B * size / mean)
        out.append(sum(weight[t] * c[t] * (K1 + 1) / (c[t] + norm) for t in weight if c[t]))
    return out
