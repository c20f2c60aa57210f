"""Stage 2: a schema IR becomes a grammar, named rules over bytes that call each other."""

from extractor.grammar.compile import CompileOptions, Grammar, compile_grammar
from extractor.grammar.layout import LAYOUTS, Layout, LayoutName

__all__ = ["LAYOUTS", "CompileOptions", "Grammar", "Layout", "LayoutName", "compile_grammar"]
