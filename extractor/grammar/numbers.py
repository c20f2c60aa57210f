"""Numeric bounds and multipleOf as exact digit-string automata (no floating point involved), and the numbers
a float holds: every `number` the grammar writes reads as a finite float, never `inf` from `1e999`."""

from __future__ import annotations

from decimal import Decimal
from functools import lru_cache

from extractor.errors import UnsupportedSchemaError
from extractor.lang.regex import EMPTY, NOTHING, Node, alt, byte_set, lit, opt, plus, repeat, seq, star

DIGIT = byte_set((0x30, 0x39))
NONZERO = byte_set((0x31, 0x39))
FLOAT_LIMIT = 2 ** 1024 - 2 ** 970
"""The least magnitude `float()` reads as infinite: halfway between the largest double, (2**53 - 1) * 2**971, and
2**1024, where rounding half to even goes up. An integer of 309 digits."""
_LIMIT = str(FLOAT_LIMIT)
MANTISSA_DIGITS = 24
"""Digits a number written with an exponent may have before the `e` (a double needs 17): whether `MeE` overflows
ties the exponent to the mantissa's length, which no finite automaton follows for every length."""
_E = byte_set(0x45, 0x65)
MAX_FINITE_STEP = 32
"""Largest remainder a `multipleOf` is checked with (its digits with factors 2 and 5 divided out) on a number not
bounded on both sides: the float bound counts up to 309 digits beside it, about 310 automaton states per remainder
(a table of 1 KB each), so a larger one is refused, naming the bounds that would lift it."""


def _digits(lo: int, hi: int) -> Node:
    return byte_set((0x30 + lo, 0x30 + hi)) if lo <= hi else NOTHING


@lru_cache(maxsize=4096)
def _same_length(a: str, b: str) -> Node:
    """Digit strings of len(a) between a and b (a <= b, equal lengths)."""
    if not a:
        return EMPTY
    if a == "0" * len(a) and b == "9" * len(b):
        return repeat(DIGIT, len(a), len(a))
    if a[0] == b[0]:
        return seq(lit(a[0]), _same_length(a[1:], b[1:]))
    n = len(a) - 1
    return alt(seq(lit(a[0]), _same_length(a[1:], "9" * n)),
               seq(_digits(int(a[0]) + 1, int(b[0]) - 1), repeat(DIGIT, n, n)),
               seq(lit(b[0]), _same_length("0" * n, b[1:])))


def natural_range(lo: int, hi: int | None) -> Node:
    """Canonical decimal integers n with lo <= n <= hi (0 <= lo; hi None is unbounded)."""
    if hi is not None and hi < lo:
        return NOTHING
    parts = []
    if lo == 0:
        parts.append(lit("0"))
        lo = 1
    top = len(str(hi)) if hi is not None else len(str(lo))
    for k in range(len(str(lo)), top + 1):
        a = max(lo, 10 ** (k - 1))
        b = 10 ** k - 1 if hi is None else min(hi, 10 ** k - 1)
        if a <= b:
            parts.append(_same_length(str(a), str(b)))
    if hi is None:
        parts.append(seq(byte_set((0x31, 0x39)), repeat(DIGIT, top, top), star(DIGIT)))
    return alt(*parts) if parts else NOTHING


def integer_range(lo: int | None, hi: int | None) -> Node:
    """Canonical JSON integers in [lo, hi] (None: unbounded); zero is written `0`, never `-0`."""
    parts = []
    if hi is None or hi >= 0:
        parts.append(natural_range(max(lo, 0) if lo is not None else 0, hi))
    if lo is None or lo < 0:
        parts.append(seq(lit("-"), natural_range(max(-hi, 1) if hi is not None else 1,
                                                 -lo if lo is not None else None)))
    return alt(*parts) if parts else NOTHING


@lru_cache(maxsize=4096)
def _fraction(lo: str | None, lo_excl: bool, hi: str | None, hi_excl: bool) -> tuple[bool, Node]:
    """Digit strings D (as in 0.D) within the bounds: (whether D may be empty, regex of non-empty D).

    `lo`/`hi` are the remaining digits of each bound (no trailing zeros), or None once settled."""
    if lo == "" and not lo_excl:
        lo = None
    if hi == "":  # what is left of D must be zero (or, exclusive, below zero: impossible)
        if hi_excl or lo:
            return False, NOTHING
        return (False, NOTHING) if lo == "" else (True, plus(lit("0")))
    if lo is None and hi is None:
        return True, plus(DIGIT)
    if lo == "" and hi is None:  # strictly positive: some non-zero digit
        return False, seq(star(lit("0")), byte_set((0x31, 0x39)), star(DIGIT))
    empty_ok = lo is None  # an empty rest is zero: below any remaining lower bound, under any upper one
    groups: dict[tuple, list[int]] = {}
    for d in range(10):
        if lo is None:
            nlo: str | None = None
        elif lo == "":  # exclusive: once a non-zero digit is read, the bound is met
            nlo = "" if d == 0 else None
        elif d < int(lo[0]):
            continue
        else:
            nlo = lo[1:] if d == int(lo[0]) else None
        if hi is None:
            nhi: str | None = None
        elif d > int(hi[0]):
            continue
        else:
            nhi = hi[1:] if d == int(hi[0]) else None
        groups.setdefault((nlo, nhi), []).append(d)
    parts = []
    for (nlo, nhi), ds in groups.items():
        eps, rest = _fraction(nlo, lo_excl, nhi, hi_excl)
        tail = alt(EMPTY, rest) if eps else rest
        parts.append(seq(byte_set(*((0x30 + d, 0x30 + d) for d in ds)), tail))
    return empty_ok, alt(*parts) if parts else NOTHING


def _split(value: Decimal) -> tuple[int, str]:
    """A non-negative decimal as (integer part, fraction digits without trailing zeros)."""
    text = format(value, "f")
    whole, _, frac = text.partition(".")
    return int(whole), frac.rstrip("0")


def _frac(lo: str | None, lo_excl: bool, hi: str | None, hi_excl: bool) -> Node:
    eps, rest = _fraction(lo, lo_excl, hi, hi_excl)
    return alt(EMPTY if eps else NOTHING, seq(lit("."), rest))


def magnitude(lo: Decimal, lo_excl: bool, hi: Decimal | None, hi_excl: bool) -> Node:
    """Plain decimals (`I` or `I.F`, no exponent) whose value lies within the bounds (0 <= lo)."""
    li, lf = _split(lo)
    if hi is None:
        return alt(seq(natural_range(li, li), _frac(lf, lo_excl, None, False)),
                   seq(natural_range(li + 1, None), _frac(None, False, None, False)))
    hi_i, hf = _split(hi)
    if li > hi_i:
        return NOTHING
    if li == hi_i:
        return seq(natural_range(li, li), _frac(lf, lo_excl, hf, hi_excl))
    return alt(seq(natural_range(li, li), _frac(lf, lo_excl, None, False)),
               seq(natural_range(li + 1, hi_i - 1), _frac(None, False, None, False)),
               seq(natural_range(hi_i, hi_i), _frac(None, False, hf, hi_excl)))


def number_range(lo: Decimal | None, lo_excl: bool, hi: Decimal | None, hi_excl: bool) -> Node:
    """JSON numbers within bounds, written without exponent (stricter: bounded numbers are plain decimals)."""
    parts = []
    if hi is None or hi > 0 or (hi == 0 and not hi_excl):
        low = (lo, lo_excl) if lo is not None and lo >= 0 else (Decimal(0), False)
        parts.append(magnitude(low[0], low[1], hi, hi_excl))
    if lo is None or lo < 0:
        # negative values: magnitude in (max(-hi, 0), -lo], zero excluded (it is written as 0)
        mlo, mlo_excl = (-hi, hi_excl) if hi is not None and hi < 0 else (Decimal(0), True)
        parts.append(seq(lit("-"), magnitude(mlo, mlo_excl, -lo if lo is not None else None, lo_excl)))
    return alt(*parts) if parts else NOTHING


def within_float(lo: Decimal | int | None, hi: Decimal | int | None) -> bool:
    """Whether bounds keep every number between them below FLOAT_LIMIT in magnitude (no `finite_parts` needed)."""
    return lo is not None and hi is not None and max(abs(lo), abs(hi)) < FLOAT_LIMIT


def check_finite_step(step: Decimal, pointer: str) -> None:
    """Refuse a step whose remainders times the float bound's digit positions pass MAX_FINITE_STEP * 310 states."""
    m = int("".join(map(str, step.normalize().as_tuple().digits)))
    for factor in (2, 5):
        while m % factor == 0:
            m //= factor
    if m > MAX_FINITE_STEP:
        raise UnsupportedSchemaError("multipleOf", f"{pointer}/multipleOf", f"{step} on a number not bounded on both sides: keeping it "
                                     f"below the float limit exactly takes about {310 * m:,} automaton states (a "
                                     f"remainder of {m} per digit position); give it a minimum and a maximum")


@lru_cache(maxsize=1)
def finite_parts() -> tuple[Node, Node]:
    """Two languages whose intersection is the JSON numbers `float()` reads as finite, exactly (written with an
    exponent, of at most MANTISSA_DIGITS mantissa digits): plain numbers of at most 309 integer digits or the
    exact scientific ones, and plain numbers whose 309-digit integer part lies below FLOAT_LIMIT or any scientific
    one. Each is linear in size; one regex for both needs a chain of digits per position (0.1 s to build)."""
    sign, fraction = opt(lit("-")), opt(seq(lit("."), plus(DIGIT)))
    loose = seq(plus(DIGIT), fraction, _E, opt(byte_set(0x2B, 0x2D)), plus(DIGIT))
    return (seq(sign, alt(seq(_integers(len(_LIMIT)), fraction), _scientific())),
            seq(sign, alt(seq(alt(_integers(len(_LIMIT) - 1), _lex_below(_LIMIT)), fraction), loose)))


def _integers(most: int) -> Node:
    """Canonical integers of at most `most` digits."""
    return alt(lit("0"), seq(NONZERO, repeat(DIGIT, 0, most - 1)))


def _scientific() -> Node:
    """Non-negative numbers with an exponent, below FLOAT_LIMIT: a mantissa 0.D * 10**q (D's first digit non-zero)
    takes an exponent up to 308 - q, or 309 - q where D lies below the limit's digits; zero takes any."""
    parts = [seq(lit("0"), opt(seq(lit("."), repeat(lit("0"), 1, MANTISSA_DIGITS - 1))), _E,
                 opt(byte_set(0x2B, 0x2D)), plus(DIGIT))]
    for q in range(2 - MANTISSA_DIGITS, MANTISSA_DIGITS + 1):
        every, below = _mantissas(q)
        parts += [seq(every, _E, _exponent_at_most(308 - q)), seq(below, _E, opt(lit("+")), star(lit("0")),
                                                                 natural_range(309 - q, 309 - q))]
    return alt(*parts)


def _mantissas(q: int) -> tuple[Node, Node]:
    """Mantissas of order q and at most MANTISSA_DIGITS digits: all of them, and those whose digits (the point
    left out) are at most the limit's first as many digits."""
    if q <= 0:  # `0.` and -q zeros before D
        head = seq(lit("0."), repeat(lit("0"), -q, -q))
        rest = MANTISSA_DIGITS - 1 + q
        return seq(head, NONZERO, repeat(DIGIT, 0, rest - 1)), seq(head, _prefix_at_most(_LIMIT, rest, 1))
    fraction = opt(seq(lit("."), repeat(DIGIT, 1, MANTISSA_DIGITS - q)))
    below = alt(seq(natural_range(10 ** (q - 1), int(_LIMIT[:q]) - 1), fraction),
                seq(lit(_LIMIT[:q]), opt(seq(lit("."), _prefix_at_most(_LIMIT[q:], MANTISSA_DIGITS - q)))))
    return seq(NONZERO, repeat(DIGIT, q - 1, q - 1), fraction), below


def _prefix_at_most(t: str, n: int, low: int = 0) -> Node:
    """Strings of 1 to n digits, the first at least `low` (at most t's first), each at most t's prefix as long."""
    if n == 0:
        return NOTHING
    return alt(seq(_digits(low, int(t[0]) - 1), repeat(DIGIT, 0, n - 1)),
               seq(lit(t[0]), opt(_prefix_at_most(t[1:], n - 1))))


def _lex_below(t: str) -> Node:
    """Digit strings that fall below t at some digit, after a common prefix (of t's length: the numbers below t);
    the digits after that one are one shared tail, so the automaton's subsets stay linear in t's length."""
    fall = NOTHING
    for digit in reversed(t):
        fall = alt(_digits(0, int(digit) - 1), seq(lit(digit), fall))
    return seq(fall, star(DIGIT))


def _exponent_at_most(c: int) -> Node:
    """Exponents (after the `e`) of value at most c >= 0, leading zeros allowed."""
    return alt(seq(lit("-"), plus(DIGIT)), seq(opt(lit("+")), star(lit("0")), natural_range(0, c)))
