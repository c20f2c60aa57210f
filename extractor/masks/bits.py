"""Masks packed 32 tokens per int32 word (bit i of word w: token 32*w + i), as vLLM and the peers read them."""

from __future__ import annotations

import numpy as np

from extractor.masks.trie import _kernel


def pack(mask: np.ndarray) -> np.ndarray:
    """Bool per token -> int32 words, little-endian bit order (token 0 is bit 0 of word 0)."""
    data = np.packbits(mask, bitorder="little")
    data = np.concatenate([data, np.zeros(-len(data) % 4, dtype=np.uint8)])
    return data.view("<i4").astype(np.int32, copy=False)


def set_bits(words: np.ndarray, ids: np.ndarray) -> None:
    """Set the bits of token `ids` in packed `words`, in place (ids may share a word)."""
    ids = np.asarray(ids, dtype=np.int64)
    np.bitwise_or.at(words.view(np.uint32), ids >> 5, np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)))


def write_rows(out: np.ndarray, rows: list[tuple[int, np.ndarray | None]]) -> None:
    """Write packed rows into a C-contiguous (batch, words) int32 array: `(index, words)` pairs, words past a row's
    own zeroed (ids past the vocabulary are never allowed), None allowing every id. One call for a whole batch:
    the copies run in C with the GIL released (a NumPy loop where the kernel is not built)."""
    if _kernel is not None:
        _kernel.fill_rows(out, out.shape[1], rows)
        return
    for index, words in rows:
        if words is None:
            out[index] = -1
        else:
            out[index, :len(words)] = words
            out[index, len(words):] = 0
