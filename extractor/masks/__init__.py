"""Stage 4: automaton state x tokenizer vocabulary -> the set of tokens allowed next.

`matcher.py`: `CompiledGrammar(automaton, vocab)` pairs an automaton with the vocabulary's `TokenTrie` and caches
masks per configuration; `Matcher` is one generation's place, with the verbs the peers use (`mask`, `bitmask`,
`fill_bitmask`, `advance`, `accepting`, `rollback`, `validate_tokens`, `forced_bytes`). `compiler.py` runs the
stages with no model: `compile_schema(target, tokenizer)` under one compile budget and one collector pause, and
`compile_choices`, `compile_regex`, `compile_ebnf`, `compile_structural_tag` for a serving engine's requests.
`trie.py` sorts the vocabulary into a byte trie numbered in preorder, each node a contiguous range of rows, kept
as arrays plus one dict of int edges: no Python container per node for the cyclic collector to walk.

`tables.py`: for each `(rule, state)` a `Table` holds the tokens the state allows on its own and its exit nodes,
trie nodes where the rule may finish with the token running on (those bytes are for the enclosing rules to judge).
Tables depend on no context, so `TableCache` keys them by (vocabulary fingerprint, rule fingerprint, state) and
shares them across schemas, bounded by bytes; tables of `Automaton.private` rules (copying from one text) stay on
their automaton. Call-free rules are walked by the C kernel (`_kernel.c`: one pass over the preorder trie, the GIL
released, skipping every subtree the DFA rejects, counters stepped there too; NumPy over a byte matrix where it is
not built). A counted state near a bound reads its table off one walk of the base DFA (`UnitPaths`). Undeclared
keys are walked beside the reference language (`reference.py`: the canonical string, whose tables a process
computes once): a state with the reference's language takes its table outright, another walks only the subtrees
where the two differ. Rules that call others are walked by the pushdown automaton (`walk.py`: in C, in a machine
kept per grammar whose steps each walk reuses; the Python walk over `automata.configs` where the kernel is not built;
tests check the two agree). Tables persist on disk (`~/.cache/extractor/tables`, `$EXTRACTOR_CACHE_DIR`), each file
checked against its key and a SHA-256 of its content, else recomputed; only tables that took `SAVE_AFTER` of the
building thread's CPU are written, since a file loads back slower than most tables build (`benchmarks/table_cache.py`).

A configuration's mask is the OR of its stacks' tables, plus each exit token whose remaining bytes the parent
configuration accepts (walked from the parent, remembered per table and parent), plus EOS where the root accepts;
masks are never mutated, so a mask of one table and no exits is the table's own array. The start configuration is
walked whole in one such walk instead: its tables rarely serve another configuration. `bits.py` packs masks 32
tokens per int32 word (the peers' layout) and reads a bool mask and a packed row alike (`Row`), so a server's
packed row is composed and narrowed without a bool mask; `device.py` keeps packed masks on the accelerator.

`states.py` numbers a grammar's configurations, so a generation's place is an integer: steps by (id, token) in one
dict of ints, packed rows and acceptance by id, and `rollback(n)` truncates a list of ids. A step not seen before
runs in the C kernel's machine, which keeps its interned stacks and per-byte steps alive across calls. Requests of
one schema share the numbering; a full one is replaced for new generations. Grammars with distinct strings step
the machine byte by byte and keep the strings in Python (`States.distinct_after`); those whose whole items must
differ walk in Python, `unique.py` trying only the tokens that could head toward a repeat. `exits.py` and
`finish.py` find the shortest way to a complete output, which guards steer along. A grammar's `States` reaches it
through a weak proxy, so a grammar dropped from a cache is freed by reference counting, not by a full collection."""

from extractor.masks.matcher import CompiledGrammar, Matcher
from extractor.masks.tables import TABLES, TableCache
from extractor.masks.trie import TokenTrie

__all__ = ["TABLES", "CompiledGrammar", "Matcher", "TableCache", "TokenTrie"]
