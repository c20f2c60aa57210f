"""The package stack is strict: a module imports only its own package and the packages below it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "extractor"
LAYERS = {"errors": 0, "tokens": 0, "lang": 0, "schema": 1, "tracing": 2, "grammar": 2, "documents": 3, "automata": 3,
          "masks": 4, "decode": 5, "pipeline": 6, "engines": 7, "outputs": 7, "review": 7, "integrations": 9, "cli": 10,
          "__main__": 11}
TOP = 8
"""api, aio and the package itself: the public surface, above every stage; serving-engine integrations sit on top
of it, and nothing of ours imports them but the command line, the one module above them (`extract --ray` runs a
corpus job), and `python -m extractor` (`__main__`), which runs it. Tracing reads only the schema's IR, so it sits just above it; documents (windows over a long text, the
merge of their objects) reads schemas and traces; the pipeline drives one document through the stages below it,
and an engine (engines/, integrations/vllm) implements the pipeline's seam."""

PIPELINE = ["checks", "inputs", "calibration", "grounding", "repeats", "options", "outcome", "refusing", "target", "engine", "fields", "document", "batch",
            "choice", "windowed", "rounds", "stream"]
"""The pipeline's modules in the order they may import one another: each only those before it."""


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


PIPELINE_MODULES = sorted((PACKAGE / "pipeline").glob("[!_]*.py"))


@pytest.mark.parametrize("path", PIPELINE_MODULES, ids=[p.stem for p in PIPELINE_MODULES])
def test_pipeline_modules_import_in_order(path: Path) -> None:
    assert path.stem in PIPELINE, f"pipeline/{path.name} has no place in PIPELINE"
    later = [f"line {line}: {module}" for line, module in _imports(path) if module.startswith("extractor.pipeline.")
             and PIPELINE.index(module.split(".")[2]) >= PIPELINE.index(path.stem)]
    assert not later, f"pipeline/{path.name} imports a module at or after its own place: {later}"


def test_every_stage_package_is_placed() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LAYERS), f"packages without a layer: {sorted(packages - set(LAYERS))}"


def _private_names(path: Path) -> set[str]:
    """The private names a module defines: its functions, classes and attributes (module level, on `self`/`cls`); a
    `Protocol`'s underscore methods name another class's privates, so they do not count."""
    tree = ast.parse(path.read_text())
    described = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                 and any(getattr(b, "id", getattr(b, "attr", "")) == "Protocol" for b in c.bases) for f in c.body}
    names = set()
    for node in ast.walk(tree):
        if id(node) in described:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _package_private(path: Path) -> set[str]:
    """The private names a module may use: its own, and those of its package's modules (a package's private
    helpers and native kernels, `_kernel.c`, are its own business); the root modules are each their own."""
    if path.parent == PACKAGE:
        return _private_names(path)
    names = {c.stem for c in path.parent.glob("_*.c")}
    for sibling in path.parent.glob("*.py"):
        names |= _private_names(sibling)
    return names


def _private_reaches(path: Path) -> list[str]:
    """Where a module reaches into another module's private names: `obj._name` for a `_name` its package does not
    define (`self._x`, `cls._x` are its own), and `from m import _name` from another package."""
    own = _package_private(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            mine = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not mine and node.attr not in own:
                found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("extractor"):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__") and a.name not in own]
    return found


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(PACKAGE)) for p in MODULES])
def test_no_module_reaches_into_another_modules_private_names(path: Path) -> None:
    reaches = _private_reaches(path)
    assert not reaches, f"{path.relative_to(PACKAGE)} uses private names of other modules: {reaches}"
