"""JSON's lexical pieces as byte regexes: strings (UTF-8 exact), numbers, formats."""

from __future__ import annotations

import json
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

from extractor.lang.pattern import MAX_CP, chars, negate
from extractor.lang.regex import (
    EMPTY, Node, alt, byte_set, lit, opt, plus, repeat, seq, star,
)

DIGIT = byte_set((0x30, 0x39))
NONZERO = byte_set((0x31, 0x39))
HEX = byte_set((0x30, 0x39), (0x41, 0x46), (0x61, 0x66))
CONT = byte_set((0x80, 0xBF))

# One code point of string content, unescaped: ASCII minus `"`, `\` and controls,
# or a well-formed UTF-8 sequence (no overlongs, no surrogates, <= U+10FFFF).
_UTF8 = alt(
    byte_set((0x20, 0x21), (0x23, 0x5B), (0x5D, 0x7F)),
    seq(byte_set((0xC2, 0xDF)), CONT),
    seq(byte_set(0xE0), byte_set((0xA0, 0xBF)), CONT),
    seq(byte_set((0xE1, 0xEC), (0xEE, 0xEF)), CONT, CONT),
    seq(byte_set(0xED), byte_set((0x80, 0x9F)), CONT),
    seq(byte_set(0xF0), byte_set((0x90, 0xBF)), CONT, CONT),
    seq(byte_set((0xF1, 0xF3)), CONT, CONT, CONT),
    seq(byte_set(0xF4), byte_set((0x80, 0x8F)), CONT, CONT),
)

# \uXXXX escapes: a non-surrogate, or a high surrogate followed by a low one, so
# that the decoded string is always valid Unicode (one code point either way).
_D = byte_set(0x44, 0x64)
_NOT_D = byte_set((0x30, 0x39), (0x41, 0x43), (0x45, 0x46), (0x61, 0x63), (0x65, 0x66))
_HI = seq(_D, byte_set((0x38, 0x39), 0x41, 0x42, 0x61, 0x62), HEX, HEX)
_LO = seq(_D, byte_set((0x43, 0x46), (0x63, 0x66)), HEX, HEX)
_BMP = alt(seq(_NOT_D, HEX, HEX, HEX), seq(_D, byte_set((0x30, 0x37)), HEX, HEX))
_ESCAPE = seq(
    lit("\\"),
    alt(byte_set(*b'"\\/bfnrt'), seq(lit("u"), alt(_BMP, seq(_HI, lit("\\u"), _LO)))),
)

CHAR = alt(_UTF8, _ESCAPE)

_CANONICAL_ESCAPE = seq(lit("\\"), alt(
    byte_set(*b'"\\bfnrt'),
    seq(lit("u00"), alt(seq(lit("0"), byte_set((0x30, 0x37), 0x62, 0x65, 0x66)),
                        seq(lit("1"), byte_set((0x30, 0x39), (0x61, 0x66)))))))
CANONICAL_STRING = seq(lit('"'), star(alt(_UTF8, _CANONICAL_ESCAPE)), lit('"'))
"""A string exactly as `json.dumps(..., ensure_ascii=False)` writes it: one spelling per value,
so that a set of keys can be excluded exactly (undeclared object keys)."""
"""One code point inside a JSON string, as the schema's length keywords count them."""

INTEGER = seq(opt(lit("-")), alt(lit("0"), seq(NONZERO, star(DIGIT))))
NUMBER = seq(INTEGER, opt(seq(lit("."), plus(DIGIT))),
             opt(seq(byte_set(0x45, 0x65), opt(byte_set(0x2B, 0x2D)), plus(DIGIT))))

FRACTION = alt(
    seq(INTEGER, lit("."), star(DIGIT), NONZERO, star(DIGIT)),
    seq(opt(lit("-")), NONZERO, opt(seq(lit("."), plus(DIGIT))), byte_set(0x45, 0x65), lit("-"), star(lit("0")),
        NONZERO, star(DIGIT)),
)
"""Numbers that are surely not integers (a subset: exact where it accepts, stricter than JSON Schema):
a nonzero digit after the point and no exponent, or one leading digit with a negative exponent
(below 1 in magnitude, as Python writes small floats)."""


def string(min_len: int = 0, max_len: int | None = None, content: Node | None = None) -> Node:
    """A quoted JSON string; `content` replaces the free code-point sequence (formats)."""
    body = content if content is not None else repeat(CHAR, min_len, max_len)
    return seq(lit('"'), body, lit('"'))


def dumps(value: Any) -> str:
    """The compact serialization generation emits; \\u escapes only where text has lone surrogates."""
    if type(value) is str:  # keys and enum strings: json.dumps's own string encoders, without making an encoder
        text = encode_basestring(value)
        try:
            text.encode()
        except UnicodeEncodeError:
            return encode_basestring_ascii(value)
        return text
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    try:
        text.encode()
    except UnicodeEncodeError:
        text = json.dumps(value, separators=(",", ":"))
    return text


def _two_digit(lo: int, hi: int) -> Node:
    return alt(*(lit(f"{n:02d}") for n in range(lo, hi + 1)))


def _year() -> Node:
    """Years 0001-9999 (Python's date has no year 0)."""
    return alt(seq(DIGIT, DIGIT, DIGIT, NONZERO), seq(DIGIT, DIGIT, NONZERO, lit("0")),
               seq(DIGIT, NONZERO, lit("00")), seq(NONZERO, lit("000")))


def _leap_year() -> Node:
    """Divisible by 4, and by 400 when it ends in 00."""
    mult4 = alt(*(lit(f"{n:02d}") for n in range(4, 100, 4)))
    return alt(seq(DIGIT, DIGIT, mult4), seq(mult4, lit("00")))


def _date() -> Node:
    m31 = alt(*(lit(f"{m:02d}") for m in (1, 3, 5, 7, 8, 10, 12)))
    m30 = alt(*(lit(f"{m:02d}") for m in (4, 6, 9, 11)))
    month_day = alt(seq(m31, lit("-"), _two_digit(1, 31)), seq(m30, lit("-"), _two_digit(1, 30)),
                    seq(lit("02-"), _two_digit(1, 28)))
    return alt(seq(_year(), lit("-"), month_day), seq(_leap_year(), lit("-02-29")))


def _time() -> Node:
    """RFC 3339 full-time with an explicit offset (`Z` or `z`). Second 60 (a leap second) only as
    23:59:60 in UTC: leap seconds written with another offset are refused (stricter), since
    checking that the offset maps the time to 23:59 UTC takes thousands of automaton states."""
    frac = opt(seq(lit("."), plus(DIGIT)))
    hms = seq(_two_digit(0, 23), lit(":"), _two_digit(0, 59), lit(":"), _two_digit(0, 59))
    offset = alt(byte_set(0x5A, 0x7A), seq(byte_set(0x2B, 0x2D), _two_digit(0, 23), lit(":"), _two_digit(0, 59)))
    utc = alt(byte_set(0x5A, 0x7A), lit("+00:00"), lit("-00:00"))
    return alt(seq(hms, frac, offset), seq(lit("23:59:60"), frac, utc))


def _ipv4() -> Node:
    octet = alt(seq(lit("25"), byte_set((0x30, 0x35))), seq(lit("2"), byte_set((0x30, 0x34)), DIGIT),
                seq(lit("1"), DIGIT, DIGIT), seq(NONZERO, DIGIT), DIGIT)
    return seq(octet, repeat(seq(lit("."), octet), 3, 3))


def _ipv6() -> Node:
    """RFC 3986 IPv6address: eight groups, `::` compression anywhere, an IPv4 tail (no zone ids)."""
    h16 = repeat(HEX, 1, 4)
    ls32 = alt(seq(h16, lit(":"), h16), _ipv4())

    def groups(n: int) -> Node:
        return repeat(seq(h16, lit(":")), n, n)

    def head(k: int) -> Node:
        return opt(seq(repeat(seq(h16, lit(":")), 0, k), h16))

    tails = [seq(groups(4), ls32), seq(groups(3), ls32), seq(groups(2), ls32), seq(groups(1), ls32),
             ls32, h16, EMPTY]
    return alt(seq(groups(6), ls32), seq(lit("::"), groups(5), ls32),
               *(seq(head(k), lit("::"), tail) for k, tail in enumerate(tails)))


def _label(max_len: int) -> Node:
    """An LDH label; `--` in positions 3-4 (reserved, as in IDNA A-labels) is refused (stricter)."""
    a = byte_set((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A))
    i = byte_set((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A), 0x2D)
    pair = alt(seq(a, i), seq(lit("-"), a))  # positions 3 and 4, not both hyphens
    return alt(a, seq(a, a), seq(a, i, a), seq(a, i, i, a), seq(a, i, pair, repeat(i, 0, max_len - 5), a))


def _hostname() -> Node:
    """RFC 1123 names of at most four labels, the first up to 63 bytes and the rest up to 62
    (stricter: the whole stays under 253 bytes without counting)."""
    return seq(_label(63), repeat(seq(lit("."), _label(62)), 0, 3))


def _email(idn: bool = False) -> Node:
    """Dot-atom local part @ a hostname with a letter TLD (stricter: no quoted local parts, no IP literals);
    `idn` (RFC 6531's idn-email): the local part may hold any non-ASCII character too (the domain stays ASCII:
    stricter, no U-labels)."""
    atext = byte_set((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A), *b"!#$%&'*+/=?^_`{|}~-")
    atext = alt(atext, chars(((0x80, MAX_CP),))) if idn else atext
    local = seq(plus(atext), star(seq(lit("."), plus(atext))))
    tld = repeat(byte_set((0x41, 0x5A), (0x61, 0x7A)), 2, 24)
    return seq(local, lit("@"), _label(62), repeat(seq(lit("."), _label(62)), 0, 2), lit("."), tld)


def _duration() -> Node:
    """RFC 3339 Appendix A: P(date [time] | time | week)."""
    n = plus(DIGIT)
    second = seq(n, lit("S"))
    minute = seq(n, lit("M"), opt(second))
    hour = seq(n, lit("H"), opt(minute))
    dur_time = seq(lit("T"), alt(hour, minute, second))
    day = seq(n, lit("D"))
    month = seq(n, lit("M"), opt(day))
    year = seq(n, lit("Y"), opt(month))
    return seq(lit("P"), alt(seq(alt(day, month, year), opt(dur_time)), dur_time, seq(n, lit("W"))))


def _json_pointer() -> Node:
    """RFC 6901: `/`-prefixed tokens, `~` only as `~0` or `~1`."""
    plain = chars(negate(((0x2F, 0x2F), (0x7E, 0x7E))))
    return star(seq(lit("/"), star(alt(plain, lit("~0"), lit("~1")))))


def _uri(reference: bool) -> Node:
    """RFC 3986 `URI` (or `URI-reference`), ASCII only, as written (no escapes needed in JSON)."""
    alpha = byte_set((0x41, 0x5A), (0x61, 0x7A))
    unreserved = byte_set((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A), *b"-._~")
    sub_delims = byte_set(*b"!$&'()*+,;=")
    pct = seq(lit("%"), HEX, HEX)
    pchar = alt(unreserved, pct, sub_delims, byte_set(*b":@"))
    segment, segment_nz = star(pchar), plus(pchar)
    ip_future = seq(lit("v"), plus(HEX), lit("."), plus(alt(unreserved, sub_delims, lit(":"))))
    host = alt(seq(lit("["), alt(_ipv6(), ip_future), lit("]")), star(alt(unreserved, pct, sub_delims)))
    userinfo = star(alt(unreserved, pct, sub_delims, lit(":")))
    authority = seq(opt(seq(userinfo, lit("@"))), host, opt(seq(lit(":"), star(DIGIT))))
    abempty = star(seq(lit("/"), segment))
    absolute = seq(lit("/"), opt(seq(segment_nz, abempty)))
    rootless = seq(segment_nz, abempty)
    tail = seq(opt(seq(lit("?"), star(alt(pchar, byte_set(*b"/?"))))),
               opt(seq(lit("#"), star(alt(pchar, byte_set(*b"/?"))))))
    scheme = seq(alpha, star(alt(alpha, DIGIT, byte_set(*b"+-."))))
    uri = seq(scheme, lit(":"), alt(seq(lit("//"), authority, abempty), absolute, rootless, EMPTY), tail)
    if not reference:
        return uri
    noscheme = seq(plus(alt(unreserved, pct, sub_delims, lit("@"))), abempty)
    relative = seq(alt(seq(lit("//"), authority, abempty), absolute, noscheme, EMPTY), tail)
    return alt(uri, relative)


def _uuid() -> Node:
    return seq(*(seq(repeat(HEX, k, k), lit("-")) for k in (8, 4, 4, 4)), repeat(HEX, 12, 12))


FORMATS: dict[str, Node] = {
    "date": _date(),
    "time": _time(),
    "date-time": seq(_date(), byte_set(0x54, 0x74), _time()),
    "ipv4": _ipv4(),
    "ipv6": _ipv6(),
    "hostname": _hostname(),
    "email": _email(),
    "idn-email": _email(idn=True),
    "duration": _duration(),
    "uuid": _uuid(),
    "uri": _uri(reference=False),
    "uri-reference": _uri(reference=True),
    "json-pointer": _json_pointer(),
    "relative-json-pointer": seq(alt(lit("0"), seq(NONZERO, star(DIGIT))), alt(lit("#"), _json_pointer())),
}
"""Formats enforced exactly as string content; others are refused or treated as annotations."""
