"""More real-world schemas for the timing set, from two public repositories whose instances are real files:
SchemaStore's catalog (src/schemas/json, with its own test files in src/test and src/negative_test) and the
Model Context Protocol specification (each `$defs` entry of schema/<version>/schema.json that has examples).

usage: python benchmarks/realworld_repos.py --schemastore GIT_DIR --mcp GIT_DIR [--out benchmarks/data/realworld]
       [--count 150] [--seed 7] [--max-kib 120]

GIT_DIR is a clone (bare or not) of github.com/SchemaStore/schemastore or github.com/modelcontextprotocol/
modelcontextprotocol; files are read at HEAD with `git show`, and the commit is recorded. Writes MaskBench-format
files (`schemastore-catalog---NAME.json`, `mcp---NAME.json`) beside the wheel-sourced ones
(benchmarks/realworld_collect.py) and `realworld_repos_manifest.json` (sources, commits, licences, what was left out
and why). A schema already collected from a wheel under the same name is skipped; SchemaStore's schemas are
sampled with `random.Random(seed)` among those with a JSON test file, at most `--max-kib` bundled.

Instances: valid ones are the repositories' own (SchemaStore's test files, the specification's examples), up to 4,
each kept only if jsonschema (with ECMA-262 patterns, realworld_collect.judge) says valid; invalid ones are
SchemaStore's negative tests and mutations of the valid ones, each kept only if judged invalid.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import compact_text  # noqa: E402
from benchmarks.realworld_collect import INVALID, VALID, Unbundled, bundle, judge, mutations  # noqa: E402

LICENCES = {"schemastore": "Apache-2.0 (SchemaStore/schemastore LICENSE; each schema's authors per its catalog entry)",
            "mcp": "Apache-2.0 / MIT (modelcontextprotocol/modelcontextprotocol LICENSE, specification)"}
MCP_VERSION = "2026-07-28"


class Repo:
    """Files of one git repository at HEAD."""

    def __init__(self, git_dir: Path) -> None:
        self.git_dir = git_dir
        self.commit = self.git("rev-parse", "HEAD").strip()

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "--git-dir", str(self.git_dir), *args], check=True, capture_output=True,
                              text=True).stdout

    def files(self, under: str) -> list[str]:
        return self.git("ls-tree", "-r", "--name-only", "HEAD", under).splitlines()

    def json(self, path: str) -> Any:
        try:
            return json.loads(self.git("show", f"HEAD:{path}"))
        except (ValueError, subprocess.CalledProcessError):
            return None


def labelled(schema: Any, valid: list[Any], invalid: list[Any], seed: str) -> list[dict[str, Any]]:
    """Test records: the judge's valid ones among `valid` (up to VALID), then invalid ones from `invalid` and
    mutations of the valid ones (up to INVALID), every label the judge's."""
    verdict = judge(schema)
    kept: dict[str, Any] = {}
    for value in valid:
        if len(kept) < VALID and verdict(value) is True:
            kept.setdefault(compact_text(value), value)
    bad: dict[str, Any] = {}
    for value in invalid:
        if len(bad) < INVALID // 2 and verdict(value) is False:
            bad.setdefault(compact_text(value), value)
    rng = random.Random(seed)
    for value in kept.values():
        for wrong in mutations(value, rng):
            if len(bad) >= INVALID:
                break
            if compact_text(wrong) not in bad and verdict(wrong) is False:
                bad[compact_text(wrong)] = wrong
    return ([{"description": "the repository's own instance", "data": v, "valid": True} for v in kept.values()]
            + [{"description": "a negative test or a mutation of a valid instance", "data": v, "valid": False}
               for v in bad.values()])


def schemastore(repo: Repo, taken: set[str], count: int, seed: int, max_kib: int) -> dict[str, Any]:
    """{file name: MaskBench doc or the reason it was left out} for a seeded sample of the catalog."""
    root = "src/schemas/json/"
    tests: dict[str, list[str]] = {}
    for path in repo.files("src/test") + repo.files("src/negative_test"):
        if path.endswith(".json"):
            tests.setdefault(PurePosixPath(path).parts[2], []).append(path)
    stems = sorted(PurePosixPath(p).stem for p in repo.files(root) if p.endswith(".json")
                   and PurePosixPath(p).stem in tests and PurePosixPath(p).stem not in taken)
    out: dict[str, Any] = {}
    for stem in sorted(random.Random(seed).sample(stems, min(count * 2, len(stems)))):
        if sum(isinstance(v, dict) for v in out.values()) >= count:
            break
        name = f"schemastore-catalog---{re.sub(r'[^A-Za-z0-9_.-]', '_', stem)}.json"
        doc = repo.json(f"{root}{stem}.json")
        if not isinstance(doc, dict):
            out[name] = "not a JSON object"
            continue
        try:
            schema = bundle(doc, f"{root}{stem}.json", {f"{root}{stem}.json": doc})
        except (Unbundled, KeyError, IndexError, ValueError) as exc:
            out[name] = f"{type(exc).__name__}: {exc}"
            continue
        if len(json.dumps(schema)) > max_kib * 1024:
            out[name] = f"larger than {max_kib} KiB"
            continue
        good = [repo.json(p) for p in sorted(tests[stem]) if p.startswith("src/test/")]
        bad = [repo.json(p) for p in sorted(tests[stem]) if p.startswith("src/negative_test/")]
        records = labelled(schema, [g for g in good if g is not None], [b for b in bad if b is not None], name)
        out[name] = ({"description": f"SchemaStore catalog schema {stem}", "schema": schema, "tests": records}
                     if any(r["valid"] for r in records) else "no test file judged valid")
    return out


def mcp(repo: Repo) -> dict[str, Any]:
    """{file name: MaskBench doc or why left out}: each specification type with examples, its `$defs` bundled."""
    base = f"schema/{MCP_VERSION}"
    spec = repo.json(f"{base}/schema.json")
    examples: dict[str, list[str]] = {}
    for path in repo.files(f"{base}/examples"):
        if path.endswith(".json"):
            examples.setdefault(PurePosixPath(path).parts[3], []).append(path)
    out: dict[str, Any] = {}
    for name in sorted(examples):
        if name not in spec["$defs"]:
            continue
        file = f"mcp---{name}.json"
        schema = {"$schema": spec.get("$schema"), "$ref": f"#/$defs/{name}", "$defs": spec["$defs"]}
        schema["$defs"] = {k: spec["$defs"][k] for k in reachable(schema)}
        records = labelled(schema, [repo.json(p) for p in sorted(examples[name])], [], file)
        out[file] = ({"description": f"Model Context Protocol {MCP_VERSION} type {name}", "schema": schema,
                      "tests": records} if any(r["valid"] for r in records) else "no example judged valid")
    return out


def reachable(schema: dict[str, Any]) -> list[str]:
    """The `$defs` names reached from the schema's root `$ref`, sorted."""
    seen: set[str] = set()
    todo = [schema["$ref"]]
    while todo:
        key = todo.pop().rsplit("/", 1)[-1]
        if key in seen:
            continue
        seen.add(key)
        todo += re.findall(r'"\$ref": "(#/\$defs/[^"]+)"', json.dumps(schema["$defs"][key]))
    return sorted(seen)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schemastore", type=Path, required=True)
    parser.add_argument("--mcp", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/data/realworld"))
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-kib", type=int, default=120)
    args = parser.parse_args(argv)
    taken = {p.name.split("---", 1)[1][:-5] for p in args.out.glob("*---*.json")}
    store, spec = Repo(args.schemastore), Repo(args.mcp)
    found = {**schemastore(store, taken, args.count, args.seed, args.max_kib), **mcp(spec)}
    for file, doc in found.items():
        if isinstance(doc, dict):
            (args.out / file).write_text(json.dumps(doc, ensure_ascii=False) + "\n")
    manifest = {
        "sources": {"schemastore": {"repository": "github.com/SchemaStore/schemastore", "commit": store.commit,
                                    "licence": LICENCES["schemastore"]},
                    "mcp": {"repository": "github.com/modelcontextprotocol/modelcontextprotocol",
                            "commit": spec.commit, "version": MCP_VERSION, "licence": LICENCES["mcp"]}},
        "seed": args.seed, "count": args.count, "max_kib": args.max_kib,
        "schemas": {f: {"valid": sum(t["valid"] for t in d["tests"]), "invalid": sum(not t["valid"] for t in d["tests"])}
                    for f, d in found.items() if isinstance(d, dict)},
        "left_out": {f: d for f, d in found.items() if not isinstance(d, dict)},
    }
    (args.out.parent / "realworld_repos_manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(manifest['schemas'])} schemas written, {len(manifest['left_out'])} left out")


if __name__ == "__main__":
    main()
