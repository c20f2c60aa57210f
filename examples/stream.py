"""Streaming: partial objects as top-level fields complete, then the validated result.

Run: python examples/stream.py
"""

from pathlib import Path

from extractor import Extractor
from schemas import ContactCard

TEXT = (Path(__file__).parent / "data" / "contact.txt").read_text()


def main() -> None:
    extractor = Extractor()
    for partial in extractor.extract_stream(ContactCard, TEXT, max_tokens=300):
        print(sorted(partial.model_fields_set), "->", type(partial).__name__)
    print(partial.model_dump_json(indent=2))  # the last one is validated


if __name__ == "__main__":
    main()
