"""Trace extractions to their text and write a review page: each value highlighted where the text holds it.

Run: python examples/review.py [OUT.html]   (then open the page in a browser; it needs no network)
"""

import sys
from pathlib import Path

from extractor import Extractor
from extractor.review import reviewed, write_review
from schemas import ContactCard, Event, Invoice

DATA = Path(__file__).parent / "data"
JOBS = [("contact.txt", ContactCard), ("event.txt", Event), ("invoice.txt", Invoice), ("no_answer.txt", ContactCard)]


def main(out: str) -> None:
    extractor = Extractor()
    documents = []
    for name, target in JOBS:
        text = (DATA / name).read_text()
        traced = extractor.extract(target, text, with_trace=True)  # the result and where each value is in the text
        for value in traced.trace:
            where = ", ".join(repr(span.of(text)) for span in value.spans[:2]) or "-"
            print(f"{name} {value.pointer}: {value.status} {value.how} {where}")
        documents.append(reviewed(name, text, traced))
    print(f"wrote {write_review(documents, out, 'bundled examples')}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "review.html")
