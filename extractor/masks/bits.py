"""Masks packed 32 tokens per int32 word (bit i of word w: token 32*w + i), as vLLM and the peers read them."""

from __future__ import annotations

import numpy as np


def pack(mask: np.ndarray) -> np.ndarray:
    """Bool per token -> int32 words, little-endian bit order (token 0 is bit 0 of word 0)."""
    data = np.packbits(mask, bitorder="little")
    data = np.concatenate([data, np.zeros(-len(data) % 4, dtype=np.uint8)])
    return data.view("<i4").astype(np.int32, copy=False)


def set_bits(words: np.ndarray, ids: np.ndarray) -> None:
    """Set the bits of token `ids` in packed `words`, in place (ids may share a word)."""
    ids = np.asarray(ids, dtype=np.int64)
    np.bitwise_or.at(words.view(np.uint32), ids >> 5, np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)))
