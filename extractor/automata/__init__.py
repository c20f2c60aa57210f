"""Stage 3: each grammar rule becomes a minimized byte DFA; calls between them form a pushdown automaton.

`pda.py`'s `build_automaton(grammar)` builds one DFA per rule (`lang.dfa`), its calls letters of its alphabet, for
the rules the root reaches through the calls of their automata only: a rule that only a dead branch calls is never
built. Rules that can never finish are found by a fixpoint in post-order of the calls (callees first; a rule waiting
on a callee is looked at again only once that callee turns out to finish), and the rules calling them are rebuilt
without those calls; a root that cannot finish is `UnsatisfiableSchemaError`, and a rule that can call itself
without reading a byte (left recursion) is refused. Rule automata are kept per process in an LRU keyed by the rule
body's digest and which of its callees can finish, since strings, formats, numbers, keys and whole containers
recur across schemas; rules copying from a source text are not kept, and they and the rules calling them are
`Automaton.private` (their token tables serve this automaton only). `Fingerprints` (a hash of a rule with
everything it calls), by which token tables are shared, are computed when a table of the rule is first asked for,
not at compile, except for tables large enough that the compile digests them (`Fingerprints.digest_large`; their
content digests made by the C construction itself, `lang.dfa.DIGEST_AT_BUILD`). The
construction runs under the compile budget (`lang.budget`) with the cyclic garbage collector paused.

At run time a configuration is a set of stacks of `(rule, state)` frames: `close()` follows calls into rules and
returns out of accepting ones. Recursion lives on the stack, with no depth cap. `configs.py` determinizes this on
demand for walks in Python (configurations numbered as they are met); the C kernel in `masks/` has its own.

`counted.py`: a `Counted` rule is a base DFA whose byte steps (a character starting inside a string, marked by the
product with a framing automaton of characters) or calls (array elements, or just those matching `contains`) add
one to a count kept in the state number (`count * n + state`). A step is allowed only where the count can still end
in `[lo, hi]`, so a masked walk is never stranded: the counts each base state can still add on its way to
acceptance are R[0] = Z·acc, R[k+1] = Z·E1·R[k] (Z the closure of uncounted edges, E1 the counted ones), eventually
periodic, stored as a prefix plus one period with cumulative sums, so each check is O(1). Z·E1 and Z·acc are found
in C over the strongly connected parts of the uncounted edges (each part ORs the bit sets of the parts it reaches;
NumPy squares the closure where the extension is not built), and the rows are taken over bit sets in C. States far from both bounds
share token tables (`CountedDFA.canonical`: within one token the count grows by at most the token's length).

`distinct.py`: some strings must differ from their siblings, which no automaton of fixed size remembers: undeclared
keys and the items of a `uniqueItems` array of strings (`Grammar.distinct`). Where such a rule's language is
`endless` (every live state reaches a cycle on its way to acceptance, so a fresh string can always be finished),
`Distinct` remembers the strings finished at each stack depth (dropped when the enclosing object or array closes)
and reports a byte that finishes one again; unique items over a bounded language are refused. `items.py` keeps
whole items of other `uniqueItems` arrays (`Grammar.unique`) apart by JSON value, compared as JSON Schema compares
(numbers by value, objects in any key order, `true` apart from 1); `distinct.fresh` searches for a way to end the
item under way as a new value (exact within `SEARCH_NODES` bytes tried), so a mask never leaves only repeats to
write. `accepts` runs the language so defined: every byte allowed, no string or item repeated, the end accepting."""

from extractor.lang.dfa import RuleDFA, build_dfa
from extractor.automata.distinct import Distinct, accepts
from extractor.automata.pda import Automaton, Config, Frame, Stack, build_automaton

__all__ = ["Automaton", "Config", "Distinct", "Frame", "RuleDFA", "Stack", "accepts", "build_automaton", "build_dfa"]
