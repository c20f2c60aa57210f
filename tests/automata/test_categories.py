"""The stored General_Category table is the one `unicodedata` gives (the scan it replaces), and survives its own
encoding; patterns read `\\p{...}` from it."""

from __future__ import annotations

import unicodedata

import pytest

from extractor.lang import categories
from extractor.lang.pattern import unicode_property


@pytest.mark.skipif(unicodedata.unidata_version != categories.UNIDATA_VERSION,
                    reason="this Python's Unicode version differs from the stored table's: categories are scanned")
def test_the_stored_table_is_the_scanned_one():
    assert categories.decoded(categories.RUNS, categories.NAMES) == categories.scanned()


@pytest.mark.parametrize("table", [
    {"Lu": ((0, 0x40),), "Cn": ((0x41, categories.MAX_CP),)},
    {"Ll": ((0, 0), (2, 2)), "Nd": ((1, 1), (3, 0x10000)), "Co": ((0x10001, categories.MAX_CP),)},
])
def test_a_table_reads_back_as_it_was_written(table):
    assert categories.decoded(*categories.encoded(table)) == table


@pytest.mark.parametrize(("name", "inside", "outside"), [
    ("Lu", "AÉΩ", "aé1"), ("L", "aΩ中", "1 -"), ("Nd", "0٣", "a½"), ("Zs", " \u3000", "\t"), ("LC", "aA", "中"),
])
def test_a_category_holds_its_code_points(name, inside, outside):
    ranges = unicode_property(name)

    def within(ch: str) -> bool:
        return any(lo <= ord(ch) <= hi for lo, hi in ranges)

    assert all(within(ch) for ch in inside) and not any(within(ch) for ch in outside)
