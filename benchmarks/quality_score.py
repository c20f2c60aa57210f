"""Scoring extractions against gold objects: per field exact match and F1, refusal precision and recall.

Fields are the gold object's leaves: top-level fields, and the fields of a nested object (`address.city`)
where the gold holds one. Strings compare after case folding and whitespace collapsing, numbers by value.
A list of scalars is scored as a multiset (F1 of the overlap); a list of objects by matching each predicted
item to its most similar unmatched gold item (similarity: the share of the item's fields that match), F1
from the summed similarities; exact only when every item matches whole. A refused, invalid or cut output
scores 0 on every field of an answerable document.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from typing import Any


def norm(value: Any) -> Any:
    """The comparable form of a scalar: folded, whitespace-collapsed strings; numbers as floats."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return " ".join(value.casefold().split())
    return repr(value)


def _leaves(obj: Any, prefix: str = "") -> dict[str, Any]:
    """Field path -> value, descending into nested objects (not into lists)."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_leaves(value, path + "."))
        else:
            out[path] = value
    return out


def _get(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _item_similarity(pred: Any, gold: Any) -> float:
    if isinstance(gold, dict):
        fields = _leaves(gold)
        if not fields:
            return float(isinstance(pred, dict) and not pred)
        return sum(_scalar(_get(pred, k) if isinstance(pred, dict) else None, v) for k, v in fields.items()) / len(fields)
    return float(_scalar(pred, gold))


def _scalar(pred: Any, gold: Any) -> bool:
    a, b = norm(pred), norm(gold)
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return type(a) is type(b) and a == b


def _list_scores(pred: Any, gold: list[Any]) -> tuple[float, float]:
    """(exact, F1) of a predicted list against a gold list."""
    pred = pred if isinstance(pred, list) else []
    if not gold and not pred:
        return 1.0, 1.0
    if not gold or not pred:
        return 0.0, 0.0
    if not any(isinstance(g, dict) for g in gold):
        p, g = Counter(map(_hashable, pred)), Counter(map(_hashable, gold))
        overlap = sum((p & g).values())
        return float(p == g), 2 * overlap / (len(pred) + len(gold))
    unmatched = list(range(len(gold)))
    total, exact = 0.0, len(pred) == len(gold)
    for item in pred:
        if not unmatched:
            exact = False
            break
        best = max(unmatched, key=lambda j: _item_similarity(item, gold[j]))
        sim = _item_similarity(item, gold[best])
        exact = exact and sim == 1.0
        total += sim
        unmatched.remove(best)
    return float(exact), 2 * total / (len(pred) + len(gold))


def _hashable(value: Any) -> Any:
    v = norm(value)
    return v if not isinstance(v, float) else round(v, 9)


def field_scores(pred: dict[str, Any] | None, gold: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Field path -> (exact, F1) for one answerable document; `pred` None scores 0 everywhere."""
    out = {}
    for path, value in _leaves(gold).items():
        got = _get(pred, path) if pred is not None else None
        if pred is None:
            out[path] = (0.0, 0.0)
        elif isinstance(value, list):
            out[path] = _list_scores(got, value)
        else:
            hit = float(_scalar(got, value))
            out[path] = (hit, hit)
    return out


@dataclass
class Outcome:
    """What one method gave on one document, as recorded (and cached) by the benchmark."""

    output: dict[str, Any] | None
    """The validated object (model_dump(mode="json")); None when refused, invalid or cut."""
    refused: bool
    valid: bool
    """The final output parsed and validated, as the target or as a refusal."""
    cut: bool
    """Some attempt was cut by max_tokens."""
    tokens: int
    seconds: float
    attempts: int = 1
    text: str = ""
    error: str | None = None
    trace: list[dict[str, Any]] | None = None
    """The result's trace as the method returned it (`Trace.to_json()`; extract-kind methods), with what the
    decoder copied; other methods' outputs are traced when scored."""


def traced(out: Outcome, text: str, target: Any) -> list[dict[str, Any]]:
    """The trace of an outcome's output: the method's own, else the output looked up in the text."""
    if out.trace is not None:
        return out.trace
    if out.output is None or out.refused:
        return []
    from extractor import trace

    return trace(out.output, text, target).to_json()


def trace_figures(rows: list[tuple[dict[str, Any], Outcome]]) -> dict[str, float | int | None]:
    """Over (document, outcome) pairs: the share of the values a method wrote (strings and numbers not fixed by
    the schema) that the text holds nowhere, and that the decoder copied from it; how many of them stutter (end
    in a 2-4 byte stretch repeated four times that the text does not hold); of the string values the text
    holds as written, the share traced to exact spans; and the spans whose text is not the value under the
    normalization the trace states."""
    import schemas
    from extractor.tracing import agrees

    from extractor.decode.tracker import source_digits, stuttering

    written = missing = copied = verbatim = exact = bad = stutters = 0
    for doc, out in rows:
        text = doc["text"]
        source = text.encode()
        for v in traced(out, text, getattr(schemas, doc["target"])):
            if v["status"] in ("copied", "found", "not_found"):
                written += 1
                missing += v["status"] == "not_found"
                copied += v["status"] == "copied"
                raw = v["value"].encode() if isinstance(v["value"], str) else json.dumps(v["value"]).encode()
                stutters += stuttering(bytearray(raw), 0, 4, source, source_digits(source))
            if isinstance(v["value"], str) and v["value"].strip() and v["value"].strip() in text:
                verbatim += 1
                exact += v["how"] in ("decoder", "verbatim", "exact")
            bad += sum(not agrees(v["value"], text[a:b], v["how"]) for a, b in v["spans"])
    return {"values_written": written, "not_found_rate": _ratio(missing, written), "copied_rate": _ratio(copied, written),
            "stuttering_values": stutters,
            "verbatim_values": verbatim, "verbatim_traced_exact": _ratio(exact, verbatim), "spans_not_agreeing": bad}


def summarize(rows: list[tuple[dict[str, Any] | None, Outcome]]) -> dict[str, float | int | None]:
    """The metrics of one method over (gold, outcome) pairs; gold None marks a no-answer document."""
    em, f1, by_field = [], [], {}
    for gold, out in rows:
        if gold is None:
            continue
        scores = field_scores(None if out.refused else out.output, gold)
        em += [s[0] for s in scores.values()]
        f1 += [s[1] for s in scores.values()]
        for path, (_, score) in scores.items():
            by_field.setdefault(path, []).append(score)
    refused = [out.refused for _, out in rows]
    no_answer = [gold is None for gold, _ in rows]
    true_refusals = sum(r and n for r, n in zip(refused, no_answer))
    n = len(rows)
    kept = [out for _, out in rows if not out.refused]
    return {
        "documents": n,
        "valid_rate": _ratio(sum(out.valid for _, out in rows), n),
        "valid_unrefused_rate": _ratio(sum(out.valid for out in kept), len(kept)),
        "field_em": _ratio(sum(em), len(em)),
        "field_f1": _ratio(sum(f1), len(f1)),
        "refusal_precision": _ratio(true_refusals, sum(refused)),
        "refusal_recall": _ratio(true_refusals, sum(no_answer)),
        "false_refusals": sum(r and not a for r, a in zip(refused, no_answer)),
        "loop_rate": _ratio(sum(out.cut for _, out in rows), n),
        "tokens_per_doc": _ratio(sum(out.tokens for _, out in rows), n),
        "seconds_per_doc": _ratio(sum(out.seconds for _, out in rows), n),
        "attempts_per_doc": _ratio(sum(out.attempts for _, out in rows), n),
        "field_f1_by_field": {path: _ratio(sum(v), len(v)) for path, v in sorted(by_field.items())},
    }


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None
