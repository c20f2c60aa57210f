"""Stage 3: each grammar rule becomes a minimized byte DFA; calls between them form a pushdown automaton."""

from extractor.lang.dfa import RuleDFA, build_dfa
from extractor.automata.distinct import Distinct, accepts
from extractor.automata.pda import Automaton, Config, Frame, Stack, build_automaton

__all__ = ["Automaton", "Config", "Distinct", "Frame", "RuleDFA", "Stack", "accepts", "build_automaton", "build_dfa"]
