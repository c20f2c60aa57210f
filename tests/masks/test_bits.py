"""Packed rows written into a shared (batch, words) bitmask: the C copy equals the NumPy loop it replaces, and a bad
entry is refused before anything is written."""

from __future__ import annotations

import numpy as np
import pytest

from extractor.masks import bits
from extractor.masks.bits import pack, write_rows
from extractor.masks.trie import _kernel

WIDTH = 5

CASES = [  # (name, rows as (index, words or None))
    ("full width", [(0, np.arange(WIDTH, dtype=np.int32) - 2)]),
    ("short row: the words past it zeroed", [(2, np.array([7, -1], dtype=np.int32))]),
    ("None allows every id", [(1, None)]),
    ("empty row", [(3, np.zeros(0, dtype=np.int32))]),
    ("several, one index twice: the last wins", [(0, None), (3, np.array([1], dtype=np.int32)),
                                                  (0, np.full(WIDTH, 9, dtype=np.int32))]),
    ("no rows", []),
]


def _numpy(out: np.ndarray, rows: list) -> None:
    kernel, bits._kernel = bits._kernel, None
    try:
        write_rows(out, rows)
    finally:
        bits._kernel = kernel


@pytest.mark.parametrize(("name", "rows"), CASES, ids=[c[0] for c in CASES])
def test_rows_are_written_as_the_numpy_loop_writes_them(name: str, rows: list) -> None:
    expected = np.full((4, WIDTH), 12345, dtype=np.int32)
    _numpy(expected, rows)
    got = np.full((4, WIDTH), 12345, dtype=np.int32)
    write_rows(got, rows)
    assert (got == expected).all()
    untouched = sorted(set(range(4)) - {i for i, _ in rows})
    assert (got[untouched] == 12345).all()


def test_a_packed_mask_round_trips() -> None:
    mask = np.random.default_rng(1).random(150) < 0.4
    out = np.zeros((2, WIDTH), dtype=np.int32)
    write_rows(out, [(1, pack(mask))])
    words = out[1].view(np.uint32)
    got = (words[np.arange(160) // 32] >> (np.arange(160) % 32).astype(np.uint32)) & 1
    assert (got[:150] == mask).all() and not got[150:].any()


@pytest.mark.parametrize("size", [1, 8, 31, 32, 33, 64, 100, 49152])
def test_a_mask_of_any_size_packs_to_whole_words_bit_by_bit(size: int) -> None:
    mask = np.random.default_rng(size).random(size) < 0.5
    words = pack(mask)
    assert words.dtype == np.int32 and len(words) == -(-size // 32)
    bits = (words.view(np.uint32)[np.arange(32 * len(words)) // 32] >> (np.arange(32 * len(words)) % 32)) & 1
    assert (bits[:size] == mask).all() and not bits[size:].any()


BAD = [  # (name, rows, error)
    ("index past the batch", [(4, None)], IndexError),
    ("negative index", [(-1, None)], IndexError),
    ("row wider than the bitmask", [(0, np.zeros(WIDTH + 1, dtype=np.int32))], ValueError),
    ("not a pair", [(0,)], TypeError),
    ("words not int32", [(0, np.zeros(2, dtype=np.int64))], ValueError),
]


@pytest.mark.skipif(_kernel is None, reason="the C kernel is not built here (no compiler): the NumPy loop runs")
@pytest.mark.parametrize(("name", "rows", "error"), BAD, ids=[c[0] for c in BAD])
def test_a_bad_entry_is_refused_and_nothing_is_written(name: str, rows: list, error: type) -> None:
    out = np.full((4, WIDTH), 3, dtype=np.int32)
    with pytest.raises(error, match="fill_rows"):
        write_rows(out, [(1, None)] + rows)
    assert (out == 3).all()


@pytest.mark.parametrize("many", [40, 600])  # one id at a time, and through a packed copy of them
def test_bits_set_cleared_and_read_as_on_the_bool_mask(many: int) -> None:
    from extractor.masks.bits import MANY_IDS, clear_bits, has_bits, set_bits

    rng = np.random.default_rng(2)
    mask = rng.random(1000) < 0.5
    words = pack(mask)
    ids = rng.integers(0, 1000, many)  # repeats and ids sharing a word included
    assert (many > MANY_IDS) == (many == 600)
    assert (has_bits(words, ids) == mask[ids]).all()
    cleared, expected = words.copy(), mask.copy()
    clear_bits(cleared, ids)
    expected[ids] = False
    assert (cleared == pack(expected)).all()
    set_bits(cleared, ids)
    expected[ids] = True
    assert (cleared == pack(expected)).all()


@pytest.mark.parametrize("out", [np.zeros((2, WIDTH), dtype=np.int64), np.zeros(WIDTH, dtype=np.int32),
                                 np.zeros((WIDTH, 2), dtype=np.int32).T], ids=["int64", "one row", "strided"])
def test_a_bitmask_that_is_not_contiguous_int32_rows_is_refused(out: np.ndarray) -> None:
    with pytest.raises(ValueError, match="write_rows"):
        write_rows(out, [(0, None)])


@pytest.mark.parametrize("size", [1, 31, 32, 33, 700])
def test_a_packed_row_reads_as_its_bool_mask(size: int) -> None:
    """`Row` over packed words answers as over the bool mask they pack: membership, ids, count, removal (a copy
    only where a removed id was allowed; the mask itself otherwise) and keeping only some ids."""
    rng = np.random.default_rng(size)
    for _ in range(20):
        mask = rng.random(size) < rng.random()
        plain, packed = bits.Row(mask), bits.Row(pack(mask))
        probe = rng.integers(0, size, 10)
        assert (plain.has(probe) == packed.has(probe)).all()
        assert (plain.ids() == packed.ids()).all() and plain.count() == packed.count() == mask.sum()
        drop = rng.integers(0, size, rng.integers(0, 4)).tolist()
        assert (pack(plain.without(drop)) == packed.without(drop)).all()
        assert (pack(plain.only(probe)) == packed.only(probe)).all() and not (plain.only(probe) & ~mask).any()
        kept = not mask[drop].any()
        assert (plain.without(drop) is mask) == kept and (packed.without(drop) is packed.mask) == kept


@pytest.mark.skipif(_kernel is None, reason="the C kernel is not built: set_bits and clear_bits are the NumPy path")
@pytest.mark.parametrize("count", [0, 1, 7, bits.MANY_IDS + 1, 2000])
def test_bits_set_and_cleared_in_c_equal_the_numpy_path(count: int) -> None:
    rng = np.random.default_rng(count)
    start = rng.integers(-2**31, 2**31, 40).astype(np.int32)
    ids = rng.integers(0, 40 * 32, count)  # duplicates included
    for change in (bits.set_bits, bits.clear_bits):
        fast, slow = start.copy(), start.copy()
        change(fast, ids)
        kernel, bits._kernel = bits._kernel, None
        try:
            change(slow, ids)
        finally:
            bits._kernel = kernel
        assert (fast == slow).all()
    with pytest.raises(IndexError):
        bits.set_bits(start.copy(), np.array([40 * 32]))
