"""Refusal and grounding: what happens when the text holds no answer.

Run: python examples/refusal.py
"""

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field

from extractor import Extractor, Refusal, UnsatisfiableSchemaError, Verbatim, trace

DATA = Path(__file__).parent / "data"
CONTACT, RECIPE = (DATA / "contact.txt").read_text(), (DATA / "no_answer.txt").read_text()


class Contact(BaseModel):
    name: str
    email: str


class GroundedContact(BaseModel):
    name: Annotated[str, Verbatim]  # only a substring of the text can be written here
    email: Annotated[str, Verbatim, Field(pattern=r"^[^@\s]+@[^@\s]+\.[a-z]+$")]  # ...that is also an email


def show(label: str, result: object, text: str) -> None:
    if isinstance(result, Refusal):  # the refusal branch: handle it like any other outcome
        print(f"{label}: declined: {result.error}")
    else:
        print(f"{label}: {result!r}; not in the text: {[v.pointer for v in trace(result, text).not_found]}")


def main() -> None:
    extractor = Extractor()
    show("contact card, grounded", extractor.extract(GroundedContact, CONTACT, max_tokens=80), CONTACT)
    # no substring of a recipe is an email: the refusal branch is the only thing left to write
    show("recipe, grounded", extractor.extract(GroundedContact, RECIPE, max_tokens=80), RECIPE)
    # without the refusal branch an answer is forced; written freely (not copied), its trace points at the invention
    show("recipe, plain, refusal=False", extractor.extract(Contact, RECIPE, refusal=False, verbatim="marked",
                                                            max_tokens=80), RECIPE)
    try:
        extractor.extract(GroundedContact, RECIPE, refusal=False)
    except UnsatisfiableSchemaError as err:
        print("recipe, grounded, refusal=False:", err)


if __name__ == "__main__":
    main()
