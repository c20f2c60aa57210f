"""GBNF, the EBNF dialect of llama.cpp and XGrammar, read into a `Grammar`: one rule per nonterminal, each a byte
regex over UTF-8 that calls the others (a serving engine's `grammar` request).

Read: `name ::= body` rules (`root` is where output starts), "strings" with the escapes `\\n \\r \\t \\\\ \\" \\'
\\[ \\] \\xHH \\uHHHH \\UHHHHHHHH`, character classes `[a-z]` and `[^...]` over code points, `.` (any character),
groups, `|`, the postfixes `* + ?` and `{m}`, `{m,}`, `{m,n}`, and `#` comments. Anything else (Lark's syntax,
lookahead assertions, XGrammar's tag dispatch) is refused with `GrammarSyntaxError` naming where.
"""

from __future__ import annotations

import re

from extractor.grammar.compile import Grammar
from extractor.lang.pattern import MAX_CP, MAX_GROUPS_DEEP, Ranges, merged_ranges, negate, raw_chars
from extractor.lang.regex import EMPTY, Node, Ref, alt, lit, refs, repeat, seq

ROOT = "root"
MAX_REPEAT = 10_000
"""Largest `{m,n}` bound taken (the compile budget bounds the automaton it unrolls to)."""

_TOKEN = re.compile(r"""
    (?P<space>\s+|\#[^\n]*)
  | (?P<define>::=)
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<cls>\[(?:[^\]\\]|\\.)*\])
  | (?P<count>\{\s*\d+\s*(?:,\s*\d*\s*)?\})
  | (?P<op>[|()*+?.=!])
""", re.VERBOSE | re.DOTALL)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "'": "'", "[": "[", "]": "]", "-": "-",
            "^": "^", "/": "/"}
_HEX = {"x": 2, "u": 4, "U": 8}


class GrammarSyntaxError(ValueError):
    """A grammar text this reader cannot read or refuses, with the offset where."""


def parse_ebnf(text: str) -> Grammar:
    """The grammar's rules, every reference checked; `GrammarSyntaxError` says what is wrong and where."""
    if "::=" not in text:
        raise GrammarSyntaxError("no `name ::= ...` rule: the grammar must be GBNF (Lark grammars are not read)")
    tokens = _tokens(text)
    rules: dict[str, Node] = {}
    parser = _Parser(text, tokens)
    while not parser.done():
        name, at = parser.rule_head()
        if name in rules:
            raise GrammarSyntaxError(f"rule {name!r} is defined twice (again at offset {at})")
        rules[name] = parser.alternatives()
    if ROOT not in rules:
        raise GrammarSyntaxError(f"no rule named {ROOT!r}: output starts there")
    for name, body in rules.items():
        missing = sorted(refs(body) - rules.keys())
        if missing:
            raise GrammarSyntaxError(f"rule {name!r} refers to undefined rule(s) {', '.join(map(repr, missing))}")
    return Grammar(rules=rules, root=ROOT)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out, at = [], 0
    while at < len(text):
        m = _TOKEN.match(text, at)
        if m is None:
            raise GrammarSyntaxError(f"cannot read {text[at:at + 20]!r} at offset {at}")
        if m.lastgroup != "space":
            out.append((m.lastgroup or "", m.group(), at))
        at = m.end()
    return out


class _Parser:
    def __init__(self, text: str, tokens: list[tuple[str, str, int]]) -> None:
        self.text, self.tokens, self.i, self.depth = text, tokens, 0, 0

    def done(self) -> bool:
        return self.i >= len(self.tokens)

    def peek(self, ahead: int = 0) -> tuple[str, str, int]:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else ("end", "", len(self.text))

    def fail(self, why: str) -> None:
        raise GrammarSyntaxError(f"{why} at offset {self.peek()[2]}")

    def rule_head(self) -> tuple[str, int]:
        (kind, name, at), (define, _, _) = self.peek(), self.peek(1)
        if kind != "name" or define != "define":
            self.fail(f"expected `name ::=`, found {self.peek()[1]!r}")
        self.i += 2
        return name, at

    def at_rule_end(self) -> bool:
        kind, _, _ = self.peek()
        return kind == "end" or (kind == "name" and self.peek(1)[0] == "define")

    def alternatives(self) -> Node:
        branches = [self.sequence()]
        while self.peek()[1] == "|" and self.peek()[0] == "op":
            self.i += 1
            branches.append(self.sequence())
        return alt(*branches)

    def sequence(self) -> Node:
        items: list[Node] = []
        while not self.at_rule_end() and self.peek()[1] not in ("|", ")"):
            items.append(self.postfix(self.atom()))
        return seq(*items) if items else EMPTY

    def atom(self) -> Node:
        kind, value, at = self.peek()
        self.i += 1
        if kind == "name":
            return Ref(value)
        if kind == "string":
            return lit(_unescape(value[1:-1], at))
        if kind == "cls":
            return raw_chars(_ranges(value[1:-1], at))
        if value == ".":
            return raw_chars(((0, MAX_CP),))
        if value == "(":
            if self.peek()[1] in ("=", "!"):
                self.fail("lookahead assertions are not supported")
            self.depth += 1
            if self.depth > MAX_GROUPS_DEEP:
                self.fail(f"groups nested more than {MAX_GROUPS_DEEP} deep")
            inner = self.alternatives()
            self.depth -= 1
            if self.peek()[1] != ")":
                self.fail("unclosed `(`")
            self.i += 1
            return inner
        self.i -= 1
        self.fail(f"unexpected {value!r}")
        raise AssertionError  # unreachable: fail raises

    def postfix(self, node: Node) -> Node:
        while True:
            kind, value, at = self.peek()
            if kind == "op" and value in "*+?":
                node = repeat(node, 1 if value == "+" else 0, 1 if value == "?" else None)
            elif kind == "count":
                lo, _, hi = value[1:-1].replace(" ", "").partition(",")
                low, high = int(lo), (int(lo) if "," not in value else int(hi) if hi else None)
                if (high if high is not None else low) > MAX_REPEAT or (high is not None and high < low):
                    raise GrammarSyntaxError(f"repetition {value} at offset {at}: bounds must be 0..{MAX_REPEAT}, "
                                             "the lower first")
                node = repeat(node, low, high)
            else:
                return node
            self.i += 1


def _unescape(body: str, at: int) -> str:
    out, k = [], 0
    while k < len(body):
        c = body[k]
        if c != "\\":
            out.append(c)
            k += 1
            continue
        e = body[k + 1] if k + 1 < len(body) else ""
        if e in _HEX:
            digits = body[k + 2:k + 2 + _HEX[e]]
            if len(digits) != _HEX[e] or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise GrammarSyntaxError(f"bad \\{e} escape at offset {at + k + 1}")
            code = int(digits, 16)
            if code > MAX_CP or 0xD800 <= code <= 0xDFFF:
                raise GrammarSyntaxError(f"\\{e}{digits} at offset {at + k + 1} is not a character")
            out.append(chr(code))
            k += 2 + _HEX[e]
        elif e in _ESCAPES:
            out.append(_ESCAPES[e])
            k += 2
        else:
            raise GrammarSyntaxError(f"unknown escape \\{e} at offset {at + k + 1}")
    text = "".join(out)
    try:
        text.encode()
    except UnicodeEncodeError:
        raise GrammarSyntaxError(f"a lone surrogate in the literal at offset {at}: UTF-8 cannot write it") from None
    return text


def _ranges(body: str, at: int) -> Ranges:
    negated = body.startswith("^")
    chars = _unescape_class(body[1:] if negated else body, at)
    spans, k = [], 0
    while k < len(chars):
        if k + 2 < len(chars) and chars[k + 1] == ("-", True):
            lo, hi = ord(chars[k][0]), ord(chars[k + 2][0])
            if hi < lo:
                raise GrammarSyntaxError(f"range {chars[k][0]!r}-{chars[k + 2][0]!r} is backwards at offset {at}")
            spans.append((lo, hi))
            k += 3
        else:
            spans.append((ord(chars[k][0]), ord(chars[k][0])))
            k += 1
    merged = merged_ranges(spans)
    return negate(merged) if negated else merged


def _unescape_class(body: str, at: int) -> list[tuple[str, bool]]:
    """The class's characters, each marked True where it is an unescaped `-` (a range's dash)."""
    out, k = [], 0
    while k < len(body):
        if body[k] == "\\":
            end = k + 2 + _HEX.get(body[k + 1:k + 2], 0)
            out.append((_unescape(body[k:end], at + k), False))
            k = end
        else:
            out.append((body[k], body[k] == "-"))
            k += 1
    return out

