"""Byte languages, knowing nothing of schemas or grammars: byte regexes, patterns, JSON terms and their DFAs.

`regex.py` is the body of every grammar rule: a regex over bytes (`Bytes` sets as 256-bit masks, `Seq`, `Alt`,
`Repeat`) that may call other rules (`Ref`), and the forms the automata stage builds as one automaton: `Both` (an
intersection), `Minus` (a difference), `Multiple` (a remainder automaton for `multipleOf`), `Counted` (a length or
item count kept beside the automaton instead of unrolled), `Substrings` (a substring of a source text, for
`Verbatim` fields) and `Suffix` (a tail built once however often referenced, so bodies share suffixes as a DAG).
Nodes are frozen and keep their hash (`frozen.py`: regex bodies are deep trees used as keys), and each carries a
structural digest (BLAKE2b-128, in C where built) by which rule automata are cached.

`pattern.py` reads the ECMA-262 subset JSON Schema's `pattern` takes into code point sets (general categories
from `unicodedata`), turned into UTF-8 byte ranges and JSON escapes; `compile_whole` reads the same syntax over raw
UTF-8 matched whole (a serving engine's `regex` request). `pattern_parts.py` first rewrites what would be refused
or unrolled too far: leading lookaheads of an anchored pattern become more patterns and anti-patterns (an
intersection and a complement), a tempered repeat a complement, a pattern repeating one class that class's star
and a counted length. `pattern_matches` and `patterns_apart` decide questions about patterns with the same DFA
builder the compiler uses, so the schema stage, the compiler and the trace share one regex semantics.
`json_terms.py` holds JSON's lexical terms: strings UTF-8 exact (no overlongs, no surrogates, escapes only of
valid code points or surrogate pairs), the canonical string spelling, numbers, and each known `format`'s regex.
`written.py` reads numbers, dates and times off a text, one reader for the grammar (fields that take only the
values a text writes) and for the trace (where a text writes a value), so the two never disagree.

`dfa.py` turns one rule's regex into a minimized DFA whose extra edges call other rules: Thompson NFA (a byte or a
call is an edge), subset construction over byte classes (the partition of 0..255 the rule's byte sets induce),
dead-state pruning, Hopcroft minimization. A product (`Both`, `Minus`) is built over the pairs of states reachable
from the two starts (in C over the byte classes both tables tell apart) and minimized; the parts of products are
cached per process by digest, since one pattern often stands in several (`allOf` beside `not`).
Where a C compiler built `_partition.c`, a rule is one C call (`rule`) over buffers that checks the budget itself;
without it the same algorithms run in Python and give the same automaton, state for state
(tests/automata/test_minimize.py).

`budget.py` meters construction: every NFA and DFA state built and the seconds spent count against
`CompileOptions(max_states, timeout)` (a Thompson construction charges every 1,024 states), so a schema that
would take minutes or gigabytes fails early with `SchemaTooComplexError` naming the rule. `collector.py` holds
Python's cyclic garbage collector off while a schema compiles: a compile allocates many small objects that
reference counting frees, and a full collection it happened to trigger would scan the whole heap. Nested and
concurrent compiles share one pause; a collector the caller turned off stays off."""
