"""Write documents.jsonl, the labeled extraction-quality set, from hand-written templates and pools.

Run from the repository root:  .venv/bin/python benchmarks/data/quality/generate.py
Standard library only (plus the schemas it checks against) and seeded with fixed strings, so every run writes the
same bytes. Every gold object is validated against its schema, and every string it copies is checked to occur in
its text, before anything is written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from random import Random

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2]), str(HERE)]

import schemas  # noqa: E402
from layouts import LAYOUTS, Layout  # noqa: E402
from offtopic import OFFTOPIC  # noqa: E402
from text import CLOSE, OPEN  # noqa: E402

SEED = "extractor-quality-v1"
OUT = HERE / "documents.jsonl"
ANSWERABLE, NO_ANSWER = 28, 6  # documents per target
TEST_ANSWERABLE, TEST_NO_ANSWER = 6, 2  # of those, in the test split
# list field -> (documents with 0 items, documents with 8-10 items, lengths the others cycle through)
LISTS = {
    "Resume": {"skills": (3, 5, range(2, 8)), "experience": (3, 3, range(1, 6))},
    "Invoice": {"line_items": (3, 4, range(1, 7))},
    "Receipt": {"items": (3, 4, range(1, 8))},
    "ContactCard": {"emails": (3, 3, range(1, 4)), "phones": (3, 3, range(1, 4))},
    "Event": {},
    "JobPosting": {"requirements": (3, 5, range(3, 8))},
}
# document types a target's no-answer texts may be taken from: none of them holds an answer for it
OTHER_TYPES = {
    "Resume": ["Invoice", "Receipt", "Event", "JobPosting"],
    "Invoice": ["Resume", "Event", "JobPosting", "ContactCard"],
    "Receipt": ["Resume", "Event", "JobPosting", "ContactCard"],
    "ContactCard": ["Invoice", "Receipt", "Event", "JobPosting"],
    "Event": ["Resume", "Invoice", "Receipt", "JobPosting", "ContactCard"],
    "JobPosting": ["Resume", "ContactCard", "Event", "Invoice", "Receipt"],
}
PERSON_TARGETS = {"Resume", "ContactCard"}  # any named person with an e-mail or phone would answer these
NORMALIZED = {"issue_date", "date", "posted_date", "time", "start_time", "currency", "salary_currency", "kind",
              "payment_method", "employment_type"}  # gold strings a reader normalizes instead of copying


def schedule(rng: Random, zeros: int, big: int, rest: range) -> list[int]:
    """List lengths for the answerable documents: some empty, some with 8-10 items, the rest cycling `rest`."""
    sizes = [0] * zeros + [8 + i % 3 for i in range(big)]
    sizes += [rest[i % len(rest)] for i in range(ANSWERABLE - len(sizes))]
    rng.shuffle(sizes)
    return sizes


def fits(layout: Layout, lang: str, sizes: dict) -> bool:
    """Whether the layout is written in `lang` and renders every list at the planned length."""
    return lang in layout.langs and all(n in layout.sizes for n in sizes.values())


def plan(rng: Random, target: str) -> list[tuple[Layout, str, dict]]:
    """(layout, language, list sizes) per answerable document: one each in de, fr and es, layouts used evenly."""
    layouts, lists = LAYOUTS[target], LISTS[target]
    columns = [schedule(rng, *spec) for spec in lists.values()]
    sizes = [dict(zip(lists, row)) for row in zip(*columns)] if lists else [{} for _ in range(ANSWERABLE)]
    langs = ["en"] * ANSWERABLE
    for lang in ("de", "fr", "es"):
        langs[rng.choice([i for i, s in enumerate(sizes) if langs[i] == "en"
                          and any(fits(layout, lang, s) for layout in layouts)])] = lang
    used = dict.fromkeys((layout.name for layout in layouts), 0)
    chosen = {}
    for i in sorted(range(ANSWERABLE), key=lambda i: (langs[i] == "en", -max(sizes[i].values(), default=0))):
        options = [layout for layout in layouts if fits(layout, langs[i], sizes[i])]
        fewest = min(used[layout.name] for layout in options)
        chosen[i] = rng.choice([layout for layout in options if used[layout.name] == fewest])
        used[chosen[i].name] += 1
    return [(chosen[i], langs[i], sizes[i]) for i in range(ANSWERABLE)]


def copied(value, key: str | None = None):
    """The gold's strings that the text must contain verbatim (all but dates, times, codes and enum values)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from copied(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from copied(v, key)
    elif isinstance(value, str) and key not in NORMALIZED:
        yield value


def document(target: str, layout: str, lang: str, text: str, gold: dict | None) -> dict:
    """One JSONL record; raises if the gold fails its schema, a copied value is not in the text, or the text is odd."""
    if gold is not None:
        gold = getattr(schemas, target).model_validate(gold).model_dump(mode="json")
        missing = [s for s in copied(gold) if s not in text]
        if missing:
            raise ValueError(f"{target}/{layout}: gold values not in the text: {missing}\n{text}")
    if OPEN in text or CLOSE in text or not 150 <= len(text) <= 3000:
        raise ValueError(f"{target}/{layout}: stray OCR marks or a length of {len(text)}\n{text}")
    return {"id": "", "target": target, "split": "dev", "layout": layout, "lang": lang, "text": text, "gold": gold}


def answerable(target: str) -> list[dict]:
    """The target's planned documents, each rendered from its own seed so one change does not reshuffle the rest."""
    docs = []
    for i, (layout, lang, sizes) in enumerate(plan(Random(f"{SEED}/{target}/plan"), target)):
        text, gold = layout.render(Random(f"{SEED}/{target}/{i}"), lang, sizes)
        docs.append(document(target, layout.name, lang, text, gold))
    return docs


def no_answer(target: str, index: int, offtopic_use: dict) -> list[dict]:
    """Three unrelated texts (kinds used least so far) and three documents of other types; gold null."""
    rng = Random(f"{SEED}/{target}/none")
    allowed = [kind for kind, (_, _, unsafe) in OFFTOPIC.items() if target not in unsafe]
    docs = []
    for kind in sorted(allowed, key=lambda k: (offtopic_use[k], rng.random()))[:NO_ANSWER // 2]:
        offtopic_use[kind] += 1
        write, langs, _ = OFFTOPIC[kind]
        lang = rng.choice(langs)
        docs.append(document(target, f"off-topic:{kind}", lang, write(rng, lang), None))
    for n, source in enumerate(rng.sample(OTHER_TYPES[target], NO_ANSWER // 2)):
        lang = ("de", "fr", "es")[index // 2] if n == 0 and index % 2 == 0 else "en"
        layouts = [layout for layout in LAYOUTS[source] if lang in layout.langs
                   and not (layout.personal and target in PERSON_TARGETS)]
        layout = rng.choice(layouts)
        sizes = {field: rng.choice([k for k in layout.sizes if k <= 4]) for field in LISTS[source]}
        text, _ = layout.render(Random(f"{SEED}/{target}/none/{n}"), lang, sizes)
        docs.append(document(target, f"other-type:{source}/{layout.name}", lang, text, None))
    return docs


def mark_test(rng: Random, docs: list[dict], k: int, group) -> None:
    """Move k documents to the test split, spreading them over groups; the first is non-English where one exists."""
    pool = rng.sample(docs, len(docs))
    chosen = [d for d in pool if d["lang"] != "en"][:1]
    while len(chosen) < k:
        taken = [group(d) for d in chosen]
        chosen.append(min((d for d in pool if d not in chosen), key=lambda d: taken.count(group(d))))
    for d in chosen:
        d["split"] = "test"


def build() -> list[dict]:
    """All documents, grouped by target, each group shuffled so ids tell nothing about answers or layouts."""
    out, offtopic_use = [], dict.fromkeys(OFFTOPIC, 0)
    for index, target in enumerate(LAYOUTS):
        rng = Random(f"{SEED}/{target}/split")
        found, missing = answerable(target), no_answer(target, index, offtopic_use)
        mark_test(rng, found, TEST_ANSWERABLE, lambda d: d["layout"])
        mark_test(rng, missing, TEST_NO_ANSWER, lambda d: d["layout"].split(":")[0])
        group = rng.sample(found + missing, ANSWERABLE + NO_ANSWER)
        prefix = "".join(f"-{c.lower()}" if c.isupper() else c for c in target).lstrip("-")
        for i, doc in enumerate(group, 1):
            doc["id"] = f"{prefix}-{i:03}"
        out += group
    return out


def main(out: Path = OUT) -> list[dict]:
    """Build, check and write the set; returns the documents."""
    docs = build()
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(json.dumps(doc, ensure_ascii=False) + "\n" for doc in docs)
    return docs


if __name__ == "__main__":
    written = main()
    print(f"wrote {len(written)} documents to {OUT.relative_to(HERE.parents[2])}")
