"""The real-world timing set: its held-out split never moves, its peer benchmark runs, and its repository collector
bundles and labels what it should."""

from __future__ import annotations

import gc
import json
import subprocess
from pathlib import Path

import pytest

from benchmarks import realworld_peers
from benchmarks.realworld_repos import reachable
from tests.data import need_tokenizer

@pytest.mark.parametrize(("name", "part"), [
    ("mcp---CallToolRequest.json", "tuning"),
    ("schemastore---github-workflows.json", "tuning"),
    ("schemastore-catalog---github-action.json", "held-out"),
    ("schemastore-catalog---github-funding.json", "tuning"),
])
def test_the_held_out_part_is_fixed_by_the_name_alone(name, part):
    assert realworld_peers.part_of(name) == part


def test_a_quarter_of_the_set_is_held_out():
    parts = realworld_peers.split(realworld_peers.DATA)
    total = sum(len(files) for files in parts.values())
    assert 0.2 < len(parts["held-out"]) / total < 0.3
    assert not set(parts["held-out"]) & set(parts["tuning"])


@pytest.mark.parametrize(("defs", "root", "expected"), [
    ({"A": {"$ref": "#/$defs/B"}, "B": {"type": "string"}, "C": {}}, "A", ["A", "B"]),
    ({"A": {"items": {"$ref": "#/$defs/A"}}, "B": {}}, "A", ["A"]),
    ({"A": {"anyOf": [{"$ref": "#/$defs/B"}, {"$ref": "#/$defs/C"}]}, "B": {}, "C": {"$ref": "#/$defs/A"}}, "A",
     ["A", "B", "C"]),
])
def test_a_specification_type_keeps_only_the_definitions_it_reaches(defs, root, expected):
    assert reachable({"$ref": f"#/$defs/{root}", "$defs": defs}) == expected


def test_the_peer_benchmark_runs_on_a_tiny_input(tmp_path):
    tokenizer = need_tokenizer("gpt2")  # the smallest vocabulary: the run's setup is most of its time
    data = tmp_path / "data"
    data.mkdir()
    for name in ("mcp---CallToolRequest.json", "schemastore-catalog---github-action.json"):  # one of each part
        (data / name).write_text((realworld_peers.DATA / name).read_text())
    out = tmp_path / "peers.json"
    realworld_peers.main(["--data", str(data), "--tokenizer", str(tokenizer), "--part", "tuning", "--engines",
                          "extractor", "--json", str(out),
                          "--md", str(tmp_path / "peers.md")])
    result = json.loads(out.read_text())
    tuning = result["parts"]["tuning"]
    assert list(result["parts"]) == ["tuning"] and tuning["schemas"] == 1
    assert tuning["extractor"]["compiled"] == tuning["all_compiled"] == 1
    assert tuning["extractor"]["mask_us"]["max"] >= tuning["extractor"]["mask_us"]["avg"] > 0
    assert tuning["extractor"]["compile_cpu_ms"]["p50"] > 0
    assert "| tuning | 1 | 1 | extractor |" in (tmp_path / "peers.md").read_text()
    assert result["config"]["startup_heap_frozen"] and gc.get_freeze_count() == 0  # given back once measured


def test_the_repository_collector_writes_only_judged_instances(tmp_path):
    pytest.importorskip("regress", reason="the collector's judge reads patterns as ECMA-262 with regress")
    from benchmarks import realworld_repos

    store = _repo(tmp_path / "store", {
        "src/schemas/json/tiny.json": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        "src/test/tiny/good.json": {"a": 1}, "src/test/tiny/wrong.json": {"a": "x"},
        "src/negative_test/tiny/bad.json": {"b": 1}})
    spec = _repo(tmp_path / "spec", {
        f"schema/{realworld_repos.MCP_VERSION}/schema.json": {"$defs": {"T": {"type": "string"}}},
        f"schema/{realworld_repos.MCP_VERSION}/examples/T/one.json": "hello"})
    out = tmp_path / "realworld"
    out.mkdir()
    realworld_repos.main(["--schemastore", str(store), "--mcp", str(spec), "--out", str(out)])
    tiny = json.loads((out / "schemastore-catalog---tiny.json").read_text())
    assert [t["data"] for t in tiny["tests"] if t["valid"]] == [{"a": 1}]
    assert {"b": 1} in [t["data"] for t in tiny["tests"] if not t["valid"]]
    assert [t["data"] for t in json.loads((out / "mcp---T.json").read_text())["tests"] if t["valid"]] == ["hello"]
    assert json.loads((tmp_path / "realworld_repos_manifest.json").read_text())["left_out"] == {}


def _repo(where: Path, files: dict[str, object]) -> Path:
    """A git repository holding `files` (as JSON) in one commit; its git directory."""
    for name, doc in files.items():
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text(json.dumps(doc))
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t"]):
        subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True)
    return where / ".git"
