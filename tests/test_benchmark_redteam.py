"""`benchmarks/redteam.py`: every hostile input's snippet parses and imports what exists, and a smoke run of two
categories ends each input in a result or a typed error."""

from __future__ import annotations

import ast
import importlib
import json

import pytest

from benchmarks.redteam import PRELUDE, ROWS, main


@pytest.mark.parametrize("category, name, snippet", ROWS, ids=[f"{c}: {n}"[:60] for c, n, _ in ROWS])
def test_every_snippet_parses_and_imports_names_that_exist(category, name, snippet):
    for node in ast.walk(ast.parse(PRELUDE + "\n" + snippet)):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name) or importlib.util.find_spec(f"{node.module}.{alias.name}"), \
                    f"{node.module}.{alias.name}"


def test_the_red_team_runs_two_categories(tmp_path):
    pytest.importorskip("numpy")
    out = tmp_path / "redteam.json"
    for category in ("numbers", "bad targets"):
        main(["--only", category, "--json", str(out), "--md", str(tmp_path / "redteam.md")])
        result = json.loads(out.read_text())
        assert result["inputs"] and result["bounded_and_typed"] == result["inputs"], result["rows"]
