"""Real-world schemas for benchmarks/maskbench.py: configuration, API and tool schemas shipped in pinned PyPI
wheels, each with valid instances drawn by hypothesis-jsonschema and invalid ones mutated from them.

usage: python benchmarks/realworld_collect.py [--out benchmarks/data/realworld] [--seed 7] [--wheels DIR]
then:  python benchmarks/maskbench.py --data benchmarks/data/realworld --sample 0 --engines extractor,llguidance

Sources (`SOURCES`): SchemaStore's CI and configuration schemas as vendored by check-jsonschema, JupyterLab's
settings schemas, AWS CloudFormation resource schemas (cfn-lint), Kubernetes object schemas (kubernetes-validate,
strict variant), Jupyter notebook formats, pyproject.toml (validate-pyproject), cibuildwheel, and the JSON Schema
metaschemas of drafts 4-7. A `$ref` to another file of the same wheel (by `$id`, relative path, or a file of that name beside the
schema) is bundled into `$defs` (only what is reached); a schema whose `$ref` leaves its wheel is left out and listed in the manifest with the reason.
Large sources are sampled with `random.Random(seed)`.

Instances (the MaskBench file format: {"schema", "tests": [{"description", "data", "valid"}]}): up to 4 valid
ones from hypothesis-jsonschema (derandomized: the same draw on every run), each checked valid by jsonschema
with its format checker; up to 4 invalid ones mutated from them (a required key dropped, a value's type
changed, an undeclared key added, an enum value changed), each checked invalid by jsonschema. A schema for
which hypothesis-jsonschema draws nothing keeps its compile test only and is counted in the manifest.
Needs hypothesis-jsonschema, rstr and regress (benchmarks/data/realworld/README.md says how) and the package index.
"""

from __future__ import annotations

import argparse
import copy
import fnmatch
import json
import random
import re
import signal
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from collections.abc import Callable, Iterator
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import compact_text  # noqa: E402
from benchmarks.realworld_instances import candidates  # noqa: E402

SOURCES: tuple[tuple[str, str, str, int | None], ...] = (
    # (requirement, glob inside the wheel, source name, how many to sample; None: all)
    ("check-jsonschema==0.39.0", "check_jsonschema/builtin_schemas/vendor/*.json", "schemastore", None),
    ("jupyterlab==4.6.6", "jupyterlab/schemas/*/*/*.json", "jupyterlab", 60),
    ("cfn-lint==1.58.0", "cfnlint/data/schemas/resources/*.json", "cloudformation", 130),
    ("kubernetes-validate==1.37.0", "kubernetes_validate/kubernetes-json-schema/v1.37.0-local-strict/*.json",
     "kubernetes", 70),
    ("nbformat==5.11.1", "nbformat/v*/nbformat.v*.schema.json", "nbformat", None),
    ("validate-pyproject==0.27", "validate_pyproject/*.schema.json", "pyproject", None),
    ("validate-pyproject==0.27", "validate_pyproject/plugins/*.schema.json", "pyproject", None),
    ("cibuildwheel==4.3.5", "cibuildwheel/resources/cibuildwheel.schema.json", "cibuildwheel", None),
    ("jsonschema-specifications==2025.9.1", "jsonschema_specifications/schemas/draft[4-7]/metaschema.json",
     "metaschema", None),
)

VALID, INVALID, DRAW_SECONDS = 4, 4, 20


class Unbundled(Exception):
    """A `$ref` that leaves the wheel (a URL no file of it declares as its `$id`)."""


class TooSlow(BaseException):
    """The draw's time ran out (a BaseException: hypothesis would take an Exception for a failing test)."""


def wheel(requirement: str, into: Path) -> Path:
    """The wheel of a pinned requirement, downloaded once into `into`."""
    name = requirement.split("==")[0].replace("-", "_").lower()
    found = [p for p in into.glob("*.whl") if p.name.lower().startswith(name + "-")]
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(into), requirement],
                       check=True)
        found = [p for p in into.glob("*.whl") if p.name.lower().startswith(name + "-")]
    return found[0]


def pointer(doc: Any, fragment: str) -> Any:
    """The node a JSON pointer fragment names."""
    for part in [p for p in fragment.split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        doc = doc[int(part)] if isinstance(doc, list) else doc[part]
    return doc


def bundle(root: Any, name: str, files: dict[str, Any]) -> Any:
    """`root` with every `$ref` into another file of the wheel (by relative path or `$id`) moved into `$defs`."""
    ids = {doc.get("$id") or doc.get("id"): path for path, doc in files.items() if isinstance(doc, dict)}
    defs: dict[str, Any] = {}

    def target(ref: str, base: str) -> str:
        where, _, fragment = ref.partition("#")
        if not where:
            if base == name:
                return ref
            where = base
        elif where in ids and isinstance(where, str):
            where = ids[where]
        else:
            here = PurePosixPath(base).parent
            where = str(here / where) if str(here / where) in files else str(here / PurePosixPath(where).name)
        if where not in files:
            raise Unbundled(f"$ref {ref!r} leaves the wheel")
        key = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{PurePosixPath(where).stem}{fragment}")
        if key not in defs:
            defs[key] = {}
            defs[key] = walk(pointer(files[where], fragment), where)
        return f"#/$defs/{key}"

    def walk(node: Any, base: str) -> Any:
        if isinstance(node, list):
            return [walk(item, base) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: walk(v, base) for k, v in node.items() if k != "$ref"}
        if isinstance(node.get("$ref"), str):
            out["$ref"] = target(node["$ref"], base)
        return out

    out = walk(root, name)
    if defs:
        out.setdefault("$defs", {}).update(defs)
    return out


def schemas(wheels: Path, seed: int) -> Iterator[tuple[str, Any | None, str]]:
    """(file name, bundled schema or None, why left out) for every selected schema of every source."""
    rng = random.Random(seed)
    for requirement, glob, source, count in SOURCES:
        with zipfile.ZipFile(wheel(requirement, wheels)) as archive:
            docs: dict[str, Any] = {}
            for member in archive.namelist():
                if member.endswith(".json"):
                    try:
                        docs[member] = json.loads(archive.read(member))
                    except ValueError:
                        continue
            chosen = sorted(m for m in docs if fnmatch.fnmatch(m, glob) and isinstance(docs[m], dict)
                            and not PurePosixPath(m).name.startswith(("_", "all.")))
            if count is not None and count < len(chosen):
                chosen = sorted(rng.sample(chosen, count))
            for member in chosen:
                doc = docs[member]
                stem = doc.get("typeName", "").replace("::", "-") or PurePosixPath(member).stem
                if source == "metaschema":
                    stem = PurePosixPath(member).parent.name
                elif source == "jupyterlab":
                    stem = f"{PurePosixPath(member).parent.name}-{stem}"
                file = f"{source}---{re.sub(r'[^A-Za-z0-9_.-]', '_', stem)}.json"
                try:
                    yield file, bundle(doc, member, docs), ""
                except (Unbundled, KeyError, IndexError, ValueError) as exc:
                    yield file, None, f"{type(exc).__name__}: {exc}"


def _alarm(signum: int, frame: Any) -> None:
    raise TooSlow


def draw(schema: Any) -> list[Any]:
    """Up to VALID distinct valid instances from hypothesis-jsonschema, the smallest and the largest drawn."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema

    seen: dict[str, Any] = {}
    signal.alarm(DRAW_SECONDS)  # from_schema's own resolution of references may take long too
    try:
        @settings(max_examples=40, derandomize=True, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(from_schema(schema))
        def collect(value: Any) -> None:
            seen.setdefault(compact_text(value), value)

        collect()
    finally:
        signal.alarm(0)
    ordered = [seen[k] for k in sorted(seen, key=lambda k: (len(k), k))]
    return ordered if len(ordered) <= VALID else [ordered[0], *ordered[-(VALID - 1):]]


def mutations(value: Any, rng: random.Random) -> Iterator[Any]:
    """Values near a valid one: each a deep copy with one change somewhere inside."""
    paths: list[tuple[Any, ...]] = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, (*path, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, (*path, i))

    walk(value, ())
    rng.shuffle(paths)
    for path in paths:
        for change in ("drop", "retype", "extra", "string"):
            out = copy.deepcopy(value)
            parent, node = None, out
            for step in path:
                parent, node = node, node[step]
            if change == "drop" and path and isinstance(parent, dict):
                del parent[path[-1]]
            elif change == "retype":
                other = {str: 7, int: "7", float: [], bool: "true", type(None): 0, list: {}, dict: "x"}
                replacement = other[type(node)]
                if not path:
                    out = replacement
                else:
                    parent[path[-1]] = replacement
            elif change == "extra" and isinstance(node, dict):
                node["zz_undeclared"] = 1
            elif change == "string" and isinstance(node, str) and path:
                parent[path[-1]] = node + "~!"
            else:
                continue
            yield out


def judge(schema: Any) -> Callable[[Any], bool | None]:
    """jsonschema's verdict on a value, with `pattern`, `patternProperties` and the keys `additionalProperties`
    leaves to itself read as ECMA-262 regexes (regress,
    `u` flag: `\\d` and `\\w` are ASCII, `\\p{L}` works) as JSON Schema specifies, not as Python's re reads
    them; None where no verdict can be had (a pattern neither engine compiles)."""
    import jsonschema
    import regress
    from jsonschema.exceptions import ValidationError

    compiled: dict[str, Any] = {}

    def search(pattern: str, text: str) -> bool:
        if pattern not in compiled:
            compiled[pattern] = regress.Regex(pattern, "u")
        return compiled[pattern].find(text) is not None

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[ValidationError]:
        if validator.is_type(instance, "string") and not search(patrn, instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")

    def pattern_properties(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object"):
            for patrn, sub in patterns.items():
                for key, value in instance.items():
                    if search(patrn, key):
                        yield from validator.descend(value, sub, path=key, schema_path=patrn)

    def additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if not validator.is_type(instance, "object"):
            return
        declared, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
        keys = [k for k in instance if k not in declared and not any(search(p, k) for p in patterns)]
        if validator.is_type(extra, "object"):
            for key in keys:
                yield from validator.descend(instance[key], extra, path=key)
        elif extra is False and keys:
            yield ValidationError(f"additional properties {keys!r} are not allowed")

    base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    cls = jsonschema.validators.extend(base, {"pattern": pattern, "patternProperties": pattern_properties,
                                              "additionalProperties": additional_properties})
    checker = cls(schema, format_checker=base.FORMAT_CHECKER)

    def verdict(value: Any) -> bool | None:
        try:
            return checker.is_valid(value)
        except (re.error, regress.RegressError):
            return None

    return verdict


def tests_for(schema: Any, rng: random.Random) -> tuple[list[dict[str, Any]], str]:
    """The schema's test instances, and what went wrong drawing them ("" when nothing did)."""
    verdict = judge(schema)
    problem = ""
    try:
        drawn = [v for v in draw(schema) if verdict(v)]
    except TooSlow:
        drawn, problem = [], f"hypothesis-jsonschema drew nothing in {DRAW_SECONDS} s"
    except Exception as exc:  # noqa: BLE001 - the drawer's refusal is recorded; the keyword builder stands in
        drawn, problem = [], f"hypothesis-jsonschema: {type(exc).__name__}: {str(exc)[:160]}"
    built: dict[str, Any] = {}
    seed = rng.randrange(2**31)
    if len(drawn) < VALID:
        signal.alarm(DRAW_SECONDS)
        try:
            made = candidates(schema, seed)
        except TooSlow:
            made, problem = [], problem + f"; the keyword builder ran out of {DRAW_SECONDS} s"
        finally:
            signal.alarm(0)
        for value in made:
            text = compact_text(value)
            if text not in built and all(compact_text(d) != text for d in drawn) and verdict(value):
                built[text] = value
    extra = sorted(built, key=len)
    extra = extra if len(extra) <= VALID - len(drawn) else [*extra[:1], *extra[len(extra) - (VALID - len(drawn) - 1):]]
    valid = drawn + [built[t] for t in extra][: VALID - len(drawn)]
    tests = [{"description": "drawn by hypothesis-jsonschema" if i < len(drawn) else "built from the keywords",
              "data": v, "valid": True} for i, v in enumerate(valid)]
    invalid: dict[str, Any] = {}
    for index, value in enumerate(valid):
        for bad in mutations(value, rng):
            if len(invalid) >= -(-INVALID * (index + 1) // len(valid)):  # an even share from each valid value
                break
            text = compact_text(bad)
            if text not in invalid and verdict(bad) is False:
                invalid[text] = bad
    tests += [{"description": "mutated from a valid instance", "data": v, "valid": False} for v in invalid.values()]
    return tests, problem + ("" if valid else "; no candidate was valid under jsonschema")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/data/realworld"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--wheels", type=Path, default=None, help="where wheels are downloaded (a temp dir)")
    parser.add_argument("--recheck", action="store_true",
                        help="only recheck the labels of the schemas already collected (no download)")
    args = parser.parse_args(argv)
    if args.recheck:
        manifest_path = args.out.parent / f"{args.out.name}_manifest.json"
        manifest = json.loads(manifest_path.read_text())
        for path in sorted(args.out.glob("*.json")):
            doc = json.loads(path.read_text())
            verdict = judge(doc["schema"])
            tests = [t for t in doc["tests"] if verdict(t["data"]) is t["valid"]]
            if len(tests) < len(doc["tests"]):
                path.write_text(json.dumps({**doc, "tests": tests}, ensure_ascii=False) + "\n")
                print(f"{path.name}: {len(doc['tests']) - len(tests)} tests dropped", flush=True)
            manifest["schemas"][path.name].update(valid=sum(t["valid"] for t in tests),
                                                  invalid=sum(not t["valid"] for t in tests))
        manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
        return
    args.out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    manifest: dict[str, Any] = {"sources": [s[0] for s in SOURCES], "seed": args.seed, "schemas": {}, "left_out": {}}
    with tempfile.TemporaryDirectory() as tmp:
        wheels = args.wheels or Path(tmp)
        wheels.mkdir(parents=True, exist_ok=True)
        for file, schema, why in schemas(wheels, args.seed):
            if (args.out / file).exists():  # kept from an earlier run: the set grows, nothing is redrawn
                doc = json.loads((args.out / file).read_text())
                verdict = judge(doc["schema"])  # labels rechecked: a test whose verdict changed is dropped
                tests = [t for t in doc["tests"] if verdict(t["data"]) is t["valid"]]
                if len(tests) < len(doc["tests"]):
                    (args.out / file).write_text(json.dumps({**doc, "tests": tests}, ensure_ascii=False) + "\n")
                manifest["schemas"][file] = {"valid": sum(t["valid"] for t in tests),
                                             "invalid": sum(not t["valid"] for t in tests), "problem": "kept"}
                continue
            if schema is None:
                manifest["left_out"][file] = why
                print(f"left out {file}: {why}", flush=True)
                continue
            tests, problem = tests_for(schema, random.Random(f"{args.seed}:{file}"))
            doc = {"description": f"real-world schema {file[:-5]}", "schema": schema, "tests": tests}
            (args.out / file).write_text(json.dumps(doc, ensure_ascii=False) + "\n")
            manifest["schemas"][file] = {"valid": sum(t["valid"] for t in tests),
                                         "invalid": sum(not t["valid"] for t in tests), "problem": problem}
            print(f"{file}: {len(tests)} tests {problem}", flush=True)
    (args.out.parent / f"{args.out.name}_manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


if __name__ == "__main__":
    main()
