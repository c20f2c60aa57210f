"""The review page at scale: how long headless Chromium takes to open a page of many documents and to switch
between them.

usage: python benchmarks/review_page.py [--docs 1000] [--runs 3] [--json OUT] [--md OUT]
       python benchmarks/review_page.py --screenshot OUT.png --page review.html [--field POINTER]

Documents: the labeled quality set's texts (benchmarks/data/quality), each with its gold object as the result and
that object's trace, repeated under new names up to `--docs`. Chromium is Debian's (`$CHROMIUM` or `chromium` on
the PATH), driven by Playwright, started once; each run opens the page afresh. Figures: first contentful paint,
the page's own script done (documents listed, the first shown), and the median time to show another document.
With `--screenshot`, no figures: a picture of `--page` (its first document, `--field` selected) for the docs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import REPO, write_results  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "quality" / "documents.jsonl"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def documents(count: int) -> list[Any]:
    """`count` documents of the quality set (its gold objects traced against their texts), cycling through it."""
    import schemas
    from extractor import Refusal, Traced, trace
    from extractor.review import reviewed

    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    out = []
    for i in range(count):
        row = rows[i % len(rows)]
        name = f"{i:05d}-{row['id']}.txt"
        if row["gold"] is None:
            out.append(reviewed(name, row["text"], Traced(Refusal(error=f"the text holds no {row['target']}"))))
            continue
        result = getattr(schemas, row["target"]).model_validate(row["gold"])
        out.append(reviewed(name, row["text"], Traced(result, trace(result, row["text"]))))
    return out


def measure(page_path: Path, runs: int, browser: Any) -> dict[str, Any]:
    """Open the page `runs` times in a Playwright browser: paint and script times, and switching documents."""
    paints, ready, switches = [], [], []
    for _ in range(runs):
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(page_path.as_uri(), wait_until="load")
        # functions, not expression strings: the page's content security policy forbids eval
        page.wait_for_function("() => window.review && document.querySelectorAll('#docs li').length > 0")
        # the paint entry is recorded once the frame is presented, which may come after `load`
        page.wait_for_function("() => performance.getEntriesByName('first-contentful-paint').length > 0")
        timing = page.evaluate("""() => ({
            paint: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
            ready: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
            rows: document.querySelectorAll('#docs li').length })""")
        if errors:
            raise SystemExit(f"the page failed: {errors}")
        paints.append(timing["paint"])
        ready.append(timing["ready"])
        switches += page.evaluate("""() => {
            const out = [], n = window.review.docs.length;
            for (const i of [Math.floor(n / 2), n - 1, 1, Math.floor(n / 3), 0]) {
                const t = performance.now(); window.review.show(i); out.push(performance.now() - t);
            }
            return out; }""")
        page.close()
    return {"rows": timing["rows"], "first_paint_ms": _stats(paints), "script_done_ms": _stats(ready),
            "switch_ms_p50": round(statistics.median(switches), 2), "switch_ms_max": round(max(switches), 2)}


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 1), "max": round(max(values), 1)}


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--chromium", default=None, help="the browser (default: $CHROMIUM or chromium on the PATH)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    parser.add_argument("--screenshot", type=Path, help="write a picture of --page instead of measuring")
    parser.add_argument("--page", type=Path, help="with --screenshot: the page (e.g. from examples/review.py)")
    parser.add_argument("--field", default=None, help="with --screenshot: the JSON pointer of a field to select")
    return parser.parse_args(argv)


def main() -> None:
    args = arguments()
    with launched(args.chromium) as (browser, version):
        if args.screenshot:
            screenshot(args.page, args.screenshot, args.field, browser)
        else:
            report(args, browser, version)


@contextlib.contextmanager
def launched(chromium: str | None) -> Iterator[tuple[Any, str]]:
    """Headless Chromium (`chromium`, else $CHROMIUM or `chromium` on the PATH) started by Playwright with no
    network, and its version; closed when the block ends. SystemExit where there is none."""
    from playwright.sync_api import sync_playwright

    chromium = chromium or os.environ.get("CHROMIUM") or shutil.which("chromium")
    if chromium is None:
        raise SystemExit("no Chromium found: install Debian's chromium package or pass --chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=FLAGS)
        try:
            yield browser, _version(chromium)
        finally:
            browser.close()


def screenshot(page_path: Path, out: Path, field: str | None, browser: Any) -> None:
    """A picture of a review page: its first document, with a field selected."""
    page = browser.new_page(viewport={"width": 1400, "height": 760})
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    if field:
        page.click(f'#tree .leaf[data-pointer="{field}"]')
    page.screenshot(path=out)
    page.close()


def report(args: argparse.Namespace, browser: Any, version: str) -> dict[str, Any]:
    """Write the page of `args.docs` documents, measure it in `browser`, write and return the figures."""
    from extractor.review import write_review

    with tempfile.TemporaryDirectory() as tmp:
        path = write_review(documents(args.docs), Path(tmp) / "review.html")
        size = path.stat().st_size
        figures = measure(path, args.runs, browser)
    result = {"documents": args.docs, "runs": args.runs, "page_bytes": size, "chromium": version, **figures}
    table = "\n".join([
        f"# Review page: {args.docs} documents in headless Chromium", "",
        f"Page of {size / 1e6:.1f} MB (one file, every document inline), {args.runs} loads in {result['chromium']}.", "",
        "| figure | median | max |", "|---|---:|---:|",
        f"| first contentful paint (ms) | {figures['first_paint_ms']['median']} | {figures['first_paint_ms']['max']} |",
        f"| script done: list built, first document shown (ms) | {figures['script_done_ms']['median']} | "
        f"{figures['script_done_ms']['max']} |",
        f"| showing another document (ms) | {figures['switch_ms_p50']} | {figures['switch_ms_max']} |", ""])
    write_results(result, table, args.json, args.md)
    return result


def _version(chromium: str) -> str:
    import subprocess

    try:
        return subprocess.run([chromium, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return chromium


if __name__ == "__main__":
    main()
