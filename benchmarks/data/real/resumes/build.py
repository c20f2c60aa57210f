"""Build documents.jsonl: ~40 real résumés from the DataTurks "Entity Recognition in Resumes" set with partial gold.

usage: python build.py [--source GIT_DIR] [--commit REV] [--out FILE] [--count N] [--max-chars N]

Reads a bare git copy of DataTurks-Engg/Entity-Recognition-In-Resumes-SpaCy (traindata.json, testdata.json: JSON
lines {"content": text, "annotation": [{"label": [L], "points": [{"start", "end" (inclusive), "text"}]}]}) with
`git show`, picks documents with a seeded shuffle and maps the annotated spans onto a PARTIAL `schemas.Resume`
(only the keys the annotations give; see README.md for the mapping). Every gold value is then traced against its
text with the project's own tracer (`extractor.trace`); a value the tracer cannot find is dropped and counted.

The script itself uses the standard library only, but the tracer is the project's, so run it with the project's
interpreter: `/work/main/.venv/bin/python build.py`. Output is deterministic (same bytes every run).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]  # benchmarks/data/real/resumes -> repository root
REPO = "DataTurks-Engg/Entity-Recognition-In-Resumes-SpaCy"
COMMIT = "3a8b01ed8e60048485d4ae6a3bf577b9393f1d84"
DEFAULT_SOURCE = "/work/.mirror/DataTurks-Engg+Entity-Recognition-In-Resumes-SpaCy/repo/.git"
FILES = ("traindata.json", "testdata.json")

# The section headings of the Indeed résumé export (a whole line each); anything else upper-case (MCA, SSC, CBSE...)
# is content, not a heading.
HEADINGS = {"WORK EXPERIENCE", "EDUCATION", "SKILLS", "ADDITIONAL INFORMATION", "LINKS", "CERTIFICATIONS/LICENSES",
            "AWARDS", "PUBLICATIONS", "PATENTS", "GROUPS", "MILITARY SERVICE"}
MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
DATE_LINE = re.compile(rf"(?:{MONTH} )?((?:19|20)\d\d)(?: to (?:Present|(?:{MONTH} )?((?:19|20)\d\d)))?")
PHONE = re.compile(r"(?<![\w+])\+?\d[\d ()\-.]{8,18}\d(?!\w)")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
INDEED = re.compile(r"indeed\.com/r/[\w.-]+/[0-9a-f]{8,}")
DURATION = re.compile(r"\((?:Less than 1|\d+\+?)\s+years?\)")  # Indeed's "(3 years)" after a skill
BULLETS = "•●▪➢◦✓♦❖■►"
SKILL_HEADING = re.compile(r"(?i)(?:additional information|(?:technical|personal|computer|soft|non ?- ?technical|it|"
                           r"key|core)? ?skills?(?: set)?|personality|core competencies|technical expertise|"
                           r"technical (?:knowledge|proficiency))")
SKILL_MAX_WORDS, SKILL_MAX_CHARS = 5, 50


def git_show(source: str, commit: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", source, "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout.decode("utf-8")


def clean(value: str) -> str:
    """Inner whitespace runs (PDF line wraps) collapsed to one space; separators left at either end by the span
    (`Cisco -`, `Pune,`) trimmed."""
    return " ".join(value.split()).strip(" -,;:")


class Doc:
    """One source résumé: its text, its aligned spans [(start, end_exclusive, label)], and its line layout."""

    def __init__(self, text: str, annotation: list[dict] | None, stats: Counter):
        self.text = text
        self.spans: list[tuple[int, int, str]] = []
        for ann in annotation or []:
            if not ann.get("label"):
                continue
            label = ann["label"][0]
            for point in ann["points"]:
                start = self.align(point["start"], point["text"])
                if start is None:
                    stats["spans not in text (source offsets broken)"] += 1
                    continue
                stats["spans realigned"] += start != point["start"]
                end = start + len(point["text"])
                # trim the span to its non-space characters
                while start < end and text[start].isspace():
                    start += 1
                while end > start and text[end - 1].isspace():
                    end -= 1
                # widen a span that cuts a word (`ndeed.com`, `Bachelor'` for `Bachelor's`) to the whole word
                was = (start, end)
                while 0 < start < end and text[start].isalnum() and text[start - 1].isalnum():
                    start -= 1
                while start < end < len(text) and text[end].isalnum() and (text[end - 1].isalnum()
                                                                          or text[end - 1] == "'"):
                    end += 1
                stats["spans widened to whole words"] += (start, end) != was
                if start < end:
                    self.spans.append((start, end, label))
        self.spans.sort()
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.sections: dict[str, tuple[int, int]] = {}
        marks = [(m.start(), m.group(1).strip()) for m in re.finditer(r"^([^\n]*)$", text, re.M)
                 if m.group(1).strip() in HEADINGS]
        for i, (pos, name) in enumerate(marks):
            end = marks[i + 1][0] if i + 1 < len(marks) else len(text)
            self.sections.setdefault(name, (pos, end))
        self.header_end = marks[0][0] if marks else len(text)

    def align(self, start: int, piece: str) -> int | None:
        """The start of `piece` in the text: the stated offset where it holds there, else the nearest occurrence
        (some source documents have offsets shifted by a few characters)."""
        if self.text[start:start + len(piece)] == piece:
            return start
        found = [m.start() for m in re.finditer(re.escape(piece), self.text)]
        return min(found, key=lambda p: (abs(p - start), p)) if found else None

    def of(self, label: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
        hi = len(self.text) if hi is None else hi
        return [(s, e) for s, e, lab in self.spans if lab == label and lo <= s < hi]

    def line(self, pos: int) -> tuple[int, int]:
        """(start, end) of the line holding `pos`, end exclusive of the newline."""
        i = max(k for k, s in enumerate(self.line_starts) if s <= pos)
        start = self.line_starts[i]
        end = self.text.find("\n", start)
        return start, len(self.text) if end < 0 else end

    def starts_line(self, pos: int) -> bool:
        start, _ = self.line(pos)
        return not self.text[start:pos].strip()

    def paragraph(self, pos: int) -> tuple[int, int]:
        """(start, end) of the run of consecutive non-blank lines holding `pos` (Indeed separates blocks by
        blank lines; a block's own lines are PDF wraps)."""
        start, end = self.line(pos)
        while start > 0:
            s, e = self.line(start - 1)
            if not self.text[s:e].strip():
                break
            start = s
        while end < len(self.text):
            s, e = self.line(end + 1)
            if not self.text[s:e].strip():
                break
            end = e
        return start, end

    def neighbour(self, pos: int, step: int) -> tuple[int, int] | None:
        """The paragraph before (step -1) or after (step +1) the paragraph holding `pos`."""
        start, end = self.paragraph(pos)
        at = start - 1 if step < 0 else end + 1
        while 0 <= at < len(self.text):
            s, e = self.line(at)
            if self.text[s:e].strip():
                return self.paragraph(s)
            at = s - 1 if step < 0 else e + 1
        return None

    def opening(self, block: tuple[int, int] | None, label: str) -> tuple[int, int] | None:
        """The `label` span the block starts with, if any."""
        if block is None:
            return None
        body = self.text[block[0]:block[1]]
        first = block[0] + len(body) - len(body.lstrip())
        return next(((s, e) for s, e in self.of(label, block[0], block[1]) if s == first), None)

    def date_after(self, pos: int) -> re.Match | None:
        """The paragraph after the one holding `pos`, where it is a date or date range."""
        block = self.neighbour(pos, +1)
        return DATE_LINE.fullmatch(" ".join(self.text[block[0]:block[1]].split())) if block else None

    def dated(self, lo: int, hi: int) -> list[str]:
        """The date paragraphs between `lo` and `hi`."""
        out, pos = [], lo
        while pos < hi:
            s, e = self.line(pos)
            body = " ".join(self.text[s:e].split())
            if body and DATE_LINE.fullmatch(body):
                out.append(body)
            pos = e + 1
        return out


def skill_pieces(doc: Doc) -> list[tuple[int, str]]:
    """(offset, skill) for every piece of every Skills span: Indeed's `(N years)` removed; split at line
    breaks, bullets, and commas and semicolons outside parentheses; a `Category:` prefix removed; section
    headings swallowed by the span, pieces with unbalanced parentheses and long phrases left out."""
    out = []
    for s, e in doc.of("Skills"):
        body = DURATION.sub(lambda m: " " * len(m.group()), doc.text[s:e])
        cuts, depth = [0], 0
        for i, ch in enumerate(body):
            depth = 0 if ch == "\n" else depth + (ch == "(") - (ch == ")")
            if ch == "\n" or ch in BULLETS or (ch in ",;" and depth <= 0):
                cuts += [i, i + 1]
        cuts.append(len(body))
        for a, b in zip(cuts[::2], cuts[1::2]):
            piece, at = body[a:b], s + a
            if ":" in piece:
                cut = piece.rindex(":") + 1
                piece, at = piece[cut:], at + cut
            stripped = re.sub(r"^[^\w(.#+]+", "", piece)
            at += len(piece) - len(stripped)
            piece = clean(stripped).rstrip(".")
            if (piece and piece.count("(") == piece.count(")") and not SKILL_HEADING.fullmatch(piece)
                    and len(piece.split()) <= SKILL_MAX_WORDS and len(piece) <= SKILL_MAX_CHARS):
                out.append((at, piece))
    return sorted(out)


def gold_of(doc: Doc, stats: Counter) -> dict:
    text, gold = doc.text, {}
    name = doc.of("Name")
    gold["name"] = clean(text[name[0][0]:name[0][1]])

    for s, e in doc.of("Email Address"):
        # widen to whole whitespace-delimited runs (some spans cut a letter); a PDF line wrap inside the span
        # is joined (the Indeed handle is one token)
        while s > 0 and not text[s - 1].isspace():
            s -= 1
        while e < len(text) and not text[e].isspace():
            e += 1
        run = text[s:e]
        m = EMAIL.search(run)
        if m:
            gold["email"] = m.group()
            break
        if INDEED.search(re.sub(r"\s+", "", run)):
            stats["email labels that are Indeed relay handles (not an address: not kept)"] += 1
            break
        stats["email labels unusable"] += 1

    header = text[:doc.header_end]
    for m in PHONE.finditer(header):
        if 10 <= sum(c.isdigit() for c in m.group()) <= 13:
            gold["phone"] = m.group().strip()
            break

    for s, e in doc.of("Location", 0, doc.header_end):
        value = clean(text[s:e])
        if doc.starts_line(s) and "indeed.com" not in value and "@" not in value and len(value) <= 60:
            gold["location"] = value
            break

    skills, seen = [], set()
    for _, piece in skill_pieces(doc):
        if piece.casefold() not in seen:
            seen.add(piece.casefold())
            skills.append(piece)
    if skills:
        gold["skills"] = skills

    if "WORK EXPERIENCE" in doc.sections:
        lo, hi = doc.sections["WORK EXPERIENCE"]
        jobs: dict[tuple[str, str], dict] = {}
        for s, e in doc.of("Companies worked at", lo, hi):
            rest = text[e:doc.line(s)[1]].strip()
            if not doc.starts_line(s) or (rest and not rest.startswith("-")):
                continue  # a company named in prose, not the `Company - City -` line of a job entry
            job = {"company": clean(text[s:e])}
            title = doc.opening(doc.neighbour(s, -1), "Designation")
            if title is not None and title[0] >= lo:
                job["title"] = clean(text[title[0]:title[1]])
            date = doc.date_after(s)
            key = (job["company"].casefold(), date.group() if date else f"@{s}")
            if date is None and any(j == job for j in jobs.values()):
                continue  # an undated repeat of an entry already taken
            if key in jobs:  # the export repeats some entries: same company, same dates
                jobs[key].setdefault("title", job.get("title"))
                jobs[key] = {k: v for k, v in jobs[key].items() if v is not None}
            else:
                jobs[key] = job
        if jobs and len(jobs) >= len(set(doc.dated(lo, hi))):
            gold["experience"] = list(jobs.values())
        elif jobs:
            stats["experience left out (fewer labeled jobs than dated entries)"] += 1

    if "EDUCATION" in doc.sections:
        lo, hi = doc.sections["EDUCATION"]
        entries: list[dict] = []
        degree_block = None
        marks = sorted([(s, e, "degree") for s, e in doc.of("Degree", lo, hi)]
                       + [(s, e, "institution") for s, e in doc.of("College Name", lo, hi)])
        for s, e, field in marks:
            if not doc.starts_line(s):
                continue
            value = clean(text[s:e])
            if field == "degree":
                entries.append({"degree": value})
                degree_block = doc.paragraph(s)
                continue
            if entries and "institution" not in entries[-1] and doc.neighbour(s, -1) == degree_block:
                entries[-1]["institution"] = value
            else:
                entries.append({"institution": value})
            date = doc.date_after(s)
            if date is not None:
                year = date.group(2) or date.group(1)
                block = doc.neighbour(s, +1)
                if year in [text[a:b] for a, b in doc.of("Graduation Year", block[0], block[1])]:
                    entries[-1]["graduation_year"] = int(year)
        if entries and len(entries) >= len(doc.dated(lo, hi)):
            gold["education"] = [{k: x[k] for k in ("degree", "institution", "graduation_year") if k in x}
                                 for x in entries]
        elif entries:
            stats["education left out (fewer labeled entries than dated entries)"] += 1
    return gold


def tracer():
    """The project's `extractor.trace` and `schemas.Resume`."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    try:
        import schemas
        from extractor import trace
    except ImportError as exc:  # pragma: no cover
        sys.exit(f"the project's tracer is needed (run with /work/main/.venv/bin/python): {exc}")
    return trace, schemas


def traced(gold: dict, text: str, stats: Counter, dropped: list) -> dict:
    """`gold` less every value the project's tracer cannot find in `text`."""
    trace, schemas = tracer()
    missing = set()
    for value in trace(gold, text, schemas.Resume):
        if value.status == "not_found":
            missing.add(value.pointer)
    for pointer in sorted(missing, key=lambda p: [int(t) if t.isdigit() else -1 for t in p.split("/")[1:]],
                          reverse=True):
        parts = [int(t) if t.isdigit() else t for t in pointer.split("/")[1:]]
        parent = gold
        for part in parts[:-1]:
            parent = parent[part]
        dropped.append((pointer, parent[parts[-1]]))
        stats[f"dropped by tracer: /{parts[0]}"] += 1
        del parent[parts[-1]]
    for key in ("skills", "experience", "education"):
        if key in gold:
            gold[key] = [x for x in gold[key] if x != {}]
            if not gold[key]:
                del gold[key]
    return gold


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="bare git dir of " + REPO)
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--out", type=Path, default=HERE / "documents.jsonl")
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--max-chars", type=int, default=6000)
    args = parser.parse_args(argv)

    stats: Counter = Counter()
    pool, seen_texts = [], set()
    for path in FILES:
        for index, line in enumerate(git_show(args.source, args.commit, path).splitlines()):
            if not line.strip():
                continue
            row = json.loads(line)
            text = row["content"]
            stats["source documents"] += 1
            if text in seen_texts:
                stats["skipped: duplicate text"] += 1
                continue
            seen_texts.add(text)
            if len(text) > args.max_chars:
                stats[f"skipped: over {args.max_chars} characters"] += 1
                continue
            pool.append((path, index, text, row.get("annotation")))
    rng = random.Random("resumes")
    rng.shuffle(pool)

    docs, dropped, people = [], [], set()
    for path, index, text, annotation in pool:
        if len(docs) == args.count:
            break
        doc = Doc(text, annotation, stats)
        name = doc.of("Name")
        if not name or name[0][0] >= doc.header_end or not doc.starts_line(name[0][0]):
            stats["skipped: no name label in the header"] += 1
            continue
        person = clean(text[name[0][0]:name[0][1]]).casefold()
        if person in people:
            stats["skipped: same person as an earlier pick (a second version of the résumé)"] += 1
            continue
        people.add(person)
        gold = traced(gold_of(doc, stats), text, stats, dropped)
        if "name" not in gold:
            stats["skipped: name not traced"] += 1
            continue
        docs.append({"text": text, "gold": gold, "source": f"{REPO}@{args.commit}:{path}#{index}"})

    half = (len(docs) + 1) // 2
    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for i, d in enumerate(docs):
            record = {"id": f"resume-real-{i + 1:03d}", "set": "resumes", "target": "Resume",
                      "split": "dev" if i < half else "test", "layout": "real", "lang": "en", "text": d["text"],
                      "gold": d["gold"], "source": d["source"]}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")

    fields = Counter(k for d in docs for k in d["gold"])
    print(f"wrote {len(docs)} documents to {args.out} (dev {half}, test {len(docs) - half})")
    for key in ("name", "email", "phone", "location", "skills", "experience", "education"):
        print(f"  gold {key}: {fields[key]}/{len(docs)}")
    print(f"  skills: {sum(len(d['gold'].get('skills', [])) for d in docs)} values; experience: "
          f"{sum(len(d['gold'].get('experience', [])) for d in docs)} items "
          f"({sum('title' in j for d in docs for j in d['gold'].get('experience', []))} with title); education: "
          f"{sum(len(d['gold'].get('education', [])) for d in docs)} items "
          f"({sum('degree' in j and 'institution' in j for d in docs for j in d['gold'].get('education', []))} "
          f"paired, {sum('graduation_year' in j for d in docs for j in d['gold'].get('education', []))} with year)")
    for key, n in sorted(stats.items()):
        print(f"  {key}: {n}")
    for pointer, value in dropped:
        print(f"  dropped {pointer}: {value!r}")


if __name__ == "__main__":
    main()
