"""transformers interop: a LogitsProcessor that masks `model.generate(...)` with a compiled grammar.

    from transformers import LogitsProcessorList
    from extractor import ExtractorLogitsProcessor, compile_schema

    grammar = compile_schema(Person, tokenizer)
    inputs = tokenizer(prompts, return_tensors="pt", padding=True)           # left padding for a batch
    proc = ExtractorLogitsProcessor(grammar, prompt_length=inputs["input_ids"].shape[1])
    out = model.generate(**inputs, logits_processor=LogitsProcessorList([proc]), max_new_tokens=200)

Each row gets its own Matcher, advanced with the tokens generated since the previous call; scores of
forbidden tokens become -inf. EOS is allowed only where the output is a complete value, so rows stop
when it is. Greedy and sampling work; beam search and `num_return_sequences > 1` reorder or copy rows
behind the processor's back and are not supported. Jump-forward and guards belong to extractor's own
loop (`extract`, `generate`), not to this processor. Build a new processor (or call `reset()`) per
`generate` call.
"""

from __future__ import annotations

import numpy as np
import torch
from transformers import LogitsProcessor

from extractor.masks import Matcher
from extractor.masks.matcher import CompiledGrammar


class ExtractorLogitsProcessor(LogitsProcessor):
    """Mask `model.generate` scores with a grammar from `extractor.compile_schema(...)`."""

    def __init__(self, grammar: CompiledGrammar, prompt_length: int | None = None) -> None:
        self.grammar = grammar
        self._given_length = prompt_length
        self.prompt_length = prompt_length
        """Length of the (padded) prompt in `input_ids`; None: taken from the first call."""
        self.matchers: list[Matcher] = []
        self._seen: list[int] = []
        self._eos = sorted(grammar.vocab.eos_ids)

    def reset(self) -> None:
        """Forget the rows of the previous `generate` call (and a prompt length taken from it)."""
        self.matchers, self._seen, self.prompt_length = [], [], self._given_length

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        rows, length = input_ids.shape
        if not self.matchers:
            if self.prompt_length is None:
                self.prompt_length = length
            self.matchers = [self.grammar.matcher() for _ in range(rows)]
            self._seen = [self.prompt_length] * rows
        if rows != len(self.matchers):
            raise ValueError(f"{rows} rows but {len(self.matchers)} matchers: beam search and "
                             f"num_return_sequences > 1 are not supported; call reset() between generate calls")
        width = scores.shape[-1]
        allowed = np.zeros((rows, width), dtype=bool)
        host = input_ids.tolist() if length > min(self._seen) else None
        for row, matcher in enumerate(self.matchers):
            if host is not None:
                for token in host[row][self._seen[row]:]:
                    if matcher.finished:
                        break  # after EOS, generate() pads finished rows: nothing more to check
                    matcher.advance(token)
                self._seen[row] = length
            if matcher.finished:
                allowed[row] = True  # generate() overwrites this row with padding anyway
                continue
            mask = matcher.mask()
            n = min(width, mask.shape[0])
            allowed[row, :n] = mask[:n]
        return scores.masked_fill(~torch.from_numpy(allowed).to(scores.device), float("-inf"))
