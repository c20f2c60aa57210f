"""Signals for refusing a text: which separates the no-answer documents from the answerable ones best?

usage: python benchmarks/refusal_signals.py [--split dev] [--limit N] [--targets A,B] [--tokens 128]
                                           [--json OUT] [--md OUT]

Per document of a split (benchmarks/data/quality), with the embedded model, the log-likelihood of the text's
first `--tokens` tokens after each announcement, and from them:
- `kinds`: the target announced with its field names or by title, whichever is likelier, against the
  likeliest of the other kinds of document (decode/relevance.py's KINDS);
- `kinds+channels`: the same with "an e-mail" and "a letter" among the kinds;
- `about-only`: the target announced with its field names only, against the kinds;
- `vs-a-text`: the target announced with its field names against "The following is a text.";
- `screen`: what `extract` runs: the larger of `kinds` and `vs-a-text` less a margin (`--margin`, default
  relevance.PART_MARGIN; the AUC for the margins 0-16 is listed too);
- `branch`: in `extract`'s own prompt with both branches offered, log p(first target key) - log p(refusal key)
  where the pretty layout lets them part.
Each signal's AUC (an answerable document scoring above a no-answer one); each document keeps its
log-likelihood after every announcement of `extract`'s screen (`likelihoods`). Choose on the dev split.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.calibrate_refusal import _auc  # noqa: E402
from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.quality import documents  # noqa: E402

CHANNELS = ["The following text is an e-mail.\n\n", "The following text is a letter.\n\n"]


def _branch(ex: Any, target: Any, text: str) -> float:
    """log p(refusal key) - log p(first target key) after `{` and the layout's first indentation."""
    import torch

    from extractor.schema import json_schema

    tok = ex.lm.tokenizer
    ids = tok(ex.prompt(target, text) + '{\n  "', add_special_tokens=False)["input_ids"]
    first = next(iter(json_schema(target)["properties"]))
    keys = [tok(k + '"', add_special_tokens=False)["input_ids"] for k in ("error", first)]
    width = max(len(k) for k in keys)
    rows = torch.tensor([ids + k + [tok.pad_token_id or 0] * (width - len(k)) for k in keys])
    with torch.inference_mode():
        logits = ex.lm.model(input_ids=rows).logits[:, len(ids) - 1:-1].float().log_softmax(-1)
    ref, tgt = (sum(float(logits[r, j, t]) for j, t in enumerate(k)) for r, k in enumerate(keys))
    return ref - tgt


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--limit", type=int, default=None, help="documents per target at most")
    parser.add_argument("--targets", default=None, help="comma-separated target names (default: all)")
    parser.add_argument("--tokens", type=int, default=None, help="tokens of the text read (default: the screen's)")
    parser.add_argument("--margin", type=float, default=None, help="PART_MARGIN for `screen`")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args(argv)

    import torch

    import schemas
    from extractor import Extractor
    from extractor.decode.relevance import PART_MARGIN, SCREEN_TOKENS, announcements, combine, likelihoods, opening
    from extractor.schema import json_schema

    torch.set_num_threads(args.threads)
    tokens = args.tokens or SCREEN_TOKENS
    margin = PART_MARGIN if args.margin is None else args.margin
    ex = Extractor()
    rows = []
    for i, doc in enumerate(documents(args.split, args.targets.split(",") if args.targets else None, args.limit)):
        target = getattr(schemas, doc["target"])
        ll = likelihoods(ex.lm, [*announcements(json_schema(target)), *CHANNELS], opening(ex.lm, doc["text"], tokens))
        own, other, channels = max(ll[:2]), max(ll[3:-2]), max(ll[-2:])
        rows.append({"id": doc["id"], "no_answer": doc["gold"] is None, "kinds": own - other,
                     "kinds+channels": own - max(other, channels), "about-only": ll[0] - other,
                     "vs-a-text": ll[0] - ll[2], "screen": combine(ll[:-2], margin),
                     "branch": -_branch(ex, target, doc["text"]), "likelihoods": ll[:-2]})
        print(f"[{i + 1}] {doc['id']}", file=sys.stderr, flush=True)
    names = ("screen", "kinds", "kinds+channels", "about-only", "vs-a-text", "branch")
    aucs = {name: _auc([(r[name], r["no_answer"]) for r in rows]) for name in names}
    for m in (0, 2, 4, 6, 8, 10, 12, 16):
        aucs[f"screen, margin {m}"] = _auc([(combine(r["likelihoods"], m), r["no_answer"]) for r in rows])
    result = {"commit": commit(), "split": args.split, "model": "embedded SmolLM2-135M-Instruct",
              "tokens": tokens, "margin": margin, "auc": aucs, "documents": rows}
    lines = [f"# Refusal signals ({args.split} split, {len(rows)} documents, first {tokens} tokens)", "",
             f"Model: {result['model']}; commit `{result['commit']}`. AUC: the chance that an answerable document "
             "scores above a no-answer one (1 separates them perfectly, 0.5 is chance).", "",
             "| signal | AUC |", "|---|---:|", *(f"| {k} | {v:.3f} |" for k, v in aucs.items())]
    write_results(result, "\n".join(lines) + "\n", args.json, args.md)


if __name__ == "__main__":
    main()
