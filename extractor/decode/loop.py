"""The generation loop: one forward pass per token on a kept KV cache, logits masked by the Matcher."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from extractor.decode.model import LoadedModel
from extractor.decode.sampling import SamplingOptions, choose, masked, penalize
from extractor.errors import Usage
from extractor.masks import Matcher
from extractor.tokens import Vocabulary


@dataclass
class Generation:
    """What one decoding run produced."""

    text: str
    data: bytes = b""
    token_ids: list[int] = field(default_factory=list)
    complete: bool = False
    usage: Usage = field(default_factory=Usage)


@torch.inference_mode()
def generate(lm: LoadedModel, vocab: Vocabulary, prompt_ids: list[int], matcher: Matcher | None, *,
             max_tokens: int, sampling: SamplingOptions = SamplingOptions()) -> Generation:
    """Decode until the grammar is complete (or EOS when unconstrained), or max_tokens."""
    start = time.perf_counter()
    device = lm.device
    generator = None
    if sampling.seed is not None:
        generator = torch.Generator(device=device).manual_seed(sampling.seed)
    logits, cache = _forward(lm, torch.tensor([prompt_ids], device=device), None)
    prefill = time.perf_counter() - start
    passes, tokens, output, complete = 1, [], bytearray(), False
    while len(tokens) < max_tokens:
        row = logits[0, -1]
        if tokens and sampling.repetition_penalty != 1.0:
            row = penalize(row, torch.tensor(sorted(set(tokens)), device=device), sampling.repetition_penalty)
        if matcher is not None:
            allowed = torch.from_numpy(matcher.mask()).to(device, non_blocking=True)
            row = masked(row, allowed)
        token = choose(row, sampling, generator)
        if token in vocab.eos_ids:
            if matcher is not None:
                matcher.advance(token)
            complete = True
            break
        if matcher is not None:
            matcher.advance(token)
        tokens.append(token)
        output += vocab.tokens[token]
        if matcher is not None and matcher.accepting() and not matcher.grammar.allowed_bytes(matcher.config):
            complete = True  # nothing may follow but EOS: skip the pass that would only choose it
            break
        if len(tokens) < max_tokens:
            logits, cache = _forward(lm, torch.tensor([[token]], device=device), cache)
            passes += 1
    usage = Usage(prompt_tokens=len(prompt_ids), completion_tokens=len(tokens), forward_passes=passes,
                  seconds=time.perf_counter() - start, prefill_seconds=prefill)
    return Generation(text=_text(bytes(output)), data=bytes(output), token_ids=tokens, complete=complete,
                      usage=usage)


def _text(data: bytes) -> str:
    """The output as text: a character cut in half at the end is left out, not replaced."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", errors="replace")
        return data.decode("utf-8", errors="replace")


def _forward(lm: LoadedModel, ids: torch.Tensor, cache: object) -> tuple[torch.Tensor, object]:
    out = lm.model(input_ids=ids, use_cache=True, **{lm.cache_kwarg: cache})
    return out.logits, getattr(out, lm.cache_kwarg)
