"""Writing conventions for generate.py: names, e-mails, phones, addresses, dates, times, money and OCR damage."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from random import Random
from typing import Callable

from pools import MAIL_PROVIDERS, NAMES, Country

MONTHS = {
    "en": ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"],
    "de": ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November",
           "Dezember"],
    "fr": ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre",
           "décembre"],
    "es": ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre",
           "noviembre", "diciembre"],
}
WEEKDAYS = {
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "de": ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
    "fr": ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
    "es": ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
}
NUMERIC_DATES = {"us", "uk", "num", "short"}
AND = {"en": "and", "de": "und", "fr": "et", "es": "y"}


def join(*parts: str | None) -> str:
    """Lines of a document; None leaves a part out (an absent optional field)."""
    return "\n".join(p for p in parts if p is not None)


def period(sentence: str) -> str:
    """End a sentence with one full stop, also after a name like 'Thistle Print Co.'."""
    return sentence if sentence.endswith(".") else f"{sentence}."


def series(items: list[str], lang: str) -> str:
    """'a, b and c' in the document's language."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {AND[lang]} {items[-1]}"


# --- people and places ---------------------------------------------------------------------------------------------

def person(rng: Random, cultures: list[str] | None = None) -> tuple[str, str]:
    """A first and last name from one culture."""
    firsts, lasts = NAMES[rng.choice(cultures or list(NAMES))]
    return rng.choice(firsts), rng.choice(lasts)


def ascii_slug(text: str) -> str:
    """The ASCII spelling e-mail addresses use for a name: Müller -> mueller, José -> jose, de Vries -> devries."""
    text = text.lower().translate(str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ı": "i", "ł": "l",
                                                 "ø": "o", " ": "", "'": ""}))
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def email(rng: Random, first: str, last: str, domain: str | None = None) -> str:
    """A work address at `domain`, or else a personal one at a mail provider."""
    f, l = ascii_slug(first), ascii_slug(last)
    if domain:
        return f"{rng.choice([f'{f}.{l}', f'{f[0]}.{l}', f, f'{f}{l[0]}'])}@{domain}"
    local = rng.choice([f"{f}.{l}", f"{f}{l}", f"{f}_{l}", f"{f}.{l}{rng.randint(70, 99)}", f"{f[0]}{l}"])
    return f"{local}@{rng.choice(MAIL_PROVIDERS)}"


def phone(rng: Random, country: Country) -> str:
    """A number in one of the country's usual written forms."""
    return re.sub("#", lambda _: str(rng.randint(0, 9)), rng.choice(country.phones))


def address(rng: Random, country: Country, lang: str) -> dict:
    """A postal address as the schemas hold it; the country named in the document's language."""
    city, postal, _ = rng.choice(country.cities)
    street = rng.choice(country.streets).format(n=rng.randint(1, 120))
    return {"street": street, "city": city, "postal_code": postal, "country": country.names[lang]}


def address_lines(addr: dict, country: Country) -> list[str]:
    """The address lines in the country's order: 'Torstraße 4 / 10115 Berlin', '12 Old Street / London EC1V 9HX'."""
    region = next(r for c, p, r in country.cities if c == addr["city"])
    place = {"eu": f"{addr['postal_code']} {addr['city']}", "fr": f"{addr['postal_code']} {addr['city']}",
             "uk": f"{addr['city']} {addr['postal_code']}",
             "us": f"{addr['city']}, {region} {addr['postal_code']}"}[country.address]
    return [addr["street"], place, addr["country"]]


# --- dates and times -----------------------------------------------------------------------------------------------

def rand_date(rng: Random, first_year: int, last_year: int) -> dt.date:
    """A day between the two years (days 1-28, so every month has it)."""
    return dt.date(rng.randint(first_year, last_year), rng.randint(1, 12), rng.randint(1, 28))


def date_text(rng: Random, d: dt.date, lang: str, styles: tuple[str, ...] | None = None) -> str:
    """The date as people writing `lang` do; all-numeric forms only when the day cannot be read as a month."""
    month, weekday = MONTHS[lang][d.month - 1], WEEKDAYS[lang][d.weekday()]
    forms = {
        "en": {"long": f"{month} {d.day}, {d.year}", "dmy": f"{d.day} {month} {d.year}",
               "abbr": f"{month[:3]} {d.day}, {d.year}", "weekday": f"{weekday}, {month} {d.day}, {d.year}",
               "us": f"{d:%m/%d/%Y}", "uk": f"{d:%d/%m/%Y}"},
        "de": {"long": f"{d.day}. {month} {d.year}", "weekday": f"{weekday}, {d.day}. {month} {d.year}",
               "num": f"{d:%d.%m.%Y}", "short": f"{d:%d.%m.%y}"},
        "fr": {"long": f"{'1er' if d.day == 1 else d.day} {month} {d.year}",
               "weekday": f"{weekday} {'1er' if d.day == 1 else d.day} {month} {d.year}", "num": f"{d:%d/%m/%Y}"},
        "es": {"long": f"{d.day} de {month} de {d.year}", "weekday": f"{weekday}, {d.day} de {month} de {d.year}",
               "num": f"{d:%d/%m/%Y}"},
    }[lang] | {"iso": d.isoformat()}
    # by default no two-digit years (receipts ask for them) and ISO dates only in English documents
    styles = styles or [s for s in forms if s != "short" and (s != "iso" or lang == "en")]
    usable = [s for s in styles if s in forms and (s not in NUMERIC_DATES or d.day > 12)]
    return forms[rng.choice(usable or ["iso"])]


def time_text(rng: Random, hhmm: str, lang: str) -> str:
    """'18:30' as written in `lang`: 6:30 pm, 18.30 Uhr, 18h30, 18:30 h."""
    h, m = map(int, hhmm.split(":"))
    twelve = f"{(h - 1) % 12 + 1}{'' if m == 0 and rng.random() < 0.5 else f':{m:02}'}"
    return rng.choice({
        "en": [hhmm, f"{twelve} {'pm' if h >= 12 else 'am'}", f"{twelve} {'PM' if h >= 12 else 'AM'}"],
        "de": [f"{hhmm} Uhr", f"{h}.{m:02} Uhr"],
        "fr": [f"{h}h{m:02}", f"{h} h {m:02}"],
        "es": [f"{hhmm} h", f"{h}.{m:02} h"],
    }[lang])


def rand_time(rng: Random, first_hour: int, last_hour: int, step: int = 1) -> str:
    """An HH:MM time in the given hours, minutes a multiple of `step`."""
    return f"{rng.randint(first_hour, last_hour):02}:{rng.randrange(0, 60, step):02}"


# --- money ---------------------------------------------------------------------------------------------------------
# Amounts are whole cents (yen for JPY, times 100), so totals add up exactly; the gold holds cents / 100.

def cents(price: float, currency: str) -> int:
    """A pool price in cents; pool prices are in euro/dollar units, so yen prices are a hundred times larger."""
    return round(price * 100) * (100 if currency == "JPY" else 1)


def nice_price(rng: Random, low: float, high: float, currency: str) -> int:
    """A price between low and high, rounded the way price lists round (495.00, 89.50, 4.99)."""
    value = rng.uniform(low, high)
    step = 5 if value >= 100 else 0.5 if value >= 10 else 0.01
    return cents(round(round(value / step) * step, 2), currency)


SEPARATORS = {"en": (",", "."), "de": (".", ","), "es": (".", ","), "fr": (" ", ",")}  # thousands, decimal


def count(n: int, lang: str) -> str:
    """A whole number with the language's thousands separator: 1,200 / 1.200 / 1 200."""
    return f"{n:,}".replace(",", SEPARATORS[lang][0])


def amount(c: int, currency: str, lang: str, decimals: bool = True) -> str:
    """The number alone: 1,234.50 (en), 1.234,50 (de, es), 1 234,50 (fr), 1'234.50 (CHF), 12,800 (yen)."""
    whole, frac = divmod(c, 100)
    thousands, decimal = ("'", ".") if currency == "CHF" else SEPARATORS[lang]
    digits = f"{whole:,}".replace(",", thousands)
    return f"{digits}{decimal}{frac:02}" if decimals and currency != "JPY" else digits


SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$"}


def money(rng: Random, currency: str, lang: str, decimals: bool = True) -> Callable[[int], str]:
    """A formatter that writes amounts one way throughout a document: $1,234.50, 1.234,50 €, EUR 1,234.50."""
    symbol = SYMBOLS.get(currency) if rng.random() < 0.75 else None
    code_first = rng.random() < 0.5

    def write(c: int) -> str:
        number = amount(c, currency, lang, decimals)
        if symbol:
            return f"{symbol}{number}" if lang == "en" else f"{number} {symbol}"
        return f"{currency} {number}" if code_first else f"{number} {currency}"
    return write


# --- scanner damage ------------------------------------------------------------------------------------------------
# An OCR layout wraps every value a reader must recover in keep(); ocr_noise damages only the words between them.

OPEN, CLOSE = "\x02", "\x03"
LOOKALIKES = [("o", "0"), ("O", "0"), ("l", "1"), ("I", "l"), ("e", "c"), ("S", "5"), ("B", "8"), ("m", "rn"),
              ("rn", "m"), ("h", "b"), ("cl", "d"), ("i", "í")]


def columns(left: str, right: str, width: int = 34) -> str:
    """A receipt row: left text, right-aligned amount; kept-value marks take no room."""
    room = width - sum(len(t.replace(OPEN, "").replace(CLOSE, "")) for t in (left, right))
    return f"{left}{' ' * max(2, room)}{right}"


def keep(value: object) -> str:
    """Mark a value that OCR noise must leave exactly as it is."""
    return f"{OPEN}{value}{CLOSE}"


def _misread(rng: Random, word: str, rate: float) -> str:
    """Sometimes one look-alike swap (o->0, l->1, rn->m, ...) or a hyphenated break inside the word."""
    if rng.random() > rate:
        return word
    if len(word) >= 8 and rng.random() < 0.25:  # a hyphenated line break
        cut = rng.randint(3, len(word) - 3)
        return f"{word[:cut]}-\n{word[cut:]}"
    swaps = [(a, b) for a, b in LOOKALIKES if a in word]
    if not swaps:
        return word
    a, b = rng.choice(swaps)
    at = rng.choice([i for i in range(len(word)) if word.startswith(a, i)])
    return word[:at] + b + word[at + len(a):]


def ocr_noise(rng: Random, text: str, rate: float = 0.2) -> str:
    """Scanner damage around the kept values: look-alike letters, split words and lines, doubled spaces."""
    out = []
    for part in re.split(f"({OPEN}.*?{CLOSE})", text, flags=re.S):
        if part.startswith(OPEN):
            out.append(part[1:-1])
            continue
        part = re.sub(r"[A-Za-z]{4,}", lambda m: _misread(rng, m.group(), rate), part)
        out.append(re.sub(r"(?<=\S) (?=\S)", lambda _: rng.choices([" ", "  ", "\n"], [90, 7, 3])[0], part))
    return "".join(out)
