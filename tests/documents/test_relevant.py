"""The parts of a long text worth reading: a grid of stretches, those within the margin of the best counted (the best
always), and the counted ones widened to whitespace and joined into regions; a region's lines, and the run of them
that adds up to the most."""

from __future__ import annotations

import math

import pytest

from extractor.documents.relevant import WORD, best_run, counted, grid, joined, lines, regions


@pytest.mark.parametrize("length, size, expected", [
    (10, 4, [(0, 4), (4, 8), (8, 10)]),
    (8, 4, [(0, 4), (4, 8)]),
    (0, 4, []),
], ids=["last_shorter", "even", "empty"])
def test_the_grid_covers_the_text(length: int, size: int, expected: list[tuple[int, int]]) -> None:
    assert grid(length, size) == expected


def test_a_stretch_of_no_characters_is_refused() -> None:
    with pytest.raises(ValueError, match="0 characters"):
        grid(10, 0)


@pytest.mark.parametrize("scores, share, expected", [
    ([1.0, 10.0, 8.0, 7.9], 0.8, [1, 2]),  # 8.0 is exactly at the bar: it counts
    ([1.0, 9.0, 8.0], 1.0, [1]),
    ([3.0, 3.0], 1.0, [0, 1]),  # a tie: both
    ([math.nan, 2.0, math.nan], 0.5, [1]),  # NaN never counts
    ([math.nan, math.nan], 0.5, [0, 1]),  # nothing tells them apart: all
    ([0.0, 0.0, 0.0], 0.7, [0, 1, 2]),  # nothing of the target anywhere: all
    ([], 0.5, []),
], ids=["share_of_best", "best_only", "tie", "nan_never_counts", "all_nan", "all_zero", "none"])
def test_stretches_scoring_near_the_best_count(scores: list[float], share: float, expected: list[int]) -> None:
    assert counted(scores, share) == expected


@pytest.mark.parametrize("share", [-0.1, 1.5, math.nan])
def test_a_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="share"):
        counted([1.0], share)


TEXT = "aaaa bbbb cccc dddd eeee ffff gggg hhhh"  # words of 4 at 0, 5, 10, ... 35


@pytest.mark.parametrize("chosen, pad, expected", [
    ([2], 0, [(10, 14)]),  # "cccc" exactly
    ([2], 2, [(5, 19)]),  # widened by 2 to 8..16, then out to the words' edges
    ([0, 7], 0, [(0, 4), (35, 39)]),  # two regions apart
    ([2, 3], 1, [(9, 20)]),  # touching after the pad (a space is a boundary already): one
    ([2, 4], 0, [(10, 14), (20, 24)]),  # a word apart: two
    ([3, 2, 2], 6, [(4, 25)]),  # overlapping after the pad: one; duplicates and order do not matter
    ([7], 100, [(0, 39)]),  # clipped to the text
], ids=["exact", "padded_to_words", "apart", "touching", "a_word_apart", "overlapping", "clipped"])
def test_counted_stretches_become_regions_cut_at_whitespace(chosen: list[int], pad: int,
                                                            expected: list[tuple[int, int]]) -> None:
    stretches = [(5 * i, 5 * i + 4) for i in range(8)]
    assert regions(TEXT, stretches, chosen, pad) == expected


@pytest.mark.parametrize("length", [200_000])
def test_a_text_without_whitespace_is_widened_by_a_bounded_step(length: int) -> None:
    """Every stretch of a text with no whitespace chosen: each end moves at most `WORD` characters, so the regions
    are found in linear time (a walk to the word's edge went back to the text's start from every stretch)."""
    text = "x" * length
    stretches = grid(length, 512)
    chosen = range(0, len(stretches), 5)
    found = regions(text, stretches, chosen, 512)
    assert len(found) == len(chosen) and found[0][0] == 0 and found[-1][1] <= length
    assert all(b - a <= 3 * 512 + 2 * WORD for a, b in found)


LINES = "ab\n\n  \ncdef\n" + "x" * 600 + "\nyz"


@pytest.mark.parametrize("start, end, expected", [
    (0, len(LINES), [(0, 2), (7, 11), (12, 268), (268, 524), (524, 612), (613, 615)]),
    (9, 10, [(7, 11)]),  # inside a line: the line, whole
    (3, 6, []),  # blank lines only
    (300, 310, [(268, 524)]),  # inside a long line: its piece, counted from the line's start
    (600, 2000, [(524, 612), (613, 615)]),  # past the end: to the text's end
], ids=["all", "a_line_whole", "blank", "a_piece_of_a_long_line", "past_the_end"])
def test_a_region_is_read_in_its_lines_whole_long_ones_in_pieces(start: int, end: int,
                                                                 expected: list[tuple[int, int]]) -> None:
    assert lines(LINES, start, end, 256) == expected


def test_a_line_piece_of_no_characters_is_refused() -> None:
    with pytest.raises(ValueError, match="0 characters"):
        lines(LINES, 0, 10, 0)


@pytest.mark.parametrize("scores, anchor, expected", [
    ([-1.0, 2.0, -1.0, 3.0, -5.0, 1.0], 1, (1, 3)),  # a dip worth crossing, a cliff not
    ([1.0, -3.0, 1.0], 2, (2, 2)),  # the anchor alone: both sides cost more than they add
    ([-4.0], 0, (0, 0)),  # the anchor always, however low
    ([2.0, 2.0, -9.0, 2.0], 3, (3, 3)),
    ([1.0, 1.0, 1.0], 1, (0, 2)),
    ([1.0, -1.0, 0.5], 0, (0, 0)),  # a gain short of the cost: not taken
], ids=["dip_and_cliff", "anchor_alone", "low_anchor", "past_a_cliff", "all", "short_gain"])
def test_the_best_run_holds_the_anchor_and_adds_up_to_the_most(scores: list[float], anchor: int,
                                                               expected: tuple[int, int]) -> None:
    assert best_run(scores, anchor) == expected


def test_an_anchor_outside_the_scores_is_refused() -> None:
    with pytest.raises(IndexError, match="anchor 3 of 3"):
        best_run([1.0, 2.0, 3.0], 3)


@pytest.mark.parametrize("spans, expected", [
    ([(5, 9), (0, 3)], [(0, 3), (5, 9)]),
    ([(0, 3), (3, 6)], [(0, 6)]),  # touching
    ([(0, 10), (2, 4)], [(0, 10)]),  # inside
    ([], []),
], ids=["apart_sorted", "touching", "inside", "none"])
def test_spans_that_touch_or_overlap_are_joined(spans: list[tuple[int, int]], expected: list[tuple[int, int]]) -> None:
    assert joined(spans) == expected
