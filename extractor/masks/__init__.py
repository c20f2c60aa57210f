"""Stage 4: automaton state x tokenizer vocabulary -> the set of tokens allowed next."""

from extractor.masks.matcher import CompiledGrammar, Matcher
from extractor.masks.tables import TABLES, TableCache
from extractor.masks.trie import TokenTrie

__all__ = ["TABLES", "CompiledGrammar", "Matcher", "TableCache", "TokenTrie"]
