"""Regular expressions matched whole over raw UTF-8 (a serving engine's `regex` request): the automaton accepts
exactly the texts Python's `re.fullmatch` accepts, for patterns both dialects read alike."""

from __future__ import annotations

import re

import pytest

from extractor.masks.compiler import compile_regex
from extractor.lang.pattern import PatternError, compile_whole
from tests.masks.test_masks import small_vocab
from tests.walks import accepts_text

CASES = [  # (pattern, texts to try)
    (r"[0-9]{3}-[A-Z]+", ["123-AB", "123-", "12-AB", "123-ab", "1234-A"]),
    (r"^(yes|no)$", ["yes", "no", "yesno", "", "ye"]),
    (r"a.c", ["abc", "a\nc", "a\"c", "a\\c", "ac"]),
    (r"\d+(\.\d+)?", ["1", "1.5", "1.", ".5", "12.34"]),
    (r"é+\s?ü", ["éü", "éé ü", "é\tü", "ü", "e ü"]),
    (r"(ab|cd)*", ["", "ab", "abcd", "abc", "cdab"]),
    (r"\w{2,4}", ["a", "ab", "abcd", "abcde", "a_1"]),
    (r"[^a-c]x", ["dx", "ax", "\"x", "éx", "x"]),
]


@pytest.mark.parametrize(("pattern", "texts"), CASES, ids=range(len(CASES)))
def test_a_pattern_accepts_what_python_fullmatchaccepts_text(pattern: str, texts: list[str]) -> None:
    grammar = compile_regex(pattern, small_vocab("llama3"))
    for text in texts:
        assert accepts_text(grammar, text) == bool(re.fullmatch(pattern, text)), text


@pytest.mark.parametrize("pattern", [r"(?=a)b", r"(a)\1", r"[a-", r"a{2,1}", "(" * 5000 + "a" + ")" * 5000], ids=range(5))
def test_what_the_pattern_compiler_refuses_is_a_pattern_error(pattern: str) -> None:
    with pytest.raises(PatternError):
        compile_whole(pattern)
