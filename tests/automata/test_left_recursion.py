"""A rule that can call itself before reading a byte is refused; a call that follows a byte, or a callee that
always reads one, is not left recursion."""

from __future__ import annotations

import pytest

from extractor.automata import build_automaton
from extractor.errors import InvalidSchemaError
from extractor.grammar import Grammar
from extractor.lang.regex import EMPTY, Ref, alt, lit, seq
from tests.automata.helpers import automaton

X_OR_NOTHING = alt(lit("x"), EMPTY)

# (name, rules, refused?)
ROWS = [
    ("direct", {"root": alt(seq(Ref("root"), lit("a")), lit("b"))}, True),
    ("through a callee that may read nothing",
     {"root": alt(seq(Ref("e"), Ref("root"), lit("a")), lit("b")), "e": X_OR_NOTHING}, True),
    ("mutual", {"root": Ref("a"), "a": alt(seq(Ref("b"), lit("a")), lit("a")),
                "b": alt(seq(Ref("a"), lit("b")), lit("b"))}, True),
    ("after a callee that always reads a byte",
     {"root": alt(seq(Ref("x"), Ref("root")), lit("b")), "x": lit("x")}, False),
    ("after a byte", {"root": alt(seq(lit("["), Ref("root"), lit("]")), lit("b"))}, False),
    ("a callee that may read nothing, then a byte",
     {"root": alt(seq(Ref("e"), lit("["), Ref("root")), lit("b")), "e": X_OR_NOTHING}, False),
]


@pytest.mark.parametrize("rules, refused", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_left_recursion(rules: dict, refused: bool) -> None:
    grammar = Grammar(rules=rules, root="root")
    if refused:
        with pytest.raises(InvalidSchemaError, match="without consuming input"):
            build_automaton(grammar)
    else:
        build_automaton(grammar)


def test_schema_refers_to_itself_first() -> None:
    with pytest.raises(InvalidSchemaError, match="without consuming input"):
        automaton({"anyOf": [{"$ref": "#"}, {"type": "null"}]})
