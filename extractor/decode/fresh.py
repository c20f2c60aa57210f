"""No item the text does not repeat: an array item (a string, a number or an object) is never written equal to an
earlier item of its array more often than the text writes it. Small models under a mask list one name twice
(`["Lars Berg", "Lars Berg"]`); the rule takes the tokens that would complete such a repeat out of the mask, and
the tokens that would lead where nothing but a repeat can follow (a copy the grammar allows only one way to
finish), so the model writes another item or closes the array: it is never left without a way on.

Items are compared as the output writes them, whitespace around them aside (the grammar writes one value one way:
members in one order, one layout). A text that writes a value twice lets the list hold it twice: a string counts
where it stands whole in the text (not inside a longer word), a number where it stands whole (not inside a longer
number), an object as often as the rarest of its string and number values allows, a value the object holds twice
taking two of the text's for each copy (`{"company": "Software", "title": "Software"}` once where the text writes
"Software" twice). An object item written with some of an earlier one's `null` members left out is that item
(`null_variants`)."""

from __future__ import annotations

import json
import re
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import numpy as np

from extractor.automata import Config
from extractor.decode.tracker import NUMBER, WS, _Array, _Object, _object
from extractor.masks.matcher import CompiledGrammar

class Classes(Protocol):
    """The token classes the rule reads (`guards.TokenClasses` is one)."""

    comma: np.ndarray
    brace: np.ndarray
    space: np.ndarray
    quote_comma: np.ndarray
    closing: dict[int, dict[bytes, np.ndarray]]


Path = tuple[str | None, ...]
"""Where a value is in the output: member names, None for any array item (or any member, in a pattern)."""

_KINDS = frozenset(b'"{-0123456789')
"""First bytes of the items the rule compares (strings, objects, numbers); lists of booleans, nulls or lists repeat
freely."""
_NUMBER_START = frozenset(b"-0123456789")
_SPACE = frozenset(WS)
_BYTES = [bytes((b,)) for b in range(256)]
MAX_SPENT = 256
"""Lists of items whose spent items are remembered per generation (cleared all at once past this)."""
MAX_WAYS = 1 << 14
"""Places whose way out is remembered per grammar (cleared all at once past this; so too endings and number ends)."""
MAX_PATH_BYTES = 1 << 20
"""Outputs longer than this before an array are not read for its place (every array there takes the rule)."""


class Memo:
    """What the rule's searches found on one grammar, whatever the generation: each answer is the grammar's alone
    (a search reads no text), so the requests of a schema share them."""

    def __init__(self) -> None:
        self.ways: dict[tuple[Config, bytes, frozenset[bytes]], bytes | bool] = {}
        """`_way_off` by place (configuration, item written so far) and spent items (False: none)."""
        self.exits: dict[tuple[Config, int], list[tuple[bytes, np.ndarray, Config]]] = {}
        """`_exits` by configuration and closer (a string item's configuration stays one over its characters)."""
        self.number_ends: dict[int, list[np.ndarray]] = {}
        """`_number_ends` by trie node."""


_MEMOS: weakref.WeakKeyDictionary[CompiledGrammar, Memo] = weakref.WeakKeyDictionary()
"""`Memo` by grammar, dropped with it."""
MAX_MEMOS = 64
"""Grammars whose `Memo` is kept at once (all dropped past this): a server's grammar cache holds up to 1,024, and
each memo up to 3 × `MAX_WAYS` answers, so what the rule remembers stays bounded however many schemas it serves."""


def memo_of(grammar: CompiledGrammar) -> Memo:
    """The grammar's `Memo`, made on first use; past `MAX_MEMOS` grammars every memo is dropped first."""
    memo = _MEMOS.get(grammar)
    if memo is None:
        if len(_MEMOS) >= MAX_MEMOS:
            _MEMOS.clear()
        memo = _MEMOS[grammar] = Memo()
    return memo


class Fresh:
    """The rule for one generation: `banned(...)` gives the tokens it takes out of this step's mask."""

    def __init__(self, grammar: CompiledGrammar, classes: Classes, source: str = "",
                 repeatable: frozenset[Path] = frozenset()) -> None:
        self.grammar, self.trie, self.classes = grammar, grammar.trie, classes
        self.blocked: set[int] = set()
        """Where items start that were written as a spent item all but their end: their arrays end after them."""
        self.source = source
        self.repeatable = repeatable
        self.counts: dict[bytes, int] = {}
        """How often the text writes each item (`_in_text`)."""
        self.occurs: dict[str, int] = {}
        """How often the text holds each string asked after (`_occurrences`)."""
        self.spent: dict[tuple[bytes, ...], frozenset[bytes]] = {}
        """`_spent` by list of items."""
        self.spellings: dict[bytes, tuple[bytes, ...]] = {}
        """`null_variants` by item (asked again at every step of the item that would complete a repeat)."""
        memo = memo_of(grammar)
        self.ways, self.exits, self.number_ends = memo.ways, memo.exits, memo.number_ends

    def banned(self, data: bytearray, stack: list[Any], in_string: bool, config: Config | None) -> list[np.ndarray]:
        """Token ids that would complete, here, an item of an array on `stack` that its array holds as often as the
        text writes it, or (with `config`, the matcher's configuration) leave that item nothing else to become."""
        out: list[np.ndarray] = []
        for arr in stack:
            if not isinstance(arr, _Array) or not (arr.items or arr is stack[-1] or arr is stack[-2]) or \
                    not self._applies(arr, data):
                continue
            if not arr.items:  # its first item: the last one where the grammar allows no other after it (with a
                if config is not None and self.source:  # text: `Guard.first_items`)
                    if current := bytes(data[arr.item_start:]).lstrip(WS):
                        out += self._no_new_item(arr, stack, current, in_string, config)
                continue
            current = bytes(data[arr.item_start:]).lstrip(WS)
            spent = self._spent(arr.items)
            for item in spent:
                if item.startswith(current) and (item != current or _number(item)):
                    out += self._along(item, current, spent, config)
                    if current == (item if _number(item) else item[:-1]) and item[:1] != b"{":
                        self.blocked.add(arr.item_start)
            if arr.item_start in self.blocked and arr is stack[-1]:  # a repeat held back: its array ends next
                out.append(self.classes.quote_comma if in_string else self.classes.comma)
            elif arr is stack[-1] and self._cut_short(arr.items, current, in_string):  # ends here: the array ends
                out.append(self.classes.quote_comma if in_string else self.classes.comma)
            if current and config is not None:
                out += self._no_new_item(arr, stack, current, in_string, config)
            if not in_string and len(stack) > 1 and arr is stack[-2] and isinstance(stack[-1], _Object):
                out += self._same_object(arr.objects, current, config)
        return out

    def _same_object(self, objects: list[dict[str, Any]], current: bytes, config: Config | None) -> list[np.ndarray]:
        """Tokens that would close the object under way (`}`) where it would then equal an earlier object item once
        members written null are taken as left out (a validated object fills them in alike); and, where a member
        may follow, whitespace (which a layout may follow only with the `}`)."""
        written = _object(current.rstrip(WS) + b"}")
        if written is None:
            return []
        key = _plain(written)
        held = sum(_plain(obj) == key for obj in objects)  # the array's items parsed as they completed
        if not held or held < times_written(written, self.source):
            return []
        if config is not None and current == current.rstrip(WS) and self.grammar.walk(config, b","):
            return [self.classes.brace, self.classes.space]
        return [self.classes.brace]

    def _no_new_item(self, arr: _Array, stack: list[Any], current: bytes, in_string: bool,
                     config: Config) -> list[np.ndarray]:
        """Tokens that would end the item under way and go on with `,` where no new item is left to write."""
        if arr is stack[-1]:
            closer = 0x22 if in_string else 0x2C
        elif not in_string and len(stack) > 1 and arr is stack[-2] and isinstance(stack[-1], _Object):
            closer = 0x7D
        else:
            return []
        out, spent = [], self._spent(arr.items)
        for head, ids, after in self._exits(config, closer):
            way = self._way_off(after, b"", spent)  # the same at every step of the item: remembered
            if way is not None:
                item = (current + head[:-1]).rstrip(WS)
                if (way.startswith(item) or item.startswith(way)) and \
                        (more := self._spent_with(arr.items, item)) is not spent:
                    way = self._way_off(after, b"", more)  # (the item written may close that way; else it stays)
            if way is None:
                out.append(ids)
        return out

    def _exits(self, config: Config, closer: int) -> list[tuple[bytes, np.ndarray, Config]]:
        """The endings the grammar allows here (bytes, token ids, configuration after them) of the item under way:
        `,` outside strings (closer `,`), or tokens that close a string (`"`) or an object (`}`) and go on with
        `,`; remembered per configuration, where most steps of an item walk every ending again and again."""
        hit = self.exits.get((config, closer))
        if hit is None:
            if len(self.exits) >= MAX_WAYS:
                self.exits.clear()
            hit = self.exits[(config, closer)] = self.walk_exits(config, closer)
        return hit

    def walk_exits(self, config: Config, closer: int) -> list[tuple[bytes, np.ndarray, Config]]:
        """`_exits` walked afresh."""
        endings = {b",": self.classes.comma} if closer == 0x2C else self.classes.closing[closer]
        return [(head, ids, after) for head, ids in endings.items() if (after := self.grammar.walk(config, head))]

    def forget(self, size: int) -> None:
        """Output cut back to `size` bytes: what was held back past it is gone."""
        self.blocked = {start for start in self.blocked if start < size}

    def _along(self, item: bytes, current: bytes, spent: frozenset[bytes], config: Config | None) -> list[np.ndarray]:
        """Tokens that finish `item` from `current` (its prefix), and tokens that stop on its way where nothing but a
        spent item can follow."""
        trie, rest, node, out = self.trie, item[len(current):], 0, []
        number = _number(item)
        for k, byte in enumerate(rest):
            node = trie.child(node, byte)
            if node < 0:
                return out
            stop = k + 1 < len(rest) or number
            if stop and config is not None and trie.nends[node]:
                after = self.grammar.walk(config, rest[:k + 1])
                if after and self._way_off(after, current + rest[:k + 1], spent) is None:
                    out.append(trie.ends(node))
        if not number:
            out.append(trie.under(node))
        else:  # a number is finished by the first byte that cannot go on with it
            out += self._number_ends(node)
        return out

    def _number_ends(self, node: int) -> list[np.ndarray]:
        """Token ids that run on from `node` with a byte a number cannot go on with (a scan of every byte: kept)."""
        hit = self.number_ends.get(node)
        if hit is None:
            if len(self.number_ends) >= MAX_WAYS:
                self.number_ends.clear()
            hit = self.number_ends[node] = self.scan_number_ends(node)
        return hit

    def scan_number_ends(self, node: int) -> list[np.ndarray]:
        """`_number_ends` scanned afresh."""
        trie = self.trie
        return [trie.under(child) for b in range(256) if b not in NUMBER and (child := trie.child(node, b)) >= 0]

    def _way_off(self, config: Config, written: bytes, spent: frozenset[bytes]) -> bytes | None:
        """A way for the item begun as `written` to end as something other than a spent item: the bytes to where it
        leaves them all (None: every way leads to a spent item). A search along the spent items' bytes only: the
        first byte off them that the grammar allows is a way out. More spent items never open a way out. Answers
        are remembered per place: a search that finds no way out rules out every place it went through, one that
        finds a way gives it to every place on the way to it (the next steps of an item ask from those places)."""
        memo, key = self.ways, (config, written)
        known = memo.get((config, written, spent))
        if known is not None:
            return known or None
        if len(memo) >= MAX_WAYS:
            memo.clear()
        work, parent = [key], {key: key}
        while work:
            node = work.pop()
            way = memo.get((*node, spent))
            if way is False:
                continue
            way = way or self._off(node, spent, parent, work)
            if way:
                while True:  # the place found and every place on the way from the start
                    memo[(*node, spent)] = way
                    if node == key:
                        return way
                    node = parent[node]
        for config, s in parent:
            memo[(config, s, spent)] = False
        return None

    def _off(self, node: tuple[Config, bytes], spent: frozenset[bytes], parent: dict[Any, Any],
             work: list[tuple[Config, bytes]]) -> bytes | None:
        """The written bytes and one more that the grammar allows at `node` and that leave the spent items; where
        there is none, the places one byte along them (or past leading whitespace) are queued, `node` their parent."""
        config, s = node
        grammar = self.grammar
        ahead = {item[len(s)] for item in spent if len(item) > len(s) and item.startswith(s)}
        ended = s in spent and not _number(s)  # (a number may go on with a digit)
        later = []
        for byte in grammar.allowed_bytes(config):  # ways off first (any order gives one answer)
            if byte in ahead:
                later.append(byte)
                continue
            nxt = grammar.walk(config, _BYTES[byte])
            if not nxt:
                continue
            if not s and byte in _SPACE:
                _queue((nxt, s), node, parent, work)
            elif not (ended or s in spent and byte not in NUMBER):
                return s + _BYTES[byte]  # (else the item ends here, a repeat)
        for byte in later:
            nxt = grammar.walk(config, _BYTES[byte])
            if nxt and not (ended or s in spent and byte not in NUMBER):
                _queue((nxt, s + _BYTES[byte]), node, parent, work)
        return None

    def _cut_short(self, items: list[bytes], current: bytes, in_string: bool) -> bool:
        """Whether the string item under way, ended here, would be an earlier item cut short (`fragment_of`)."""
        if not current.startswith(b'"') or len(current) < 2 or b"\\" in current:
            return False
        body = current[1:] if in_string else current[1:-1] if current.endswith(b'"') else None
        try:
            short = None if body is None else body.decode()
        except UnicodeDecodeError:  # a character cut between tokens
            return False
        earlier = [item[1:-1] for item in items if item[:1] == b'"' and b"\\" not in item]
        if not short or not any(len(e) > len(body) and e.startswith(body) for e in earlier):  # most steps end here
            return False
        return fragment_of(short, [e.decode(errors="replace") for e in earlier], self.source, self._occurrences)

    def _occurrences(self, text: str) -> int:
        """How many times the source holds `text` (kept: an earlier item is asked after at every step)."""
        hit = self.occurs.get(text)
        if hit is None:
            hit = self.occurs[text] = self.source.count(text)
        return hit

    def _spent(self, items: list[bytes]) -> frozenset[bytes]:
        """The items written as often as the text writes them (of the kinds compared), each object also as it would be
        written with members it wrote null left out (`null_variants`: once validated, the same object); remembered
        per list of items (asked at every step, and the list changes only as an item completes)."""
        key = tuple(items)
        hit = self.spent.get(key)
        if hit is None:
            if len(self.spent) >= MAX_SPENT:
                self.spent.clear()
            spent = [item for item, n in Counter(items).items()
                     if bool(item) and item[0] in _KINDS and n >= self._in_text(item)]
            hit = self.spent[key] = frozenset(spent).union(*map(self._variants, spent))
        return hit

    def _spent_with(self, items: list[bytes], item: bytes) -> frozenset[bytes]:
        """`_spent` of `items` with `item` written after them (only `item`'s own count changes)."""
        spent = self._spent(items)
        if item in spent or not item or item[0] not in _KINDS or items.count(item) + 1 < self._in_text(item):
            return spent
        return spent.union((item, *self._variants(item)))

    def _variants(self, item: bytes) -> tuple[bytes, ...]:
        """`null_variants`, remembered per item for this generation (cleared all at once past `MAX_SPENT`)."""
        hit = self.spellings.get(item)
        if hit is None:
            if len(self.spellings) >= MAX_SPENT:
                self.spellings.clear()
            hit = self.spellings[item] = tuple(null_variants(item))
        return hit

    def _in_text(self, item: bytes) -> int:
        """How many times the text writes the item (at least once)."""
        if not self.source:  # (a served request: the text is empty and writes every item once)
            return 1
        hit = self.counts.get(item)
        if hit is None:
            try:
                value = json.loads(item)
            except (ValueError, RecursionError):
                value = None
            hit = self.counts[item] = times_written(value, self.source, item.decode() if _number(item) else None)
        return hit

    def _applies(self, arr: _Array, data: bytearray) -> bool:
        """Whether the rule holds for this array: not where the schema says its items may repeat."""
        if arr.free is None:
            arr.free = bool(self.repeatable) and path_matches(self.repeatable, path_at(data, arr.opened))
        return not arr.free


def _queue(node: tuple[Config, bytes], came: tuple[Config, bytes], parent: dict[Any, Any],
           work: list[tuple[Config, bytes]]) -> None:
    """Queue a place of the search once, remembering where it was reached from."""
    if node not in parent:
        parent[node] = came
        work.append(node)


def times_written(value: Any, source: str, spelled: str | None = None) -> int:
    """How many times `source` writes a list item (at least once): a string where it stands whole, a number (as
    `spelled`, else as JSON writes it) not inside a longer number, an object or list as often as the rarest of its
    strings and numbers allows, each copy taking as many of a value's occurrences as it holds the value."""
    leaves = Counter([(spelled, True)] if spelled is not None else _leaves(value))
    return max(1, min((_count(source, *leaf) // held for leaf, held in leaves.items()), default=1))


def fragment_of(short: str, earlier: list[str], source: str, count: Callable[[str], int] | None = None) -> bool:
    """Whether `short` begins an earlier, longer item and the text writes it nowhere but inside that item: the item
    cut short (a small model turned away from a repeat writes ever shorter copies of it), not a value of its own
    (`C` after `C++` where the text also writes `C` alone)."""
    count = count or source.count
    for item in earlier:
        if len(item) > len(short) and item.startswith(short) and (whole := count(item)):
            if count(short) <= whole * item.count(short):
                return True
    return False


def repeats(value: Any, source: str) -> list[Any]:
    """The items of any list in `value` held more often than `source` writes them (each extra copy once): what the
    rule keeps from being written, read off a finished result."""
    return [v[i] for v in _nodes(value) if isinstance(v, list) for i in extra_copies(v, source)]


def extra_copies(items: list[Any], source: str) -> list[int]:
    """The indices of a list's items (strings, numbers, objects; JSON equal) past as many copies as `source` writes
    them, the first copies kept; the text is searched only for an item written twice or more."""
    seen: Counter[str] = Counter()
    allowed: dict[str, int] = {}
    out = []
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, (str, int, float, dict)):
            continue
        seen[key := json.dumps(item, sort_keys=True)] += 1
        if seen[key] > 1:
            if key not in allowed:
                allowed[key] = times_written(item, source)
            if seen[key] > allowed[key]:
                out.append(i)
    return out


MAX_NULL_MEMBERS = 4
"""Object items with more members written null than this are spelled with only their trailing nulls left out (the
last `2 ** MAX_NULL_MEMBERS` runs of them, and all of them), not every subset: at most `2 ** MAX_NULL_MEMBERS + 1`
spellings of one item are searched along, each a repeat (a spelling left out is a repeat the rule does not see
coming, never a ban of something new)."""


def null_variants(item: bytes) -> list[bytes]:
    """An object item as the output could also write it with some of the members it wrote `null` left out, in its
    own layout (the whitespace it wrote after `{`, after a `,` and before `}`): the same object once validated, so a
    search for a way off the spent items must not take leaving a null out for one. Empty for anything else (and for
    an item whose members cannot be read apart)."""
    spans = _member_spans(item)
    if not spans:
        return []
    nulls = [i for i, (_, _, value) in enumerate(spans) if value == b"null"]
    if len(nulls) <= MAX_NULL_MEMBERS:
        drops = [{n for j, n in enumerate(nulls) if mask >> j & 1} for mask in range(1, 1 << len(nulls))]
    else:
        runs = range(max(1, len(nulls) - (1 << MAX_NULL_MEMBERS)), len(nulls))
        drops = [set(nulls[k:]) for k in (0, *runs)]
    sep = item[spans[0][1]:spans[1][0]].split(b",", 1)[-1] if len(spans) > 1 else b""
    head, tail = item[:spans[0][0]], item[spans[-1][1]:]
    return [head + (b"," + sep).join(item[a:b] for i, (a, b, _) in enumerate(spans) if i not in drop) + tail
            for drop in drops if len(drop) < len(spans)]


def _member_spans(item: bytes) -> list[tuple[int, int, bytes]]:
    """An object item's top-level members as (start, end, value): `"key": value` spans, whitespace around them
    aside; empty where it is no object or cannot be read apart."""
    if not item.startswith(b"{") or not item.endswith(b"}"):
        return []
    cuts, depth, in_string, escape = [0], 0, False, False
    for at, byte in enumerate(item):
        if in_string:
            escape, in_string = (False, True) if escape else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in b"{[":
            depth += 1
        elif byte in b"}]":
            depth -= 1
        elif byte == 0x2C and depth == 1:
            cuts.append(at)
    if depth or in_string:
        return []
    cuts.append(len(item) - 1)
    spans = []
    for a, b in zip(cuts, cuts[1:]):
        start = a + 1
        while start < b and item[start] in WS:
            start += 1
        end = b
        while end > start and item[end - 1] in WS:
            end -= 1
        colon = _string_end(item, start) + 1 if item[start:start + 1] == b'"' else -1
        while 0 < colon < end and item[colon] in WS:
            colon += 1
        if colon <= 0 or colon >= end or item[colon] != 0x3A:
            return []
        spans.append((start, end, item[colon + 1:end].strip(WS)))
    return spans


def _plain(obj: dict[str, Any]) -> str:
    """An object as compared with the others of its list: members written null left out."""
    return json.dumps({k: v for k, v in obj.items() if v is not None}, sort_keys=True)


def _number(item: bytes) -> bool:
    return bool(item) and item[0] in _NUMBER_START


def _leaves(value: Any) -> Iterable[tuple[str, bool]]:
    """The strings and numbers of a value that the text can be searched for (empty strings and booleans aside), as
    (text, whether a number)."""
    for v in _nodes(value):
        if isinstance(v, str) and v.strip():
            yield v, False
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            yield json.dumps(v), True


def _nodes(value: Any) -> Iterable[Any]:
    """`value` and every value inside it, walked without recursion (a result nests as deep as its schema)."""
    work = [value]
    while work:
        v = work.pop()
        yield v
        if isinstance(v, dict):
            work += v.values()
        elif isinstance(v, list):
            work += v


def _count(source: str, text: str, number: bool) -> int:
    """How many times `text` stands whole in `source`: a string not inside a longer word, a number not inside a
    longer number."""
    if text not in source:  # every match holds the text as written: a served request's empty source never does
        return 0
    if number:
        pattern = rf"(?<![0-9.]){re.escape(text)}(?![0-9]|\.[0-9])"
    else:
        pattern = rf"(?<![0-9A-Za-z]){re.escape(text)}(?![0-9A-Za-z])"
    return sum(1 for _ in re.finditer(pattern, source))


def path_at(data: bytes | bytearray, end: int) -> Path:
    """The place in the output of the value that opens at byte `end` (member names; None for array items)."""
    if end > MAX_PATH_BYTES:
        return ()
    path: list[str | None] = []
    kinds: list[bool] = []  # per open container: an object?
    key, pos, text = None, 0, bytes(data[:end])
    while pos < len(text):
        byte = text[pos]
        if byte == 0x22:  # a string: a key where an object waits for one
            close = _string_end(text, pos)
            if kinds and kinds[-1] and key is None:
                key = json.loads(text[pos:close + 1]) if close < len(text) else None
            pos = close
        elif byte in b"[{":
            path.append(key if kinds and kinds[-1] else None)
            kinds.append(byte == 0x7B)
            key = None
        elif byte in b"]}" and kinds:
            path.pop()
            kinds.pop()
            key = None
        elif byte == 0x2C and kinds and kinds[-1]:
            key = None
        pos += 1
    return tuple(path[1:]) + ((key if kinds and kinds[-1] else None),) if kinds else ()


def _string_end(text: bytes, start: int) -> int:
    """The position of the quote that closes the string opening at `start` (len(text) when none does)."""
    pos = start + 1
    while pos < len(text):
        if text[pos] == 0x5C:
            pos += 2
            continue
        if text[pos] == 0x22:
            return pos
        pos += 1
    return len(text)


def path_matches(patterns: frozenset[Path], path: Path) -> bool:
    """Whether a pattern (None: any name or item) matches the path."""
    return any(len(p) == len(path) and all(a is None or a == b for a, b in zip(p, path)) for p in patterns)


def repeatable_arrays(schema: dict[str, Any], max_depth: int = 32) -> frozenset[Path]:
    """The places of the arrays whose schema says `uniqueItems: false`: their items may repeat (a pattern per array,
    None for any item or any member; `$ref`s within the schema followed to `max_depth` levels)."""
    found: set[Path] = set()
    work: list[tuple[Any, Path, int]] = [(schema, (), 0)]
    while work:
        node, path, depth = work.pop()
        if not isinstance(node, dict) or depth > max_depth:
            continue
        if node.get("uniqueItems") is False:
            found.add(path)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target: Any = schema
            for part in ref[2:].split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
            work.append((target, path, depth + 1))
        for name, sub in (node.get("properties") or {}).items():
            work.append((sub, path + (name,), depth + 1))
        for key in ("additionalProperties", "items"):
            work.append((node.get(key), path + (None,), depth + 1))
        for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
            for sub in node.get(key) or []:
                work.append((sub, path + (None,) if key == "prefixItems" else path, depth + 1))
    return frozenset(found)
