"""Whether a text holds an answer for a target at all, read off the model's likelihood of the text.

A small model asked to choose between the target and the refusal branch rarely declines on its own
judgement, and asked "is this a résumé?" it answers at chance. What it does know is which texts are
likely: a résumé is likelier after "The following text is a Resume. It gives the name, email, skills..."
than after "The following text is a news article.", a poem is likelier after "... is a poem.". Two
log-likelihood ratios of the text's first tokens (nats) are read: the text announced as the target against
announced as the likeliest of a fixed list of common kinds of document, and against announced as just "a
text". A target that is one part of a document (the skills in a résumé) loses to the kind of the whole
document but wins against "a text", so the score is the larger of the first and the second less a margin. A
short text (a sentence or three) takes a smaller margin, and its second ratio is read first: where it clears the
threshold, the kinds are not read, and the screen costs a fraction of the text's extraction.
`extract` offers the refusal branch alone below a threshold calibrated on benchmarks/quality.py's dev split.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from extractor.decode.kept import Kept, kept_rows
from extractor.decode.model import LoadedModel

NEUTRAL = "The following is a text.\n\n"
ABOUT = "The following text is {article} {title}. It gives the {fields}.\n\n"
TITLED = "The following text is {article} {title}.\n\n"
KINDS = ("news article", "story", "poem", "recipe", "encyclopedia article", "product review", "invoice", "receipt",
         "résumé", "job posting", "event announcement", "contact list", "meeting notes", "report", "conversation",
         "advertisement", "legal text", "form", "weather forecast")
"""What else a text may be. Channels (e-mail, letter) are left out: any kind of content arrives in them, so they
out-score the target on its own answerable texts (benchmarks/refusal_signals.py ranks the signals). A weather
forecast was added after the short dev texts that passed the screen were read after eleven more kinds (a weather
report or forecast, an FAQ, a staff directory, a calendar file, a gardening tip, a quote, a chat message, a
changelog, sports results, a textbook page): only the weather kinds refused more no-answer texts (2 more of the
63, 18 -> 20, both weather reports; a textbook page 1) and none can refuse an answerable short dev text, each
clearing the threshold on its ratio against "a text" alone; of the others the ratio against "a text", not the
kinds, decides. Of the 58 labeled dev documents whose decision a new kind could move, 18 were read after it: none
changed."""

PART_MARGIN = 8.0
"""Nats by which the target-against-"a text" ratio is discounted before it may stand for the kinds ratio
(benchmarks/refusal_signals.py, dev split)."""

SHORT = 48
"""Tokens below which a text (about three sentences or fewer) is short: its target-against-"a text" ratio is
discounted by `SHORT_MARGIN` rather than `PART_MARGIN`, and read first, from two rows in one pass; the kinds (19
more rows, several extractions of a short text: benchmarks/screen_cost.py) are read only where that ratio does
not clear the threshold. The labeled set's documents are all longer (63 tokens and up), the short set's all
shorter (36 at most)."""

SHORT_MARGIN = 2.0
"""Nats by which a short text's ratio against "a text" is discounted: on benchmarks/data/short's dev split it puts
the default threshold 0.9 nats below the lowest answerable text's ratio (-2.67), so that every answerable dev text
is decided by the two rows alone."""

SCREEN_TOKENS = 128
"""The screen reads a text's first tokens only (never control tokens): a text says early what it is, and the
cost stays bounded on any text (len(KINDS) + 3 rows of at most this many positions)."""

PACKED = 1024
"""Tokens of text copies packed into one pass (each copy attends to its own announcement, read once per model, and
to itself), so a short text's rows take one pass; logits are computed `LOGITS` positions at a time, bounding
memory to LOGITS x vocabulary."""
LOGITS = 256


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
    With `enough`, the kinds are not read where the target-against-"a text" ratio alone reaches it (for a short
    text, the two rows that ratio needs are read first and alone)."""
    said, body = announcements(schema), opening(lm, text)
    margin = SHORT_MARGIN if len(body) < SHORT else PART_MARGIN
    if len(body) < SHORT and enough is not None:
        about, neutral = likelihoods(lm, [said[0], said[2]], body)
        if about - neutral - margin >= enough:
            return about - neutral - margin
    first = likelihoods(lm, said[:3], body)
    part = first[0] - first[2] - margin
    if enough is not None and part >= enough:
        return part
    return combine([*first, *likelihoods(lm, said[3:], body)], tokens=len(body))


def likeliest(lm: LoadedModel, schema: dict[str, Any], text: str) -> str:
    """The kind of document the text reads most like (of KINDS), from the likelihoods the screen kept."""
    said, body = announcements(schema), opening(lm, text)
    kinds = likelihoods(lm, said[3:], body)
    return KINDS[max(range(len(KINDS)), key=kinds.__getitem__)]


def kind(lm: LoadedModel, schema: dict[str, Any], body: list[int], *, below: float | None = None,
         guess: str | None = None) -> tuple[float, str]:
    """How much likelier `body` is announced as the target (with its field names or by title) than as the likeliest
    other kind of document (`KINDS`), and that kind: the screen's first ratio. With `below` and `guess` (one of
    `KINDS`, most often the last stretch's kind), the other kinds are not read where `guess` alone puts the ratio
    under `below`: the ratio returned is then against `guess`, an upper bound of the whole one."""
    said, guessed = announcements(schema), KINDS.index(guess) if guess is not None else -1
    first = likelihoods(lm, [said[0], said[1], *([said[3 + guessed]] if guess is not None else [])], body)
    target = max(first[:2])
    if guess is not None and below is not None and target - first[2] < below:
        return target - first[2], guess
    others = [j for j in range(len(KINDS)) if j != guessed]  # a guessed kind is not read again
    kinds = dict(zip(others, likelihoods(lm, [said[3 + j] for j in others], body)))
    if guess is not None:
        kinds[guessed] = first[2]
    best = max(kinds, key=kinds.__getitem__)
    return target - kinds[best], KINDS[best]


def combine(ll: list[float], margin: float = PART_MARGIN, tokens: int = SCREEN_TOKENS) -> float:
    """The score from the likelihoods of an opening of `tokens` tokens after each of `announcements` (in their
    order); a short opening's "a text" ratio is discounted by `SHORT_MARGIN` instead of `margin`."""
    about, titled, neutral, *kinds = ll
    part = SHORT_MARGIN if tokens < SHORT else margin
    return max(max(about, titled) - max(kinds), about - neutral - part)


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


def _read(lm: LoadedModel, prefixes: list[str], body: list[int]) -> list[float]:
    """log p(body | prefix) for each prefix: the bodies of as many rows as `PACKED` tokens allow in one pass, each
    row's announcement read once per model (`kept.KeptRows.read`)."""
    if not body:
        return [0.0] * len(prefixes)
    return _in_passes(lm, _kept(lm, prefixes), [body] * len(prefixes), list(range(len(prefixes))))


def _kept(lm: LoadedModel, prefixes: Sequence[str]) -> list[Kept]:
    """Each prefix read once per model (`kept.KeptRows.read`)."""
    store = kept_rows(lm, "announcements")
    return [store.read(lm, lm.tokenizer(p, add_special_tokens=False)["input_ids"]) for p in prefixes]


def _in_passes(lm: LoadedModel, kept: list[Kept], bodies: list[list[int]], owner: list[int]) -> list[float]:
    """`_packed` over as many bodies a pass as `PACKED` tokens allow (one at least), in their order, each pass
    attending to the kept rows its bodies read on from only."""
    out: list[float] = []
    at = 0
    while at < len(bodies):
        stop, size = at + 1, len(bodies[at])
        while stop < len(bodies) and size + len(bodies[stop]) <= PACKED:
            size += len(bodies[stop])
            stop += 1
        used = sorted(set(owner[at:stop]))
        out += _packed(lm, [kept[j] for j in used], bodies[at:stop], [used.index(j) for j in owner[at:stop]])
        at = stop
    return out


def continuations(lm: LoadedModel, row: list[int], bodies: list[list[int]]) -> list[float]:
    """log p(body | row) for each body, in one pass: the row is kept among the model's prompts (`kept`), so a
    decoding run of it before or after reads only what follows it."""
    kept = kept_rows(lm, "prompts").read(lm, row)
    return _packed(lm, [kept], bodies, [0] * len(bodies)) if any(bodies) else [0.0] * len(bodies)


@torch.inference_mode()
def _packed(lm: LoadedModel, kept: list[Kept], bodies: list[list[int]], owner: list[int]) -> list[float]:
    """log p(body | its row) for each body, in one pass over the bodies side by side: each attends to the keys and
    values of its row (`kept[owner[b]]`) and to itself, and only the bodies' tokens' logits are read (logsumexp and
    gather, no whole log-softmax kept)."""
    from transformers import DynamicCache

    device = lm.device
    widths = torch.tensor([k[0][0][0].shape[-2] for k in kept], device=device)
    mine = torch.tensor([b for b, body in enumerate(bodies) for _ in body], device=device)  # each token's body
    at = torch.tensor([j for body in bodies for j in range(len(body))], device=device)  # its place in the body
    row = torch.tensor(owner, device=device)[mine]  # the kept row each token reads on from
    keys = torch.arange(len(kept), device=device).repeat_interleave(widths)  # the row of each kept position
    seen = torch.cat([row[:, None] == keys[None, :], (mine[:, None] == mine[None, :]) & (at[None, :] <= at[:, None])],
                     dim=1)
    dtype = next(lm.model.parameters()).dtype
    mask = torch.zeros(seen.shape, dtype=dtype, device=device).masked_fill(~seen, torch.finfo(dtype).min)
    cache = DynamicCache([(torch.cat([k[0][i][0] for k in kept], 2), torch.cat([k[0][i][1] for k in kept], 2))
                          for i in range(len(kept[0][0]))])
    flat = torch.tensor([t for body in bodies for t in body], device=device)
    kwargs = {"input_ids": flat[None], "attention_mask": mask[None, None], "position_ids": (widths[row] + at)[None],
              lm.cache_kwarg: cache, "use_cache": True}
    out = lm.model.base_model(**kwargs).last_hidden_state if lm.head is not None else lm.model(**kwargs).logits
    before = out[0][(torch.arange(len(flat), device=device) - 1).clamp(min=0)]  # the position that predicts each
    states = torch.where((at == 0)[:, None], torch.stack([k[1] for k in kept])[row], before)  # a first: its row's last
    each = torch.cat([_logprobs(lm, states[k:k + LOGITS], flat[k:k + LOGITS]) for k in range(0, len(flat), LOGITS)])
    return torch.zeros(len(bodies), dtype=each.dtype, device=device).index_add_(0, mine, each).tolist()


def _logprobs(lm: LoadedModel, states: torch.Tensor, wanted: torch.Tensor) -> torch.Tensor:
    """log p(wanted token) at each position, from hidden states (with a Head) or logits."""
    logits = (torch.nn.functional.linear(states, lm.head.weight, lm.head.bias) if lm.head is not None
              else states).float()
    return logits.gather(-1, wanted[:, None])[:, 0] - logits.logsumexp(-1)


def as_kind(kind: str) -> str:
    """The announcement of one of `KINDS` (a row `against` reads a text after)."""
    return TITLED.format(article=_article(kind), title=kind)


def as_context(text: str) -> str:
    """A passage of a text as a row `against` reads another part of it after: a line that goes on like it."""
    return f"{NEUTRAL}{text.strip()}\n"


@torch.inference_mode()
def against(lm: LoadedModel, schema: dict[str, Any], bodies: list[list[int]], others: Sequence[str]) -> list[float]:
    """How much likelier each body is announced as the target (with its field names or by title) than after the
    likeliest of the rows `others` (`as_kind`, `as_context`), in nats: the many short lines of a region read in
    rows packed `PACKED` tokens to a pass; an empty body reads 0."""
    rows = [(b, j) for b, body in enumerate(bodies) if body for j in range(2 + len(others))]
    said = announcements(schema)
    read = dict(zip(rows, _in_passes(lm, _kept(lm, [said[0], said[1], *others]), [bodies[b] for b, _ in rows],
                                     [j for _, j in rows])))
    return [max(read[b, 0], read[b, 1]) - max(read[b, j] for j in range(2, 2 + len(others))) if body else 0.0
            for b, body in enumerate(bodies)]
