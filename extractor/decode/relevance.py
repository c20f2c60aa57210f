"""Whether a text holds an answer for a target at all, read off the model's likelihood of the text.

A small model asked to choose between the target and the refusal branch rarely declines on its own
judgement, and asked "is this a résumé?" it answers at chance. What it does know is which texts are
likely: a résumé is likelier after "The following text is a Resume. It gives the name, email, skills..."
than after "The following is a text.", a poem is not. The difference of the two log-likelihoods of the
text (nats, summed over its tokens) is the relevance score; `extract` offers the refusal branch alone
below a threshold calibrated on benchmarks/quality.py's dev split.
"""

from __future__ import annotations

from typing import Any

import torch

from extractor.decode.model import LoadedModel

NEUTRAL = "The following is a text.\n\n"
ABOUT = "The following text is a {title}. It gives the {fields}.\n\n"


def about(schema: dict[str, Any]) -> str:
    """The words that announce a text of this target: its title and its top-level field names."""
    title = str(schema.get("title", "record"))
    names = [str(k) for k in schema.get("properties", {})] if isinstance(schema.get("properties"), dict) else []
    return ABOUT.format(title=title, fields=", ".join(names) or "details").replace(" the details", " details")


SCREEN_TOKENS = 512
"""The screen reads a text's first tokens only (never control tokens): a text says early what it is, and the
cost stays bounded on any text (one pass of at most this many positions, however long the document)."""

CHUNK = 256
"""Positions whose full logits are computed at once (bounds memory: 256 x the vocabulary per row)."""


@torch.inference_mode()
def score(lm: LoadedModel, schema: dict[str, Any], text: str) -> float:
    """log p(text | announced as the target) − log p(text | announced as a text), in one batched pass."""
    tok = lm.tokenizer
    body = tok(text, add_special_tokens=False, split_special_tokens=True)["input_ids"][:SCREEN_TOKENS]
    prefixes = [tok(p, add_special_tokens=False)["input_ids"] for p in (about(schema), NEUTRAL)]
    width = max(len(p) for p in prefixes) + len(body)
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    ids = torch.tensor([[pad] * (width - len(p) - len(body)) + p + body for p in prefixes], device=lm.device)
    attention = torch.tensor([[0] * (width - len(p) - len(body)) + [1] * (len(p) + len(body)) for p in prefixes],
                             device=lm.device)
    kwargs = {"input_ids": ids, "attention_mask": attention, "position_ids": (attention.cumsum(-1) - 1).clamp(min=0)}
    start = width - len(body)
    if lm.head is not None:  # the body's hidden states, then the output layer a chunk of positions at a time
        states = lm.model.base_model(**kwargs).last_hidden_state[:, start - 1:-1]
    else:
        states = lm.model(**kwargs).logits[:, start - 1:-1]
    targets = ids[:, start:]
    total = torch.zeros(2, dtype=torch.float64, device=lm.device)
    for k in range(0, len(body), CHUNK):
        part = states[:, k:k + CHUNK]
        logits = part if lm.head is None else torch.nn.functional.linear(part, lm.head.weight, lm.head.bias)
        total += logits.float().log_softmax(-1).gather(-1, targets[:, k:k + CHUNK, None])[..., 0].sum(-1)
    return float(total[0] - total[1])
