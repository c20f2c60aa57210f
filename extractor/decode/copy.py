"""Source drafts: extraction copies values from the text, so the text proposes the next tokens.

While a string or number is being written, the longest recent stretch of it that occurs in the source
text is looked up, and the source bytes that follow it there are proposed as a draft (cut at a quote,
backslash or line break, tokenized as the tokenizer writes them, kept while the grammar allows them).
Where the source line ends there, the draft also closes the string and runs on through whatever the
grammar forces next (`","email":"`), so a value copied to its line's end and the next key can all be
checked in one pass.
Drafts are only ever verified, never trusted: the same forward pass gives the model's logits at each
drafted position, and a token stands only where the model would have picked it (see rows.Row). So
the output is the one token-by-token decoding gives; a draft saves a pass per token it gets right
(phone numbers and dates, written one digit per token by many tokenizers, gain most).
"""

from __future__ import annotations

from extractor.decode.draft import NO_DRAFT, Draft
from extractor.decode.forced import SpanTokenizer
from extractor.masks import Matcher

_STOP = b'"\\\n\r\t'


class SourceDrafts:
    """Drafts from one source text for one generation."""

    def __init__(self, source: bytes, spans: SpanTokenizer, *, max_tokens: int = 12, min_match: int = 3,
                 window: int = 32) -> None:
        self.source, self.spans = source, spans
        self.max_tokens, self.min_match, self.window = max_tokens, min_match, window

    def draft(self, matcher: Matcher, value: bytes, room: int, in_string: bool = False) -> Draft:
        """Tokens the source suggests after `value` (the current value so far), allowed by the matcher, with
        the source offset their bytes start at (a closing quote and forced text after them are not source)."""
        limit = min(self.max_tokens, room)
        if limit <= 0 or len(value) < self.min_match:
            return NO_DRAFT
        for n in range(min(len(value), self.window), self.min_match - 1, -1):
            at = self.source.find(value[-n:])
            if at < 0:
                continue
            end = at + n + 8 * limit
            follow = self.source[at + n: end]
            cut = min((i for i in (follow.find(bytes([b])) for b in _STOP) if i >= 0), default=len(follow))
            body = follow[:cut]
            line_ends = follow[cut:cut + 1] in (b"\n", b"\r") or (cut == len(follow) and end >= len(self.source))
            copied = len(body)
            if in_string and line_ends:
                body += _closed(matcher, body)
            return Draft(_allowed(matcher, self.spans.encode(body)[:limit]), copied=True, source=at + n,
                         source_bytes=copied)
        return NO_DRAFT


def _closed(matcher: Matcher, body: bytes) -> bytes:
    """The closing quote after `body`, and what the grammar forces after it (b"" where `"` is not allowed)."""
    config = matcher.grammar.walk(matcher.config, body + b'"')
    if not config:
        return b""
    after = Matcher(matcher.grammar)
    after.config = config
    return b'"' + after.forced_bytes()


def _allowed(matcher: Matcher, ids: list[int]) -> list[int]:
    """The longest prefix of `ids` the grammar allows from the matcher's position (matcher unchanged)."""
    grammar, config = matcher.grammar, matcher.config
    for n, tid in enumerate(ids):
        config = grammar.walk(config, grammar.vocab.tokens[tid])
        if not config:
            return ids[:n]
    return ids
