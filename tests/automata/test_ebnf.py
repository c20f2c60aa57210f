"""GBNF grammars (a serving engine's `grammar` requests): what each construct accepts, recursion included, and
what is refused with where."""

from __future__ import annotations

import pytest

from extractor.masks.compiler import compile_ebnf
from extractor.errors import ExtractorError
from extractor.grammar.ebnf import GrammarSyntaxError
from tests.masks.test_masks import small_vocab
from tests.walks import accepts_text

ARITHMETIC = r"""
# sums of products of numbers, parenthesised to any depth
root   ::= expr
expr   ::= term ("+" term)*
term   ::= factor ("*" factor)*
factor ::= number | "(" expr ")"
number ::= [0-9]+
"""

CASES = [  # (grammar, accepted, refused)
    (ARITHMETIC, ["1", "1+2*3", "(1+2)*3", "((4))", "2*(3+(4*5))"], ["", "1+", "(1", "1)", "a", "1 + 2"]),
    (r'root ::= "yes" | "no"', ["yes", "no"], ["ye", "yesno", "maybe"]),
    (r'root ::= [a-c]{2,3} "-" [^a-z]?', ["ab-", "abc-X", "cc-1"], ["a-", "abcd-", "ab-x"]),
    (r'root ::= "é" . "\x41" "\u00fc" [\]\-]', ["éZAü]", "é.Aü-"], ["éZAü", "eZAü]"]),
    (r'root ::= "\"" ( [^"\\] | "\\" ["\\n] )* "\""', ['""', '"a\\"b"', '"\\n"'], ['"a', '"\\x"']),
    (r'root ::= item{3}' + "\n" + r'item ::= "a" | "bb"', ["aaa", "abba", "bbbbbb"], ["aa", "aaaa"]),
    (r'root ::= ""', [""], ["a"]),
]


@pytest.mark.parametrize(("text", "accepted", "refused"), CASES, ids=range(len(CASES)))
def test_a_grammar_accepts_its_language_and_nothing_else(text: str, accepted: list[str], refused: list[str]) -> None:
    grammar = compile_ebnf(text, small_vocab("llama3"))
    assert all(accepts_text(grammar, s) for s in accepted), [s for s in accepted if not accepts_text(grammar, s)]
    assert not any(accepts_text(grammar, s) for s in refused), [s for s in refused if accepts_text(grammar, s)]


REFUSED = [
    ("start: \"a\"", "GBNF"),  # Lark
    ("expr ::= \"a\"", "no rule named 'root'"),
    ("root ::= a", "undefined rule"),
    ("root ::= \"a\"\nroot ::= \"b\"", "defined twice"),
    ("root ::= (= \"a\") \"a\"", "lookahead"),
    ("root ::= \"\\q\"", "unknown escape"),
    ("root ::= \"a\ud800\"", "lone surrogate"),
    ("root ::= \"a\"{3,1}", "bounds"),
    ("root ::= [z-a]", "backwards"),
    ("root ::= \"a\" ;", "cannot read"),
    ("root ::= (\"a\"", "unclosed"),
    ("root ::= " + "(" * 5000 + "\"a\"" + ")" * 5000, "nested more than"),  # not the parser's stack running out
]


@pytest.mark.parametrize(("text", "message"), REFUSED, ids=range(len(REFUSED)))
def test_what_cannot_be_read_is_refused_saying_where(text: str, message: str) -> None:
    with pytest.raises(GrammarSyntaxError, match=message):
        compile_ebnf(text, small_vocab("llama3"))


def test_a_left_recursive_grammar_is_refused_before_decoding() -> None:
    with pytest.raises(ExtractorError, match="refers to itself without consuming input"):
        compile_ebnf('root ::= root "a" | "a"', small_vocab("llama3"))
