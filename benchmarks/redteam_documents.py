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

REVIEW_MALFORMED = """
import json, tempfile
from pathlib import Path
from extractor.review import read_jsonl, review_html
lines = ['{"file": "a.txt", "trace": "abc"}', '{"file": "a.txt", "trace": null}',
         '{"file": "a.txt", "result": {}, "trace": [{"pointer": "/x", "value": 1, "status": "found"}]}',
         '{"file": "a.txt", "result": {}, "trace": [{"pointer": "/x", "value": 1, "status": "found", '
         '"spans": [[0, 999]]}]}',
         '{"file": "a.txt", "status": 7, "trace": [{"pointer": 5, "status": 7, "spans": []}]}',
         '{"file": "a.txt", "result": {"x": NaN}}', '{"file": "a.txt", "error": "boom"}',
         '{"file": "latin.txt", "result": {}}', '{"file": "gone.txt", "result": {}}', '{"file": "a.txt", "resu']
with tempfile.TemporaryDirectory() as d:
    Path(d, "a.txt").write_text("Ada")
    Path(d, "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    results = Path(d, "out.jsonl")
    results.write_text("\\n".join(lines) + "\\n")
    docs = read_jsonl(results)
    assert len(docs) == len(lines), len(docs)
    page = review_html(docs)
    data = page.split('id="review-data">')[1].split("</script>")[0]
    json.loads(data)  # the page's own data parses: its script starts
    assert "latin.txt" in page and "gone.txt" in page and "boom" in page
"""

REVIEW_FILES = """
import tempfile
from pathlib import Path
from extractor.review import read_jsonl
with tempfile.TemporaryDirectory() as d:
    secret = Path(d, "secret.txt")
    secret.write_text("the secret")
    texts = Path(d, "texts")
    texts.mkdir()
    Path(texts, "link.txt").symlink_to(secret)
    results = Path(texts, "out.jsonl")
    results.write_text('{"file": "%s"}\\n{"file": "link.txt"}\\n{"file": "../secret.txt"}\\n' % secret)
    for folder in (None, texts):
        docs = read_jsonl(results, folder)
        assert all("the secret" not in doc.text and doc.error for doc in docs), docs
"""

INFINITY = """
from extractor.automata import build_automaton
from tests.automata.helpers import runs
for verbatim in ("marked", "auto"):
    from extractor.schema.verbatim import verbatim_strings
    schema = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
    machine = build_automaton(compile_grammar(target_ir(verbatim_strings(schema) if verbatim == "auto" else schema,
                                                        None)))
    assert not runs(machine, '{"x":1e999}') and not runs(machine, '{"x":' + "9" * 310 + '}')
    assert runs(machine, '{"x":1.7976931348623157e308}') and runs(machine, '{"x":-2.5e-300}')
"""

HIDDEN_CHARACTERS = """
from extractor import trace
for hidden in ("\\u00ad", "\\u2060", "\\u200b", "\\ufeff"):
    text = f"Signed by Acme Cor{hidden}poration on 1 May."
    found = trace({"company": "Acme Corporation"}, text, {"type": "object"})["/company"]
    assert found.status == "found" and found.spans[0].of(text) == f"Acme Cor{hidden}poration", (hidden, found)
"""

TRACE_LONG_RUN = """
import time
from extractor import trace
started = time.perf_counter()
alone = trace({"name": "a" * 5000}, "a" * 1_000_000, {"type": "object"})["/name"]
assert alone.status == "not_found"  # inside a longer word only
words = trace({"name": "a" * 5000}, ("a" * 5000 + " ") * 200, {"type": "object"})["/name"]
assert words.status == "found" and words.occurrences == 200, words.occurrences
assert time.perf_counter() - started < 5, time.perf_counter() - started
"""

ROWS: list[tuple[str, str, str]] = [
    ("document tools", "windows writing C, C++, C#, F#, F; -500.00 against 500.00; ids one apart past 2^53",
     MERGE_SYMBOLS),
    ("document tools", "a window span ending on a repeated table header's last cell", HEADER_SPAN),
    ("document tools", "extract --jsonl onto its --input; review -o onto its results", CLI_OVERWRITE),
    ("document tools", "--schema naming a file that does not exist", CLI_MISSING_SCHEMA),
    ("document tools", "a results file of bad lines: wrong types, NaN, spans past the text, a Latin-1 and a missing "
     "text, a cut line", REVIEW_MALFORMED),
    ("document tools", "a results file naming /etc/passwd-like paths: absolute, a link out of --texts, ..",
     REVIEW_FILES),
    ("document tools", "1e999 and a 310-digit number for a float field, strings written freely or copied",
     INFINITY),
    ("document tools", "Acme Cor\\u00adporation: a soft hyphen, word joiner, zero-width space, BOM in a value's "
     "occurrence", HIDDEN_CHARACTERS),
    ("document tools", "trace() of a 5,000-letter value in 1,000,000 letters", TRACE_LONG_RUN),
]
