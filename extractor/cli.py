"""The `extractor` command: `extractor extract` over files, `extractor review` to check the results, `extractor
schema` to inspect a target."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from extractor.errors import ExtractorError, MissingFieldsError
from extractor.outputs.files import atomic_text, check_folder, check_output, finite
from extractor.grammar.layout import LAYOUTS
from extractor.pipeline.inputs import at_least
from extractor.pipeline.options import DEFAULT_LAYOUT, ExtractOptions
from extractor.pipeline.windowed import FOCUS_FROM
from extractor.outputs.records import gaps

EXTRACT_EXIT = """exit status:
  0  every file extracted (or refused) from its whole text
  1  some file failed: its line holds "error" ({"type", "message"}); the other lines are written
  2  bad arguments, an output that is also an input, or one that cannot be written: no --jsonl written
  3  no file failed, but some text was not read in full: its line's "unread" lists the windows cut by
     --max-tokens even when halved; what they hold is missing from its "result".
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="extractor", description="Structured extraction with local language models.")
    sub = parser.add_subparsers(dest="command", required=True)
    ext = sub.add_parser("extract", help="extract one object per input file, as JSON lines", epilog=EXTRACT_EXIT,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
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
    ext.add_argument("--focus", action=argparse.BooleanOptionalAction, default=None,
                     help="for a text longer than a window: read only the part that holds the target, found by its "
                          "words and value shapes (a document buried in other text; see docs/long-documents.md); "
                          f"default: for texts of more than {FOCUS_FROM:,} tokens, and shorter ones whose rest the "
                          "model reads as another kind of document; --no-focus reads every window")
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
    rev = sub.add_parser("review", help="write an HTML page to check `extract --trace` results against their texts",
                         epilog="exit status: 0 the page written; 2 nothing written (why, on standard error: a "
                                "results file that cannot be read, an output that is also an input)")
    rev.add_argument("results", type=Path, help="a JSONL file written by `extractor extract --trace`")
    rev.add_argument("--texts", type=Path,
                     help="the folder holding the input files, found by name (default: each line's file, relative to "
                          "the results file's folder)")
    rev.add_argument("-o", "--output", type=Path, default=Path("review.html"),
                     help="the page to write (never the results file or a text it shows)")
    rev.add_argument("--title", default=None, help="the page's title (default: the results file's name)")
    rev.add_argument("--trust-paths", action="store_true",
                     help="read each line's file wherever it points (absolute paths, .., links out of the folder); "
                          "by default texts are read only from inside --texts, or the results file's folder")
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
    if path.suffix == ".json" and not path.exists():
        raise ValueError(f"schema file {spec} does not exist")
    if path.suffix == ".json":
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

    target = load_target(args.schema)
    files = _inputs(args.input)
    read = [*files, *(Path(p) for p in (args.schema, args.model) if p and Path(p).is_file())]
    if args.jsonl is not None:
        check_output(args.jsonl, read)
    options = ExtractOptions(max_tokens=args.max_tokens, refusal=not args.no_refusal, layout=args.layout,
                             max_retries=args.max_retries, grounding=args.grounding, verbatim=args.verbatim,
                             window=args.window, overlap=args.overlap, focus=args.focus)
    if args.ray is not None or args.parquet is not None:
        at_least(1, actors=args.actors)  # an InputError, before Ray is loaded or a cluster started
        if args.parquet is None and args.jsonl is None:
            raise ValueError("a corpus job writes its results as it goes: give --parquet OUTDIR and/or --jsonl FILE")
        folder = check_folder(args.parquet or args.jsonl.with_name(args.jsonl.name + ".parquet"),
                              [*read, *([args.jsonl] if args.jsonl else [])])
        from extractor.integrations.ray import corpus_command

        return corpus_command(files, target, options, address=args.ray or None, folder=folder,
                              jsonl=args.jsonl, model=args.model, actors=args.actors, trace=args.trace)
    extractor = Extractor(args.model)
    failed = incomplete = 0
    with _lines(args.jsonl) as out:
        for path in tqdm(files, desc="extracting", unit="file", disable=len(files) < 2, file=sys.stderr):
            record = finite(_record(extractor, target, path, options, args.trace))
            failed += "error" in record
            incomplete += "unread" in record
            out.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
            out.flush()
    return 1 if failed else 3 if incomplete else 0


def _lines(jsonl: Path | None) -> AbstractContextManager[TextIO]:
    """Where the lines go: the --jsonl file through a temporary one (a run that stops leaves the previous file
    whole), else standard output."""
    return atomic_text(jsonl) if jsonl is not None else nullcontext(sys.stdout)


def _record(extractor: Any, target: Any, path: Path, options: ExtractOptions, with_trace: bool) -> dict[str, Any]:
    """One file's line: its result and what the trace says is missing from it, or the error it ended in."""
    from extractor.schema import Refusal

    started = time.perf_counter()
    record: dict[str, Any] = {"file": str(path)}
    try:
        text = path.read_text(encoding="utf-8")
        traced = extractor.extract(target, text, options, with_trace=True)
        result, trace = traced.result, traced.trace
        record["refused"] = isinstance(result, Refusal)
        record["result"] = result.model_dump(mode="json", by_alias=True) if hasattr(result, "model_dump") else result
        if with_trace:
            record["trace"] = trace.to_json()
        record.update(gaps(trace))  # windows that disagreed or were not read, items left out, repeats taken out
    except (ExtractorError, UnicodeDecodeError, OSError) as exc:  # one bad document does not stop the others
        message = f"{path} is not UTF-8 text: {exc}" if isinstance(exc, UnicodeDecodeError) else str(exc)
        record = {"file": str(path), "error": {"type": type(exc).__name__, "message": message}}
        if isinstance(exc, MissingFieldsError):
            record["error"].update(missing=exc.missing, partial=exc.partial)
    record["seconds"] = round(time.perf_counter() - started, 3)
    return record


def _review(args: argparse.Namespace) -> int:
    from extractor.review import read_jsonl, review_html

    documents = read_jsonl(args.results, args.texts, trust_paths=args.trust_paths)
    # every file of --texts, else each record's own `file` where read_jsonl reads it: from the results file's folder
    texts = [p for p in args.texts.iterdir() if p.is_file()] if args.texts else \
        [args.results.parent / d.name for d in documents]
    output = check_output(args.output, [args.results, *texts])
    with atomic_text(output) as page:
        page.write(review_html(documents, args.title or args.results.name))
    unread = sum(d.error is not None and d.error.get("type") in ("BadLine", "TextNotRead") for d in documents)
    print(f"{output}: {len(documents)} documents" + (f", {unread} of them lines or texts that could not be read "
                                                      "(shown on the page as errors)" if unread else ""),
          file=sys.stderr)
    return 0


def _schema(args: argparse.Namespace) -> int:
    from extractor.automata import build_automaton
    from extractor.automata.counted import CountedDFA
    from extractor.grammar import compile_grammar
    from extractor.pipeline.target import Target
    from extractor.schema import Refusal, target_ir
    from extractor.schema.refusal import with_refusal

    target = load_target(args.target)
    refusal = None if args.no_refusal else Refusal
    schema = Target(target).schema
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
