"""Masks packed 32 tokens per int32 word (bit i of word w: token 32*w + i), as vLLM and the peers read them."""

from __future__ import annotations

import numpy as np

from extractor.masks.trie import _kernel


def pack(mask: np.ndarray) -> np.ndarray:
    """Bool per token -> int32 words, little-endian bit order (token 0 is bit 0 of word 0)."""
    data = np.packbits(mask, bitorder="little")
    if len(data) % 4:  # (a vocabulary of whole words, most of them, is packed without a copy)
        data = np.concatenate([data, np.zeros(-len(data) % 4, dtype=np.uint8)])
    return data.view("<i4").astype(np.int32, copy=False)


def no_tokens(size: int) -> np.ndarray:
    """The packed row of a vocabulary of `size` tokens with none allowed: the words a table or mask is written into."""
    return np.zeros(-(-size // 32), dtype=np.int32)


MANY_IDS = 256
"""Without the C kernel, past this many ids, bits are set or cleared through a packed copy of them (`ufunc.at` costs
per id, the copy per word of the row)."""


def _packed_ids(words: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """`ids` as packed words of `words`' width."""
    bits = np.zeros(len(words) * 32, dtype=bool)
    bits[ids] = True
    return pack(bits)


def set_bits(words: np.ndarray, ids: np.ndarray) -> None:
    """Set the bits of token `ids` in packed `words`, in place (ids may share a word): one C loop where the kernel is
    built (a first visit's row sets exit and EOS bits a few times; `ufunc.at` costs microseconds a call)."""
    ids = np.asarray(ids, dtype=np.int64)
    if _kernel is not None:
        _kernel.set_ids(words, np.ascontiguousarray(ids), True)
        return
    if len(ids) > MANY_IDS:
        np.bitwise_or(words, _packed_ids(words, ids), out=words)
        return
    np.bitwise_or.at(words.view(np.uint32), ids >> 5, np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)))


def clear_bits(words: np.ndarray, ids: np.ndarray) -> None:
    """Clear the bits of token `ids` in packed `words`, in place."""
    ids = np.asarray(ids, dtype=np.int64)
    if _kernel is not None:
        _kernel.set_ids(words, np.ascontiguousarray(ids), False)
        return
    if len(ids) > MANY_IDS:
        np.bitwise_and(words, ~_packed_ids(words, ids), out=words)
        return
    np.bitwise_and.at(words.view(np.uint32), ids >> 5,
                      ~np.left_shift(np.uint32(1), (ids & 31).astype(np.uint32)))


def has_bits(words: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Whether each of token `ids` is set in packed `words` (bool per id)."""
    ids = np.asarray(ids, dtype=np.int64)
    return ((words.view(np.uint32)[ids >> 5] >> (ids & 31).astype(np.uint32)) & 1).astype(bool)


class Row:
    """A mask read alike whether it is a bool per token or packed words: what narrowing by distinct strings and
    unique items reads, so that a server's packed row is narrowed without the bool mask ever being made."""

    __slots__ = ("mask", "packed")

    def __init__(self, mask: np.ndarray) -> None:
        self.mask = mask
        self.packed = mask.dtype != np.bool_

    def has(self, ids: np.ndarray) -> np.ndarray:
        """Whether each of token `ids` is allowed (bool per id)."""
        return has_bits(self.mask, ids) if self.packed else self.mask[ids]

    def ids(self) -> np.ndarray:
        """The allowed token ids, ascending."""
        if not self.packed:
            return np.flatnonzero(self.mask)
        return np.flatnonzero(np.unpackbits(self.mask.view(np.uint8), bitorder="little"))

    def count(self) -> int:
        """How many tokens are allowed."""
        if not self.packed:
            return int(np.count_nonzero(self.mask))
        return int(np.count_nonzero(np.unpackbits(self.mask.view(np.uint8))))

    def without(self, ids: list[int] | tuple[int, ...] | np.ndarray) -> np.ndarray:
        """The mask less token `ids`: a copy where any is allowed, the mask itself otherwise (cached masks and
        rows are shared: never written to)."""
        if len(ids) == 0:
            return self.mask
        drop = np.asarray(ids, dtype=np.int64)
        if not self.has(drop).any():
            return self.mask
        out = self.mask.copy()
        if self.packed:
            clear_bits(out, drop)
        else:
            out[drop] = False
        return out

    def only(self, ids: np.ndarray) -> np.ndarray:
        """A new mask allowing just those of token `ids` this one allows."""
        out = np.zeros_like(self.mask)
        if self.packed:
            set_bits(out, ids[self.has(ids)])
        else:
            out[ids] = self.mask[ids]
        return out


def write_rows(out: np.ndarray, rows: list[tuple[int, np.ndarray | None]]) -> None:
    """Write packed rows into a C-contiguous (batch, words) int32 array: `(index, words)` pairs, words past a row's
    own zeroed (ids past the vocabulary are never allowed), None allowing every id. One call for a whole batch:
    the copies run in C with the GIL released (a NumPy loop where the kernel is not built)."""
    if out.dtype != np.int32 or out.ndim != 2 or not out.flags.c_contiguous:
        raise ValueError(f"write_rows: a C-contiguous (batch, words) int32 array, not {out.dtype} of shape {out.shape}")
    if _kernel is not None:
        _kernel.fill_rows(out, out.shape[1], rows)
        return
    for index, words in rows:
        if words is None:
            out[index] = -1
        else:
            out[index, :len(words)] = words
            out[index, len(words):] = 0
