"""Fuzzing the review page: random results files through `read_jsonl` and `review_html`, each page opened in
headless Chromium.

usage: python benchmarks/review_fuzz.py [--seconds 60] [--seed 0] [--json OUT] [--md OUT]

Each case writes a results file of 1 to 8 lines beside a texts folder: valid lines (random texts, results and
traces with spans in the text), and lines with a wrong type at any field, hostile strings (`</script>`, U+2028,
lone surrogates, raw or escaped), huge numbers, NaN and Infinity tokens, deep nesting, cut lines, blank lines;
texts that are missing, Latin-1, a directory, edited shorter than their spans, or named by paths and links
leading to a secret file outside the folder. A case passes when reading raises a ValueError or ExtractorError
naming the line, or when the page's script runs without an error, lists one document per record and shows each
(`review.show(i)`) without one, and the secret is nowhere on the page. Counted: cases, crashes (any other
exception), blank pages (no `window.review`), lost documents (listed != records), script errors, leaks.
Case `n` of seed `s` is drawn from `random.Random(f"{s}:{n}")`, so a failure named in the results reruns alone.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402

SECRET = "SECRET-3f9c1e"
"""The content of a file outside the texts folder: on a page, it leaked."""
PIECES = ["Ada Lovelace", " ", "\n", "Zoë", "東京", "😀", "e\u0301", "<script>", "</script>", "\u2028", "&amp;",
          "42", "-3.5", "2024-01-31", "a@b.org", "\t", "\r\n"]
HOSTILE: list[Any] = [None, True, False, 0, -1, 7, 2**53 + 1, 10**300, 1e308, -0.0, "", "abc", "not_found",
                      "</script><script>window.hacked = 1</script>", "<!--", "\u2028\u2029", "\ud800", "\udc80x",
                      "😀", "__proto__", {}, [], [1, 2], [[3, 1]], [[0, 10**6]], [[-1, 2]], [[1.5, 2]], {"type": 5},
                      {"__proto__": {"polluted": 1}}, float("nan"), float("inf")]
RAW = ["NaN", "-Infinity", "1e400", "1" * 5000, "[" * 3000 + "]" * 3000, "[" * 400 + "]" * 400,
       '{"a":' * 300 + "1" + "}" * 300, '"\\ud800\\udbff"', '"\\u0000"']
"""JSON text put as is in place of a value: tokens and depths Python's json.dumps would not write."""
KEYS = ["pointer", "value", "status", "spans", "how", "occurrences", "marked"]
STATUSES = ["copied", "found", "not_found", "fixed", "absent"]
NAMES = ["missing", "latin1", "directory", "edited", "link_out", "absolute", "climbing", "dotdot_base", "empty"]


def record(rng: random.Random, text: str, name: str) -> dict[str, Any]:
    """A valid line of `extractor extract --trace`: values cut from the text, each traced where it stands."""
    fields, trace = {}, []
    for k in range(rng.randint(0, 5)):
        a = rng.randint(0, len(text))
        b = rng.randint(a, min(len(text), a + 12))
        status = rng.choice(STATUSES)
        fields[f"f{k}"] = text[a:b] if status != "not_found" else "made up"
        spans = [[a, b]] if status in ("copied", "found") else []
        trace.append({"pointer": f"/f{k}", "value": fields[f"f{k}"], "status": status, "spans": spans,
                      "how": "exact", "occurrences": len(spans), "marked": False})
    if rng.random() < 0.1:
        return {"file": name, "refused": True, "result": {"error": "no contact in the text"}, "trace": []}
    if rng.random() < 0.1:
        return {"file": name, "error": {"type": "InputError", "message": "the text is empty"}}
    return {"file": name, "refused": False, "result": fields, "trace": trace, "seconds": 0.1}


def mutate(rng: random.Random, line: dict[str, Any], raws: list[str]) -> None:
    """Put a hostile value (or a raw JSON token, kept in `raws` under a placeholder) at a random place, or delete
    what is there."""
    paths: list[list[Any]] = [["file"], ["refused"], ["result"], ["error"], ["trace"], ["seconds"]]
    for i, entry in enumerate(line.get("trace") if isinstance(line.get("trace"), list) else []):
        paths += [["trace", i]] + [["trace", i, key] for key in KEYS]
        if isinstance(entry, dict) and isinstance(entry.get("spans"), list):
            paths += [["trace", i, "spans", j, end] for j in range(len(entry["spans"])) for end in (0, 1)]
    if isinstance(line.get("result"), dict):
        paths += [["result", key] for key in line["result"]]
    *parent, key = rng.choice(paths)
    holder: Any = line
    for step in parent:
        holder = holder[step]
    if isinstance(holder, dict) and rng.random() < 0.15:
        holder.pop(key, None)
        return
    if rng.random() < 0.3:
        raws.append(rng.choice(RAW))
        value: Any = f"@@RAW{len(raws) - 1}@@"
    else:
        value = rng.choice(HOSTILE)
    if isinstance(holder, list) and not isinstance(key, int):
        return
    if isinstance(holder, list) and key >= len(holder):
        holder.append(value)
    elif isinstance(holder, (dict, list)):
        holder[key] = value


def serialize(rng: random.Random, line: dict[str, Any], raws: list[str]) -> bytes:
    """The line's bytes: JSON escaped or not (a lone surrogate left raw is not UTF-8), raw tokens put in, maybe
    cut short, maybe with a stray byte."""
    out = json.dumps(line, ensure_ascii=rng.random() < 0.5)
    for i, raw in enumerate(raws):
        out = out.replace(f'"@@RAW{i}@@"', raw)
    data = out.encode("utf-8", "surrogatepass")
    if rng.random() < 0.08:
        data = data[:rng.randint(1, len(data))]
    if rng.random() < 0.03:
        data = data.replace(b'"', b'"\xe9', 1)
    return data + (b"\r" if rng.random() < 0.1 else b"")


def write_case(rng: random.Random, root: Path) -> tuple[Path, Path | dict[str, str] | None, int]:
    """A results file and its texts under `root` (the secret file beside them): (results, texts, records)."""
    run, folder = root / "run", root / "run" / "texts"
    folder.mkdir(parents=True)
    (root / "secret.txt").write_text(SECRET)
    mode = rng.choice(["folder", "beside", "mapping"])
    texts: dict[str, str] = {}
    lines: list[bytes] = []
    records = 0
    for k in range(rng.randint(1, 8)):
        if rng.random() < 0.1:
            lines.append(rng.choice([b"", b"   ", b"\t"]))
            continue
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30)))
        name, kind = f"doc{k}.txt", rng.choice(NAMES) if rng.random() < 0.3 else "plain"
        texts[name] = text
        written = folder / name
        if kind == "latin1":
            written.write_bytes("Zoë, Müller".encode("latin-1"))
        elif kind == "directory":
            written.mkdir()
        elif kind == "link_out":
            written.symlink_to(root / "secret.txt")
        elif kind != "missing":
            written.write_text(text[:len(text) // 2] if kind == "edited" else text, encoding="utf-8", newline="")
        named = {"absolute": str(root / "secret.txt"), "climbing": "../secret.txt" if mode == "folder" else
                 "../../secret.txt", "dotdot_base": "..", "empty": ""}.get(kind, name)
        line = record(rng, text, named if mode != "beside" or kind in ("absolute", "climbing", "dotdot_base")
                      else f"texts/{named}")
        raws: list[str] = []
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            mutate(rng, line, raws)
        lines.append(serialize(rng, line, raws))
        records += 1
    results = run / "results.jsonl"
    results.write_bytes(b"\n".join(lines) + rng.choice([b"\n", b""]))
    return results, {"folder": folder, "beside": None, "mapping": texts}[mode], records


def check(case: int, seed: int, browser: Any, root: Path) -> dict[str, Any]:
    """One case: what went wrong ({} when nothing did)."""
    from extractor.errors import ExtractorError
    from extractor.review import read_jsonl, write_review

    rng = random.Random(f"{seed}:{case}")
    folder = root / str(case)
    results, texts, records = write_case(rng, folder)
    try:
        page_path = write_review(read_jsonl(results, texts), folder / "review.html", rng.choice(PIECES))
    except (ValueError, ExtractorError) as exc:  # a clear refusal, if it names the line
        return {} if re.search(r"results\.jsonl:\d+", str(exc)) else {"crash": repr(exc)}
    except Exception:  # noqa: BLE001 - what the fuzzer is for
        return {"crash": traceback.format_exc(limit=3)[-600:]}
    if SECRET in page_path.read_text(encoding="utf-8"):
        return {"leak": "the secret file is on the page"}
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(page_path.as_uri(), wait_until="load")
        shown = page.evaluate("""() => {
            if (!window.review) return null;
            const errors = [];
            for (let i = 0; i < window.review.docs.length; i++) {
                try { window.review.show(i); } catch (e) { errors.push(String(e)); }
                const broken = document.querySelector('#issues .broken');
                if (broken) errors.push(broken.textContent);
            }
            return { docs: window.review.docs.length, errors };
        }""")
    finally:
        page.close()
    if shown is None:
        return {"blank": errors or "no window.review"}
    problems = {"lost": f"{shown['docs']} documents for {records} records"} if shown["docs"] != records else {}
    return {**problems, **({"script": errors + shown["errors"]} if errors or shown["errors"] else {})}


KINDS = {"crash": "crashes", "blank": "blank_pages", "lost": "lost_documents", "script": "script_errors",
         "leak": "leaks"}


def fuzz(browser: Any, seed: int, seconds: float, limit: int | None = None) -> dict[str, Any]:
    """Cases until `seconds` have passed (or `limit` cases ran): the counts, and the first failures of each kind."""
    counts = {"cases": 0, **{kind: 0 for kind in KINDS.values()}}
    failures: list[dict[str, Any]] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        while time.monotonic() - started < seconds and (limit is None or counts["cases"] < limit):
            found = check(counts["cases"], seed, browser, Path(tmp))
            for kind in found:
                counts[KINDS[kind]] += 1
            if found and len(failures) < 20:
                failures.append({"case": counts["cases"], **{k: str(v)[:600] for k, v in found.items()}})
            counts["cases"] += 1
    return {**counts, "seconds": round(time.monotonic() - started, 1), "failures": failures}


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chromium", default=None, help="the browser (default: $CHROMIUM or chromium on the PATH)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    from benchmarks.review_page import launched

    args = arguments(argv)
    with launched(args.chromium) as (browser, version):
        result = {"seed": args.seed, "chromium": version, **fuzz(browser, args.seed, args.seconds)}
    rows = [f"| {name.replace('_', ' ')} | {result[name]} |" for name in ["cases", *KINDS.values()]]
    table = "\n".join([f"# Review page fuzz: seed {args.seed}, {result['seconds']} s", "",
                       f"Random results files through read_jsonl and review_html, each page opened in "
                       f"{result['chromium']}.", "", "| figure | count |", "|---|---:|", *rows, ""])
    write_results(result, table, args.json, args.md)
    return result


if __name__ == "__main__":
    main()
