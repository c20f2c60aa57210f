"""The shortest way out of a configuration: what guards steer a model along when it must stop (close a
string the grammar cannot close yet, or finish the output before the token budget runs out)."""

from __future__ import annotations

from collections.abc import Callable

from extractor.automata import Config
from extractor.masks.matcher import CompiledGrammar

MAX_CONFIGS = 4096
"""Configurations a search may visit before it gives up (the guard then stands aside)."""


def shortest_path(grammar: CompiledGrammar, config: Config, goal: Callable[[Config], bool]) -> bytes | None:
    """The fewest bytes from `config` to a configuration where `goal` holds (breadth-first; ties go to
    the smaller byte), or None when none is found within MAX_CONFIGS configurations."""
    step = grammar.automaton.step
    frontier: list[tuple[Config, bytes]] = [(config, b"")]
    seen = {config}
    while frontier and len(seen) < MAX_CONFIGS:
        following = []
        for current, path in frontier:
            if goal(current):
                return path
            for byte in sorted(grammar.allowed_bytes(current)):
                nxt = step(current, byte)
                if nxt and nxt not in seen:
                    seen.add(nxt)
                    following.append((nxt, path + bytes([byte])))
        frontier = following
    return None
