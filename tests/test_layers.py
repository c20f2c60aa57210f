"""The package stack is strict: a module imports only its own package and the packages below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "extractor"
LAYERS = {"errors": 0, "tokens": 0, "lang": 0, "schema": 1, "tracing": 2, "grammar": 2, "documents": 3, "automata": 3,
          "masks": 4, "decode": 5, "review": 6, "integrations": 7, "cli": 8}
TOP = 6
"""api, grounding, checks, inputs, outcome, stream, the review page and the package itself: the public surface,
above every stage; serving-engine integrations sit on top of it, and nothing of ours imports them but the command
line, the one module above them (`extract --ray` runs a corpus job). Tracing reads
only the schema's IR, so it sits just above it; documents (windows over a long text, the merge of their objects)
reads schemas and traces, and the API above drives it."""


def _layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1], TOP) if len(parts) > 1 else TOP


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of an extractor module, at any depth (lazy imports included)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("extractor"):
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("extractor")]
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_imports_go_down_the_stack(path: Path) -> None:
    own = _layer("extractor." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts))
    upward = [f"line {line}: {module}" for line, module in _imports(path) if _layer(module) > own]
    assert not upward, f"{path.relative_to(PACKAGE)} imports from above its layer: {upward}"


def test_every_stage_package_is_placed() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), f"packages without a layer: {sorted(packages - set(LAYERS))}"
