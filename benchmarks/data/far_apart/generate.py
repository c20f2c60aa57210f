"""Long documents whose facts are each stated once, far apart, inside real contract text that also writes values of
the same types (dates, numbers of days, amounts, company and place names): a services contract, a project brief and
a lease, drawn from a seed. The dev and test splits use different seeds and different wordings of every sentence.

usage: python benchmarks/data/far_apart/generate.py   (writes dev.jsonl and test.jsonl beside this file)
"""

from __future__ import annotations

import datetime
import json
import random
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from benchmarks.data.quality.pools import COMPANIES, NAMES  # noqa: E402
from benchmarks.needle import haystack_lines  # noqa: E402


class Contract(BaseModel):
    """A services contract: who provides, who receives, when it starts, how it ends, which law governs it."""

    provider: str | None = Field(default=None, description="Company that provides the services; null if not stated")
    client: str | None = Field(default=None, description="Company that receives the services; null if not stated")
    effective_date: datetime.date | None = Field(
        default=None, description="Date the contract takes effect, as YYYY-MM-DD; null if not stated")
    notice_days: int | None = Field(
        default=None, description="Days of written notice a party must give to terminate; null if not stated")
    governing_law: str | None = Field(
        default=None, description="State or country whose law governs the contract; null if not stated")


class Brief(BaseModel):
    """A project brief: who commissioned the project, what it may cost and when it must be delivered."""

    client: str | None = Field(default=None, description="Company that commissioned the project; null if not stated")
    budget_usd: int | None = Field(default=None, description="Total budget of the project in US dollars; null if not "
                                                             "stated")
    deadline: datetime.date | None = Field(
        default=None, description="Date the project must be delivered by, as YYYY-MM-DD; null if not stated")


class Lease(BaseModel):
    """A lease: who lets, who rents, the monthly rent and how long it runs."""

    landlord: str | None = Field(default=None, description="Person who lets the property; null if not stated")
    tenant: str | None = Field(default=None, description="Person who rents the property; null if not stated")
    monthly_rent: int | None = Field(default=None, description="Rent per month in dollars; null if not stated")
    term_months: int | None = Field(default=None, description="How many months the lease runs; null if not stated")


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
PLACES = ("England and Wales", "New York", "Delaware", "Ontario", "Bavaria", "New South Wales", "Scotland",
          "California", "Ireland", "Texas")
COMPETING = re.compile(r"govern|laws? of|notice|terminat|between|entered into|effective|dated as of|made as of|"
                       r"budget|deadline|\brent|landlord|tenant|lease|\bterm\b|commission", re.IGNORECASE)
"""Filler lines that state a fact of the same kind as a generated one (another contract's parties, law, notice
period, ...) are left out: a reader could not tell which statement is the document's."""


@dataclass(frozen=True)
class Kind:
    """A kind of document: its target, where each fact sentence stands (a fraction of the text; 0 opens it) with
    the fields it states, each split's wording of them, and each split's decoy sentences."""

    target: type[BaseModel]
    places: tuple[tuple[float, tuple[str, ...]], ...]
    wording: dict[str, tuple[str, ...]]
    decoys: dict[str, tuple[str, ...]]


KINDS = {
    "contract": Kind(Contract, ((0.0, ("provider", "client", "effective_date")), (0.5, ("governing_law",)),
                                (0.92, ("notice_days",))), {
        "dev": ("SERVICES AGREEMENT\nThis Services Agreement is made on {effective_date} between {provider} (the "
                "\"Provider\") and {client} (the \"Client\").",
                "Governing law. This Agreement and any dispute arising from it are governed by the laws of "
                "{governing_law}.",
                "Termination. Either party may end this Agreement by giving the other {notice_days} days' written "
                "notice."),
        "test": ("MASTER SERVICES CONTRACT\nThis contract, dated {effective_date}, is entered into by {provider} "
                 "(\"Supplier\") and {client} (\"Customer\").",
                 "Applicable law. The laws of {governing_law} govern this contract and its interpretation.",
                 "Ending the contract. Either party may terminate this contract on not less than {notice_days} days' "
                 "prior written notice to the other.")},
        {"dev": ("Schedule 2 was last revised on {date}.", "Invoices are payable within {days} days of receipt.",
                 "Records are kept for {days} days after each delivery.",
                 "{company} hosts the Provider's systems in {place}.", "A review meeting was held on {date}."),
         "test": ("The price list attached was updated on {date}.", "Each invoice falls due {days} days after it "
                  "is issued.", "{company}, a subcontractor based in {place}, keeps backups for {days} days.",
                  "The last audit took place on {date}.")}),
    "brief": Kind(Brief, ((0.0, ("client",)), (0.5, ("budget_usd",)), (0.92, ("deadline",))), {
        "dev": ("PROJECT BRIEF\nThis brief describes the platform redesign ordered by our client, {client}.",
                "Budget. The total budget for the project is {budget_usd} US dollars.",
                "Deadline. All deliverables must be handed over by {deadline}."),
        "test": ("STATEMENT OF WORK\nPrepared for {client}, who ordered the data migration described below.",
                 "Cost. The project may cost no more than {budget_usd} US dollars in total.",
                 "Delivery. The finished system is due on {deadline}.")},
        {"dev": ("A first draft of this brief was circulated on {date}.", "{company} quoted {amount} US dollars "
                 "for hosting alone.", "The kick-off call took place on {date}.", "{company} reviewed the earlier "
                 "proposal."),
         "test": ("The request for proposals closed on {date}.", "Licences cost {amount} US dollars a year, paid "
                  "by {company}.", "A workshop was held on {date} with {company}.")}),
    "lease": Kind(Lease, ((0.0, ("landlord", "tenant")), (0.5, ("monthly_rent",)), (0.92, ("term_months",))), {
        "dev": ("RESIDENTIAL LEASE\nThis lease is made by {landlord} (the \"Landlord\") with {tenant} (the "
                "\"Tenant\").",
                "Rent. The Tenant shall pay a monthly rent of {monthly_rent} dollars on the first day of each month.",
                "Duration. The lease runs for {term_months} months from the date of possession."),
        "test": ("TENANCY AGREEMENT\n{landlord}, the owner, lets the flat described below to {tenant}, the "
                 "occupier.",
                 "Payment. The occupier pays {monthly_rent} dollars for each month of the tenancy.",
                 "Length. The tenancy lasts {term_months} months.")},
        {"dev": ("A deposit of {amount} dollars was paid on {date}.", "{person} inspected the flat on {date}.",
                 "Repairs must be reported within {days} days.", "The building was last renovated {months} months "
                 "ago."),
         "test": ("{person} holds a spare key since {date}.", "The service charge of {amount} dollars is billed "
                  "yearly.", "Heating is serviced every {months} months.")}),
}


def _date(rng: random.Random) -> tuple[str, str]:
    day = datetime.date(rng.randrange(2015, 2027), rng.randrange(1, 13), rng.randrange(1, 29))
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}", day.isoformat()


def _person(rng: random.Random) -> tuple[str, str]:
    first, last = NAMES[rng.choice(sorted(NAMES))]
    name = f"{rng.choice(first)} {rng.choice(last)}"
    return name, name


def _amount(rng: random.Random, low: int, high: int, step: int) -> tuple[str, int]:
    value = rng.randrange(low, high, step)
    return f"{value:,}", value


DRAWS = {
    "date": _date, "effective_date": _date, "deadline": _date, "person": _person, "landlord": _person,
    "tenant": _person, "company": lambda r: (r.choice(COMPANIES)[0],) * 2, "place": lambda r: (r.choice(PLACES),) * 2,
    "governing_law": lambda r: (r.choice(PLACES),) * 2, "days": lambda r: (str(v := r.choice((7, 10, 14, 21, 45))), v),
    "notice_days": lambda r: (str(v := r.choice((30, 60, 90, 120, 180))), v),
    "amount": lambda r: _amount(r, 500, 20_000, 50), "budget_usd": lambda r: _amount(r, 25_000, 400_000, 500),
    "monthly_rent": lambda r: _amount(r, 800, 4_000, 25), "months": lambda r: (str(v := r.randrange(3, 40)), v),
    "term_months": lambda r: (str(v := r.choice((6, 12, 18, 24, 36))), v),
}
"""Each placeholder's draw: (as the text writes it, the gold value). Decoys draw `date`, `days`, `amount`, ...; the
facts draw their own fields."""
DRAWS["provider"] = DRAWS["client"] = DRAWS["company"]


@lru_cache(maxsize=1)
def filler_lines() -> tuple[str, ...]:
    """The needle benchmark's haystack lines (Kleister-NDA train contracts) without those stating a fact of a
    generated kind (`COMPETING`) and without blank lines."""
    return tuple(line for line in haystack_lines() if line.strip() and not COMPETING.search(line))


def _filled(template: str, values: dict[str, tuple[str, Any]], rng: random.Random) -> tuple[str, dict[str, int]]:
    """`template` written, and where in it each fact's value starts: a fact's placeholder from `values`, a decoy's
    drawn anew until it differs from every fact's."""
    taken = {written for written, _ in values.values()}
    out, starts, last = [], {}, 0
    for match in re.finditer(r"\{(\w+)\}", template):
        name = match.group(1)
        out.append(template[last:match.start()])
        if name in values:
            starts[name], drawn = sum(map(len, out)), values[name][0]
        else:
            while (drawn := DRAWS[name](rng)[0]) in taken:
                pass
        out.append(drawn)
        last = match.end()
    return "".join(out) + template[last:], starts


def document(kind: str, split: str, length: int, seed: str) -> dict[str, Any]:
    """One document of `kind`, about `length` characters: its text, its gold and where each fact's value stands."""
    rng, spec = random.Random(seed), KINDS[kind]
    fields = [f for _, names in spec.places for f in names]
    values = {f: DRAWS[f](rng) for f in fields}
    while len({values[f][0] for f in fields}) < len(fields):  # two facts written alike could not be told apart
        values = {f: DRAWS[f](rng) for f in fields}
    facts = [_filled(t, values, rng) for t in spec.wording[split]]
    lines, size, body = filler_lines(), sum(len(f) + 2 for f, _ in facts), []
    at = rng.randrange(len(lines))
    while size < length - 200 or len(body) < 2:  # decoys go between filler lines
        body.append(lines[at % len(lines)])
        size, at = size + len(body[-1]) + 1, at + 1
    for _ in range(max(4, length // 4000)):
        body.insert(rng.randrange(1, len(body)), _filled(rng.choice(spec.decoys[split]), values, rng)[0])
    marks = [f"\x00{i}\x00" for i in range(len(facts))]
    for (place, _), mark in sorted(zip(spec.places, marks), key=lambda p: -p[0][0]):
        cut = min(len(body), max(0, round((place + (rng.uniform(-0.05, 0.05) if place else 0)) * len(body))))
        body[cut:cut] = ["", mark, ""]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(body)).strip("\n")
    where: dict[str, list[int]] = {}
    for mark, (fact, starts) in zip(marks, facts):
        at = text.index(mark)
        text = text.replace(mark, fact)
        where.update({f: [at + s, at + s + len(values[f][0])] for f, s in starts.items()})
    return {"kind": kind, "text": text, "gold": {f: values[f][1] for f in fields}, "facts": where}


SPLITS = {"dev": ("dev", (20_000, 40_000), 2), "test": ("test", (20_000, 40_000), 2)}
"""Each split: its seed, the lengths drawn, and how many documents of each kind and length."""


def split(name: str) -> list[dict[str, Any]]:
    """A split's documents, each kind at each length, in a fixed order; each drawn from its own seed."""
    seed, lengths, count = SPLITS[name]
    return [{"id": f"{kind}-{length // 1000}k-{i}", **document(kind, name, length, f"{seed}:{kind}:{length}:{i}")}
            for length in lengths for i in range(count) for kind in KINDS]


def main() -> None:
    for name in SPLITS:
        rows = split(name)
        (HERE / f"{name}.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        print(f"{name}: {len(rows)} documents, {sum(len(r['text']) for r in rows):,} characters")


if __name__ == "__main__":
    main()
