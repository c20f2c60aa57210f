"""ECMA-262 `pattern` subset -> a byte regex over JSON string content (code points, JSON-escaped), or over raw
UTF-8 text matched whole (a serving engine's `regex` request)."""

from __future__ import annotations

import json
from functools import lru_cache

from extractor.lang.categories import MAX_CP, Ranges, categories
from extractor.lang.regex import EMPTY, NOTHING, Node, Seq, alt, byte_set, lit, repeat, seq, single_byte, star

MAX_REPEAT = 10_000
"""Largest quantifier bound unrolled (`{0,4096}`); the compile budget (states, seconds) bounds the automaton."""
MAX_GROUPS_DEEP = 100
"""Groups nested deeper than this are refused (a `PatternError`, not the parser running out of stack)."""


class PatternError(ValueError):
    """A pattern this compiler refuses (lookaround, backreference...) or cannot parse."""


def merged_ranges(ranges: list[tuple[int, int]]) -> Ranges:
    """The ranges sorted, overlapping and touching ones joined."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def negate(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in ranges:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CP:
        out.append((start, MAX_CP))
    return tuple(out)


DIGITS: Ranges = ((0x30, 0x39),)
WORD: Ranges = merged_ranges([(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)])
SPACE: Ranges = merged_ranges([(0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                       (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF)])
LINE_TERMINATORS: Ranges = merged_ranges([(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)])
ANY: Ranges = ((0, MAX_CP),)
_CLASS_ESCAPES = {"d": DIGITS, "D": negate(DIGITS), "w": WORD, "W": negate(WORD),
                  "s": SPACE, "S": negate(SPACE)}
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D, "0": 0x00}
_JSON_SHORT = {0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


CHAR_CACHE = 256
"""Character classes kept as built: every unanchored pattern starts and ends with any text, and a class such as
`\\P{C}` is thousands of nodes, each left for the cyclic collector to walk where every pattern rebuilt its own."""


@lru_cache(maxsize=CHAR_CACHE)
def raw_chars(ranges: Ranges) -> Node:
    """One code point from `ranges` as raw UTF-8 (surrogates have none)."""
    parts = [_utf8(max(lo, a), min(hi, b)) for lo, hi in ranges for a, b in ((0, 0xD7FF), (0xE000, MAX_CP))
             if max(lo, a) <= min(hi, b)]
    return alt(*parts) if parts else NOTHING


@lru_cache(maxsize=CHAR_CACHE)
def chars(ranges: Ranges) -> Node:
    """One code point from `ranges`, as JSON string content: raw UTF-8, or its escape where JSON needs one."""
    parts = []
    for lo, hi in ranges:
        for cp in range(lo, min(hi, 0x5C) + 1):
            if cp < 0x20 or cp in (0x22, 0x5C):
                parts.append(lit(_JSON_SHORT.get(cp, f"\\u{cp:04x}")))
        for a, b in ((0x20, 0x21), (0x23, 0x5B), (0x5D, 0xD7FF), (0xE000, MAX_CP)):
            if max(lo, a) <= min(hi, b):
                parts.append(_utf8(max(lo, a), min(hi, b)))
    return alt(*parts) if parts else NOTHING


_LIMITS = (0x7F, 0x7FF, 0xFFFF, MAX_CP)


def _utf8(lo: int, hi: int) -> Node:
    """UTF-8 encodings of code points lo..hi (no surrogates inside), split to byte ranges."""
    for limit in _LIMITS[:-1]:
        if lo <= limit < hi:
            return alt(_utf8(lo, limit), _utf8(limit + 1, hi))
    a, b = chr(lo).encode(), chr(hi).encode()
    return _same_length(a, b)


def _same_length(a: bytes, b: bytes) -> Node:
    """Byte strings between a and b in UTF-8 order (same length, continuation bytes 80-BF)."""
    if len(a) == 1:
        return byte_set((a[0], b[0]))
    if a[0] == b[0]:
        return seq(byte_set(a[0]), _same_length(a[1:], b[1:]))
    n = len(a) - 1
    low, high = bytes([0x80] * n), bytes([0xBF] * n)
    parts = [seq(byte_set(a[0]), _same_length(a[1:], high))]
    if b[0] - a[0] > 1:
        parts.append(seq(byte_set((a[0] + 1, b[0] - 1)), *[byte_set((0x80, 0xBF))] * n))
    parts.append(seq(byte_set(b[0]), _same_length(low, b[1:])))
    return alt(*parts)


def pattern_matches(pattern: str, text: str) -> bool:
    """Whether the pattern matches `text` (ECMA semantics), through the same automaton generation uses."""
    dfa = _pattern_dfa(pattern)
    state = 0
    for byte in json.dumps(text, ensure_ascii=False).encode(errors="surrogatepass"):
        state = int(dfa.trans[state, byte])
        if state < 0:
            return False
    return bool(dfa.accept[state])


def patterns_apart(a: str, b: str) -> bool:
    """Whether no string can match both patterns, shown cheaply: where both are anchored, the literal text they
    start (or end) with differs. False means only "not shown" (undeclared keys are grouped by the patterns they
    may match together, and patterns like `^name:` and `^title:` then need no group of their own together)."""
    (start_a, end_a), (start_b, end_b) = _literal_ends(a), _literal_ends(b)
    k, j = min(len(start_a), len(start_b)), min(len(end_a), len(end_b))
    return start_a[:k] != start_b[:k] or (j > 0 and end_a[-j:] != end_b[-j:])


@lru_cache(maxsize=512)
def _literal_ends(pattern: str) -> tuple[bytes, bytes]:
    """The bytes every string the pattern matches starts with, and those it ends with, read off the top-level
    sequence of its compiled form (single-byte sets only; an alternation or an unanchored end reads as none)."""
    node = compile_pattern(pattern)
    found = [single_byte(x) for x in (node.items if isinstance(node, Seq) else (node,))]
    lead = found.index(None) if None in found else len(found)
    tail = found[::-1].index(None) if None in found else len(found)
    return bytes(found[:lead]), bytes(found[len(found) - tail:])  # type: ignore[arg-type]


@lru_cache(maxsize=256)
def _pattern_dfa(pattern: str):  # noqa: ANN202 - a RuleDFA; typed lazily to keep stages apart
    """Built once per pattern: declared names and enum values are checked against it repeatedly."""
    from extractor.lang.dfa import build_dfa  # the automata stage, only for this check

    return build_dfa(seq(lit('"'), compile_pattern(pattern), lit('"')))


_CATEGORY_NAMES = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Titlecase_Letter": "Lt",
    "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn",
    "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
    "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc",
    "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
    "Final_Punctuation": "Pf", "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z", "Space_Separator": "Zs",
    "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C", "Control": "Cc", "cntrl": "Cc",
    "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}
"""Long names and aliases of the General_Category values ECMA-262 accepts in `\\p{...}`."""


def unicode_property(name: str) -> Ranges | None:
    """The code points of `\\p{name}`: a General_Category value (short or long name, with or without `gc=` /
    `General_Category=`), `Any` or `ASCII`; None for other properties (scripts, binary properties). Categories
    are Python's `unicodedata`'s (its Unicode version; extractor/lang/categories.py)."""
    if name in ("Any", "ASCII"):
        return ANY if name == "Any" else ((0, 0x7F),)
    for prefix in ("gc=", "General_Category="):
        name = name.removeprefix(prefix)
    short = _CATEGORY_NAMES.get(name, name)
    table = categories()
    if short == "LC":
        return merged_ranges([*table["Lu"], *table["Ll"], *table["Lt"]])
    if len(short) == 1:
        return merged_ranges([r for cat, rs in table.items() if cat[0] == short for r in rs]) if short in "LMNPSZC" else None
    return table.get(short)


def compile_pattern(pattern: str, max_repeat: int = MAX_REPEAT) -> Node:
    """Content of a JSON string the pattern matches somewhere (search semantics, as JSON Schema says); kept per
    process, since a schema's patterns are read when it is normalized and again when its grammar is built (one
    entry whether `max_repeat` is passed or left to its default)."""
    return _compiled(pattern, max_repeat)


@lru_cache(maxsize=512)
def _compiled(pattern: str, max_repeat: int) -> Node:
    return _Parser(pattern, max_repeat).top()


def compile_whole(pattern: str, max_repeat: int = MAX_REPEAT) -> Node:
    """Raw UTF-8 text the pattern matches whole (`^` and `$` at its ends change nothing), as a serving engine's
    `regex` request means it."""
    return _Parser(pattern, max_repeat, whole=True).top()


class _Parser:
    def __init__(self, text: str, max_repeat: int, whole: bool = False) -> None:
        self.text, self.i, self.max_repeat, self.whole = text, 0, max_repeat, whole
        self.depth = 0
        self.chars = raw_chars if whole else chars

    def top(self) -> Node:
        branches = []
        while True:
            anchored_start = self.eat("^") or self.whole
            items = self.items(top=True)
            anchored_end = self.eat("$") or self.whole
            if items and not anchored_start:  # any text X{lo,hi} is any text X{lo}: the rest is absorbed
                items[0] = (items[0][0], items[0][1], items[0][1])
            if items and not anchored_end:  # likewise X{lo,hi} before any text
                items[-1] = (items[-1][0], items[-1][1], items[-1][1])
            branches.append(seq(EMPTY if anchored_start else star(chars(ANY)), self.build(items),
                                EMPTY if anchored_end else star(chars(ANY))))
            if not self.eat("|"):
                break
        if self.i != len(self.text):
            self.fail("unbalanced parenthesis")
        return alt(*branches)

    def fail(self, why: str) -> None:
        raise PatternError(f"{why} at offset {self.i} of {self.text!r}")

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def eat(self, s: str) -> bool:
        if self.text.startswith(s, self.i):
            self.i += len(s)
            return True
        return False

    def alternation(self) -> Node:
        branches = [self.sequence()]
        while self.eat("|"):
            branches.append(self.sequence())
        return alt(*branches)

    def sequence(self) -> Node:
        return self.build(self.items())

    def items(self, top: bool = False) -> list[tuple[Node, int, int | None]]:
        """The atoms of a sequence, each with its repetition bounds."""
        items = []
        while self.peek() and self.peek() not in "|)":
            if self.peek() == "$":
                if top and self.i == len(self.text) - 1 or top and self.text[self.i + 1] == "|":
                    break
                self.fail("`$` is supported only at the end of a top-level alternative")
            if self.peek() == "^":
                self.fail("`^` is supported only at the start of a top-level alternative")
            items.append(self.quantified(self.atom()))
        return items

    def build(self, items: list[tuple[Node, int, int | None]]) -> Node:
        for _, lo, hi in items:
            if max(lo, hi or 0) > self.max_repeat:
                self.fail(f"repetition bound above {self.max_repeat}")
        return seq(*(atom if (lo, hi) == (1, 1) else repeat(atom, lo, hi) for atom, lo, hi in items))

    def quantified(self, atom: Node) -> tuple[Node, int, int | None]:
        c = self.peek()
        if c in ("*", "+", "?"):
            self.i += 1
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
        elif c == "{" and (counted := self._counted()) is not None:
            lo, hi = counted
        else:
            return atom, 1, 1
        self.eat("?")  # lazy: same language
        return atom, lo, hi

    def _counted(self) -> tuple[int, int | None] | None:
        """{n}, {n,} or {n,m}; consumed only when well formed (else `{` is a literal, as in Annex B)."""
        j = self.text.find("}", self.i)
        if j < 0:
            return None
        body = self.text[self.i + 1:j]
        lo_s, comma, hi_s = body.partition(",")
        if not lo_s.isdigit() or (hi_s and not hi_s.isdigit()):
            return None
        self.i = j + 1
        lo = int(lo_s)
        hi = lo if not comma else (int(hi_s) if hi_s else None)
        if hi is not None and hi < lo:
            self.fail("numbers out of order in {} quantifier")
        return lo, hi

    def atom(self) -> Node:
        c = self.peek()
        if c == "(":
            return self.group()
        if c == "[":
            return self.chars(self.char_class())
        if c == ".":
            self.i += 1
            return self.chars(negate(LINE_TERMINATORS))
        if c == "\\":
            return self.escape_atom()
        if c in "*+?":
            self.fail("nothing to repeat")
        self.i += 1
        return self.chars(((ord(c), ord(c)),))

    def group(self) -> Node:
        self.i += 1
        if self.eat("?"):
            if self.eat(":"):
                pass
            elif self.peek() == "<" and self.text[self.i + 1:self.i + 2] not in ("=", "!"):
                end = self.text.find(">", self.i)
                if end < 0:
                    self.fail("unterminated group name")
                self.i = end + 1
            else:
                self.fail("lookaround assertions and inline flags are not supported")
        self.depth += 1
        if self.depth > MAX_GROUPS_DEEP:
            self.fail(f"groups nested more than {MAX_GROUPS_DEEP} deep")
        body = self.alternation()
        self.depth -= 1
        if not self.eat(")"):
            self.fail("missing )")
        return body

    def escape_atom(self) -> Node:
        self.i += 1
        c = self.peek()
        if c in "bB":
            self.fail("word-boundary assertions are not supported")
        if c.isdigit() and c != "0" or c == "k":
            self.fail("backreferences are not supported")
        return self.chars(self.escape(in_class=False))

    def escape(self, in_class: bool) -> Ranges:
        """After a backslash: a class escape or one code point."""
        c = self.peek()
        if not c:
            self.fail("pattern ends in a backslash")
        self.i += 1
        if c in _CLASS_ESCAPES:
            return _CLASS_ESCAPES[c]
        if in_class and c == "b":
            return ((0x08, 0x08),)
        if c in _CONTROL_ESCAPES and not (c == "0" and self.peek().isdigit()):
            cp = _CONTROL_ESCAPES[c]
        elif c == "c" and self.peek().isalpha():
            cp = ord(self.peek()) % 32
            self.i += 1
        elif c == "x":
            cp = self._hex(2)
        elif c == "u":
            if self.eat("{"):
                end = self.text.find("}", self.i)
                cp = int(self.text[self.i:end], 16) if end > self.i else -1
                self.i = end + 1
            else:
                cp = self._hex(4)
                if 0xD800 <= cp <= 0xDBFF and self.text.startswith("\\u", self.i):
                    save = self.i
                    self.i += 2
                    low = self._hex(4)
                    if 0xDC00 <= low <= 0xDFFF:
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
                    else:
                        self.i = save
        elif c in "pP" and self.peek() == "{":
            end = self.text.find("}", self.i)
            if end < 0:
                self.fail("unterminated property escape")
            name, self.i = self.text[self.i + 1:end], end + 1
            ranges = unicode_property(name)
            if ranges is None:
                self.fail(f"Unicode property {name!r} is not supported (general categories, Any and ASCII are)")
            return negate(ranges) if c == "P" else ranges
        elif c.isalnum():
            self.fail(f"unknown escape \\{c}")
        else:
            cp = ord(c)
        if not 0 <= cp <= MAX_CP or 0xD800 <= cp <= 0xDFFF:
            self.fail("escape names no valid code point")
        return ((cp, cp),)

    def _hex(self, n: int) -> int:
        digits = self.text[self.i:self.i + n]
        if len(digits) != n or any(d not in "0123456789abcdefABCDEF" for d in digits):
            self.fail(f"expected {n} hex digits")
        self.i += n
        return int(digits, 16)

    def char_class(self) -> Ranges:
        self.i += 1
        inverted = self.eat("^")
        ranges: list[tuple[int, int]] = []
        first = True
        while first or self.peek() != "]":
            first = False
            if not self.peek():
                self.fail("unterminated character class")
            lo = self._class_atom()
            if self.peek() == "-" and self.text[self.i + 1:self.i + 2] not in ("]", ""):
                self.i += 1
                hi = self._class_atom()
                if len(lo) != 1 or len(hi) != 1 or lo[0][0] != lo[0][1] or hi[0][0] != hi[0][1]:
                    self.fail("class escape in a range")
                if hi[0][0] < lo[0][0]:
                    self.fail("range out of order in character class")
                ranges.append((lo[0][0], hi[0][0]))
            else:
                ranges.extend(lo)
        self.i += 1
        result = merged_ranges(ranges)
        return negate(result) if inverted else result

    def _class_atom(self) -> Ranges:
        c = self.peek()
        if c == "\\":
            self.i += 1
            return self.escape(in_class=True)
        self.i += 1
        return ((ord(c), ord(c)),)
