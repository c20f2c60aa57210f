"""Drafts: tokens fed in one forward pass ahead of the model's own choice (a span the grammar forces, or text
copied from the source). Each drafted token stands only where the model, seeing its logits in that same pass,
would have picked it; at the first it would not, the model's pick is taken and the rest leave the cache, so
outputs are those of token-by-token decoding."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Draft:
    """The tokens drafted for the next pass, and where they came from."""

    tokens: list[int] = field(default_factory=list)
    copied: bool = False
    """Copied from the source text (`SourceDrafts`); else forced by the grammar."""
    source: int = 0
    """Copied: the byte offset in the source text where the tokens' bytes start."""
    source_bytes: int = 0
    """Copied: how many of the tokens' bytes are the source's (a closing quote and forced text may follow)."""


NO_DRAFT = Draft()


def learn_split(splits: dict[int, int] | None, tokens: Sequence[bytes], drafted: int, picked: int) -> None:
    """Remember where the model wrote a shorter token than drafted (and forget where it no longer does), so
    later drafts are split as the model splits them (`SpanTokenizer.resplit`)."""
    if splits is None:
        return
    if tokens[drafted].startswith(tokens[picked]) and len(tokens[picked]) < len(tokens[drafted]):
        splits[drafted] = picked
    elif splits.get(picked) == drafted:
        del splits[picked]
