"""Where a generation's output is in JSON terms, byte by byte (in a string, in a number, inside which arrays and
objects, each array's items so far), and the checks the guards run on the value being written at every step (too
long, looping, stuttering). `JsonTracker` keeps it in Python; `NativeTracker` keeps the byte rules and the checks in
C (`_tracker.c`, where built), handing back to Python only a byte that ends an array item or a member string."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

try:
    from extractor.decode import _tracker as _native
except ImportError:  # not built (no C compiler at install): the Python tracker, the same answers
    _native = None

NUMBER = frozenset(b"0123456789.eE+-")
_DIGITS = frozenset(b"0123456789")
_NUMBER_START = frozenset(b"-0123456789")
WS = b" \t\r\n"
NO_DIGITS = bytes.maketrans(b"123456789", b"000000000")
MAX_ITEM_BYTES = 4096
"""Object items longer than this are not compared (`alike_objects`): the check reparses the item each step."""

MUST_CLOSE, MUST_END, FILLED, IN_MEMBER, FIRST = 1, 2, 4, 8, 16
"""`check`'s bits: the string must close; the number must end; an array on the stack holds an item already; a
member's string value is being written; the innermost array's first item is being written (begun within
`FIRST_BYTES` of its start, or an object item)."""
FIRST_BYTES = 64
"""How far after an array's `[` (or `,`) its first item is looked for: the layout's indentation is shorter."""


@dataclass(frozen=True)
class Checks:
    """What `check` looks for in the value being written (None / False: not that)."""

    max_string: int | None = None
    """A string this long must close."""
    loops: bool = False
    """A string repeating itself must close (`looping`)."""
    stutter: int | None = None
    """A string or number ending with a run of 2-4 bytes this many times must end (`stuttering`), unless `source`
    holds the run (or, digits only, `digits`)."""
    max_digits: int | None = None
    """A number with this many digits must end."""
    source: bytes = b""
    digits: bytes = b""
    """`source_digits(source)`."""


NO_CHECKS = Checks()


@dataclass
class _Array:
    item_start: int
    items: list[bytes] = field(default_factory=list)
    alike: Counter[bytes] = field(default_factory=Counter)
    """How many items have each shape (the item with every digit as 0), kept as items complete."""
    objects: list[dict[str, Any]] = field(default_factory=list)
    """The object items so far, parsed."""
    near: int = 0
    """How many of them agree with an earlier one on more than half their members (`agree`)."""
    free: bool | None = None
    """Whether its items may repeat (`fresh.Fresh`: the schema says so), once looked up."""
    opened: int = -1
    """Where its `[` is in the output (made with its first item's start: the byte before it)."""

    def __post_init__(self) -> None:
        if self.opened < 0:
            self.opened = self.item_start - 1

    def mark(self) -> tuple[int, int, int, int]:
        """What `restore` needs to come back here: items are only ever appended after it."""
        return self.item_start, len(self.items), len(self.objects), self.near

    def restore(self, mark: tuple[int, int, int, int]) -> None:
        self.item_start, items, objects, self.near = mark
        for item in self.items[items:]:
            shape = item.translate(NO_DIGITS)
            self.alike[shape] -= 1
            if not self.alike[shape]:
                del self.alike[shape]
        del self.items[items:], self.objects[objects:]

    def add(self, item: bytes) -> None:
        """Record a completed item (whitespace around it stripped)."""
        self.items.append(item)
        self.alike[item.translate(NO_DIGITS)] += 1
        obj = _object(item)
        if obj is not None:
            self.near += any(agree(obj, earlier) for earlier in self.objects)
            self.objects.append(obj)


@dataclass
class _Object:
    """An object being written: whether a key comes next, and the string values of its members so far."""

    key: bool = True
    strings: list[bytes] = field(default_factory=list)

    def mark(self) -> tuple[bool, int]:
        return self.key, len(self.strings)

    def restore(self, mark: tuple[bool, int]) -> None:
        self.key, strings = mark
        del self.strings[strings:]


def agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two object items agree on more than half of all the members either has, and on two at least."""
    same = sum(1 for k in a.keys() & b.keys() if a[k] == b[k])
    return same >= 2 and 2 * same > len(a.keys() | b.keys())


def _object(item: bytes) -> dict[str, Any] | None:
    """The item as a dict when it is a complete JSON object of at most MAX_ITEM_BYTES, else None."""
    if len(item) > MAX_ITEM_BYTES or not (item.startswith(b"{") and item.endswith(b"}")):
        return None
    try:
        value = json.loads(item)
    except (ValueError, RecursionError):  # nested past what json's parser recurses through
        return None
    return value if isinstance(value, dict) else None


Mark = tuple[int, bool, bool, int, int, int, bool, int, list[tuple["_Array | _Object", tuple[Any, ...]]]]
"""A tracker's place (`JsonTracker.mark`)."""


class JsonTracker:
    """Where the output is in JSON terms (in a string, in a number, inside which arrays), kept byte by byte in
    Python (`NativeTracker` keeps the same rules in C)."""

    def __init__(self, checks: Checks = NO_CHECKS) -> None:
        self.checks = checks
        self.data = bytearray()
        self.in_string = False
        self.escape = False
        self.string_start = 0
        self.digits = 0
        self.number_start = -1
        self.stack: list[_Array | _Object] = []
        self.member = False
        """The string being written is an object member's value (not a key, not an array item)."""
        self.filled = 0
        """Arrays on the stack that hold an item already (none: no item can repeat one)."""

    def mark(self) -> Mark:
        """The place to come back to after bytes fed past it: sizes and scalars, not a copy (bytes are only
        appended, and every frame only grows, until `restore`)."""
        return (len(self.data), self.in_string, self.escape, self.string_start, self.digits, self.number_start,
                self.member, self.filled, [(frame, frame.mark()) for frame in self.stack])

    def restore(self, mark: Mark) -> None:
        """Back to `mark`, taken on this tracker with nothing before it taken back since."""
        (size, self.in_string, self.escape, self.string_start, self.digits, self.number_start, self.member,
         self.filled, frames) = mark
        del self.data[size:]
        self.stack = [frame for frame, _ in frames]
        for frame, at in frames:
            frame.restore(at)  # type: ignore[arg-type]

    def value(self) -> bytes:
        """The string content or number written so far of the value being written (b"" between values)."""
        if self.in_string:
            return bytes(self.data[self.string_start:])
        return bytes(self.data[self.number_start:]) if self.number_start >= 0 else b""

    def check(self) -> int:
        """The per-step checks on the value being written, as bits (`MUST_CLOSE`, `MUST_END`, `FILLED`,
        `IN_MEMBER`)."""
        c, bits = self.checks, FILLED if self.filled else 0
        if self.stack and self._first():
            bits |= FIRST
        if self.in_string:
            bits |= IN_MEMBER if self.member else 0
            size = len(self.data) - self.string_start
            if (c.max_string is not None and size >= c.max_string) or \
                    (c.loops and size >= 18 and looping(self.data, self.string_start)) or \
                    (c.stutter is not None and size >= 2 * c.stutter
                     and stuttering(self.data, self.string_start, c.stutter, c.source, c.digits)):
                bits |= MUST_CLOSE
        elif (c.max_digits is not None and self.digits >= c.max_digits) or (
                c.stutter is not None and self.number_start >= 0
                and stuttering(self.data, self.number_start, c.stutter, c.source, c.digits)):
            bits |= MUST_END
        return bits

    def _first(self) -> bool:
        """Whether the innermost array's first item is under way (`FIRST`)."""
        top = self.stack[-1]
        if isinstance(top, _Object):
            return len(self.stack) > 1 and isinstance(self.stack[-2], _Array) and not self.stack[-2].items
        return not top.items and bool(self.data[top.item_start:top.item_start + FIRST_BYTES].strip(WS))

    def feed(self, data: bytes) -> None:
        if self.in_string and not self.escape and b'"' not in data and b"\\" not in data:
            self.data += data  # inside a string, bytes other than a quote or backslash change nothing else
            return
        for byte in data:
            self._byte(byte)
            self.data.append(byte)

    def _byte(self, byte: int) -> None:
        if self.in_string:
            if self.escape:
                self.escape = False
            elif byte == 0x5C:  # backslash
                self.escape = True
            elif byte == 0x22:
                self.in_string = False
                if self.member:
                    self.stack[-1].strings.append(bytes(self.data[self.string_start:]))  # type: ignore[union-attr]
            return
        pos = len(self.data)
        if byte in NUMBER:
            if self.number_start < 0 and byte in _NUMBER_START:
                self.number_start = pos
            self.digits += byte in _DIGITS
            return
        self.digits, self.number_start = 0, -1
        top = self.stack[-1] if self.stack else None
        if byte == 0x22:
            self.in_string, self.string_start = True, pos + 1
            self.member = isinstance(top, _Object) and not top.key
        elif byte == 0x5B:  # [
            self.stack.append(_Array(pos + 1))
        elif byte == 0x7B:  # {
            self.stack.append(_Object())
        elif byte in (0x5D, 0x7D):  # ] }
            if self.stack:
                frame = self.stack.pop()
                self.filled -= isinstance(frame, _Array) and bool(frame.items)
        elif isinstance(top, _Object) and byte in (0x3A, 0x2C):  # a value follows `:`, a key follows `,`
            top.key = byte == 0x2C
        elif byte == 0x2C and isinstance(top, _Array):  # , between array items
            self.filled += not top.items
            top.add(bytes(self.data[top.item_start:pos]).strip(WS))
            top.item_start = pos + 1


SHORT_LOOP_BYTES = 24
"""A stretch of 1-5 bytes repeated back to back over this many bytes (`L-L-L-L-...`) is a loop."""


def _TWICE(period: int) -> int:
    return 2 if period >= 16 else 3


def _OVER_SHORT(period: int) -> int:
    return -(-SHORT_LOOP_BYTES // period)


def _FOUR(period: int) -> int:
    return 4


LOOP_WINDOW = 256
"""The most bytes at the end of a string any loop `looping` looks for spans (128 twice, 64 four times)."""


def looping(data: bytearray, start: int) -> bool:
    """True when the string from `start` ends with a stretch repeated back to back: 16-128 bytes twice,
    6-15 bytes three times, 1-5 bytes over `SHORT_LOOP_BYTES`; or, once digits are ignored, 6-64 bytes four
    times (a model counting `2022-01-01, 2022-01-02, ...`)."""
    text = bytes(data[max(start, len(data) - LOOP_WINDOW):])  # no loop below reaches further back
    shape = text.translate(NO_DIGITS)  # without digits to ignore, four times is already twice (or three times)
    return _repeats_at_end(text, 6, 128, _TWICE) or _repeats_at_end(text, 1, 5, _OVER_SHORT) or \
        (shape != text and _repeats_at_end(shape, 6, 64, _FOUR))


def stuttering(data: bytearray, start: int, times: int, source: bytes = b"", digits: bytes = b"") -> bool:
    """True when the value from `start` ends with a stretch of 2-4 bytes repeated `times` times back to back and
    neither `source` holds that run nor `digits` (the source's digits, thousands separators dropped) its digits."""
    end = len(data)
    for period in (2, 3, 4):
        need = period * times
        if end - start < need or data[end - need:] != data[end - period:] * times:
            continue  # the last `times` stretches differ: no run long enough ends here
        text = bytes(data[start:])
        tail, count, size = text[-period:], 1, len(text)
        while count * period + period <= size and text[size - (count + 1) * period:size - count * period] == tail:
            count += 1
        if count < times:
            continue
        run = text[size - count * period:]
        plain = bytes(b for b in run if 0x30 <= b <= 0x39)
        if run not in source and not (plain == run and plain in digits):
            return True
    return False


def source_digits(source: bytes) -> bytes:
    """The source with the separators inside numbers dropped (`100,000,000` → `100000000`)."""
    return re.sub(rb"(?<=\d)[,.' ](?=\d{3}(?!\d))", b"", source)


def _repeats_at_end(text: bytes, shortest: int, longest: int, times: Callable[[int], int]) -> bool:
    """Whether `text` ends with some stretch of `shortest`..`longest` bytes repeated `times(period)` times
    (only the periods at which the last `shortest` bytes come back are tried: found by `rfind`, not one by one)."""
    size = len(text)
    if size < 2 * shortest:
        return False
    needle, low = text[size - shortest:], size - shortest - min(longest, size // 2)
    pos = text.rfind(needle, low, size - shortest)  # an earlier copy starting at least `shortest` back
    while pos >= 0:
        period = size - shortest - pos
        n = times(period)
        if period * n <= size:
            tail = text[size - period:]
            if all(text[size - k * period:size - (k - 1) * period] == tail for k in range(2, n + 1)):
                return True
        pos = text.rfind(needle, low, pos + shortest - 1) if pos > low else -1
    return False


_ITEM, _STRING = 0, 1
"""`_tracker.events` kinds (the third, a frame with Python-side state leaving the stack)."""
NativeMark = tuple[bytes, list[tuple[int, "_Array | _Object", tuple[Any, ...]]]]


class NativeTracker:
    """`JsonTracker` with its byte rules and checks in C: per token one call, per step one more; an array item or
    a member string that ends comes back to Python (`_drain`) to be kept as `JsonTracker` keeps it."""

    def __init__(self, checks: Checks = NO_CHECKS) -> None:
        self.data = bytearray()
        self.frames: dict[int, _Array | _Object] = {}
        """The frames on the stack that hold items or member strings, by the C tracker's serial number."""
        self._t = _native.tracker(self.data, checks.source, checks.digits, _bound(checks.max_string), checks.loops,
                                  -1 if checks.stutter is None else checks.stutter, _bound(checks.max_digits))
        self.check: Callable[[], int] = partial(_native.check, self._t)
        """`JsonTracker.check`."""

    def feed(self, data: bytes) -> None:
        if _native.feed(self._t, data):
            self._drain()

    def _drain(self) -> None:
        data, frames = self.data, self.frames
        for kind, serial, start, end in _native.events(self._t):
            frame = frames.get(serial)
            if kind == _ITEM:
                if frame is None:
                    frame = frames[serial] = _Array(start)
                frame.add(bytes(data[start:end]).strip(WS))  # type: ignore[union-attr]
                frame.item_start = end + 1  # type: ignore[union-attr]
            elif kind == _STRING:
                if frame is None:
                    frame = frames[serial] = _Object(False)
                frame.strings.append(bytes(data[start:end]))  # type: ignore[union-attr]
            else:
                del frames[serial]

    def mark(self) -> NativeMark:
        """`JsonTracker.mark`: the C tracker's scalars and frames, and the Python frames' sizes."""
        return _native.mark(self._t), [(serial, frame, frame.mark()) for serial, frame in self.frames.items()]

    def restore(self, mark: NativeMark) -> None:
        """`JsonTracker.restore` (the output cut back with it)."""
        at, frames = mark
        _native.restore(self._t, at)
        self.frames = {serial: frame for serial, frame, _ in frames}
        for _, frame, size in frames:
            frame.restore(size)  # type: ignore[arg-type]

    @property
    def stack(self) -> list[_Array | _Object]:
        """The frames on the stack, bottom first (an array without items, an object without member strings, made
        afresh: nothing is kept for them)."""
        out: list[_Array | _Object] = []
        for serial, kind, item_start, key in _native.frames(self._t):
            frame = self.frames.get(serial)
            if frame is None:
                frame = _Array(item_start) if kind == 0 else _Object(key)
            elif isinstance(frame, _Object):
                frame.key = key
            out.append(frame)
        return out

    def _state(self) -> tuple[bool, bool, int, int, int, bool, int]:
        return _native.state(self._t)  # type: ignore[no-any-return]

    in_string = property(lambda self: self._state()[0])
    escape = property(lambda self: self._state()[1])
    string_start = property(lambda self: self._state()[2])
    digits = property(lambda self: self._state()[3])
    number_start = property(lambda self: self._state()[4])
    member = property(lambda self: self._state()[5])
    filled = property(lambda self: self._state()[6])

    def value(self) -> bytes:
        """`JsonTracker.value`."""
        in_string, _, string_start, _, number_start, _, _ = self._state()
        if in_string:
            return bytes(self.data[string_start:])
        return bytes(self.data[number_start:]) if number_start >= 0 else b""


def _bound(bound: int | None) -> int:
    """A bound for C: -1 for none; a negative one is 0 (every size is at least either)."""
    return -1 if bound is None else max(bound, 0)


Tracker = JsonTracker | NativeTracker


def tracker(checks: Checks = NO_CHECKS) -> Tracker:
    """A tracker in C where the extension is built (and the checks are ones it runs), else in Python."""
    if _native is None or (checks.stutter is not None and checks.stutter < 1):
        return JsonTracker(checks)
    return NativeTracker(checks)
