"""Items of a `uniqueItems` array kept apart by JSON value where no automaton of fixed size can remember
them (objects, numbers, bounded strings, large enums): each finished item's value is kept, per array, and
the byte that would finish a repeat is refused. `fresh` says whether the item under way can still end as a
new value, so that a mask never leaves the model only repeats to write."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from extractor.automata.pda import Automaton, Config


WS = b" \t\r\n"
_OPEN, _CLOSE, _COMMA, _QUOTE = frozenset(b"[{"), frozenset(b"]}"), 0x2C, 0x22

@dataclass(frozen=True, slots=True)
class Record:
    """One open array whose items must differ: what changes only when an item ends (the item under way is in
    `Items.written`, so that a byte makes no new record)."""

    level: int  # the JSON nesting level of its items
    keys: frozenset[tuple[int, int]]  # (stack depth, rule) of the frames that read its `[`
    seen: frozenset[Any] = frozenset()  # the values of the items finished, comparable (`_key`)
    strings: frozenset[bytes] = frozenset()  # every string in them (keys and values), UTF-8
    done: int = 0  # items finished


@dataclass(frozen=True, slots=True)
class Items:
    """Where the output is in JSON terms (nesting level) and the open arrays whose items must differ. A step
    makes one new `Items` and tuples of bytes and bools beside the records it shares: the matcher keeps one a
    step, and tuples of atoms leave the cyclic collector's books at its first young pass, never counting toward
    a full one (a record a step did: a long array of unique items set off one full pass after another)."""

    level: int = 0
    records: tuple[Record, ...] = ()
    written: tuple[bytes, ...] = ()  # each record's item under way
    novel: tuple[bool, ...] = ()  # each record's item holds a string no finished item holds: it cannot repeat one
    string_at: int = 0  # where the open string's content starts in the innermost record's item

    def step(self, automaton: Automaton, config: Config, nxt: Config, byte: int, outside: bool, closing: bool
             ) -> tuple[Config, Items]:
        """The configuration after `byte` (less the stacks of an array whose item it finished as a repeat)
        and the state it leaves; `outside`: the byte is not inside a string; `closing`: it ends one."""
        records = self.records
        if closing and records:
            content = unescape(self.open_string())
            novel = tuple([n or content not in r.strings for r, n in zip(records, self.novel)])
            return nxt, Items(self.level, records, _grown(self.written, byte), novel, self.string_at)
        if not outside:
            return nxt, self._append(byte)
        if byte in _OPEN:
            grown = self._append(byte)
            written, novel, level = grown.written, grown.novel, self.level + 1
            if byte == 0x5B and automaton.unique:
                keys = frozenset((len(st) - 1, st[-1][0]) for st in config if st[-1][0] in automaton.unique
                                 and automaton.rows[st[-1][0]][st[-1][1]][byte] >= 0)
                if keys:
                    records, written, novel = records + (Record(level, keys),), written + (b"",), novel + (False,)
            return nxt, Items(level, records, written, novel, grown.string_at)
        written, novel = self.written, self.novel
        if byte in _CLOSE:
            if byte == 0x5D and records and records[-1].level == self.level:
                nxt, _ = _finish(automaton, records[-1], written[-1], config, nxt, byte)
                records, written, novel = records[:-1], written[:-1], novel[:-1]
            return nxt, Items(self.level - 1, records, _grown(written, byte), novel, self.string_at)
        if byte == _COMMA and records and records[-1].level == self.level:
            nxt, last = _finish(automaton, records[-1], written[-1], config, nxt, byte)
            if last is records[-1]:  # a blank item or a repeat: the record and its item as they were
                written, novel = _grown(written[:-1], byte) + written[-1:], novel
            else:
                written, novel = _grown(written[:-1], byte) + (b"",), novel[:-1] + (False,)
            return nxt, Items(self.level, records[:-1] + (last,), written, novel, self.string_at)
        out = self._append(byte)
        if byte == _QUOTE and records:  # a string opens
            out = Items(out.level, records, out.written, out.novel, len(out.written[-1]))
        return nxt, out

    def _append(self, byte: int) -> Items:
        return (Items(self.level, self.records, _grown(self.written, byte), self.novel, self.string_at)
                if self.records else self)

    def open_string(self) -> bytes:
        """The bytes of the string being written, after its opening quote."""
        return self.written[-1][self.string_at:] if self.records else b""

    def strings(self) -> frozenset[bytes]:
        """Every string in the items finished so far, of every open array."""
        return frozenset().union(*(r.strings for r in self.records))

    @property
    def watching(self) -> bool:
        """Whether some open array already has items a new one must differ from."""
        return any(r.seen for r in self.records)

    @property
    def settled(self) -> bool:
        """Whether every open array's item under way must end as a new value (it holds a string no earlier
        item holds, or there is no earlier item)."""
        return all(n or not r.seen for r, n in zip(self.records, self.novel))


def _grown(written: tuple[bytes, ...], byte: int) -> tuple[bytes, ...]:
    tail = bytes((byte,))
    return tuple([w + tail for w in written])


def _finish(automaton: Automaton, record: Record, item: bytes, config: Config, nxt: Config, byte: int
            ) -> tuple[Config, Record]:
    """At the `,` or `]` after an item (`item`, as written): a repeat leaves only the stacks outside this array
    (if any read the same bytes otherwise) and the record as it was, as does a blank item; a new value is
    remembered."""
    text = item.strip(WS)
    if not text:
        return nxt, record
    key, strings = value_key(text)
    if key in record.seen:
        kept = frozenset(st for st in config if not any(len(st) > d and st[d][0] == r for d, r in record.keys))
        return (automaton.step(kept, byte) if kept else frozenset()), record
    return nxt, Record(record.level, record.keys, record.seen | {key}, record.strings | strings, record.done + 1)


def value_key(text: bytes) -> tuple[Any, frozenset[bytes]]:
    """A JSON value as a hashable key equal exactly where JSON Schema calls two values equal (numbers by
    value, objects whatever their key order, `true` apart from 1), and the strings it holds."""
    try:
        value = json.loads(text, parse_float=Decimal, parse_int=Decimal)
        strings: set[bytes] = set()
        return _key(value, strings), frozenset(strings)
    except (ValueError, RecursionError):  # nested past the parser's depth: compared as written
        return ("raw", text), frozenset()


def _key(value: Any, strings: set[bytes]) -> Any:
    if isinstance(value, str):
        strings.add(value.encode("utf-8", "surrogatepass"))
        return ("s", value)
    if isinstance(value, bool) or value is None:
        return ("c", value)
    if isinstance(value, Decimal):
        return ("d", value)
    if isinstance(value, list):
        return ("l", tuple(_key(v, strings) for v in value))
    for k in value:
        strings.add(k.encode("utf-8", "surrogatepass"))
    return ("o", frozenset((k, _key(v, strings)) for k, v in value.items()))


def escape_at(raw: bytes) -> int:
    """Where an unfinished escape at the end of `raw` starts (`len(raw)` where there is none)."""
    at = 0
    while True:
        at = raw.find(b"\\", at)
        if at < 0:
            return len(raw)
        end = at + (6 if raw[at + 1:at + 2] == b"u" else 2)
        if end > len(raw):
            return at
        at = end


_ESCAPES = re.compile(rb"(?:\\u[0-9a-fA-F]{4})+|\\[^u]")


def unescape(raw: bytes) -> bytes | None:
    """A JSON string's content so far as UTF-8, from its bytes after the opening quote; None where they end
    inside an escape."""
    if b"\\" not in raw:
        return raw
    if escape_at(raw) < len(raw):
        return None
    try:
        return _ESCAPES.sub(lambda m: json.loads(b'"' + m.group() + b'"').encode("utf-8", "surrogatepass"), raw)
    except ValueError:
        return None
