"""Memory settings the decoding loop makes for long prompts: large heap blocks mapped apart, so a key-value cache
grown a part at a time leaves no holes behind (its effect is measured by benchmarks/long_scaling.py)."""

from __future__ import annotations

import platform

import pytest

from extractor.decode import loop


@pytest.fixture
def fresh_setting():
    loop.map_large_blocks.cache_clear()
    yield
    loop.map_large_blocks.cache_clear()


def test_a_threshold_the_user_set_is_left_alone(monkeypatch, fresh_setting) -> None:
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    assert loop.map_large_blocks() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's M_MMAP_THRESHOLD is glibc's")
def test_on_glibc_large_blocks_are_mapped_apart_once_per_process(monkeypatch, fresh_setting) -> None:
    monkeypatch.delenv("MALLOC_MMAP_THRESHOLD_", raising=False)
    assert loop.map_large_blocks() is True
    assert loop.map_large_blocks.cache_info().hits == 0
    loop.map_large_blocks()
    assert loop.map_large_blocks.cache_info().hits == 1
