"""Stage 2: a schema IR becomes a grammar, named rules over bytes that call each other.

`compile.py`'s `compile_grammar(ir, CompileOptions)` makes a `Grammar`: a dict of named rules whose bodies are byte
regexes (`lang.regex`) calling other rules (`Ref`), and `root`, where output starts. Leaf values share rules named
by what they allow (`string`, `number`, `integer`, `string format:date`, `string {0,50}`), so their automata and
token tables are built once for every schema that uses them; every object and array is a rule of its own; small
constants (`null`, `true`, enum members) are inlined. `minLength`/`maxLength` count code points; `format` and
`pattern` are intersected with the string rule (`Both`), and excluded values and `not` patterns subtracted from
the canonical spelling (`Minus`), where one value has one spelling. Numeric bounds are exact digit-string automata
over decimals, no floating point involved (`numbers.py`); an integral `multipleOf` is a remainder automaton
(`Multiple`), and a `number` not bounded on both sides is only what `float()` reads as finite. Large bounds are not
unrolled: lengths and item counts above `CompileOptions.count_from`, and `contains` counts, become `Counted` bodies,
which the automata stage runs as a DFA plus a counter.

Objects are written with keys in `properties` order, optional members omissible and undeclared members in any
slot. The body is a DAG of shared suffixes (`Suffix`), one per slot and count of members written, which keeps it
linear in the number of properties and counts members for `minProperties`/`maxProperties`. An undeclared key is
any canonical string but the declared names (with `patternProperties`, one key rule per set of patterns a key may
match together; patterns anchored on different literal text never share one, `lang.pattern.patterns_apart`); key
rules are listed in `Grammar.distinct`, so the matcher keeps keys from repeating.

`uniqueItems` takes one of three forms. Items drawn from a few constants (at most `MAX_UNIQUE_VALUES`) are a DAG of
suffixes, one per set of values used. Strings of an unbounded language are one rule listed in `Grammar.distinct`.
Anything else (objects, numbers, strings of bounded length, larger enums) reads its `[` in a rule listed in
`Grammar.unique`, whose items the matcher keeps apart by value. An array that needs more distinct items than its
item schema has values (`_values_below` enumerates them where it can) compiles to no value at all, rather than
leaving the matcher with no fresh item to write and no way to close the array.

Whitespace comes from a `Layout` (`layout.py`): `compact`, `spaced`, `pretty` (`json.dumps(indent=2)`'s, the
layout `extract` forces unless told otherwise) or `free` (the model's own, a bounded number of bytes per gap). An
indenting layout compiles every container once per level (rule names carry `@level`; levels past `MAX_DEPTH` share
the last), so every newline and indent is forced. Separators and the rules of any JSON value depend on the layout
and level alone and are built once per process. With `CompileOptions.max_nesting` a recursive definition gets one
rule per level of recursion (names carry `~name k`) and none past the limit, bounding how deep a recursive target
nests.

`ebnf.py` reads GBNF (a serving engine's `grammar` request) and `tags.py` a structural tag (XGrammar's format, as
vLLM's `structural_tag` requests and tool calls send it) into a `Grammar` that is built like any other."""

from extractor.grammar.compile import CompileOptions, Grammar, compile_grammar
from extractor.grammar.layout import LAYOUTS, Layout, LayoutName

__all__ = ["LAYOUTS", "CompileOptions", "Grammar", "Layout", "LayoutName", "compile_grammar"]
