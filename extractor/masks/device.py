"""Masks on the accelerator: packed words cached per configuration, unpacked on the device."""

from __future__ import annotations

from collections import OrderedDict

import torch

from extractor.automata import Config
from extractor.masks.matcher import CompiledGrammar


class PackedMasks:
    """Packed masks kept on one device per configuration: a mask seen before costs no host-to-device
    copy, and a new one copies 4 bytes per 32 tokens instead of one byte per token."""

    def __init__(self, grammar: CompiledGrammar, device: torch.device | str, capacity: int = 1024) -> None:
        self.grammar, self.device, self.capacity = grammar, torch.device(device), capacity
        self.entries: OrderedDict[Config, torch.Tensor] = OrderedDict()

    def get(self, config: Config) -> torch.Tensor:
        words = self.entries.get(config)
        if words is None:
            host = torch.from_numpy(self.grammar.bitmask(config))
            words = self.entries[config] = host.to(self.device, non_blocking=True)
            if len(self.entries) > self.capacity:
                self.entries.popitem(last=False)
        else:
            self.entries.move_to_end(config)
        return words


_SHIFTS: dict[torch.device, torch.Tensor] = {}


def apply_token_bitmask(logits: torch.Tensor, words: torch.Tensor) -> torch.Tensor:
    """Set to -inf, in place, every logit whose bit is 0 (logits wider than the vocabulary: the
    extra columns are masked too). `words` is (..., n_words) int32 on the logits' device."""
    shifts = _SHIFTS.get(logits.device)
    if shifts is None:
        shifts = _SHIFTS[logits.device] = torch.arange(32, dtype=torch.int32, device=logits.device)
    bits = ((words.unsqueeze(-1) >> shifts) & 1).flatten(-2).bool()
    width = logits.shape[-1]
    if bits.shape[-1] < width:
        bits = torch.nn.functional.pad(bits, (0, width - bits.shape[-1]))
    return logits.masked_fill_(~bits[..., :width], float("-inf"))
