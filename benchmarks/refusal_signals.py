"""Other signals for refusing a text, beside the relevance screen: do they separate the no-answer documents better?

usage: python benchmarks/refusal_signals.py [--split dev] [--limit N] [--screen-tokens 64] [--json OUT] [--md OUT]

Per document of a split (benchmarks/data/quality), with the embedded model:
- `screen`: the relevance screen as `extract` runs it (decode/relevance.py: the text announced as the target
  against announced as "a text", 512 tokens);
- `kinds`: the text announced as the target against the likeliest of twenty common document kinds (news
  article, letter, invoice, résumé, ...), `--screen-tokens` tokens (each kind is one more pass, so fewer);
- `branch`: in `extract`'s own prompt with both branches offered, log p(refusal key) - log p(first target key)
  where the pretty layout lets them part;
- `screen+branch`: the screen less the branch signal, the weight chosen on this split (flattering).
Each signal's AUC (an answerable document scoring above a no-answer one) and, for the screen, the curve.
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

KINDS = ["news article", "story", "poem", "letter", "e-mail", "recipe", "encyclopedia article", "product review",
         "invoice", "receipt", "résumé", "job posting", "event announcement", "contact list", "meeting notes",
         "report", "conversation", "advertisement", "legal text", "form"]


def _likelihoods(lm: Any, prefixes: list[str], text: str, tokens: int) -> list[float]:
    """log p(text's first `tokens` tokens | prefix), for each prefix, in one batch."""
    import torch

    tok = lm.tokenizer
    body = tok(text, add_special_tokens=False, split_special_tokens=True)["input_ids"][:tokens]
    pre = [tok(p, add_special_tokens=False)["input_ids"] for p in prefixes]
    width = max(len(p) for p in pre) + len(body)
    pad = tok.pad_token_id or 0
    ids = torch.tensor([[pad] * (width - len(p) - len(body)) + p + body for p in pre])
    mask = torch.tensor([[0] * (width - len(p) - len(body)) + [1] * (len(p) + len(body)) for p in pre])
    start = width - len(body)
    with torch.inference_mode():
        hidden = lm.model.base_model(input_ids=ids, attention_mask=mask,
                                     position_ids=(mask.cumsum(-1) - 1).clamp(min=0)).last_hidden_state
        logits = torch.nn.functional.linear(hidden[:, start - 1:-1], lm.model.get_output_embeddings().weight)
        return logits.float().log_softmax(-1).gather(-1, ids[:, start:, None])[..., 0].sum(-1).tolist()


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--limit", type=int, default=None, help="documents per target at most")
    parser.add_argument("--screen-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args()

    import torch

    import schemas
    from extractor import Extractor
    from extractor.decode.relevance import NEUTRAL, about
    from extractor.schema import json_schema

    torch.set_num_threads(args.threads)
    ex = Extractor()
    rows = []
    for i, doc in enumerate(documents(args.split, None, args.limit)):
        target = getattr(schemas, doc["target"])
        schema = json_schema(target)
        kinds = [f"The following text is {'an' if k[0] in 'aeiou' else 'a'} {k}.\n\n" for k in KINDS]
        ll = _likelihoods(ex.lm, [about(schema), NEUTRAL, *kinds], doc["text"], args.screen_tokens)
        rows.append({"id": doc["id"], "no_answer": doc["gold"] is None, "screen": ex.relevance(target, doc["text"]),
                     "kinds": ll[0] - max(ll[2:]), "branch": _branch(ex, target, doc["text"])})
        print(f"[{i + 1}] {doc['id']}", file=sys.stderr, flush=True)
    aucs = {name: _auc([(r[name], r["no_answer"]) for r in rows]) for name in ("screen", "kinds")}
    aucs["branch"] = _auc([(-r["branch"], r["no_answer"]) for r in rows])
    weights = {w: _auc([(r["screen"] - w * r["branch"], r["no_answer"]) for r in rows])
               for w in (0.25, 0.5, 1.0, 2.0)}
    best = max(weights, key=lambda w: weights[w])
    aucs[f"screen+branch (w={best})"] = weights[best]
    result = {"commit": commit(), "split": args.split, "model": "embedded SmolLM2-135M-Instruct",
              "screen_tokens_for_kinds": args.screen_tokens, "kinds": KINDS, "auc": aucs, "documents": rows}
    lines = [f"# Refusal signals ({args.split} split, {len(rows)} documents)", "",
             f"Model: {result['model']}; commit `{result['commit']}`. AUC: the chance that an answerable document "
             "scores above a no-answer one (1 separates them perfectly, 0.5 is chance).", "",
             "| signal | AUC |", "|---|---:|", *(f"| {k} | {v:.3f} |" for k, v in aucs.items())]
    write_results(result, "\n".join(lines) + "\n", args.json, args.md)


if __name__ == "__main__":
    main()
