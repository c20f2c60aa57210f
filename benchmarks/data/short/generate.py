"""Write documents.jsonl, short texts (one to three sentences) paired with bare targets, answerable and not.

Run from the repository root:  .venv/bin/python benchmarks/data/short/generate.py
Standard library and pydantic only, seeded with a fixed string, so every run writes the same bytes. Each text
family says which targets it holds and which it plainly lacks; a family is paired only with those (a pair that a
careful reader could argue either way is never made).
"""

from __future__ import annotations

import json
from pathlib import Path
from random import Random

from pydantic import BaseModel

HERE = Path(__file__).resolve().parent
OUT = HERE / "documents.jsonl"
SEED = "extractor-short-v1"
ANSWERABLE, NO_ANSWER = 12, 2
"""Texts drawn per family and target pair (a pair that holds the target, one that lacks it); they alternate between
the dev and the test split."""


class Person(BaseModel):
    name: str
    age: int
    occupation: str


class Company(BaseModel):
    name: str
    city: str
    employees: int


class Event(BaseModel):
    name: str
    date: str
    location: str


class Product(BaseModel):
    name: str
    brand: str
    price: float


class Invoice(BaseModel):
    number: str
    total: float
    customer: str


class Book(BaseModel):
    title: str
    author: str
    year: int


class Flight(BaseModel):
    airline: str
    flight_number: str
    destination: str


class Address(BaseModel):
    street: str
    city: str
    postcode: str


TARGETS = {m.__name__: m for m in (Person, Company, Event, Product, Invoice, Book, Flight, Address)}

FIRST = ["Maria", "Jonas", "Aiko", "Samuel", "Priya", "Lars", "Fatima", "Tomás", "Grace", "Dmitri", "Chloé", "Kwame"]
LAST = ["Lopez", "Berg", "Tanaka", "Okafor", "Nair", "Lindqvist", "Haddad", "Ferreira", "Kim", "Volkov", "Moreau"]
JOBS = ["research engineer", "nurse", "carpenter", "data analyst", "primary school teacher", "pilot", "architect",
        "pharmacist", "sous-chef", "civil engineer", "librarian", "electrician"]
CITIES = ["Lyon", "Porto", "Leeds", "Graz", "Gdańsk", "Turin", "Bergen", "Valencia", "Utrecht", "Tartu"]
FIRMS = ["Acme Widgets", "Nordlicht Solar", "Bluewater Logistics", "Kestrel Analytics", "Oakridge Foods",
         "Brenner Haustechnik", "Marlow & Finch", "Tidewater Robotics", "Saffron Textiles", "Granite Peak Software"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "September", "October", "November"]


def _name(rng: Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _date(rng: Random) -> str:
    return f"{rng.randint(1, 28)} {rng.choice(MONTHS)} {rng.randint(2024, 2026)}"


def person(rng: Random) -> str:
    n, age, job = _name(rng), rng.randint(23, 67), rng.choice(JOBS)
    return rng.choice([
        f"{n}, {age}, joined the lab in {rng.choice(MONTHS)} as a {job} after six years at a robotics startup.",
        f"{n} is a {age}-year-old {job} from {rng.choice(CITIES)}.",
        f"Meet {n}: {age} years old, a {job} by trade, and a keen cyclist at weekends.",
        f"Our new {job}, {n} ({age}), starts on Monday. Please make them welcome.",
        f"At {age}, {n} has worked as a {job} for most of her adult life. She lives in {rng.choice(CITIES)}."])


def company(rng: Random) -> str:
    f, c, n = rng.choice(FIRMS), rng.choice(CITIES), rng.choice([12, 48, 240, 1300, 85, 560])
    return rng.choice([
        f"{f}, based in {c}, employs {n} people and sells to customers in nine countries.",
        f"{f} was founded in {c} in {rng.randint(1950, 2015)}. Today it has {n} employees.",
        f"With {n} staff at its {c} headquarters, {f} is the region's largest employer in its sector.",
        f"{f} ({c}) announced that its workforce has grown to {n} employees this year."])


def event(rng: Random) -> str:
    name = rng.choice(["Harbour Jazz Night", "Spring Book Fair", "Open Data Meetup", "Riverside Half Marathon",
                       "Winter Craft Market", "Autumn Film Festival"])
    place = rng.choice(["the Old Customs House", "Town Hall", "the Maritime Museum", "the Central Library"])
    return rng.choice([
        f"The {name} takes place on {_date(rng)} at {place} in {rng.choice(CITIES)}.",
        f"Join us for the {name}! {_date(rng)}, {place}, doors open at 7 pm.",
        f"Save the date: the {name} returns on {_date(rng)}. This year it moves to {place}."])


def product(rng: Random) -> str:
    brand = rng.choice(["Brenner", "Nordlys", "Kavo", "Lumina", "Arctic Oak"])
    item = rng.choice(["X2 kettle", "Trail 40 backpack", "Aero desk lamp", "Pro 5 blender", "Halo headphones"])
    price = rng.choice(["€49.90", "$129", "£34.99", "€215.00", "$18.50"])
    return rng.choice([
        f"The {brand} {item} costs {price} and comes with a two-year warranty.",
        f"Now in stock: {brand} {item}, {price}. Free delivery on orders over €50.",
        f"I bought the {item} by {brand} for {price}. It does exactly what it promises."])


def invoice(rng: Random) -> str:
    number = f"INV-{rng.randint(1000, 9999)}"
    total = rng.choice(["$1,240.00", "€318.40", "£96.00", "€4,075.50"])
    customer = rng.choice(FIRMS)
    return rng.choice([
        f"Invoice {number} for {customer}: total due {total} by {_date(rng)}.",
        f"Please find attached invoice {number}, issued to {customer}, for a total of {total}.",
        f"{customer} — invoice no. {number}. Amount payable: {total}. Thank you for your business."])


def book(rng: Random) -> str:
    title = rng.choice(["The Salt Road", "A Winter in Tartu", "Glass Harbour", "The Quiet Engine", "Paper Rivers"])
    author, year = _name(rng), rng.randint(1965, 2024)
    return rng.choice([
        f"'{title}' by {author}, published in {year}, follows three generations of a fishing family.",
        f"{author}'s novel {title} ({year}) won a regional prize the following spring.",
        f"Reading now: {title}, written by {author} and first printed in {year}."])


def flight(rng: Random) -> str:
    airline, code = rng.choice([("Lufthansa", "LH"), ("KLM", "KL"), ("Iberia", "IB"), ("SAS", "SK"),
                                ("TAP Air Portugal", "TP")])
    number, dest = f"{code} {rng.randint(100, 1999)}", rng.choice(CITIES)
    return rng.choice([
        f"Flight {number} with {airline} leaves at 07:15 for {dest}.",
        f"Your booking is confirmed: {airline} flight {number} to {dest}, seat 14C.",
        f"{airline} {number} to {dest} is delayed by forty minutes. Boarding now at gate B12."])


def address(rng: Random) -> str:
    street = rng.choice(["14 Rue des Lilas", "27 Harbour Street", "Keizersgracht 112", "8 Mill Lane",
                         "Via Roma 45"])
    postcode = rng.choice(["69003", "LS1 4AP", "1015 CJ", "10121", "5003"])
    city = rng.choice(CITIES)
    return rng.choice([
        f"Send the signed forms to {street}, {postcode} {city}.",
        f"We have moved! Our new address is {street}, {city} {postcode}.",
        f"Deliveries go to the back entrance at {street}, {postcode} {city}, before noon."])


def weather(rng: Random) -> str:
    c = rng.choice(CITIES)
    return rng.choice([
        f"{c}: rain through Tuesday, 4-7 °C, winds from the south-west. Snow above 800 m.",
        f"Expect a dry, bright morning in {c} before clouds build from the west. Highs of 18 °C.",
        "Fog will linger along the coast until midday. Showers move inland in the afternoon."])


def nothing(rng: Random) -> str:
    return rng.choice([
        "Whisk the eggs with a pinch of salt, then fold in the flour until no streaks remain.",
        "The river was low that summer, and the stones along its bed turned white in the sun.",
        "A square has four equal sides. Its diagonals cross at right angles.",
        "Water the tomatoes in the evening, never at noon, and pinch out the side shoots.",
        "Honey never spoils. Sealed jars found in old tombs were still edible.",
        "The wind moved through the tall grass like a hand through hair. Somewhere a gate creaked.",
        "Slow down, breathe in, and let the thought pass. Then begin again.",
        "Octopuses have three hearts and blue blood. Two of the hearts stop when they swim."])


ALL = set(TARGETS)
FAMILIES = {  # family -> (writer, targets it holds, targets it plainly lacks)
    "person": (person, {"Person"}, {"Invoice", "Book", "Flight", "Address", "Event", "Product"}),
    "company": (company, {"Company"}, {"Person", "Book", "Flight", "Invoice", "Event", "Address"}),
    "event": (event, {"Event"}, {"Person", "Invoice", "Book", "Flight", "Product", "Company"}),
    "product": (product, {"Product"}, {"Person", "Invoice", "Book", "Flight", "Event", "Address"}),
    "invoice": (invoice, {"Invoice"}, {"Person", "Book", "Flight", "Event", "Address"}),
    "book": (book, {"Book"}, {"Invoice", "Flight", "Event", "Product", "Company", "Address"}),
    "flight": (flight, {"Flight"}, {"Person", "Book", "Invoice", "Product", "Address", "Event"}),
    "address": (address, {"Address"}, {"Person", "Book", "Flight", "Invoice", "Product", "Event", "Company"}),
    "weather": (weather, set(), ALL - {"Address"}),
    "nothing": (nothing, set(), ALL),
}


def documents() -> list[dict]:
    """Every (family, target) pair the families allow, distinct texts each, alternating between the splits."""
    rng, docs = Random(SEED), []
    for family, (write, holds, lacks) in FAMILIES.items():
        for target in sorted(holds | lacks):
            seen: set[str] = set()
            wanted = ANSWERABLE if target in holds else NO_ANSWER
            for _ in range(wanted * 20):
                if len(seen) == wanted:
                    break
                text = write(rng)
                if text in seen:
                    continue
                seen.add(text)
                docs.append({"id": f"short-{family}-{target.lower()}-{len(seen)}",
                             "split": "dev" if len(seen) % 2 else "test", "target": target,
                             "schema": TARGETS[target].model_json_schema(), "answerable": target in holds,
                             "family": family, "text": text})
    return docs


def main(out: Path = OUT) -> None:
    docs = documents()
    out.write_text("".join(json.dumps(d, ensure_ascii=False, sort_keys=True) + "\n" for d in docs),
                   encoding="utf-8")
    print(f"{len(docs)} texts ({sum(d['answerable'] for d in docs)} answerable) -> {out}")


if __name__ == "__main__":
    main()
