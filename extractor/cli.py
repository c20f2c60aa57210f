"""The `extractor` command: `extractor extract` over files, `extractor review` to check the results, `extractor
schema` to inspect a target."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from extractor.errors import ExtractorError, MissingFieldsError
from extractor.grammar.layout import LAYOUTS
from extractor.inputs import at_least
from extractor.options import DEFAULT_LAYOUT, ExtractOptions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="extractor", description="Structured extraction with local language models.")
    sub = parser.add_subparsers(dest="command", required=True)
    ext = sub.add_parser("extract", help="extract one object per input file, as JSON lines")
    ext.add_argument("--schema", required=True, help="module:Model (a Pydantic model) or a JSON Schema file")
    ext.add_argument("--input", required=True, type=Path, help="a text file, or a folder of them (*.txt, *.md)")
    ext.add_argument("--model", help="Hugging Face id, local folder or .gguf (default: the embedded SmolLM2)")
    ext.add_argument("--jsonl", type=Path, help="write results here (default: standard output)")
    ext.add_argument("--max-tokens", type=int, default=1024)
    ext.add_argument("--no-refusal", action="store_true", help="no refusal branch: the model must answer")
    ext.add_argument("--layout", default=DEFAULT_LAYOUT, choices=sorted(LAYOUTS), help="the whitespace forced")
    ext.add_argument("--max-retries", type=int, default=1, help="retries after a failed validation or a cut")
    ext.add_argument("--trace", action="store_true",
                     help='add "trace": each value\'s spans in the text and how they were found (for `extractor review`)')
    ext.add_argument("--grounding", default="marked", choices=["marked", "all", "off"],
                     help="values that must be found in the text or the attempt is retried: those marked FromText "
                          "(default), all, or none")
    ext.add_argument("--window", type=int, default=None,
                     help="most tokens of text per window (default: what fits the model's context); a longer text "
                          "is read in windows and their objects merged")
    ext.add_argument("--overlap", type=int, default=ExtractOptions.overlap, help="tokens each window repeats")
    ext.add_argument("--verbatim", default=ExtractOptions.verbatim, choices=["auto", "marked", "all"],
                     help="string fields written as copies of the text: every one naming something in it (auto), "
                          "only those marked Verbatim (marked), or auto with number fields taking only numbers the "
                          "text writes (all)")
    ext.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                     help="run as a corpus job on a Ray cluster (ADDRESS, or a local one): results written as Parquet "
                          "shards as they come, a rerun resuming; needs the ray extra (pip install 'extractor-llm[ray]')")
    ext.add_argument("--parquet", type=Path, metavar="OUTDIR",
                     help="the corpus job's folder of Parquet shards (implies --ray; default: the --jsonl path + .parquet)")
    ext.add_argument("--actors", type=int, default=1, help="with --ray: actors, each holding a copy of the model")
    rev = sub.add_parser("review", help="write an HTML page to check `extract --trace` results against their texts")
    rev.add_argument("results", type=Path, help="a JSONL file written by `extractor extract --trace`")
    rev.add_argument("--texts", type=Path, help="the folder holding the input files (default: each line's own path)")
    rev.add_argument("-o", "--output", type=Path, default=Path("review.html"), help="the page to write")
    rev.add_argument("--title", default=None, help="the page's title (default: the results file's name)")
    info = sub.add_parser("schema", help="print the JSON Schema generation follows, and grammar statistics")
    info.add_argument("target", help="module:Model or a JSON Schema file")
    info.add_argument("--no-refusal", action="store_true")
    sub.add_parser("model", help="print the folder of the embedded model (SmolLM2-135M-Instruct as safetensors, "
                                 "converted once), for engines that load a model by path, such as `vllm serve`")
    args = parser.parse_args(argv)
    try:
        return {"extract": _extract, "review": _review, "schema": _schema, "model": _model}[args.command](args)
    except (ExtractorError, ValueError, OSError) as exc:
        print(f"extractor: error: {exc}", file=sys.stderr)
        return 2


def load_target(spec: str) -> Any:
    """`package.module:Model`, or the path of a JSON Schema file."""
    path = Path(spec)
    if path.suffix == ".json" and path.exists():
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path} is not a JSON file: {exc}") from None
        if not isinstance(schema, dict):
            raise ValueError(f"{path} holds a JSON {type(schema).__name__}, not a JSON Schema object")
        return schema
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ValueError(f"expected module:Model or a .json file, got {spec!r}")
    here = str(Path.cwd())
    if here not in sys.path:
        sys.path.append(here)  # after the installed packages: a file here cannot stand in for a dependency
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r}: {exc}") from None
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ValueError(f"{module_name!r} has no {attr!r}")
        target = getattr(target, part)
    if not (isinstance(target, type) and issubclass(target, BaseModel)):
        raise ValueError(f"{spec} is {target!r:.80}, not a Pydantic model")
    return target


def _inputs(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".txt", ".md"))
        if not files:
            raise ValueError(f"no .txt or .md files in {path}")
        return files
    if not path.exists():
        raise ValueError(f"input {path} does not exist")
    return [path]


def _extract(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from extractor.api import Extractor
    from extractor.schema import Refusal
    from extractor.tracing import Traced

    target = load_target(args.schema)
    files = _inputs(args.input)
    options = ExtractOptions(max_tokens=args.max_tokens, refusal=not args.no_refusal, layout=args.layout,
                             max_retries=args.max_retries, grounding=args.grounding, verbatim=args.verbatim,
                             window=args.window, overlap=args.overlap)
    if args.ray is not None or args.parquet is not None:
        at_least(1, actors=args.actors)  # an InputError, before Ray is loaded or a cluster started
        from extractor.integrations.ray import corpus_command


        return corpus_command(files, target, options, address=args.ray or None, parquet=args.parquet,
                              jsonl=args.jsonl, model=args.model, actors=args.actors, trace=args.trace)
    extractor = Extractor(args.model)
    out = args.jsonl.open("w") if args.jsonl else sys.stdout
    failed = 0
    try:
        for path in tqdm(files, desc="extracting", unit="file", disable=len(files) < 2, file=sys.stderr):
            started = time.perf_counter()
            record: dict[str, Any] = {"file": str(path)}
            try:
                text = path.read_text(encoding="utf-8")
                traced: Traced[Any] = extractor.extract(target, text, options, with_trace=True)
                result = traced.result
                record["refused"] = isinstance(result, Refusal)
                record["result"] = result.model_dump(mode="json", by_alias=True) if hasattr(result, "model_dump") \
                    else result
                if args.trace:
                    record["trace"] = traced.trace.to_json()
                if traced.trace.conflicts:  # a long text's windows that disagreed: what was kept, what was not
                    record["conflicts"] = [{"pointer": c.pointer, "kept": c.kept, "window": c.window,
                                            "others": [{"value": v, "window": w} for v, w in c.others]}
                                           for c in traced.trace.conflicts]
            except (ExtractorError, UnicodeDecodeError, OSError) as exc:  # one bad document does not stop the others
                failed += 1
                message = f"{path} is not UTF-8 text: {exc}" if isinstance(exc, UnicodeDecodeError) else str(exc)
                record["error"] = {"type": type(exc).__name__, "message": message}
                if isinstance(exc, MissingFieldsError):
                    record["error"].update(missing=exc.missing, partial=exc.partial)
            record["seconds"] = round(time.perf_counter() - started, 3)
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            out.flush()
    finally:
        if args.jsonl:
            out.close()
    return 1 if failed else 0


def _review(args: argparse.Namespace) -> int:
    from extractor.review import read_jsonl, write_review

    documents = read_jsonl(args.results, args.texts)
    path = write_review(documents, args.output, args.title or args.results.name)
    print(f"{path}: {len(documents)} documents", file=sys.stderr)
    return 0


def _schema(args: argparse.Namespace) -> int:
    from extractor.automata import build_automaton
    from extractor.automata.counted import CountedDFA
    from extractor.grammar import compile_grammar
    from extractor.schema import Refusal, json_schema, target_ir
    from extractor.schema.refusal import with_refusal

    target = load_target(args.target)
    refusal = None if args.no_refusal else Refusal
    schema = json_schema(target)
    shown = schema if refusal is None else with_refusal(schema, refusal.model_json_schema())
    started = time.perf_counter()
    automaton = build_automaton(compile_grammar(target_ir(target, refusal)))
    elapsed = time.perf_counter() - started
    dfas = automaton.dfas
    stats = {
        "rules": len(dfas),
        "states": sum((d.base if isinstance(d, CountedDFA) else d).size for d in dfas),
        "counted_rules": sum(isinstance(d, CountedDFA) for d in dfas),
        "compile_ms": round(elapsed * 1e3, 1),
    }
    print(json.dumps({"schema": shown, "grammar": stats}, indent=2, ensure_ascii=False))
    return 0


def _model(args: argparse.Namespace) -> int:
    from extractor.decode.model import embedded_path

    print(embedded_path())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
