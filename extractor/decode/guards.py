"""Guards against degenerate output: small models under a mask loop (a list repeating one item, a
number of endless digits, a string that never closes). Each guard only removes tokens from the
grammar's mask, so output stays valid; where a guard would leave no token at all it stands aside.

Each guard narrows what can be generated (documented in docs/decoding.md):

- `max_string_bytes`: once a string holds this many bytes, the next token must close it.
  `extract` sets it from the source text (no extracted string is longer than the text it came from).
- `max_number_digits`: a number stops after this many digits (doubles need at most 17).
- `fresh_items`: an array item (a string, a number or an object) is never written equal to an earlier item of
  its array more often than the source text writes it (`fresh.py`), except in arrays `repeatable` names.
- `unique_items`: an array item that repeats an earlier item of the same array verbatim (whitespace
  around items aside) may not be followed by `,`: the array closes after the first repeat.
- `similar_items`: an array item that equals earlier items of its array once digits are ignored (a model
  counting `"1.1.1.20", "1.1.1.21", ...`, repeating a line item with a growing price, or alternating two
  such items) may not be followed by `,` when it makes that many of them, unless it stands whole in the source
  text (a real list of years or phone numbers is copied, not counted).
- `alike_objects`: object items that each agree with an earlier item of their array on more than half of
  their members (two at least) end the array once there are that many (a model pairing every company it
  saw with one invented title and the same years).
- `distinct_members`: a member's string value may not close equal to another string member of its object
  (`"company": "Sonya", "title": "Sonya"`).
- `string_loops`: a string whose end repeats a stretch back to back (16-128 bytes twice, 6-15 bytes
  three times, 1-5 bytes over 24 bytes or more, or 6-64 bytes four times once digits are ignored) must close.
- `stutter`: a string or number whose end repeats a stretch of 2-4 bytes this many times back to back
  (`MALANANANANA`, `000,000,000,000,`, `1000000000`) must end, at any length, unless the source text holds that
  run (a real `ANANANAS`, a real `100000000`, digits compared without thousands separators).

Where a string must close but the grammar cannot close it yet (a `pattern` or `format` still unmet),
the guard steers the model along the shortest way to a closing quote instead of standing aside.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from extractor.automata import Config
from extractor.decode.fresh import Fresh, Path
from extractor.decode.tracker import (FILLED, FIRST, MUST_CLOSE, MUST_END, NO_DIGITS, NUMBER, WS, Checks, Mark, NativeMark,
                                      _Array, _Object, _object, agree, source_digits, tracker)
from extractor.masks.bits import Row, pack
from extractor.masks.exits import shortest_path
from extractor.masks.finish import finishing_path
from extractor.masks.matcher import CompiledGrammar
from extractor.masks.states import NOT_ALLOWED
from extractor.masks.trie import TokenTrie, along
from extractor.tokens import Vocabulary


TIGHT_STRING_BYTES = 256
"""After a cut, strings close at this many bytes (or the bound asked for, if lower)."""

@dataclass(frozen=True, kw_only=True)
class Guards:
    """Mask rules that stop small models' loops; None / False turns one off."""

    max_string_bytes: int | None = None
    """A string this long must close (the next token contains its closing quote). None: no bound."""
    max_number_digits: int | None = 20
    """Digits one number may have before it must end; 20 keeps every double and 64-bit integer."""
    fresh_items: bool = True
    """No array item (string, number or object) is completed equal to an earlier item of its array more often
    than the source text writes it: the model writes another item or closes the array."""
    repeatable: frozenset[Path] = frozenset()
    """Where items may repeat all the same (`fresh.repeatable_arrays`: arrays whose schema says `uniqueItems:
    false`): member names, None for any item or member."""
    unique_items: bool = True
    """An array item equal to an earlier one ends the array (no `,` after it)."""
    similar_items: int | None = 4
    """This many items of one array that are equal but for their digits end the array (None: off), an item that
    stands whole in the source text aside (a list the text holds is kept whole). 4 keeps every list of the quality
    benchmark's gold objects whole (at most 3 alike there, phone numbers)."""
    alike_objects: int | None = 2
    """Object items of one array, each agreeing with an earlier item on more than half of all their members
    (two at least), end the array once there are this many (None: off). No two items of a gold list in the
    quality benchmark's dev split agree on more than one member."""
    distinct_members: bool = False
    """A member's string value may not equal another string member of the same object (a model writing one name
    as both company and title); no gold object of the labeled sets has two members alike. Off by default: on the
    dev splits the model then wrote a longer wrong value (`"Bangalore"` became `"Bangalore Rural, Karnataka"`)
    and no field scored higher."""
    string_loops: bool = True
    """A string that starts repeating itself (its last 16-128 bytes twice in a row, 6-15 bytes three
    times, 1-5 bytes over at least 24 bytes, or 6-64 bytes four times once digits are ignored) must close."""
    stutter: int | None = 4
    """A string or number whose end repeats a stretch of 2-4 bytes this many times back to back must end, unless
    the source text holds the run (None: off)."""
    wrap_up: bool = False
    """When the shortest way to a complete output needs about every token left, only tokens along it are
    allowed (strings close, lists end, required members get their shortest values): the output is whole
    within `max_tokens` instead of cut. `extract` turns it on for the retry of an attempt that was cut."""

    def tightened(self) -> Guards:
        """The guards for another try after a cut: repeats stop sooner, strings close by 256 bytes, and the
        output wraps up in time."""
        similar = 2 if self.similar_items is None else min(self.similar_items, 2)
        near = 1 if self.alike_objects is None else min(self.alike_objects, 1)
        longest = TIGHT_STRING_BYTES if self.max_string_bytes is None else min(self.max_string_bytes,
                                                                                TIGHT_STRING_BYTES)
        return replace(self, max_string_bytes=longest, unique_items=True, similar_items=similar,
                       alike_objects=near, string_loops=True, wrap_up=True)

    @property
    def active(self) -> bool:
        return (self.max_string_bytes is not None or self.max_number_digits is not None or self.unique_items
                or self.fresh_items
                or self.similar_items is not None or self.alike_objects is not None or self.string_loops
                or self.distinct_members
                or self.stutter is not None or self.wrap_up)


NO_GUARDS = Guards(max_string_bytes=None, max_number_digits=None, fresh_items=False, unique_items=False,
                   similar_items=None, alike_objects=None, string_loops=False, stutter=None, distinct_members=False)

_VALUE_ENDS = {bytes([b]) for b in b'"0123456789el}]'}
_SCALAR_STARTS = {bytes([b]) for b in b'"-0123456789'}
MAX_SOURCED = 4096
"""Items whose place in the source a guard remembers (`Guard._sourced`)."""


class TokenClasses:
    """Per-vocabulary bool vectors the guards intersect masks with (built once per vocabulary)."""

    _cache: dict[str, TokenClasses] = {}

    def __init__(self, vocab: Vocabulary) -> None:
        self.has_quote = np.array([b'"' in t for t in vocab.tokens], dtype=bool)
        self.comma = np.flatnonzero([t.lstrip(WS).startswith(b",") for t in vocab.tokens])
        """Tokens whose first byte past any whitespace is `,`."""
        self.brace = np.flatnonzero([t.lstrip(WS).startswith(b"}") for t in vocab.tokens])
        """Tokens whose first byte past whitespace is `}`."""
        self.space = np.flatnonzero([bool(t) and not t.strip(WS) for t in vocab.tokens])
        """Tokens of whitespace only."""
        self.closing = {closer: _closing(vocab.tokens, closer) for closer in b'"}'}
        """Tokens that close a string (`"`) or an object (`}`) and go on with `,`, by their bytes up to that `,`."""
        self.quote_comma = np.concatenate([np.empty(0, dtype=np.int64), *self.closing[0x22].values()])
        """Those that close a string."""
        self.not_number_start = np.array([not t or t[0] not in NUMBER for t in vocab.tokens], dtype=bool)
        """Tokens that do not go on with a number (empty ones included)."""
        self.has_quote_words, self.not_number_start_words = pack(self.has_quote), pack(self.not_number_start)
        """The same classes packed (`masks.bits`), for narrowing a packed row."""
        self.spelled: dict[bytes, np.ndarray] = {}
        """`Guard._spelled` by its marks (a trie walk that branches at every whitespace: milliseconds each)."""

    @classmethod
    def of(cls, vocab: Vocabulary) -> TokenClasses:
        if vocab.fingerprint not in cls._cache:
            cls._cache[vocab.fingerprint] = cls(vocab)
        return cls._cache[vocab.fingerprint]


def _closing(tokens: tuple[bytes, ...], closer: int) -> dict[bytes, np.ndarray]:
    """Tokens whose first `closer` (not escaped) is followed, past whitespace, by `,`, by their bytes up to it."""
    groups: dict[bytes, list[int]] = {}
    for i, t in enumerate(tokens):
        at = t.find(bytes((closer,)))
        if at >= 0 and t[at + 1:].lstrip(WS).startswith(b",") and not t[:at].endswith(b"\\"):
            groups.setdefault(t[:t.index(b",", at) + 1], []).append(i)
    return {head: np.array(ids, dtype=np.int64) for head, ids in groups.items()}


WRAP_UP_FROM = 256
"""Tokens left when `wrap_up` first looks for the shortest way to a complete output."""
WRAP_UP_MARGIN = 4
"""Tokens to spare when `wrap_up` starts steering along that way."""


@dataclass(frozen=True)
class Route:
    """A way out being steered along: the output length where it starts, and its bytes."""

    start: int
    path: bytes

    def rest(self, data: bytearray) -> bytes | None:
        """What is left of it after `data` (None once the output has left it)."""
        written = bytes(data[self.start:])
        if not self.path.startswith(written):
            return None
        return self.path[len(written):]


GuardMark = tuple["Mark | NativeMark", dict[str, "Route"], int, int]
"""A guard's place (`Guard.mark`)."""


@dataclass(frozen=True)
class Plan:
    """What the guards do to one step's mask: steer ("finish"), close the string ("string"), end the number
    ("number") or nothing of these (None), then take out `banned` (arrays of token ids) unless steered."""

    kind: str | None
    banned: list[np.ndarray]


class Guard:
    """The guards of one generation: `restrict(mask)` removes the tokens they forbid here."""

    def __init__(self, guards: Guards, grammar: CompiledGrammar, source: bytes = b"") -> None:
        self.guards = guards
        self.grammar = grammar
        self.trie: TokenTrie = grammar.trie
        self.classes = TokenClasses.of(grammar.vocab)
        self.source = source.decode("utf-8", "replace")
        self.sourced: dict[bytes, bool] = {}
        """`_sourced` by item."""
        self.json = tracker(Checks(
            max_string=guards.max_string_bytes, loops=guards.string_loops, stutter=guards.stutter,
            max_digits=guards.max_number_digits, source=source,
            digits=source_digits(source) if source and guards.stutter else b""))
        self.fresh = Fresh(grammar, self.classes, self.source, guards.repeatable) if guards.fresh_items else None
        self.first_items = self.fresh is not None and bool(self.source)
        """Whether a first item is checked too (where no new item could follow it): with a text only, whose numbers
        and dates narrow a list to one value; served requests (no text) leave it, so their steps do not pay for it
        (benchmarks/backend_replay.py measured the difference)."""
        self.fired = 0  # steps where a guard removed tokens
        self.routes: dict[str, Route] = {}  # ways out being steered along: "string", "finish"
        self.check_at = WRAP_UP_FROM  # tokens left at which to look for the way to a complete output
        self.feed = self.json.feed
        """Take the next bytes of the output (the tracker's own method: one call a token, not two)."""

    def mark(self) -> GuardMark:
        """A place to come back to: a speculative decoder's drafts are fed, then taken back, every step."""
        return self.json.mark(), dict(self.routes), self.fired, self.check_at

    def restore(self, mark: GuardMark) -> None:
        """Back to `mark`, taken on this guard with nothing before it taken back since."""
        at, routes, self.fired, self.check_at = mark
        self.json.restore(at)
        self.routes = dict(routes)
        if self.fresh is not None:
            self.fresh.forget(len(self.json.data))

    def restrict(self, mask: np.ndarray, config: Config | None = None, left: int | None = None) -> np.ndarray:
        """`mask` less what the guards forbid now; `mask` itself when they forbid nothing (or everything).
        `config`, the matcher's configuration, lets the output be steered out of a string that cannot close
        yet, and with `left` (output tokens left) toward its end before the budget runs out (`wrap_up`)."""
        plan = self.plan(config, left)
        return mask if plan is None else self.apply(plan, mask, config)

    def plan(self, config: Config | None = None, left: int | None = None) -> Plan | None:
        """What the guards will do to this step's mask, decided without it: None where they leave it as it is
        (most steps; a server then copies the configuration's packed row as it stands)."""
        g, js = self.guards, self.json
        if g.wrap_up and config is not None and left is not None and (left <= self.check_at or self.routes) \
                and self._finishing(config, left):  # (`_finishing` looks no further before either)
            return Plan("finish", [])
        bits = js.check()
        kind = "string" if bits & MUST_CLOSE else "number" if bits & MUST_END else None
        banned = []
        repeats = g.unique_items or g.similar_items is not None or g.alike_objects is not None
        if bits & FILLED and (repeats or self.fresh is not None) or bits & FIRST and self.first_items:
            stack = js.stack  # (made afresh at each read: read once)
            banned = self._repeats(stack) if repeats and bits & FILLED else []
            if self.fresh is not None:
                banned += self.fresh.banned(js.data, stack, js.in_string, config)
        if g.distinct_members:
            banned += self._same_member()
        return None if kind is None and not banned else Plan(kind, banned)

    def apply(self, plan: Plan, mask: np.ndarray, config: Config | None = None) -> np.ndarray:
        """`mask` narrowed as `plan` says (`restrict`'s second half): a bool mask, or one packed 32 tokens per int32
        word (`masks.bits`: a server's rows, narrowed without a bool mask ever made); `mask` itself where no token
        is taken out."""
        row, classes = Row(mask), self.classes
        out, steered = mask, False
        if plan.kind == "finish":
            out, steered = self._steer(row, config, "finish", self._way_out), True  # type: ignore[arg-type]
        elif plan.kind == "string":
            out = mask & (classes.has_quote_words if row.packed else classes.has_quote)
            if not out.any() and config is not None:
                out, steered = self._steer(row, config, "string", self._to_quote, b'"'), True
        elif plan.kind == "number":
            out = mask & (classes.not_number_start_words if row.packed else classes.not_number_start)
        if not steered and plan.banned:
            out = Row(out).without(np.concatenate(plan.banned))
        if out is mask or not out.any():
            return mask
        self.fired += 1
        return out

    def _finishing(self, config: Config, left: int) -> bool:
        """Whether the shortest way to a complete output (in bytes, so at most that many tokens) needs
        about all the tokens left; looked for at 256 tokens left, then again halfway to where it would."""
        if "finish" in self.routes:
            return True
        if left > self.check_at:
            return False
        path = self._way_out(config)
        if path is None:
            self.check_at = -1  # no way found: no wrap-up
            return False
        need = len(path) + WRAP_UP_MARGIN
        if need < left:
            self.check_at = need + (left - need) // 2
            return False
        self.routes["finish"] = Route(len(self.json.data), path)
        return True

    def _to_quote(self, config: Config) -> bytes | None:
        """The shortest way to where the string may close."""
        return shortest_path(self.grammar, config, lambda c: 0x22 in self.grammar.allowed_bytes(c))

    def _way_out(self, config: Config) -> bytes | None:
        """The shortest way to a complete output, read off the rules' shortest ways (any depth; checked
        against the automaton), else searched among configurations."""
        automaton = self.grammar.automaton
        path = finishing_path(automaton, config)
        if path is not None:
            states = self.grammar.states()
            end = states.after(states.id(config), path)
            if end != NOT_ALLOWED and states.accepting(end):
                return path
        return shortest_path(self.grammar, config, automaton.accepting)

    def _steer(self, row: Row, config: Config, kind: str, find: Callable[[Config], bytes | None],
               end: bytes = b"") -> np.ndarray:
        """Only the tokens along the way `find` gives (then `end`), kept while the model follows it; at the
        end of a way to a complete output, only EOS."""
        route = self.routes.get(kind)
        rest = route.rest(self.json.data) if route is not None else None
        if rest is None:
            path = find(config)
            if path is None:
                return row.mask
            rest = path + end
            self.routes[kind] = Route(len(self.json.data), rest)
        return row.only(along(self.trie, rest) if rest else self.grammar.eos)

    def _repeats(self, stack: list[_Array | _Object]) -> list[np.ndarray]:
        """Tokens that would complete an item equal to an earlier one of its array (on `stack`, the tracker's) and
        go on with `,` (whitespace around the item and before the `,` aside)."""
        data, in_string, out = self.json.data, self.json.in_string, []
        for arr in stack:
            if not isinstance(arr, _Array) or not arr.items:
                continue
            current = bytes(data[arr.item_start:]).lstrip(WS)
            ended = arr is stack[-1] and not in_string and current.rstrip(WS) != current
            current = current.rstrip(WS) if ended else current
            if self.guards.unique_items:  # (a repeat the text writes, all `fresh_items` lets through, ends it too)
                out += self._endings(set(arr.items), current, ended)
            n = self.guards.similar_items
            if n is not None and len(arr.items) >= n - 1:
                shapes = {shape for shape, count in arr.alike.items() if count >= n - 1}
                if shapes:
                    out += self._endings(shapes, current.translate(NO_DIGITS), ended, digits=False, actual=current)
        if self.guards.alike_objects is not None and not in_string:
            out += self._alike_ending(stack)
        return out

    def _same_member(self) -> list[np.ndarray]:
        """Tokens that would close a member's string value equal to another string member of its object."""
        js = self.json
        if not (js.in_string and js.member):
            return []
        current = js.value()
        return [self._prefixed(sibling[len(current):] + b'"') for sibling in set(js.stack[-1].strings)  # type: ignore[union-attr]
                if sibling and sibling.startswith(current)]

    def _alike_ending(self, stack: list[_Array | _Object]) -> list[np.ndarray]:
        """Tokens that would go on with `,` after an object item that makes `alike_objects` alike items
        (right after its `}`, or closing it and going on in one token), outside strings."""
        closing = bool(stack) and isinstance(stack[-1], _Object) and len(stack) > 1 and isinstance(stack[-2], _Array)
        arr = stack[-2] if closing else stack[-1] if stack else None
        if not isinstance(arr, _Array) or not arr.objects or \
                arr.near + 1 < (self.guards.alike_objects or 0):
            return []
        current = bytes(self.json.data[arr.item_start:]).strip(WS)
        if current[-1:] not in _VALUE_ENDS:
            return []
        obj = _object(current + b"}" if closing else current)
        if obj is None or not any(agree(obj, earlier) for earlier in arr.objects):
            return []
        return [self._spelled(b"},") if closing else self.classes.comma]

    def _endings(self, items: set[bytes], current: bytes, ended: bool, digits: bool = True,
                 actual: bytes = b"") -> list[np.ndarray]:
        """Tokens that would end the current item equal to one of `items` and go on with `,`
        (`digits=False`: compared with every digit as 0, and only where no digit is left to write; an item ending
        so whose text, `actual` then the rest, stands in the source is left alone: a real list, not a count)."""
        out = []
        for item in items:
            if item == current:
                if digits or not self._sourced(actual):
                    out.append(self.classes.comma)
            elif item.startswith(current) and not ended:
                rest = item[len(current):]
                if digits or (b"0" not in rest and not self._sourced(actual + rest)):
                    ids = self._prefixed(rest + b",")
                    if len(ids):
                        out.append(ids)
        return out

    def _sourced(self, item: bytes) -> bool:
        """Whether an array item (a string or a number) stands in the source text whole: not inside a longer word
        or number (`11` in `2011` is not)."""
        hit = self.sourced.get(item)
        if hit is None:
            text, value = None, None
            if self.source and item[:1] in _SCALAR_STARTS:  # (objects and arrays are never read: nothing to parse)
                try:
                    value = json.loads(item)
                except ValueError:
                    value = None
            if isinstance(value, str) and value.strip():
                text = value
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                text = item.decode()
            hit = text is not None and re.search(rf"(?<![0-9A-Za-z]){re.escape(text)}(?![0-9A-Za-z])",
                                                 self.source) is not None
            if len(self.sourced) < MAX_SOURCED:
                self.sourced[item] = hit
        return hit

    def _spelled(self, marks: bytes) -> np.ndarray:
        """Token ids that start with `marks` in order, whitespace before and between them aside (a walk of
        the token trie, as deep as tokens are long)."""
        hit = self.classes.spelled.get(marks)
        if hit is not None:
            return hit
        trie, found, work = self.trie, [], [(0, 0)]  # (trie node, marks read)
        while work:
            node, read = work.pop()
            if read == len(marks):
                found.append(trie.under(node))
                continue
            work += [(child, read + (byte == marks[read])) for byte in (marks[read], *WS)
                     if (child := trie.child(node, byte)) >= 0]
        hit = self.classes.spelled[marks] = np.concatenate(found) if found else np.empty(0, dtype=np.int64)
        return hit

    def _prefixed(self, prefix: bytes) -> np.ndarray:
        """Token ids whose bytes start with `prefix`."""
        trie, node = self.trie, 0
        for byte in prefix:
            node = trie.child(node, byte)
            if node < 0:
                return np.empty(0, dtype=np.int64)
        return trie.under(node)
