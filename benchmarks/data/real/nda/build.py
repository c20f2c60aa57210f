"""Builds `documents.jsonl`: the first page of real non-disclosure agreements from Kleister-NDA (dev-0), each
with the part of Kleister's gold that the page holds, for the `schemas.NDA` target.

usage: python build.py [--source GIT_DIR] [--rev COMMIT] [--out documents.jsonl] [--check]

Standard library only (plus the `git` command, to read the pinned commit of the fetched repository). The
output is deterministic: the commit is pinned, the documents are drawn with `random.Random("nda")`.
`--check` also traces every written gold value (and every dropped one) with the project's own tracer
(`extractor.trace`); it needs the project's environment (`/work/main/.venv/bin/python build.py --check`).
"""

from __future__ import annotations

import argparse
import json
import lzma
import os
import random
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = "/work/.mirror/applicaai+kleister-nda/repo"
REPO = "applicaai/kleister-nda"
COMMIT = "c2c7bf069b919bfb618b268fda2a2c079c0db316"  # master, 2021-08-18 "Format results as percentages"
SPLITS = ("dev-0", "train")  # train is read only when dev-0 gives fewer than MIN_USABLE documents
TEXT_COLUMN = 2  # in.tsv columns: filename, keys, text_djvu, text_tesseract, text_textract, text_best
WANTED = 50
MIN_USABLE = 40
PAGE = 2500  # characters: about the first page of a contract
MIN_PAGE = 1500  # an excerpt ends at the last sentence end in [MIN_PAGE, PAGE], else at a clause or line end
SCALARS = ("effective_date", "jurisdiction", "term")
NAME_FIXES = {  # Kleister party names that drop a word of the name the contract writes (read on the page)
    ("12fe8459ce606334afe537b24f476fa2.pdf", "Financial Northwest Inc."): "First Financial Northwest Inc.",
    ("cdb615d6774f4ea7032768d5bcf02ee2.pdf", "Bank Of Beverly Hills"): "First Bank Of Beverly Hills",
}


# --- reading the repository -------------------------------------------------------------------------------

def git_show(source: str, rev: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", source, "show", f"{rev}:{path}"], check=True, capture_output=True).stdout


def resolve(source: str, rev: str) -> str:
    """The full hash of the commit `rev` names."""
    return subprocess.run(["git", "-C", source, "rev-parse", "--verify", f"{rev}^{{commit}}"], check=True,
                          capture_output=True, text=True).stdout.strip()


def read_split(source: str, rev: str, split: str) -> list[tuple[list[str], list[str]]]:
    """(in.tsv columns, expected key=value pairs) of each row of a split, in file order."""
    rows = [r for r in lzma.decompress(git_show(source, rev, f"{split}/in.tsv.xz")).decode("utf-8").split("\n") if r]
    expected = git_show(source, rev, f"{split}/expected.tsv").decode("utf-8").split("\n")[:len(rows)]
    if len(expected) != len(rows):
        raise ValueError(f"{split}: {len(rows)} rows in in.tsv, {len(expected)} in expected.tsv")
    out = []
    for row, exp in zip(rows, expected):
        cols = row.split("\t")
        if len(cols) != 6:
            raise ValueError(f"{split}: a row of {len(cols)} columns")
        out.append((cols, exp.split()))
    return out


# --- the text ---------------------------------------------------------------------------------------------

_ESCAPES = {"n": "\n", "f": "\n", "t": " ", "\\": "\\"}


def clean(raw: str) -> str:
    """The TSV field as text: escapes read (`\\n` a line break, `\\f` a page break, read as one), runs of spaces
    collapsed, lines stripped, runs of blank lines made one."""
    text = re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), raw)
    text = re.sub(r"[ \t]+", " ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip()


_ABBREV = re.compile(r"(?:\b[A-Za-z]|\b(?:Inc|Corp|Co|Ltd|No|Nos|Mr|Mrs|Ms|Dr|St|Jr|Sr|Sec|Ave|Blvd|Ste|Bldg|Dept|"
                     r"Attn|etc|vs|viz|approx|[A-Za-z]\.[A-Za-z])|\d[\d.]*)\.$", re.IGNORECASE)


def first_page(text: str) -> str:
    """The first PAGE characters, ended at the last sentence end after MIN_PAGE (a period, `!` or `?`, maybe
    closed by a quote or bracket, before a space or line break; not an abbreviation, initial or list number),
    else at the last `;` or `:` after MIN_PAGE, else at the last line end after MIN_PAGE, else at the last space."""
    if len(text) <= PAGE:
        return text
    window = text[:PAGE + 1]  # the character after the cut tells whether a sentence ends there
    sentences = [m.end() for m in re.finditer(r"[.!?][\"'”’)\]]*(?=\s)", window)
                 if m.end() >= MIN_PAGE and not _ABBREV.search(window[max(0, m.start() - 12):m.start() + 1])]
    clauses = [m.end() for m in re.finditer(r"[;:](?=\s)", window) if m.end() >= MIN_PAGE]
    lines = [m.start() for m in re.finditer(r"\n", window) if m.start() >= MIN_PAGE]
    spaces = [m.start() for m in re.finditer(r" ", window)]
    ends = sentences or clauses or lines or spaces
    return text[:ends[-1]].rstrip()


# --- where the excerpt holds a value ----------------------------------------------------------------------

_SAME = {"incorporated": "inc", "limited": "ltd", "corporation": "corp", "company": "co"}
_SUFFIX_KEYS = {"inc", "ltd", "corp", "co", "llc", "lp", "llp", "sa", "nv", "ag", "plc", "gmbh", "jr", "sr"}


def _fold(c: str) -> str:
    """A character as the project's tracer reads it in its `words` view: compatibility form, case folded,
    accents dropped."""
    return "".join(x for x in unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", c).casefold())
                   if not unicodedata.combining(x))


def tokens(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) of the words of `text` (runs of letters and digits, folded): the tracer's `words` view
    as a list; then a run of single letters written with periods (`L.P.`, `S.A.`, `L.L .C.`) is one word, and
    `Incorporated`, `Limited`, `Corporation`, `Company` read as `Inc`, `Ltd`, `Corp`, `Co`."""
    words: list[list] = []
    current: list | None = None
    for i, c in enumerate(text):
        if unicodedata.combining(c):
            continue
        f = _fold(c)
        if f and all(x.isalnum() for x in f):
            if current is None:
                current = [f, i, i + 1]
                words.append(current)
            else:
                current[0] += f
                current[2] = i + 1
        else:
            current = None
    merged: list[list] = []
    for word, start, end in words:
        prev = merged[-1] if merged else None
        if (prev is not None and len(word) == 1 and word.isalpha() and prev[0][-1:].isalpha()
                and len(prev[0]) == prev[3] and re.fullmatch(r"\s*\.\s*", text[prev[2]:start])):
            prev[0] += word  # prev[3]: how many single letters it joins (its length while all are)
            prev[2] = end
            prev[3] += 1
            continue
        merged.append([word, start, end, 1 if len(word) == 1 and word.isalpha() else 0])
    return [(_SAME.get(word, word), start, end) for word, start, end, _ in merged]


def find(needle: str, page: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """(first, last) word indices of each place `page` holds the words of `needle` in order."""
    want = [w for w, _, _ in tokens(needle)]
    n = len(want)
    if not n:
        return []
    return [(i, i + n - 1) for i in range(len(page) - n + 1) if [w for w, _, _ in page[i:i + n]] == want]


def find_loosely(needle: str, page: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """`find` where initials do not count and a word may end otherwise (`Joseph L. Provenzano` is `Joseph
    Provenzano`, `Liquidmetal Technology` is `LIQUIDMETAL TECHNOLOGIES`): for a party name the text writes
    another way than Kleister's normalized gold; two words at least, each of four letters or more compared by
    its start (or all its letters but the last, from six letters on)."""
    want = [w for w, _, _ in tokens(needle) if not (len(w) == 1 and w.isalpha())]
    if len(want) < 2:
        return []
    kept = [i for i, (w, _, _) in enumerate(page) if not (len(w) == 1 and w.isalpha())]
    n, out = len(want), []

    def same(a: str, b: str) -> bool:  # `bank`/`banking`; `technology`/`technologies` (six letters on)
        common = len(os.path.commonprefix([a, b]))
        shorter = min(len(a), len(b))
        return a == b or (shorter >= 4 and common == shorter) or (shorter >= 6 and common >= shorter - 1)

    for k in range(len(kept) - n + 1):
        if all(same(page[kept[k + j]][0], want[j]) for j in range(n)):
            out.append((kept[k], kept[k + n - 1]))
    return out


_SUFFIX = re.compile(r",?[ \n]*(?:Incorporated|Corporation|Limited(?![ \n]+(?:liability|partnership))|Inc|Corp|"
                     r"Ltd|L\.[ \n]?L\.[ \n]?C|LLC|LLP|L\.[ \n]?P|LP|S\.[ \n]?A|N\.[ \n]?V|plc|AG|GmbH)\b\.?",
                     re.IGNORECASE)
_ABBREVIATED = {"inc", "ltd", "corp", "co", "jr", "sr", "bros"}


def written(text: str, page: list[tuple[str, int, int]], first: int, last: int) -> str:
    """The party as the text writes it where it is first found: the span of its words, with the period that
    closes an abbreviation at its end (`Inc.`, `L.P.`, `M.`) and, where the gold name stops short of a legal
    form, the one that follows it in the text (`, Inc.`, ` LLC`); whitespace collapsed."""
    word, start, end = page[last][0], page[first][1], page[last][2]
    last_word = text[page[last][1]:end]
    if "." in last_word or len(word) == 1 or last_word.casefold() in _ABBREVIATED:
        end += text[end:end + 1] == "."
    elif word not in _SUFFIX_KEYS:
        m = _SUFFIX.match(text, end)
        if m:
            end = m.end()
    return " ".join(text[start:end].split())


_MONTHS = {m: i for i, names in enumerate((
    "january jan", "february feb", "march mar", "april apr", "may", "june jun", "july jul", "august aug",
    "september sep sept", "october oct", "november nov", "december dec"), 1) for m in names.split()}
_M = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATES = (
    (re.compile(rf"\b({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), ("m", "d", "y")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:day\s+of\s+|of\s+)?({_M})\.?,?\s+(\d{{4}})\b", re.I),
     ("d", "m", "y")),
    (re.compile(r"(?<![\d/.-])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])"), ("m", "d", "y")),
    (re.compile(r"(?<![\d/.-])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])"), ("d", "m", "y")),
    (re.compile(r"(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?![\d])"), ("y", "m", "d")),
)


def dates(text: str) -> set[str]:
    """Every date the text writes (`April 22, 2005`, `22 April 2005`, `the 22nd day of April, 2005`, `4/22/2005`,
    `2005-04-22`), as YYYY-MM-DD."""
    out = set()
    for pattern, order in _DATES:
        for m in pattern.finditer(text):
            parts = dict(zip(order, m.groups()))
            month = parts["m"]
            month = _MONTHS[month.lower()] if not month.isdigit() else int(month)
            y, d = int(parts["y"]), int(parts["d"])
            if 1 <= month <= 12 and 1 <= d <= 31:
                out.add(f"{y:04d}-{month:02d}-{d:02d}")
    return out


_GOVERNING = re.compile(r"govern(?:ed|ing)|constru(?:ed|e)|interpret(?:ed)?|enforced|courts?\s+(?:of|in|located)|venue",
                        re.IGNORECASE)


def governs(text: str, page: list[tuple[str, int, int]], places: list[tuple[int, int]]) -> bool:
    """Whether some place the state or country is named says its law governs (`governed by the laws of`,
    `construed in accordance with`, `the courts of`): in the 150 characters before it, within its sentence.
    A state of incorporation (`a Delaware corporation`, `organized under the laws of`) or an address is not."""
    for first, _ in places:
        before = text[max(0, page[first][1] - 150):page[first][1]]
        before = re.split(r"[.;](?:\s|$)", before)[-1]
        if _GOVERNING.search(before):
            return True
    return False


# --- one document -----------------------------------------------------------------------------------------

def document(cols: list[str], pairs: list[str], tally: Counter) -> tuple[str, dict, dict] | None:
    """(excerpt, gold, dropped values) of one row, or None where the excerpt holds no party. `tally` counts
    what was kept, dropped and set to null, per key."""
    text = first_page(clean(cols[TEXT_COLUMN]))
    asked = set(cols[1].split())
    kleister: dict[str, list[str]] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        kleister.setdefault(key, []).append(value.replace("_", " "))
    page = tokens(text)
    gold: dict = {"parties": []}
    dropped: dict[str, list[str]] = {}
    for name in kleister.get("party", []):
        raw, name = name, NAME_FIXES.get((cols[0], name), name)
        places = find(name, page)
        loosely = not places
        if loosely:
            places = find_loosely(name, page)
        if places:
            party = written(text, page, *places[0])
            if party.casefold() not in {p.casefold() for p in gold["parties"]}:
                gold["parties"].append(party)
            tally["parties", "kept, its words written otherwise" if loosely else
                  "kept, name corrected" if (cols[0], raw) in NAME_FIXES else "kept"] += 1
        else:
            dropped.setdefault("parties", []).append(name)
            tally["parties", "dropped, not on the page"] += 1
    if not gold["parties"]:
        return None
    on_page = dates(text)
    for key in SCALARS:
        values = kleister.get(key)
        if not values:
            if key in asked:  # a key Kleister asks about and gives no value for: the answer is null
                gold[key] = None
                tally[key, "null"] += 1
            else:
                tally[key, "not asked"] += 1
            continue
        kept, reason = None, "dropped, not on the page"
        for value in values:
            if key == "effective_date":
                held = value in on_page
            elif key == "jurisdiction":
                places = find(value, page)
                held = bool(places) and governs(text, page, places)
                if places and not held:
                    reason = "dropped, on the page only as a state of incorporation, residence or address"
            else:
                held = bool(find(value, page))
            if held:
                kept = value
                break
        if kept is not None:
            gold[key] = kept
            tally[key, "kept"] += 1
        else:
            dropped[key] = values
            tally[key, reason] += 1
    return text, gold, dropped


def build(source: str, rev: str) -> tuple[list[dict], list[dict], Counter]:
    """The documents, the values dropped from each (same order), and the tally over the chosen documents."""
    rev = resolve(source, rev)
    rng = random.Random("nda")
    chosen: list[tuple[str, dict, dict, str]] = []
    tally: Counter = Counter()
    seen: set[str] = set()
    for split in SPLITS:
        if split != SPLITS[0] and len(chosen) >= MIN_USABLE:
            break
        rows = sorted(read_split(source, rev, split), key=lambda r: r[0][0])
        order = list(range(len(rows)))
        rng.shuffle(order)
        for i in order:
            if len(chosen) == WANTED:
                break
            cols, pairs = rows[i]
            row_tally: Counter = Counter()
            made = document(cols, pairs, row_tally)
            if made is None:
                tally["skipped: no party on the page"] += 1
                continue
            text, gold, dropped = made
            fingerprint = " ".join(text.casefold().split())
            if fingerprint in seen:
                tally["skipped: same page as a chosen document"] += 1
                continue
            seen.add(fingerprint)
            tally.update(row_tally)
            chosen.append((text, gold, dropped, f"{REPO}@{rev}:{split}/{cols[0]}"))
    docs, drops = [], []
    half = (len(chosen) + 1) // 2
    for n, (text, gold, dropped, source_ref) in enumerate(chosen, 1):
        docs.append({"id": f"nda-real-{n:03d}", "set": "nda", "target": "NDA", "split": "dev" if n <= half else "test",
                     "layout": "real", "lang": "en", "text": text, "gold": gold, "source": source_ref})
        drops.append(dropped)
    return docs, drops, tally


def check(docs: list[dict], drops: list[dict]) -> int:
    """Trace every written gold value with the project's tracer (each should be found) and every dropped one
    (each should not be); print where the tracer and this script disagree. Returns the count of gold values the
    tracer does not find."""
    sys.path.insert(0, str(HERE.parents[3]))
    import schemas
    from extractor import trace

    statuses: Counter = Counter()
    missed = 0
    for doc, dropped in zip(docs, drops):
        for v in trace(doc["gold"], doc["text"], schemas.NDA):
            statuses["gold", v.pointer.split("/")[1], v.status] += 1
            if v.status == "not_found":
                missed += 1
                print(f"  gold value the tracer does not find: {doc['id']} {v.pointer} = {v.value!r}")
        probe = {"parties": dropped.get("parties", [])}
        probe.update({k: vs[0] for k, vs in dropped.items() if k != "parties"})
        for v in trace(probe, doc["text"], schemas.NDA):
            if v.value is None:
                continue
            statuses["dropped", v.pointer.split("/")[1], v.status] += 1
            if v.status != "not_found":
                print(f"  dropped value the tracer finds: {doc['id']} {v.pointer} = {v.value!r} ({v.how})")
    for key, n in sorted(statuses.items()):
        print("  " + " ".join(key), n)
    return missed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="the fetched git directory of " + REPO)
    parser.add_argument("--rev", default=COMMIT, help="the commit to read (pinned)")
    parser.add_argument("--out", type=Path, default=HERE / "documents.jsonl")
    parser.add_argument("--check", action="store_true", help="trace the gold with the project's tracer")
    args = parser.parse_args(argv)
    docs, drops, tally = build(args.source, args.rev)
    with open(args.out, "w", encoding="utf-8", newline="\n") as f:
        for doc in docs:
            f.write(json.dumps(doc, ensure_ascii=False) + "\n")
    splits = Counter(d["split"] for d in docs)
    print(f"{len(docs)} documents ({', '.join(f'{k} {v}' for k, v in sorted(splits.items()))}) -> {args.out}")
    for key, n in sorted(tally.items(), key=lambda kv: str(kv[0])):
        print("  " + (" / ".join(key) if isinstance(key, tuple) else key), n)
    if args.check:
        print("tracer check:")
        check(docs, drops)


if __name__ == "__main__":
    main()
