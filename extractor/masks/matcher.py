"""A compiled grammar for one tokenizer, and the per-generation Matcher that drives it."""

from __future__ import annotations

import time
import weakref
from collections.abc import Iterator
from itertools import chain

import numpy as np

from extractor.automata import Automaton, Config, RuleDFA
from extractor.automata.counted import CountedDFA
from extractor.automata.distinct import Distinct, Present, Quoted, State, fresh
from extractor.lang.dfa import DIGEST_AT_BUILD
from extractor.masks.bits import Row, no_tokens, pack, set_bits
from extractor.masks.lru import ByteLRU
from extractor.masks.states import NOT_ALLOWED, States
from extractor.masks.tables import TABLES, Table, TableCache, unpacked
from extractor.masks.trie import TokenTrie
from extractor.masks.unique import TokenKinds, item_repeats
from extractor.masks.walk import native, walk
from extractor.masks.window import share
from extractor.tokens import Vocabulary

MASK_CACHE_BYTES = 64 << 20
"""Bytes of masks kept per compiled grammar (least recently used dropped first): 512 masks of a 128k
vocabulary, 1,300 of a 49k one; packed masks and exit sets get an eighth and a quarter of it beside."""

_QUOTED: dict[int, tuple[Vocabulary, Quoted]] = {}


def _quoted(vocab: Vocabulary) -> Quoted:
    """The vocabulary's tokens that hold a quote (once per vocabulary)."""
    hit = _QUOTED.get(id(vocab))
    if hit is None or hit[0] is not vocab:
        hit = _QUOTED[id(vocab)] = (vocab, Quoted.of(vocab.tokens))
    return hit[1]


WALK_MEMO_BYTES = 64
"""Walks of up to this many bytes (a token, a short forced span) are remembered per configuration."""
DIGEST_AT_COMPILE_BYTES = DIGEST_AT_BUILD * 256 * 4
"""Rule tables this large (`DIGEST_AT_BUILD` states of 256 four-byte entries or more, which their construction
digests) are digested for the table cache's keys when the grammar is compiled, just after they were built and
while the memory cache still holds them, not on the first mask that needs their fingerprint, which would read them
back from memory: a grammar of 200 rules and 30 MB of tables paid 45 ms in one mask for them, and its compile pays
a fraction of that."""
STACK_BYTES = 120
"""What one stack of a configuration costs in memory, roughly (a tuple of frames and the set's slot)."""


class CompiledGrammar:
    """An automaton paired with a vocabulary; masks are computed lazily and cached here."""

    def __init__(self, automaton: Automaton, vocab: Vocabulary, trie: TokenTrie | None = None,
                 tables: TableCache = TABLES, mask_cache_bytes: int = MASK_CACHE_BYTES) -> None:
        self.automaton = automaton
        self.vocab = vocab
        self.trie = trie or TokenTrie(vocab)
        self.tables = tables
        self.masks: ByteLRU[Config, np.ndarray] = ByteLRU(mask_cache_bytes)
        self.bitmasks: ByteLRU[Config, np.ndarray] = ByteLRU(mask_cache_bytes // 8)
        self.exit_memo: ByteLRU[tuple[int, Config], tuple[np.ndarray, np.ndarray]] = ByteLRU(mask_cache_bytes // 4)
        self.present: ByteLRU[Config, Present] = ByteLRU(mask_cache_bytes // 16)
        self.walks: ByteLRU[tuple[Config, bytes], Config] = ByteLRU(mask_cache_bytes // 8)
        """Configurations after a token's bytes: a request advancing where another went before (a serving engine's
        requests of one schema, rollbacks, drafts validated then accepted) looks its step up instead of walking."""
        self.repeats: ByteLRU[tuple[States, int, State], tuple[int, ...]] = ByteLRU(mask_cache_bytes // 16)
        """The tokens that would finish a distinct string again, by configuration and strings written so far: what
        narrowing a mask costs most (a walk per allowed token holding a quote), looked up where a request writes
        the keys another wrote before (a server's requests of one schema, rollbacks, a retry)."""
        self.eos = np.array(sorted(vocab.eos_ids), dtype=np.int64)
        self.quoted = _quoted(vocab) if automaton.distinct or automaton.unique else None
        if automaton.unique:  # the vocabulary's index for unique items, made here rather than on a first visit
            TokenKinds.of(vocab)
        automaton.fingerprints.digest_large(DIGEST_AT_COMPILE_BYTES)
        self.next_bytes: dict[tuple[int, int], tuple[int, ...]] = {}
        self.byte_sets: ByteLRU[Config, frozenset[int]] = ByteLRU(mask_cache_bytes // 16)
        self.start = automaton.start()
        self._states = self._new_states()

    def matcher(self) -> Matcher:
        return Matcher(self)

    def prepare(self, seconds: float) -> int:
        """Build the token table of every rule state until `seconds` have passed (a server's compile thread, so that
        its requests' first masks read tables instead of building them); how many were looked up. Rules with fewer
        tables go first: a request passes through most states of a small rule (an object's members, a pattern) but
        through few of a large one (a bounded number's thousands), so a large rule no longer spends the time before
        a later small rule's tables are built. States of a call-free rule that share a table (`masks.window`) are
        found first, so each is built once."""
        automaton, deadline, done = self.automaton, time.perf_counter() + seconds, 0
        width = self.trie.width
        for rule in sorted(range(len(automaton.dfas)), key=lambda r: _table_count(automaton.dfas[r], width)):
            dfa = automaton.dfas[rule]
            if rule in automaton.leaves and not isinstance(dfa, CountedDFA):
                share(dfa, self.trie)  # which of its states share a table: each shared one is built once
            for state in _table_states(dfa, width):
                if time.perf_counter() > deadline:
                    return done
                self.tables.get(automaton, self.trie, rule, state)
                done += 1
        return done

    def _new_states(self) -> States:
        """A table reaching back through a weak proxy: bound methods would make grammar and table a cycle, so a
        grammar dropped from a server's cache (its tables, rows and machine: megabytes) would wait for a full
        collection of the cyclic collector instead of going when its last user lets go. A table is only used
        beside its grammar (a matcher holds it); used alone, it raises ReferenceError."""
        grammar = weakref.proxy(self)
        return States(self.automaton, self.trie, self.start, lambda config, data: grammar.walk(config, data, False),
                      lambda config: grammar.bitmask(config))

    def held_bytes(self) -> int:
        """Bytes its caches hold now (masks, rows, walks, exits, byte sets and repeats; not the shared tables): what
        a cache of many grammars bounds."""
        return (self.masks.bytes + self.bitmasks.bytes + self.exit_memo.bytes + self.present.bytes + self.walks.bytes
                + self.byte_sets.bytes + self.repeats.bytes + self._states.row_bytes)

    def states(self) -> States:
        """The numbered configurations new generations use (a fresh table once this one is full)."""
        if self._states.full:
            self._states = self._new_states()
            self.repeats.clear()  # (keyed by the old table, which matchers still on it keep alive themselves)
        return self._states

    def mask(self, config: Config) -> np.ndarray:
        """Allowed token ids as a bool vector over the vocabulary; never mutate the result."""
        cached = self.masks.get(config)
        if cached is not None:
            return cached
        if config == self.start and native(self.automaton) is not None:
            out = self.walked(config)
            self.masks.put(config, out, out.nbytes)
            return out
        aut = self.automaton
        tables: dict[int, Table] = {}  # stacks with one top frame share its table (its words: the same array)
        extra: list[np.ndarray] = []
        for st in config:
            rule, state = st[-1]
            table = self.tables.get(aut, self.trie, rule, state)
            tables.setdefault(id(table.packed), table)
            if len(st) > 1 and len(table.exit_nodes):
                extra.append(self.exits(table, aut.close([st[:-1]])))
        if aut.accepting(config):
            extra.append(self.eos)
        parts = list(tables.values())
        words = parts[0].packed if len(parts) == 1 else parts[0].packed | parts[1].packed
        for part in parts[2:]:
            words |= part.packed  # the tables' packed words joined: a 32nd of the bools, unpacked once
        out = unpacked(words, parts[0].size)
        for ids in extra:
            out[ids] = True
        self.masks.put(config, out, out.nbytes)
        return out

    def walked(self, config: Config) -> np.ndarray:
        """A mask walked whole, every stack to its bottom, in one native walk: for the start configuration,
        whose tables (the first states of the rules it opens) rarely serve another configuration, so the
        first mask skips building them and the fingerprints they are keyed by (time to first mask)."""
        out = np.zeros(self.vocab.size, dtype=bool)
        out[walk(self.automaton, self.trie, config, np.zeros(1, dtype=np.int32), exits=False)[0]] = True
        if self.automaton.accepting(config):
            out[self.eos] = True
        return out

    def exits(self, table: Table, parent: Config) -> np.ndarray:
        """Exit tokens of a table that the enclosing rules accept: the subtree under each exit node
        walked from the parent configuration, remembered per (exit nodes, parent). Keyed by the exit nodes' array,
        which a table cache hands out again with each hit (the `Table` around it is made anew)."""
        nodes = table.exit_nodes
        key = (id(nodes), parent)
        hit = self.exit_memo.get(key)
        if hit is not None and hit[0] is nodes:
            return hit[1]
        walked = self._states.walk(parent, nodes, exits=False)
        ids = (walked or walk(self.automaton, self.trie, parent, nodes, exits=False))[0]
        self.exit_memo.put(key, (nodes, ids), ids.nbytes)  # the array is kept alive, so its id stays unique
        return ids

    def quotes(self, config: Config, row: Row) -> Present:
        """The tokens of the mask that hold quotes, by how many (`Quoted.present`), remembered per configuration:
        the matcher narrows masks of grammars with distinct strings by them at every step. `row`: the
        configuration's mask, as a bool vector or packed (either gives the same)."""
        hit = self.present.get(config)
        if hit is None:
            assert self.quoted is not None
            hit = self.quoted.present(row.has, row.mask.nbytes)
            self.present.put(config, hit, hit.nbytes)
        return hit

    def bitmask(self, config: Config) -> np.ndarray:
        """The mask packed 32 tokens per int32 word (bit i of word w: token 32*w + i), as the peers
        pack theirs: a 32x smaller copy to a device. Never mutate the result."""
        cached = self.bitmasks.get(config)
        if cached is not None:
            return cached
        words = self.packed(config)
        self.bitmasks.put(config, words, words.nbytes)
        return words

    def packed(self, config: Config) -> np.ndarray:
        """The packed mask read off the tables' packed rows, the bool mask never made (where it is not cached
        already): what a server's first visit of a configuration costs. Equal to `pack(mask(config))`."""
        if self.masks.get(config) is not None or (config == self.start and native(self.automaton) is not None):
            return pack(self.mask(config))
        aut = self.automaton
        out, shared = None, True
        for st in config:
            rule, state = st[-1]
            table = self.tables.get(aut, self.trie, rule, state)
            row = table.packed
            if out is None:
                out = row
            elif out is not row:
                out, shared = (out | row, False) if shared else (np.bitwise_or(out, row, out=out), False)
            if len(st) > 1 and len(table.exit_nodes):
                ids = self.exits(table, aut.close([st[:-1]]))
                if len(ids):
                    out, shared = (out.copy() if shared else out), False
                    set_bits(out, ids)
        if aut.accepting(config):
            out = out.copy() if shared else out
            set_bits(out, self.eos)
        return out if out is not None else pack(np.zeros(self.vocab.size, dtype=bool))

    def walk(self, config: Config, data: bytes, machine: bool = True) -> Config:
        """Configurations after `data`; empty when some byte is not allowed. Walked in the C machine where there is
        one (`machine`; a guard's searches ask from places no step went before, a fifth of the Python walk's time),
        else byte by byte in Python."""
        short = len(data) <= WALK_MEMO_BYTES
        if short:
            hit = self.walks.get((config, data))
            if hit is not None:
                return hit
        out = self.states().walked(config, data) if machine else None  # (a full table replaced: bounded)
        if out is None:
            out = config
            for byte in data:
                out = self.automaton.step(out, byte)
                if not out:
                    break
        if short:
            self.walks.put((config, data), out, STACK_BYTES * (len(config) + len(out)) + len(data))
        return out

    def allowed_bytes(self, config: Config) -> frozenset[int]:
        """Bytes that may come next from any configuration (remembered per configuration: the guards ask at each
        step of a generation, and requests of one schema ask alike)."""
        hit = self.byte_sets.get(config)
        if hit is not None:
            return hit
        out: set[int] = set()
        for st in config:
            key = st[-1]
            nb = self.next_bytes.get(key)
            if nb is None:
                row = self.automaton.dfas[key[0]].trans[key[1]]
                nb = self.next_bytes[key] = tuple(np.flatnonzero(row >= 0).tolist())
            out.update(nb)
        found = frozenset(out)
        self.byte_sets.put(config, found, STACK_BYTES * len(config) + 8 * len(found))
        return found


class Matcher:
    """One generation's position in the grammar: mask(), advance(token), forced_bytes(), accepting(), and
    rollback(n) / validate_tokens(ids) for speculative decoders that draft tokens and take some back. Its place
    is a configuration id of the grammar's `States`: a token's step is a lookup once any generation took it."""

    def __init__(self, grammar: CompiledGrammar) -> None:
        self.grammar = grammar
        self.states = grammar.states()
        self.state = self.states.id(grammar.start)
        self.output = bytearray()
        self.finished = False
        automaton = grammar.automaton
        self.distinct = Distinct(automaton) if automaton.distinct or automaton.unique else None
        self._at: list[int] = []
        """The state before each advance; its output length in `_sizes`, its distinct state in `_distincts` (only
        where the grammar has one, as plain tuples: `Distinct.state`). Never finished before one: nothing follows
        the end. Lists of ints and tuples of atoms: nothing the cyclic collector tracks past its first pass (a long
        output's steps would otherwise be objects every full pass walks, inside whichever mask call it lands)."""
        self._sizes: list[int] = []
        self._distincts: list[State] = []

    @property
    def config(self) -> Config:
        return self.states.configs[self.state]

    @config.setter
    def config(self, config: Config) -> None:
        self.state = self.states.id(config)

    def mask(self) -> np.ndarray:
        """Bool vector of the tokens allowed next (EOS only where the output may end)."""
        if self.finished:
            return np.zeros(self.grammar.vocab.size, dtype=bool)
        mask = self.grammar.mask(self.config)
        return mask if self.distinct is None else self._narrowed(mask)

    def bitmask(self) -> np.ndarray:
        """The mask packed 32 tokens per int32 word (see CompiledGrammar.bitmask); grammars with distinct strings
        or unique items narrow the configuration's packed row itself (the bool mask never made)."""
        if self.finished:
            return no_tokens(self.grammar.vocab.size)
        words = self.states.row(self.state)
        return words if self.distinct is None else self._narrowed(words)

    def _narrowed(self, mask: np.ndarray) -> np.ndarray:
        """The configuration's mask (a bool vector or packed) less the tokens that would finish a distinct string
        again or leave the item under way only repeats to end as: a copy where any is removed."""
        grammar, distinct, config = self.grammar, self.distinct, self.config
        assert distinct is not None
        row = Row(mask)
        if grammar.automaton.distinct:
            assert grammar.quoted is not None
            key = (self.states, self.state, distinct.state()) if distinct.items is None else None
            drop = None if key is None else grammar.repeats.get(key)
            if drop is None:
                walk = self._passes if distinct.items is None and self.states.machine is not None else None
                present = grammar.quotes(config, row)
                drop = tuple(distinct.repeats(row.has, config, grammar.vocab.tokens, grammar.quoted, present, walk))
                if key is not None:
                    grammar.repeats.put(key, drop, 8 * (len(drop) + len(distinct.seen)) + STACK_BYTES)
            if drop:  # (most steps drop nothing: no second wrapper, no copy)
                row = Row(row.without(drop))
        drop = item_repeats(row, config, distinct, grammar) if distinct.items is not None else []
        return row.without(drop) if drop else row.mask

    def _passes(self, data: bytes) -> bool:
        """Whether `data` may follow here, no distinct string repeated (walked in the C machine)."""
        walked = self.states.distinct_after(self.state, self.distinct, data)  # type: ignore[arg-type]
        return walked is not None and walked[0] != NOT_ALLOWED

    def fill_bitmask(self, out: np.ndarray, row: int = 0) -> None:
        """Write the packed mask into row `row` of a preallocated (batch, words) int32 array."""
        out[row] = self.bitmask()

    def accepting(self) -> bool:
        """True when the output so far is a complete value."""
        return self.states.accepting(self.state)

    def advance(self, token: int) -> None:
        """Consume one token; raises ValueError for a token the mask forbids."""
        if self.finished:
            raise ValueError("the matcher has already finished")
        if token in self.states.ends:
            if not self.accepting():
                raise ValueError(f"EOS token {token} before the output is complete")
            self._push(self.distinct)
            self.finished = True
            return
        before, states = self.distinct, self.states
        data = states.tokens[token] if 0 <= token < states.size else b""
        if not data:
            nxt = NOT_ALLOWED
        elif before is None:  # a step taken before is one lookup (States.step, inlined: the hottest call)
            nxt = states.steps.get(self.state * states.size + token)
            if nxt is None:
                nxt = states.step(self.state, token)
        else:
            nxt = self._walk(data)
        if nxt == NOT_ALLOWED:
            raise ValueError(f"token {token} ({data!r}) is not allowed after {bytes(self.output[-40:])!r}")
        self._push(before)
        self.state = nxt
        self.output += data

    def advance_bytes(self, data: bytes) -> None:
        """Consume raw bytes (forced text); raises ValueError where the grammar forbids them."""
        before = self.distinct
        nxt = self._walk(data)
        if nxt == NOT_ALLOWED:
            raise ValueError(f"bytes {data!r} are not allowed after {bytes(self.output[-40:])!r}")
        self._push(before)
        self.state = nxt
        self.output += data

    @property
    def steps(self) -> int:
        """Advances so far that `rollback` can undo (tokens, EOS or byte spans)."""
        return len(self._at)

    def _push(self, distinct: Distinct | None) -> None:
        self._at.append(self.state)
        self._sizes.append(len(self.output))
        if self.distinct is not None:
            self._distincts.append(distinct.state())  # type: ignore[union-attr]

    def rollback(self, steps: int) -> None:
        """Undo the last `steps` advances (tokens, EOS or byte spans)."""
        if isinstance(steps, bool) or not isinstance(steps, int) or not 0 <= steps <= len(self._at):
            raise ValueError(f"can roll back 0 to {len(self._at)} steps, not {steps!r}")
        if steps:
            self.state, size, self.finished = self._at[-steps], self._sizes[-steps], False
            del self._at[-steps:], self._sizes[-steps:], self.output[size:]
            if self._distincts:
                self.distinct = Distinct.restore(self.grammar.automaton, self._distincts[-steps])
                del self._distincts[-steps:]

    def validate_tokens(self, tokens: list[int]) -> list[int]:
        """The longest prefix of `tokens` the grammar allows from here; the matcher is left as it was."""
        taken = 0
        for token in tokens:
            try:
                self.advance(token)
            except ValueError:
                break
            taken += 1
        self.rollback(taken)
        return list(tokens[:taken])

    def _walk(self, data: bytes) -> int:
        """The state after `data`, remembering the distinct strings and unique items it finishes; NOT_ALLOWED
        where a byte is not allowed, finishes one already written, or leaves an item only repeats to end as
        (state kept only when all are allowed)."""
        if self.distinct is None:
            config = self.grammar.walk(self.config, data)
            return self.states.id(config) if config else NOT_ALLOWED
        fast = self.states.distinct_after(self.state, self.distinct, data)
        if fast is not None:
            if fast[0] != NOT_ALLOWED:
                self.distinct = fast[1]
            return fast[0]
        config, state = self.distinct.after(self.config, data)
        if config and not fresh(state, config):  # the item under way could only repeat an earlier one
            config = frozenset()
        if not config:
            return NOT_ALLOWED
        self.distinct = state
        return self.states.id(config)

    def forced_bytes(self, limit: int = 256) -> bytes:
        """The bytes every continuation must start with (stops where the output could end)."""
        out = bytearray()
        config = self.config
        while len(out) < limit and not self.grammar.automaton.accepting(config):
            nxt = self.grammar.allowed_bytes(config)
            if len(nxt) != 1:
                break
            byte = next(iter(nxt))
            out.append(byte)
            config = self.grammar.automaton.step(config, byte)
        return bytes(out)


def _table_count(dfa: RuleDFA | CountedDFA, window: int) -> int:
    """How many states `_table_states` yields."""
    if not isinstance(dfa, CountedDFA):
        return dfa.size
    return len(_near_hi(dfa, window)) * dfa.n + (dfa.lo + 1) * dfa.n


def _near_hi(dfa: CountedDFA, window: int) -> range:
    """The counts near `hi` whose tables differ from the one at `lo`."""
    return range(0) if dfa.hi is None else range(max(dfa.lo + 1, dfa.hi - window - dfa.start - dfa.period), dfa.hi + 1)


def _table_states(dfa: RuleDFA | CountedDFA, window: int) -> Iterator[int]:
    """A state of each token table the rule has: every state of a plain DFA; of a counted one, each base state at
    every count below `lo`, at `lo` (where the counts up to near `hi` share their tables) and near `hi`."""
    if not isinstance(dfa, CountedDFA):
        yield from range(dfa.size)
        return
    for count in chain(range(dfa.lo + 1), _near_hi(dfa, window)):  # lazily: a large `lo` is cut short by the caller's deadline
        yield from range(count * dfa.n, (count + 1) * dfa.n)
