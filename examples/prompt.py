"""Prompting: the model's chat template, a compact schema description, and your own wording.

Run: python examples/prompt.py
"""

from pathlib import Path

from extractor import Extractor
from extractor.decode import PromptTemplate
from schemas import Event

TEXT = (Path(__file__).parent / "data" / "event.txt").read_text()

TEMPLATE = PromptTemplate(
    system="You read event announcements. Return JSON with these fields:\n{schema}\n"
           "Copy names, dates and places exactly as the text writes them.",
    retry="Your JSON was rejected:\n{errors}\nReturn the corrected JSON.",
)


def main() -> None:
    extractor = Extractor(template=TEMPLATE)
    print(extractor.prompt(Event, TEXT)[:600], "...\n")  # what the model sees: its chat template around both messages
    print(extractor.extract(Event, TEXT, max_tokens=200).model_dump_json(indent=2))


if __name__ == "__main__":
    main()
