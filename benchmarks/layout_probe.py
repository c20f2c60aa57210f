"""Where the layout decides what the model writes: at the opening `[` of every list the gold answer fills,
how much of the masked model's probability goes to closing the list empty, and whether greedy decoding
closes it, under each layout.

usage: python benchmarks/layout_probe.py [--split dev] [--layouts compact,spaced,pretty,free] [--limit N]
                                         [--targets ContactCard,Event] [--model ID] [--json OUT] [--md OUT]

For each answerable document and each top-level list field with gold items: the prompt `extract` builds
(the relevance screen passed, so the grammar is the target's alone), then the gold object written in the
layout up to that list's `[` (the fields before it as the gold has them, a simplification: in a real run
the model wrote them), then one forward pass. Over the tokens the grammar allows there, the share of
probability on tokens that close the list (`]`...) is `p_empty`; `greedy_empty` is whether the likeliest
allowed token closes it. Both are errors: the gold list has items.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.quality import documents  # noqa: E402

MARK = "\u0000"


def opening(layout: Any, gold: dict[str, Any], field: str) -> str:
    """The gold object in the layout up to and including the `[` that opens `field`'s list."""
    text = layout.dumps({**gold, field: [MARK]})
    head = text[:text.index('"\\u0000"')]
    return head[:head.rindex("[") + 1]


def probe(ex: Any, target: Any, doc: dict[str, Any], layout_name: str) -> list[dict[str, Any]]:
    import torch

    from extractor import ExtractOptions
    from extractor.grammar import Layout
    from extractor.schema import json_schema

    layout = Layout.named(layout_name)
    grammar = ex.compile(target, None, layout=layout_name)  # compiled once per layout (no Verbatim fields here)
    prompt = ex.prompt_ids(json_schema(target), doc["text"], [], ExtractOptions(layout=layout_name))
    rows = []
    for field, value in doc["gold"].items():
        if not (isinstance(value, list) and value):
            continue
        head = opening(layout, doc["gold"], field)
        matcher = grammar.matcher()
        matcher.advance_bytes(head.encode())
        allowed = torch.from_numpy(matcher.mask().copy())
        ids = prompt + list(ex.lm.tokenizer(head, add_special_tokens=False)["input_ids"])
        with torch.inference_mode():
            keep = {ex.lm.logits_kwarg: 1} if ex.lm.logits_kwarg else {}  # the last position's logits only
            logits = ex.lm.model(torch.tensor([ids], device=ex.lm.device), **keep).logits[0, -1, :len(allowed)].float()
        probs = logits.masked_fill(~allowed, float("-inf")).softmax(-1)
        closes = torch.tensor([tok.startswith(b"]") for tok in ex.vocab.tokens[:len(allowed)]]) & allowed
        rows.append({"document": doc["id"], "field": field, "p_empty": float(probs[closes].sum()),
                     "greedy_empty": bool(closes[int(probs.argmax())])})
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    parser.add_argument("--layouts", default="compact,spaced,pretty,free")
    parser.add_argument("--limit", type=int, default=None, help="the first N documents per target")
    parser.add_argument("--targets", default=None, help="only these targets, comma-separated (default: all)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args(argv)

    import schemas
    from tqdm import tqdm

    from extractor import Extractor

    ex = Extractor(args.model)
    targets = args.targets.split(",") if args.targets else None
    docs = [d for d in documents(args.split, targets, args.limit) if d["gold"] is not None]
    missing = sorted(set(targets or ()) - {d["target"] for d in docs})
    if missing:
        raise SystemExit(f"no answerable {args.split} document of target {missing[0]!r}")
    layouts = args.layouts.split(",")
    per: dict[str, list[dict[str, Any]]] = {name: [] for name in layouts}
    for doc in tqdm(docs, desc="layout probe"):
        for name in layouts:
            per[name] += probe(ex, getattr(schemas, doc["target"]), doc, name)
    summary = {name: {"lists": len(rows), "mean_p_empty": sum(r["p_empty"] for r in rows) / max(len(rows), 1),
                      "greedy_empty_rate": sum(r["greedy_empty"] for r in rows) / max(len(rows), 1)}
               for name, rows in per.items()}
    result = {"commit": commit(), "split": args.split, "model": args.model or "embedded SmolLM2-135M-Instruct",
              "documents": len(docs), "layouts": summary, "rows": per}
    lines = [f"# Lists closed empty at their opening, per layout ({args.split} split, {len(docs)} answerable "
             "documents)", "", f"Model: {result['model']}; commit `{result['commit']}`. Every list probed has "
             "gold items: closing it is an error.", "", "| layout | lists | mean p(empty) | greedy closes it |",
             "|---|---:|---:|---:|"]
    lines += [f"| {name} | {s['lists']} | {s['mean_p_empty']:.3f} | {s['greedy_empty_rate']:.3f} |"
              for name, s in summary.items()]
    write_results(result, "\n".join(lines) + "\n", args.json, args.md)


if __name__ == "__main__":
    main()
