"""Byte languages, knowing nothing of schemas or grammars: regexes over bytes, the ECMA-262 pattern parser,
JSON's lexical terms, and DFA construction (subset construction, Hopcroft minimization, products)."""
