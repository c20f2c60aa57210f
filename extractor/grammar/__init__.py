"""Stage 2: a schema IR becomes a grammar, named rules over bytes that call each other."""

from extractor.grammar.compile import CompileOptions, Grammar, compile_grammar

__all__ = ["CompileOptions", "Grammar", "compile_grammar"]
