"""The red team's rows for the document tools: the windows' merge, the command line's files, the review page, the
trace; each snippet checks its result is right and prints nothing (benchmarks/redteam.py runs them)."""

from __future__ import annotations

MERGE_SYMBOLS = """
from extractor.documents.merge import merge
schema = {"type": "object", "properties": {"skills": {"type": "array", "items": {"type": "string"}},
          "amount": {"type": "string"}, "id": {"type": "integer"}}}
merged = merge(schema, [(0, {"skills": ["C", "C++"], "amount": "-500.00", "id": 12345678901234567}),
                        (1, {"skills": ["C++", "C#", "F#", "F"], "amount": "500.00", "id": 12345678901234568})],
               lambda w, p: True)
assert merged.value["skills"] == ["C", "C++", "C#", "F#", "F"], merged.value
assert {c.pointer for c in merged.conflicts} == {"/amount", "/id"}, merged.conflicts
"""

HEADER_SPAN = """
from extractor.documents.windows import windows
rows = "\\n".join(f"| 2024-01-{d:02} | item {d} | {d}.00 |" for d in range(1, 60))
doc = "| Date | Item | Amount |\\n|---|---|---|\\n" + rows
ends = [i + 1 for i in range(len(doc))]
for w in windows(doc, ends, 400):
    text = w.text(doc)
    if w.header is not None:
        head = w.header[1] - w.header[0]
        at = text.index("Amount")
        assert doc[w.offset(doc, at):w.offset(doc, head)] == text[at:head], (at, head)
"""

CLI_OVERWRITE = """
import subprocess, sys, tempfile
from pathlib import Path
with tempfile.TemporaryDirectory() as d:
    card = Path(d, "card.txt")
    card.write_text("Dana Reyes, dana@reyes.io")
    run = subprocess.run([sys.executable, "-m", "extractor.cli", "extract", "--schema", "schemas:ContactCard",
                          "--input", str(card), "--jsonl", str(card)], capture_output=True, text=True)
    assert run.returncode == 2 and card.read_text() == "Dana Reyes, dana@reyes.io", run.stderr[-300:]
    results = Path(d, "out.jsonl")
    results.write_text('{"file": "card.txt", "result": {}}\\n')
    run = subprocess.run([sys.executable, "-m", "extractor.cli", "review", str(results), "-o", str(results)],
                         capture_output=True, text=True)
    assert run.returncode == 2 and results.read_text().startswith('{"file"'), run.stderr[-300:]
"""

CLI_MISSING_SCHEMA = """
import subprocess, sys
run = subprocess.run([sys.executable, "-m", "extractor.cli", "schema", "missing.json"], capture_output=True, text=True)
assert run.returncode == 2 and "does not exist" in run.stderr, run.stderr[-300:]
"""

ROWS: list[tuple[str, str, str]] = [
    ("document tools", "windows writing C, C++, C#, F#, F; -500.00 against 500.00; ids one apart past 2^53",
     MERGE_SYMBOLS),
    ("document tools", "a window span ending on a repeated table header's last cell", HEADER_SPAN),
    ("document tools", "extract --jsonl onto its --input; review -o onto its results", CLI_OVERWRITE),
    ("document tools", "--schema naming a file that does not exist", CLI_MISSING_SCHEMA),
]
