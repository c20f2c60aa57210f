"""Large bounds stay small: compile time and peak memory of schemas with big counts.

usage: python benchmarks/bounds.py [--tokenizer PATH] [--json OUT] [--md OUT.md]
Each schema is compiled to its automaton (tokenizer-independent: the automaton is the part that
would grow with an unrolled bound), then the first mask over the tokenizer is computed and a
text at the bound is forced through, so the counter is exercised end to end.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import LLAMA3, write_results  # noqa: E402
from extractor import compile_schema  # noqa: E402
from extractor.automata import build_automaton  # noqa: E402
from extractor.grammar import compile_grammar  # noqa: E402
from extractor.schema import NormalizeOptions, target_ir  # noqa: E402
from extractor.tokens import Vocabulary  # noqa: E402

CASES = [
    ("maxLength 10000", {"type": "string", "maxLength": 10000}, '"' + "a" * 10000 + '"'),
    ("maxItems 1000", {"type": "array", "items": {"type": "integer"}, "maxItems": 1000},
     "[" + ",".join(["1"] * 1000) + "]"),
    ("pattern [a-z]{1,500}", {"type": "string", "pattern": "^[a-z]{1,500}$"}, '"' + "a" * 500 + '"'),
    ("uri maxLength 2048", {"type": "string", "format": "uri", "maxLength": 2048},
     '"https://example.com/' + "a" * 2000 + '"'),
    ("minLength 5000", {"type": "string", "minLength": 5000}, '"' + "b" * 5000 + '"'),
    ("contains, maxContains 500", {"type": "array", "contains": {"type": "integer"}, "maxContains": 500},
     "[" + ",".join(["1"] * 500) + "]"),
]


def measure(schema: dict, text: str, vocab: Vocabulary) -> dict:
    options = NormalizeOptions(strict_objects=False)
    t0 = time.perf_counter()
    automaton = build_automaton(compile_grammar(target_ir(schema, None, options)))
    compile_ms = (time.perf_counter() - t0) * 1e3
    tracemalloc.start()  # a second compile, traced (tracing slows it down several times)
    build_automaton(compile_grammar(target_ir(schema, None, options)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    grammar = compile_schema(schema, vocab, normalize=options)
    matcher = grammar.matcher()
    t0 = time.perf_counter()
    matcher.mask()
    first_mask_ms = (time.perf_counter() - t0) * 1e3
    matcher.advance_bytes(text.encode())
    states = sum(getattr(d, "base", d).size for d in automaton.dfas)
    return {"compile_ms": round(compile_ms, 2), "peak_kib": round(peak / 1024, 1), "dfa_states": states,
            "first_mask_ms": round(first_mask_ms, 2), "text_at_bound_accepted": matcher.accepting()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokenizer", type=Path, default=LLAMA3)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/bounds.json"))
    parser.add_argument("--md", type=Path, default=Path("benchmarks/results/bounds.md"))
    args = parser.parse_args()
    vocab = Vocabulary.from_tokenizer_file(args.tokenizer)
    compile_schema({"type": "null"}, vocab)  # the token trie, once, outside the timings
    rows = [{"case": name, **measure(schema, text, vocab)} for name, schema, text in CASES]
    lines = ["| case | compile ms | peak KiB | DFA states | first mask ms | text at bound accepted |",
             "|---|---:|---:|---:|---:|---|"]
    lines += [f"| {r['case']} | {r['compile_ms']} | {r['peak_kib']} | {r['dfa_states']} | {r['first_mask_ms']} | "
              f"{r['text_at_bound_accepted']} |" for r in rows]
    write_results({"tokenizer": str(args.tokenizer), "rows": rows}, "\n".join(lines) + "\n", args.json, args.md)


if __name__ == "__main__":
    main()
