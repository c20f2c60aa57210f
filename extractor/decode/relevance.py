"""Whether a text holds an answer for a target at all, read off the model's likelihood of the text.

A small model asked to choose between the target and the refusal branch rarely declines on its own
judgement, and asked "is this a résumé?" it answers at chance. What it does know is which texts are
likely: a résumé is likelier after "The following text is a Resume. It gives the name, email, skills..."
than after "The following text is a news article.", a poem is likelier after "... is a poem.". Two
log-likelihood ratios of the text's first tokens (nats) are read: the text announced as the target against
announced as the likeliest of a fixed list of common kinds of document, and against announced as just "a
text". A target that is one part of a document (the skills in a résumé) loses to the kind of the whole
document but wins against "a text", so the score is the larger of the first and the second less a margin.
`extract` offers the refusal branch alone below a threshold calibrated on benchmarks/quality.py's dev split.
"""

from __future__ import annotations

from typing import Any

import torch

from extractor.decode.model import LoadedModel

NEUTRAL = "The following is a text.\n\n"
ABOUT = "The following text is {article} {title}. It gives the {fields}.\n\n"
TITLED = "The following text is {article} {title}.\n\n"
KINDS = ("news article", "story", "poem", "recipe", "encyclopedia article", "product review", "invoice", "receipt",
         "résumé", "job posting", "event announcement", "contact list", "meeting notes", "report", "conversation",
         "advertisement", "legal text", "form")
"""What else a text may be. Channels (e-mail, letter) are left out: any kind of content arrives in them, so they
out-score the target on its own answerable texts (benchmarks/refusal_signals.py ranks the signals)."""

PART_MARGIN = 8.0
"""Nats by which the target-against-"a text" ratio is discounted before it may stand for the kinds ratio
(benchmarks/refusal_signals.py, dev split)."""

SCREEN_TOKENS = 128
"""The screen reads a text's first tokens only (never control tokens): a text says early what it is, and the
cost stays bounded on any text (len(KINDS) + 3 rows of at most this many positions)."""

ROWS = 3
"""Announcements run through the model at once (bounds memory: rows x SCREEN_TOKENS x the vocabulary)."""


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def announcements(schema: dict[str, Any]) -> list[str]:
    """The target announced with its top-level field names, by title alone, as "a text", then as each kind."""
    title = str(schema.get("title", "record"))
    names = [str(k) for k in schema.get("properties", {})] if isinstance(schema.get("properties"), dict) else []
    about = ABOUT.format(article=_article(title), title=title, fields=", ".join(names) or "details")
    return [about.replace(" the details", " details"), TITLED.format(article=_article(title), title=title),
            NEUTRAL, *(TITLED.format(article=_article(k), title=k) for k in KINDS)]


@torch.inference_mode()
def score(lm: LoadedModel, schema: dict[str, Any], text: str, *, enough: float | None = None) -> float:
    """How much likelier the text is as the target than as another kind of document (see above), in nats.
    With `enough`, the kinds are not read where the target-against-"a text" ratio alone reaches it."""
    said, body = announcements(schema), opening(lm, text)
    first = likelihoods(lm, said[:3], body)
    part = first[0] - first[2] - PART_MARGIN
    if enough is not None and part >= enough:
        return part
    return combine([*first, *likelihoods(lm, said[3:], body)])


def likeliest(lm: LoadedModel, schema: dict[str, Any], text: str) -> str:
    """The kind of document the text reads most like (of KINDS), from the likelihoods the screen kept."""
    said, body = announcements(schema), opening(lm, text)
    kinds = likelihoods(lm, said[3:], body)
    return KINDS[max(range(len(KINDS)), key=kinds.__getitem__)]


def combine(ll: list[float], margin: float = PART_MARGIN) -> float:
    """The score from the likelihoods of the text after each of `announcements` (in their order)."""
    about, titled, neutral, *kinds = ll
    return max(max(about, titled) - max(kinds), about - neutral - margin)


def opening(lm: LoadedModel, text: str, tokens: int = SCREEN_TOKENS) -> list[int]:
    """The token ids the screen reads: the text's first `tokens`, never control tokens."""
    return lm.tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"][:tokens]


def likelihoods(lm: LoadedModel, prefixes: list[str], body: list[int]) -> list[float]:
    """log p(body | prefix) for each prefix; those the model has read before are not read again."""
    key = tuple(body)  # one tuple for the rows of this call: its bytes are counted once per row, an overcount
    known = {p: lm.screened.get((p, key)) for p in prefixes}
    missing = [p for p, value in known.items() if value is None]
    for prefix, value in zip(missing, _read(lm, missing, body) if missing else []):
        known[prefix] = value
        lm.screened.put((prefix, key), value, len(prefix) + 8 * len(key))
    return [known[p] for p in prefixes]  # type: ignore[misc]


@torch.inference_mode()
def _read(lm: LoadedModel, prefixes: list[str], body: list[int]) -> list[float]:
    """log p(body | prefix) for each prefix, a few rows per pass (full logits are rows x positions x vocab)."""
    tok = lm.tokenizer
    ids_of = [tok(p, add_special_tokens=False)["input_ids"] for p in prefixes]
    width = max(len(p) for p in ids_of) + len(body)
    pad = tok.pad_token_id if tok.pad_token_id is not None else 0
    ids = torch.tensor([[pad] * (width - len(p) - len(body)) + p + body for p in ids_of], device=lm.device)
    attention = torch.tensor([[0] * (width - len(p) - len(body)) + [1] * (len(p) + len(body)) for p in ids_of],
                             device=lm.device)
    start = width - len(body)
    totals: list[float] = []
    for rows in range(0, len(prefixes), ROWS):
        part, mask = ids[rows:rows + ROWS], attention[rows:rows + ROWS]
        kwargs = {"input_ids": part, "attention_mask": mask, "position_ids": (mask.cumsum(-1) - 1).clamp(min=0)}
        if lm.head is not None:  # the body's hidden states, then the output layer
            states = lm.model.base_model(**kwargs).last_hidden_state[:, start - 1:-1]
            logits = torch.nn.functional.linear(states, lm.head.weight, lm.head.bias)
        else:
            logits = lm.model(**kwargs).logits[:, start - 1:-1]
        totals += logits.float().log_softmax(-1).gather(-1, part[:, start:, None])[..., 0].sum(-1).tolist()
    return totals
