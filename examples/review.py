"""Trace extractions to their text and write a review page: each value highlighted where the text holds it.

Run: python examples/review.py [OUT.html]   (then open the page in a browser; it needs no network)
"""

import sys
from pathlib import Path

from extractor import Extractor
from extractor.review import Reviewed, reviewed, write_review
from schemas import ContactCard, Event, Invoice

DATA = Path(__file__).parent / "data"
JOBS = [("contact.txt", ContactCard), ("event.txt", Event), ("invoice.txt", Invoice), ("no_answer.txt", ContactCard)]
TITLE = "bundled examples"


def documents(extractor: Extractor) -> list[Reviewed]:
    """The bundled examples extracted with their traces, as the review page shows them (docs/review.png)."""
    out = []
    for name, target in JOBS:
        text = (DATA / name).read_text()
        traced = extractor.extract(target, text, with_trace=True)  # the result and where each value is in the text
        out.append(reviewed(name, text, traced))
    return out


def main(out: str) -> None:
    pages = documents(Extractor())
    for page in pages:
        for value in page.trace:
            where = ", ".join(repr(span.of(page.text)) for span in value.spans[:2]) or "-"
            print(f"{page.name} {value.pointer}: {value.status} {value.how} {where}")
    print(f"wrote {write_review(pages, out, TITLE)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "review.html")
