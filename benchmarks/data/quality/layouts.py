"""Document templates for generate.py: per target, layout families that each render a text and the gold it holds.

A render function takes (rng, lang, sizes) -- sizes gives the length of each list field -- and returns
(text, gold) with gold a plain dict in the target schema's shape. Every string the gold holds is copied from
the text; dates, times, amounts, currencies and enum values are normalized from how the text writes them.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from random import Random
from typing import Callable

from pools import (COMPANIES, COUNTRIES, EVENT_ORGANIZERS, EVENT_TITLES, GOODS, LANG_COUNTRIES, LOCAL, MERCHANTS,
                   OTHER_EVENTS, PROFESSIONS, SERVICES, SERVICES_LOCAL, TOPICS, UNIVERSITIES, VENUES)
from text import (MONTHS, SYMBOLS, address, address_lines, amount, ascii_slug, cents, columns, count, date_text, email,
                  join, keep, money, nice_price, ocr_noise, period, person, phone, rand_date, rand_time, series,
                  time_text)

ALL_LANGS = ("en", "de", "fr", "es")


@dataclass(frozen=True)
class Layout:
    """A template family: its renderer, the languages and list sizes it suits, and if it names a reachable person."""

    name: str
    render: Callable[[Random, str, dict], tuple[str, dict]]
    langs: tuple[str, ...] = ("en",)
    sizes: range = range(11)
    personal: bool = False


def country_for(rng: Random, lang: str):
    """A country where documents are written in `lang` (for English: any of the pool's countries)."""
    return COUNTRIES[rng.choice(LANG_COUNTRIES[lang])]


def company(rng: Random, country_codes: list[str] | None = None, industries=None, exclude=()) -> tuple:
    """A company from the pool, optionally from given countries and industries."""
    return rng.choice([c for c in COMPANIES if (not country_codes or c[2] in country_codes)
                       and (not industries or c[3] in industries) and c not in exclude])


# ======================================================================================================= Resume

RESUME_WORDS = {
    "en": dict(cv="Curriculum Vitae", email="Email", phone="Phone", location="Location", profile="Profile",
               skills="Skills", jobs="Work experience", edu="Education", now="present", period="Period",
               employer="Employer", position="Position", year="Year", degree="Degree", school="Institution"),
    "de": dict(cv="Lebenslauf", email="E-Mail", phone="Telefon", location="Wohnort", profile="Profil",
               skills="Kenntnisse", jobs="Berufserfahrung", edu="Ausbildung", now="heute", period="Zeitraum",
               employer="Arbeitgeber", position="Position", year="Jahr", degree="Abschluss", school="Hochschule"),
    "fr": dict(cv="Curriculum vitae", email="E-mail", phone="Téléphone", location="Ville", profile="Profil",
               skills="Compétences", jobs="Expérience professionnelle", edu="Formation", now="aujourd'hui",
               period="Période", employer="Employeur", position="Poste", year="Année", degree="Diplôme",
               school="Établissement"),
    "es": dict(cv="Currículum vítae", email="Correo electrónico", phone="Teléfono", location="Ciudad",
               profile="Perfil", skills="Habilidades", jobs="Experiencia profesional", edu="Formación",
               now="actualidad", period="Periodo", employer="Empresa", position="Puesto", year="Año",
               degree="Título", school="Centro"),
}


def employers(rng: Random, industries: tuple, n: int) -> list[tuple]:
    """n distinct companies of the profession's industries (others only if there are too few)."""
    fitting = [c for c in COMPANIES if not industries or c[3] in industries]
    picked = rng.sample(fitting, min(n, len(fitting)))
    return picked + rng.sample([c for c in COMPANIES if c not in picked], n - len(picked))


def resume_facts(rng: Random, lang: str, sizes: dict) -> tuple[dict, dict]:
    """A person with a consistent career: jobs newest first, degrees (a plausible path) before the first job."""
    prof = PROFESSIONS[rng.choice(list(PROFESSIONS))] if lang == "en" else LOCAL[lang]
    first, last = person(rng) if lang == "en" else rng.choice(prof.people)
    country = country_for(rng, lang)
    city = rng.choice(country.cities)[0]
    n, titles = sizes["experience"], prof.titles
    current = rng.random() < 0.6
    year = 2025 if current else 2025 - rng.randint(0, 2)
    top = min(len(titles) - 1, (n + 1) // 2)
    jobs = []
    for i, employer in enumerate(employers(rng, prof.industries, n)):
        start = year - rng.randint(1, 3 if n > 5 else 4)
        jobs.append({"company": employer[0], "title": titles[max(0, top - i // 2)], "start_year": start,
                     "end_year": None if i == 0 and current else year})
        year = start - rng.choice([0, 0, 1])
    year = year - rng.randint(0, 1) if jobs else rng.randint(2023, 2025)
    home = LANG_COUNTRIES[lang][0] if lang in ("fr", "es") else country.code
    schools = UNIVERSITIES[home if lang != "en" or rng.random() < 0.7 else rng.choice(list(UNIVERSITIES))]
    education = []
    for degree in reversed(prof.degrees[:rng.choice([0, 1, 1, 1, 2, 2, 3])]):
        education.append({"degree": degree, "institution": rng.choice(schools),
                          "graduation_year": year if rng.random() < 0.85 else None})
        year -= rng.randint(2, 3)
    years = 2025 - jobs[-1]["start_year"] if jobs else 0
    if lang != "en":
        summary = prof.summary.format(title=titles[top], years=years) if years >= 2 else \
            prof.fresh_summary if not jobs else None
    elif years >= 2:
        now = f", currently {jobs[0]['title']} at {jobs[0]['company']}" if current else ""
        summary = rng.choice([f"{titles[top]} with {years} years of experience in {prof.area}.",
                              period(f"{years} years in {prof.area}{now}"),
                              f"Hands-on {prof.area} professional who likes to turn messy problems into simple "
                              "processes."])
    else:
        summary = f"Recent graduate looking for a first role in {prof.area}." if not jobs else None
    gold = {
        "name": f"{first} {last}",
        "email": email(rng, first, last),
        "phone": phone(rng, country) if rng.random() < 0.75 else None,
        "location": rng.choice([city, f"{city}, {country.names[lang]}"]) if rng.random() < 0.8 else None,
        "summary": summary if rng.random() < 0.7 else None,
        "skills": rng.sample(prof.skills, sizes["skills"]),
        "experience": jobs,
        "education": education,
    }
    return gold, {"first": first, "duties": rng.sample(prof.duties, len(prof.duties)) if lang == "en" else []}


def span(rng: Random, job: dict, lang: str) -> str:
    """'2019 – 2022', '2021 – present' or 'since 2021' in the document's language."""
    if job["end_year"] is None and rng.random() < 0.4:
        return {"en": "since", "de": "seit", "fr": "depuis", "es": "desde"}[lang] + f" {job['start_year']}"
    end = job["end_year"] or RESUME_WORDS[lang]["now"]
    return f"{job['start_year']}{rng.choice([' – ', '–', ' - '])}{end}"


def degree_line(rng: Random, d: dict) -> str:
    """'M.Sc. Finance, University of Bristol, 2014' (the year left out when the gold has none)."""
    year = d["graduation_year"]
    tail = "" if year is None else rng.choice([f", {year}", f" ({year})"])
    return f"{d['degree']}, {d['institution']}{tail}"


def resume_sectioned(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """The classic CV: name, contact lines, then headed sections."""
    g, x = resume_facts(rng, lang, sizes)
    w = RESUME_WORDS[lang]
    head = str.upper if rng.random() < 0.5 else str
    keys = [k for k in rng.choice([("email", "phone", "location"), ("location", "phone", "email")]) if g[k]]
    contact = ([f"{w[k]}: {g[k]}" for k in keys] if rng.random() < 0.5
               else [rng.choice([" · ", " | "]).join(g[k] for k in keys)])
    parts = [w["cv"] if lang != "en" or rng.random() < 0.3 else None, g["name"], *contact]
    if g["summary"]:
        parts += ["", head(w["profile"]), g["summary"]]
    if g["skills"]:
        parts += ["", head(w["skills"]), rng.choice([", ", " · ", " | "]).join(g["skills"])]
    if g["experience"]:
        parts += ["", head(w["jobs"])]
        for i, job in enumerate(g["experience"]):
            parts += [f"{job['title']} — {job['company']}", span(rng, job, lang)]
            if i < 2 and x["duties"] and len(g["experience"]) < 6:
                parts.append(f"  • {x['duties'][i]}")
    if g["education"]:
        parts += ["", head(w["edu"]), *(degree_line(rng, d) for d in g["education"])]
    return join(*parts), g


def resume_markdown(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A CV kept as a Markdown file."""
    g, x = resume_facts(rng, lang, sizes)
    contact = " | ".join(f"**{label}:** {g[k]}" for k, label in
                         [("email", "Email"), ("phone", "Phone"), ("location", "Location")] if g[k])
    parts = [f"# {g['name']}", contact]
    if g["summary"]:
        parts += ["", "## Summary", g["summary"]]
    if g["skills"]:
        parts += ["", "## Skills", *(f"- {s}" for s in g["skills"])]
    if g["experience"]:
        parts += ["", "## Experience"]
        for i, job in enumerate(g["experience"]):
            parts += ["", f"### {job['title']} · {job['company']}", f"*{span(rng, job, lang)}*"]
            if len(g["experience"]) <= 4:
                parts.append(f"- {x['duties'][i]}")
    if g["education"]:
        parts += ["", "## Education"]
        parts += [f"- **{d['degree']}**, {d['institution']}" + (f" ({d['graduation_year']})" if d["graduation_year"]
                                                                 else "") for d in g["education"]]
    return join(*parts), g


def resume_email(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A candidate answers a recruiter's e-mail with an overview of their background; the request is quoted."""
    g, x = resume_facts(rng, lang, sizes)
    rfirst, rlast = person(rng)
    employer = company(rng)
    sent = rand_date(rng, 2025, 2025)
    parts = [f"Subject: Re: Your application at {employer[0]}", f"From: {g['name']} <{g['email']}>",
             f"To: {rfirst} {rlast} <{email(rng, rfirst, rlast, employer[1])}>", "",
             f"{rng.choice(['Hi', 'Hello', 'Dear'])} {rfirst},", "",
             rng.choice(["thanks for getting back to me so quickly. As requested, here is a short overview of my "
                         "background.", "thank you for your message! Below you'll find the summary you asked for "
                         "before our call."])]
    if g["summary"]:
        parts += ["", f"In one sentence: {g['summary']}"]
    if g["location"]:
        parts += ["", f"I'm currently based in {g['location']} and open to hybrid work."]
    if g["experience"]:
        parts += ["", "My positions so far, most recent first:"]
        parts += [f"- {span(rng, j, lang)}: {j['title']} at {j['company']}" for j in g["experience"]]
    else:
        parts += ["", "I have just finished my studies, so I have no professional experience yet."]
    if g["skills"]:
        parts += ["", f"Tools and skills I work with: {series(g['skills'], lang)}."]
    for d in g["education"]:
        year = f", graduated {d['graduation_year']}" if d["graduation_year"] else ""
        parts.append(f"I studied at {d['institution']} ({d['degree']}{year}).")
    parts += ["", rng.choice(["Best regards,", "Kind regards,", "Thanks again,"]), g["name"], g["phone"], "",
              f"> On {date_text(rng, sent, 'en', ('long', 'dmy'))}, {rfirst} {rlast} wrote:",
              f"> Hi {x['first']}, thanks for applying. Could you send me a quick overview of your experience",
              "> before our call on Thursday?"]
    return join(*parts), g


def resume_ocr(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A scanned paper CV: letter-spaced headings, page furniture and scanner damage around the values."""
    g, x = resume_facts(rng, lang, sizes)
    spaced = lambda s: " ".join(s.upper())  # noqa: E731
    parts = [keep(g["name"])]
    parts += [f"{label}: {keep(g[k])}" for k, label in [("email", "E-mail"), ("phone", "Tel."), ("location", "Address")]
              if g[k]]
    if g["summary"]:
        parts += ["", spaced("Profile"), keep(g["summary"])]
    if g["experience"]:
        parts += ["", spaced("Experience")]
        for i, job in enumerate(g["experience"]):
            end = job["end_year"] or "present"
            parts += [f"{keep(job['start_year'])} - {keep(end)}   {keep(job['title'])}",
                      f"            {keep(job['company'])}"]
            if i < 2:
                parts.append(f"            {x['duties'][i]}")
    if g["education"]:
        parts += ["", spaced("Education")]
        parts += [f"{keep(d['graduation_year'] or '')}   {keep(d['degree'])}, {keep(d['institution'])}"
                  for d in g["education"]]
    if g["skills"]:
        parts += ["", spaced("Skills"), ", ".join(keep(s) for s in g["skills"])]
    parts += ["", "References available on request.", rng.choice(["- 1 -", "Page 1 of 1", "1/1"])]
    return ocr_noise(rng, join(*parts)), g


def resume_table(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A form-like CV whose work history and education are tables flattened to pipe- or tab-separated rows."""
    g, _ = resume_facts(rng, lang, sizes)
    w = RESUME_WORDS[lang]
    pipes = rng.random() < 0.6
    sep = " | " if pipes else "\t"
    row = lambda *cells: ("| " if pipes else "") + sep.join(map(str, cells)) + (" |" if pipes else "")  # noqa: E731
    rule = lambda k: ["|" + "---|" * k] if pipes else []  # noqa: E731
    parts = [w["cv"].upper(), "", f"Name: {g['name']}"]
    parts += [f"{w[k]}: {g[k]}" for k in ("email", "phone", "location") if g[k]]
    if g["summary"]:
        parts += ["", g["summary"]]
    if g["experience"]:
        parts += ["", w["jobs"], row(w["period"], w["employer"], w["position"]), *rule(3)]
        parts += [row(f"{j['start_year']}–{j['end_year'] or w['now']}", j["company"], j["title"])
                  for j in g["experience"]]
    if g["education"]:
        parts += ["", w["edu"], row(w["year"], w["degree"], w["school"]), *rule(3)]
        parts += [row(d["graduation_year"] or "–", d["degree"], d["institution"]) for d in g["education"]]
    if g["skills"]:
        parts += ["", f"{w['skills']}: {'; '.join(g['skills'])}"]
    return join(*parts), g


def resume_bio(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A third-person 'About' profile in prose, as on a personal website."""
    g, x = resume_facts(rng, lang, sizes)
    first, jobs = x["first"], g["experience"]
    parts = [f"About {g['name']}", ""]
    intro = [f"{first} lives in {g['location']}." if g["location"] else None, g["summary"]]
    if jobs:
        now = jobs[0]
        intro.append(f"Since {now['start_year']}, {first} has worked as {now['title']} at {now['company']}."
                     if now["end_year"] is None else
                     f"Most recently, {first} was {now['title']} at {now['company']} from {now['start_year']} to "
                     f"{now['end_year']}.")
        earlier = [f"{j['title']} at {j['company']} ({j['start_year']}–{j['end_year']})" for j in jobs[1:]]
        if earlier:
            intro.append(f"Before that, {first} worked as {series(earlier, 'en')}.")
    else:
        intro.append(f"{first} has no professional experience yet.")
    parts.append(" ".join(s for s in intro if s))
    if g["education"]:
        degrees = [f"{d['degree']} from {d['institution']}" + (f" ({d['graduation_year']})" if d["graduation_year"]
                                                               else "") for d in g["education"]]
        parts += ["", f"Education: {'; '.join(degrees)}."]
    if g["skills"]:
        parts += ["", f"Skills: {', '.join(g['skills'])}"]
    call = f", or call {g['phone']}" if g["phone"] else ""
    parts += ["", f"Get in touch: {g['email']}{call}."]
    return join(*parts), g


RESUME = [Layout("sectioned", resume_sectioned, ALL_LANGS, personal=True),
          Layout("markdown", resume_markdown, personal=True),
          Layout("email-reply", resume_email, personal=True),
          Layout("ocr-scan", resume_ocr, personal=True),
          Layout("table", resume_table, ALL_LANGS, personal=True),
          Layout("prose-bio", resume_bio, sizes=range(6), personal=True)]


# ======================================================================================================= Invoice

INVOICE_WORDS = {
    "en": dict(title="INVOICE", number="Invoice no.", date="Invoice date", due="Due date", customer="Customer no.",
               pos="Pos", desc="Description", qty="Qty", unit="Unit price", amount="Amount", net="Subtotal",
               vat="VAT", total="Total", reverse="VAT 0% - reverse charge, VAT to be accounted for by the recipient",
               pay="Please transfer the total within {days} days, quoting the invoice number.",
               paid="PAID - payment received on {date}. Thank you for your business!", to="Bill to"),
    "de": dict(title="RECHNUNG", number="Rechnungsnummer", date="Rechnungsdatum", due="Fällig am",
               customer="Kundennummer", pos="Pos.", desc="Beschreibung", qty="Menge", unit="Einzelpreis",
               amount="Betrag", net="Zwischensumme netto", vat="USt.", total="Gesamtbetrag",
               reverse="Steuerschuldnerschaft des Leistungsempfängers (Reverse Charge)",
               pay="Bitte überweisen Sie den Betrag innerhalb von {days} Tagen unter Angabe der Rechnungsnummer.",
               paid="Betrag dankend erhalten am {date}.", to="Rechnungsempfänger"),
    "fr": dict(title="FACTURE", number="N° de facture", date="Date de facture", due="Date d'échéance",
               customer="N° client", pos="N°", desc="Désignation", qty="Qté", unit="Prix unitaire HT",
               amount="Montant HT", net="Total HT", vat="TVA", total="Total TTC",
               reverse="Autoliquidation - TVA due par le preneur",
               pay="Paiement par virement bancaire sous {days} jours.", paid="Facture acquittée le {date}. Merci !",
               to="Client"),
    "es": dict(title="FACTURA", number="Nº de factura", date="Fecha de factura", due="Vencimiento",
               customer="Nº de cliente", pos="Pos.", desc="Concepto", qty="Cant.", unit="Precio unitario",
               amount="Importe", net="Base imponible", vat="IVA", total="Total factura",
               reverse="Inversión del sujeto pasivo", pay="Forma de pago: transferencia bancaria a {days} días.",
               paid="Factura pagada el {date}. ¡Gracias!", to="Cliente"),
}
EU = {"DE", "AT", "FR", "ES", "IT", "NL", "IE", "SE"}
PRICED = [code for code, c in COUNTRIES.items() if c.currency]


def invoice_number(rng: Random, lang: str, d: dt.date) -> str:
    """A number in one of the shapes invoices in `lang` use: INV-2024-0117, RE-2024-0042, F2024-0193, A-2024/0833."""
    n = rng.randint(1, 9999)
    return rng.choice({
        "en": [f"INV-{d.year}-{n:04}", str(rng.randint(10000, 99999)), f"{d.year}-{n:04}",
               f"INV{rng.randint(10**5, 10**6)}"],
        "de": [f"RE-{d.year}-{n:04}", f"R{d:%y}{n:04}"],
        "fr": [f"F{d.year}-{n:04}", f"FAC-{rng.randint(10000, 99999)}"],
        "es": [f"A-{d.year}/{n:04}", f"FV{d:%y}-{n:04}"],
    }[lang])


def invoice_facts(rng: Random, lang: str, sizes: dict) -> tuple[dict, dict]:
    """Seller, buyer and lines; VAT on the net sum (none for US services or EU reverse charge), total = net + VAT."""
    if lang == "en":
        seller = company(rng, PRICED, list(SERVICES))
        pool = SERVICES[seller[3]]
    else:
        industry, pool = SERVICES_LOCAL[lang]
        seller = company(rng, LANG_COUNTRIES[lang], [industry])
    buyer = company(rng, [seller[2]] if rng.random() < 0.6 else None, exclude=(seller,))
    country = COUNTRIES[seller[2]]
    cur = country.currency
    lines = [(desc, rng.randint(1, most) if rng.random() < 0.6 else 1, nice_price(rng, low, high, cur))
             for desc, low, high, most in rng.sample(pool, sizes["line_items"])]
    net = sum(q * u for _, q, u in lines) or nice_price(rng, 300, 9000, cur)
    reverse = seller[2] != buyer[2] and {seller[2], buyer[2]} <= EU and rng.random() < 0.5
    rate = 0 if reverse or seller[2] == "US" else country.vat
    whole = 100 if cur == "JPY" else 1
    tax = round(net * rate / 100 / whole) * whole
    issue = rand_date(rng, 2023, 2025)
    gold = {
        "invoice_number": invoice_number(rng, lang, issue), "issue_date": issue, "seller": seller[0],
        "buyer": buyer[0], "currency": cur,
        "line_items": [{"description": d, "quantity": q, "unit_price": u / 100} for d, q, u in lines],
        "total": (net + tax) / 100, "paid": rng.random() < 0.35,
    }
    extra = {"seller": seller, "buyer": buyer, "country": country, "lines": lines, "net": net, "tax": tax,
             "rate": rate, "reverse": reverse, "due": issue + dt.timedelta(days=rng.choice([14, 30])),
             "paid_on": issue + dt.timedelta(days=rng.randint(2, 12)), "total": net + tax}
    return gold, extra


def invoice_formal(rng: Random, lang: str, sizes: dict, scanned: bool = False) -> tuple[str, dict]:
    """A printed invoice: letterhead, addresses, meta block, column table, totals and payment terms."""
    g, x = invoice_facts(rng, lang, sizes)
    w, cur = INVOICE_WORDS[lang], g["currency"]
    k = keep if scanned else str
    num = lambda c: k(amount(c, cur, lang))  # noqa: E731
    seller_c, buyer_c = x["country"], COUNTRIES[x["buyer"][2]]
    dw = max([len(w["desc"])] + [len(d) for d, _, _ in x["lines"]]) + 2
    rows = [f"{w['pos']:<5}{w['desc']:<{dw}}{w['qty']:>6}{w['unit']:>18}{w['amount']:>14}"]
    for i, (d, q, u) in enumerate(x["lines"], 1):
        rows.append(f"{i:<5}{k(d)}{' ' * (dw - len(d))}{k(q):>6}{num(u):>18}{num(q * u):>14}")
    vat = w["reverse"] if x["reverse"] else f"{w['vat']} {x['rate']}%: {num(x['tax'])}" if x["rate"] else None
    terms = (w["paid"].format(date=k(date_text(rng, x["paid_on"], lang))) if g["paid"]
             else w["pay"].format(days=(x["due"] - g["issue_date"]).days))
    parts = [k(g["seller"]), *address_lines(address(rng, seller_c, lang), seller_c),
             f"{phone(rng, seller_c)} · billing@{x['seller'][1]}", "",
             f"{w['to']}:", k(g["buyer"]), *address_lines(address(rng, buyer_c, lang), buyer_c), "",
             w["title"], f"{w['number']}: {k(g['invoice_number'])}",
             f"{w['date']}: {k(date_text(rng, g['issue_date'], lang))}",
             f"{w['due']}: {k(date_text(rng, x['due'], lang))}" if not g["paid"] else None,
             f"{w['customer']}: {rng.randint(10000, 99999)}", "", *rows, "",
             f"{w['net']}: {num(x['net'])}" if vat else None, vat,
             f"{w['total']}: {k(money(rng, cur, lang)(x['total']))}", "", terms]
    if not g["paid"] and seller_c.code in EU:
        parts.append(f"IBAN {seller_c.code}{rng.randint(10, 99)} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)} "
                     f"{rng.randint(1000, 9999)} {rng.randint(1000, 9999)} {rng.randint(10, 99)}")
    text = join(*parts)
    return (ocr_noise(rng, text) if scanned else text), g


def invoice_markdown(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """An invoice as a Markdown page from an online billing tool, the lines in a pipe table."""
    g, x = invoice_facts(rng, lang, sizes)
    cur = g["currency"]
    num = lambda c: amount(c, cur, "en")  # noqa: E731
    rows = [f"| {i} | {d} | {q} | {num(u)} | {num(q * u)} |" for i, (d, q, u) in enumerate(x["lines"], 1)]
    status = (f"**Status:** Paid on {date_text(rng, x['paid_on'], 'en')}" if g["paid"]
              else f"**Status:** Open - due {date_text(rng, x['due'], 'en')}")
    parts = [f"# Invoice {g['invoice_number']}", "", f"**From:** {g['seller']}  ", f"**To:** {g['buyer']}  ",
             f"**Issued:** {date_text(rng, g['issue_date'], 'en')}  ", f"**Currency:** {cur}", "",
             "| # | Item | Qty | Unit price | Line total |", "|---|------|----:|-----------:|-----------:|", *rows, "",
             f"Subtotal: {num(x['net'])}  "]
    if x["rate"]:
        parts.append(f"VAT ({x['rate']}%): {num(x['tax'])}  ")
    parts += [f"**Total: {money(rng, cur, 'en')(x['total'])}**", "", status]
    return join(*parts), g


def invoice_email(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """The seller's accountant e-mails the invoice summary to the buyer; the buyer's request is quoted below."""
    g, x = invoice_facts(rng, lang, sizes)
    cur = g["currency"]
    m = money(rng, cur, "en")
    first, last = person(rng)
    bfirst, blast = person(rng)
    vat = f" (including {x['rate']}% VAT of {m(x['tax'])})" if x["rate"] else ""
    parts = [f"From: {first} {last} <{email(rng, first, last, x['seller'][1])}>",
             f"To: {bfirst} {blast} <{email(rng, bfirst, blast, x['buyer'][1])}>",
             f"Subject: Invoice {g['invoice_number']} - {g['seller']}", "", f"Dear {bfirst},", "",
             f"please find attached our invoice {g['invoice_number']} dated "
             f"{date_text(rng, g['issue_date'], 'en')}, issued to {g['buyer']} for last month's work. For your "
             "records, it covers:", ""]
    parts += [f"- {q} x {d} at {m(u)} each = {m(q * u)}" for d, q, u in x["lines"]]
    parts += ["", f"Total: {m(x['total'])}{vat}.", "",
              ("Your payment has already been received - thank you! No further action is needed."
               if g["paid"] else f"Payment is due by {date_text(rng, x['due'], 'en')}."), "",
              rng.choice(["Best regards,", "Kind regards,"]), f"{first} {last}", f"Accounts | {g['seller']}", "",
              f"> On {date_text(rng, g['issue_date'] - dt.timedelta(days=3), 'en', ('long', 'dmy'))}, {bfirst} wrote:",
              f"> Hi {first}, could you send us the invoice for last month's work? Our accounts payable",
              "> team closes the books on Friday."]
    return join(*parts), g


def invoice_tsv(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A tab-separated export from accounting software."""
    g, x = invoice_facts(rng, lang, sizes)
    cur = g["currency"]
    num = lambda c: amount(c, cur, "en").replace(",", "")  # noqa: E731
    parts = [f"Invoice export\t{g['seller']}", f"Invoice number\t{g['invoice_number']}",
             f"Invoice date\t{date_text(rng, g['issue_date'], 'en', ('iso', 'uk', 'us'))}",
             f"Customer\t{g['buyer']}", f"Currency\t{cur}", f"Status\t{'Paid' if g['paid'] else 'Open'}", "",
             "Line\tDescription\tQuantity\tUnit price\tNet amount"]
    parts += [f"{i}\t{d}\t{q}\t{num(u)}\t{num(q * u)}" for i, (d, q, u) in enumerate(x["lines"], 1)]
    parts += ["", f"Net total\t{num(x['net'])}", f"VAT {x['rate']}%\t{num(x['tax'])}",
              f"Gross total\t{num(x['total'])}"]
    return join(*parts), g


def invoice_letter(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A payment reminder (open) or payment confirmation (paid) that names the invoice but lists no lines."""
    g, x = invoice_facts(rng, lang, sizes)
    c = x["country"]
    total = money(rng, g["currency"], lang)(x["total"])
    issued, due = date_text(rng, g["issue_date"], lang), date_text(rng, x["due"], lang)
    today = date_text(rng, x["due"] + dt.timedelta(days=rng.randint(5, 20)), lang)
    n = g["invoice_number"]
    if lang == "de":
        body = (["Zahlungsbestätigung", "", "Sehr geehrte Damen und Herren,", "",
                 f"hiermit bestätigen wir den Eingang Ihrer Zahlung über {total} für unsere Rechnung {n} vom "
                 f"{issued}. Die Rechnung ist damit vollständig beglichen."] if g["paid"] else
                [f"Zahlungserinnerung - Rechnung {n}", "", "Sehr geehrte Damen und Herren,", "",
                 f"sicher haben Sie es im Alltag übersehen: Unsere Rechnung {n} vom {issued} über {total} war am "
                 f"{due} fällig und ist noch offen. Bitte überweisen Sie den Betrag innerhalb der nächsten 7 Tage.",
                 "Sollten Sie die Zahlung bereits veranlasst haben, betrachten Sie dieses Schreiben als "
                 "gegenstandslos."])
        body += ["", "Mit freundlichen Grüßen", "Buchhaltung"]
    else:
        body = (["Payment confirmation", "", "Dear Sir or Madam,", "",
                 f"we confirm that we have received your payment of {total} for our invoice {n} dated {issued}. "
                 "The invoice is now settled in full."] if g["paid"] else
                [f"Payment reminder - invoice {n}", "", "Dear Sir or Madam,", "",
                 f"according to our records, our invoice {n} of {issued} for {total} has not been paid yet. "
                 f"The payment was due on {due}. Please transfer the amount within the next seven days.",
                 "If you have already paid, please disregard this letter."])
        body += ["", "Kind regards,", "Accounts Receivable"]
    parts = [g["seller"], *address_lines(address(rng, c, lang), c), "", g["buyer"],
             *address_lines(address(rng, COUNTRIES[x["buyer"][2]], lang), COUNTRIES[x["buyer"][2]]), "",
             today, "", *body, g["seller"]]
    return join(*parts), g


INVOICE = [Layout("formal", invoice_formal, ALL_LANGS, range(1, 11)),
           Layout("markdown-table", invoice_markdown, sizes=range(1, 11)),
           Layout("email", invoice_email, sizes=range(1, 11), personal=True),
           Layout("ocr-scan", lambda rng, lang, sizes: invoice_formal(rng, lang, sizes, scanned=True),
                  sizes=range(1, 11)),
           Layout("tsv-export", invoice_tsv, sizes=range(1, 11)),
           Layout("reminder-letter", invoice_letter, ("en", "de"), range(1))]


# ======================================================================================================= Receipt

RECEIPT_WORDS = {
    "en": dict(total="TOTAL", sub="SUBTOTAL", tax="TAX", incl="VAT {rate}% included", receipt="Receipt",
               thanks="THANK YOU - PLEASE COME AGAIN", cash="CASH", change="CHANGE", table="Table", guests="Guests",
               bill="Bill no.", service="Service not included. Tips are appreciated."),
    "de": dict(total="SUMME", sub="Zwischensumme", tax="MwSt.", incl="enth. MwSt. {rate}%", receipt="Bon-Nr.",
               thanks="Vielen Dank und bis bald!", cash="Bar", change="Rückgeld", table="Tisch", guests="Gäste",
               bill="Rechnung Nr.", service="Trinkgeld ist nicht enthalten."),
    "fr": dict(total="TOTAL", sub="Sous-total", tax="TVA", incl="dont TVA {rate}%", receipt="Ticket n°",
               thanks="Merci de votre visite, à bientôt !", cash="Espèces", change="Rendu", table="Table",
               guests="Couverts", bill="Addition n°", service="Service compris."),
    "es": dict(total="TOTAL", sub="Subtotal", tax="IVA", incl="IVA incluido {rate}%", receipt="Ticket nº",
               thanks="¡Gracias por su visita!", cash="Efectivo", change="Cambio", table="Mesa", guests="Comensales",
               bill="Cuenta nº", service="Propina no incluida."),
}
PAY_WORDS = {
    "en": {"card": ["VISA ************{n}", "MASTERCARD ****{n}", "DEBIT CARD ****{n}", "AMEX ***{n}"],
           "mobile": ["APPLE PAY", "GOOGLE PAY"], "other": ["GIFT CARD", "STORE VOUCHER"]},
    "de": {"card": ["Kartenzahlung girocard", "EC-Karte ****{n}", "VISA ****{n}"], "mobile": ["Apple Pay",
                                                                                              "Google Pay"],
           "other": ["Gutschein"]},
    "fr": {"card": ["CB SANS CONTACT ****{n}", "Carte bancaire"], "mobile": ["Apple Pay", "Google Pay"],
           "other": ["Titre-restaurant"]},
    "es": {"card": ["Tarjeta VISA ****{n}", "Tarjeta de crédito"], "mobile": ["Bizum", "Apple Pay"],
           "other": ["Vale regalo"]},
}
TILL_DATES = {"US": ("us", "abbr"), "CA": ("iso", "abbr"), "JP": ("iso",), "UK": ("uk", "dmy"), "IE": ("uk", "dmy")}


def receipt_facts(rng: Random, lang: str, sizes: dict, kinds: tuple[str, ...] = ()) -> tuple[dict, dict]:
    """Lines priced from the pools; US and Canadian tax is added on top, elsewhere it is included in the total."""
    name, code, kind = rng.choice([m for m in MERCHANTS[lang] if not kinds or m[2] in kinds])
    country = COUNTRIES[code]
    cur = country.currency
    lines = [(item, rng.choices([1, 2, 3, 4], [70, 18, 8, 4])[0], cents(unit, cur))
             for item, unit in rng.sample(GOODS[(kind, lang)], sizes["items"])]
    whole = 100 if cur == "JPY" else 1
    items = sum(q * u for _, q, u in lines)
    added = code in ("US", "CA")
    if not lines:  # a card slip shows the amount only
        subtotal, tax, total = None, None, nice_price(rng, 4, 120, cur)
    elif added:
        subtotal, tax = items, round(items * country.vat / 100 / whole) * whole
        total = items + tax
    else:
        total = items
        tax = round((items - items / (1 + country.vat / 100)) / whole) * whole if rng.random() < 0.7 else None
        subtotal = items if rng.random() < 0.3 else None
    method = rng.choices(["card", "cash", "mobile", "other"], [50, 30, 15, 5])[0] if lines else \
        rng.choice(["card", "card", "mobile"])
    gold = {
        "merchant": name, "date": rand_date(rng, 2023, 2025),
        "time": rand_time(rng, 7, 21) if rng.random() < 0.85 else None,
        "items": [{"name": n, "quantity": q, "price": q * u / 100} for n, q, u in lines],
        "subtotal": None if subtotal is None else subtotal / 100, "tax": None if tax is None else tax / 100,
        "total": total / 100, "currency": cur, "payment_method": method,
    }
    notes = [n * 100 for n in ([1000, 5000, 10000] if cur == "JPY" else [5, 10, 20, 50, 100, 200])]
    extra = {"country": country, "lines": lines, "added": added, "sub": subtotal, "tax": tax, "total": total,
             "given": next((n for n in notes if n >= total), total)}
    return gold, extra


def payment_lines(rng: Random, g: dict, x: dict, lang: str, num: Callable) -> list[str]:
    """How the customer paid, as the till prints it: card type and last digits, or cash given and change."""
    w = RECEIPT_WORDS[lang]
    if g["payment_method"] == "cash":
        return [columns(w["cash"], num(x["given"])), columns(w["change"], num(x["given"] - x["total"]))]
    label = rng.choice(PAY_WORDS[lang][g["payment_method"]]).format(n=rng.randint(1000, 9999))
    return [columns(label, num(x["total"]))]


def receipt_till(rng: Random, lang: str, sizes: dict, scanned: bool = False) -> tuple[str, dict]:
    """A shop's till receipt in a narrow monospace column; counts print as '2 @ 1.25' (en) or '2 x 1,25'."""
    g, x = receipt_facts(rng, lang, sizes)
    w, cur, c = RECEIPT_WORDS[lang], g["currency"], x["country"]
    k = keep if scanned else str
    num = lambda v: k(amount(v, cur, lang))  # noqa: E731
    rows = []
    for name, q, u in x["lines"]:
        if q == 1:
            rows.append(columns(k(name), num(u)))
        elif lang == "en":
            rows += [columns(k(name), num(q * u)), f"  {k(q)} @ {num(u)}"]
        else:
            rows += [k(name), columns(f"  {k(q)} x {num(u)}", num(q * u))]
    sep = rng.choice(["-", "=", "*"]) * 34
    symbol = lang == "en" and cur in SYMBOLS and cur != "CAD"
    total = columns(w["total"] if symbol else f"{w['total']} {cur}",
                    f"{k(SYMBOLS[cur])}{num(x['total'])}" if symbol else num(x["total"]))
    when = k(date_text(rng, g["date"], lang, TILL_DATES.get(c.code, ("short", "num"))))
    if g["time"]:
        when += f"  {k(time_text(rng, g['time'], 'en') if c.code == 'US' else g['time'])}"
    parts = [k(g["merchant"]).center(34), *(line.center(34) for line in address_lines(address(rng, c, lang), c)[:2]),
             f"Tel. {phone(rng, c)}".center(34), sep, *rows, sep,
             columns(w["sub"], num(x["sub"])) if x["sub"] is not None else None,
             columns(f"{w['tax']} {c.vat}%", num(x["tax"])) if x["added"] else None,
             total, *payment_lines(rng, g, x, lang, num),
             columns(w["incl"].format(rate=c.vat), num(x["tax"])) if x["tax"] and not x["added"] else None,
             sep, when, f"{w['receipt']} {rng.randint(1000, 99999)}  #{rng.randint(1, 6)}", w["thanks"]]
    text = join(*parts)
    return (ocr_noise(rng, text, rate=0.25) if scanned else text), g


def receipt_restaurant(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A restaurant or café bill: table and guests, counted dishes with their line prices, totals."""
    g, x = receipt_facts(rng, lang, sizes, kinds=("restaurant", "cafe"))
    w, cur, c = RECEIPT_WORDS[lang], g["currency"], x["country"]
    num = lambda v: amount(v, cur, lang)  # noqa: E731
    when = date_text(rng, g["date"], lang) + (f", {time_text(rng, g['time'], lang)}" if g["time"] else "")
    sep = "-" * 38
    parts = [g["merchant"], *address_lines(address(rng, c, lang), c)[:2], f"Tel. {phone(rng, c)}", "",
             f"{w['table']} {rng.randint(1, 40)} · {w['guests']}: {rng.randint(1, 6)}", when,
             f"{w['bill']} {rng.randint(100, 9999)}", sep,
             *(columns(f"{q} x {n}", num(q * u), 38) for n, q, u in x["lines"]), sep,
             f"{w['sub']}: {num(x['sub'])}" if x["sub"] is not None else None,
             f"{w['tax']} ({c.vat}%): {num(x['tax'])}" if x["added"] else None,
             f"{w['total']}: {money(rng, cur, lang)(x['total'])}",
             f"({w['incl'].format(rate=c.vat)}: {num(x['tax'])})" if x["tax"] and not x["added"] else None,
             *payment_lines(rng, g, x, lang, num), sep, w["service"], w["thanks"]]
    return join(*parts), g


SLIP_WORDS = {  # heading, amount, approved, keep it, trace no., approval code, contactless, copy
    "en": ("CARD PAYMENT", "AMOUNT", "APPROVED", "Please keep this receipt", "TRACE", "AUTH CODE", "CONTACTLESS",
           "CUSTOMER COPY"),
    "de": ("KARTENZAHLUNG", "BETRAG", "Zahlung erfolgt", "Bitte Beleg aufbewahren", "Trace-Nr.", "Genehmigungs-Nr.",
           "kontaktlos", "Kundenbeleg"),
    "fr": ("PAIEMENT CARTE", "MONTANT", "PAIEMENT ACCEPTE", "Ticket client à conserver", "N° transaction",
           "N° autorisation", "SANS CONTACT", "TICKET CLIENT"),
    "es": ("PAGO CON TARJETA", "IMPORTE", "OPERACIÓN APROBADA", "Conserve este justificante", "Nº operación",
           "Cód. autorización", "SIN CONTACTO", "COPIA CLIENTE"),
}


def receipt_slip(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A card terminal's customer copy: merchant, amount and payment, no items."""
    g, x = receipt_facts(rng, lang, sizes)
    c = x["country"]
    head, amount_word, ok, keep_it, trace, approval, contactless, copy = SLIP_WORDS[lang]
    scheme = rng.choice(["VISA", "Mastercard", "Maestro"]) if g["payment_method"] == "card" else \
        f"{rng.choice(['Apple Pay', 'Google Pay'])} ({rng.choice(['VISA', 'Mastercard'])})"
    styles = TILL_DATES.get(c.code, ("num", "short"))
    parts = [copy, "", g["merchant"], ", ".join(address_lines(address(rng, c, lang), c)[:2]), "",
             f"TID {rng.randint(10**7, 10**8)}   {trace} {rng.randint(1000, 9999):06}",
             date_text(rng, g["date"], lang, styles) + (f"  {g['time']}" if g["time"] else ""), "", head,
             f"{scheme} {contactless}", f"PAN ************{rng.randint(1000, 9999)}",
             f"AID A00000000{rng.choice(['31010', '41010', '43060'])}", f"{approval} {rng.randint(100000, 999999)}", "",
             f"{amount_word} {g['currency']} {amount(x['total'], g['currency'], lang)}", "", ok, keep_it]
    return join(*parts), g


def receipt_email(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """An order-ahead or online-shop receipt sent by e-mail."""
    g, x = receipt_facts(rng, lang, sizes, kinds=("cafe", "books", "grocery", "pharmacy"))
    m = money(rng, g["currency"], "en")
    pay = {"card": f"Visa ending in {rng.randint(1000, 9999)}", "cash": "Cash at pickup",
           "mobile": rng.choice(["Apple Pay", "Google Pay"]), "other": "Gift card"}[g["payment_method"]]
    when = date_text(rng, g["date"], "en", ("long", "abbr", "weekday"))
    if g["time"]:
        when += f" at {time_text(rng, g['time'], 'en')}"
    c = x["country"]
    slug = ascii_slug(g["merchant"]).replace("&", "").replace(".", "")
    parts = [f"From: {g['merchant']} <receipts@{slug}.com>", f"Subject: Your receipt from {g['merchant']}", "",
             "Thanks for your order!", f"Order {rng.choice('ABCDEFGHJK')}{rng.randint(1000, 9999)} · {when}",
             f"Pickup at: {', '.join(address_lines(address(rng, c, 'en'), c)[:2])}", "",
             *(f"{q}× {n} — {m(q * u)}" for n, q, u in x["lines"]), "",
             f"Subtotal: {m(x['sub'])}" if x["sub"] is not None else None,
             f"Tax: {m(x['tax'])}" if x["added"] else None,
             f"Total charged: {m(x['total'])}",
             f"VAT included: {m(x['tax'])}" if x["tax"] and not x["added"] else None,
             f"Paid with: {pay}", "",
             "Questions about your order? Just reply to this e-mail. You can also rate your visit in the app.",
             "You are receiving this e-mail because you placed an order in our app."]
    return join(*parts), g


RECEIPT = [Layout("till", receipt_till, ALL_LANGS, range(1, 11)),
           Layout("restaurant-bill", receipt_restaurant, ALL_LANGS, range(1, 11)),
           Layout("card-slip", receipt_slip, ALL_LANGS, range(1)),
           Layout("email", receipt_email, sizes=range(1, 11)),
           Layout("ocr-scan", lambda rng, lang, sizes: receipt_till(rng, lang, sizes, scanned=True),
                  sizes=range(1, 11))]


# ======================================================================================================= ContactCard

CONTACT_TITLES = {
    "en": ["Head of Sales", "Account Manager", "Chief Financial Officer", "Project Manager", "Senior Consultant",
           "Partner", "Office Manager", "Procurement Lead", "Managing Director", "Customer Success Manager"],
    "de": ["Geschäftsführerin", "Vertriebsleiterin", "Projektleiterin", "Einkaufsleiterin", "Key Account Managerin"],
    "fr": ["Directrice commerciale", "Cheffe de projet", "Responsable des achats", "Gérante"],
    "es": ["Director comercial", "Jefe de proyecto", "Responsable de compras", "Gerente"],
}
SIGNATURE_WORDS = {
    "en": (["Hi", "Hello", "Dear"],
           ["Thanks for the call earlier. As promised, I'm sending over the slides from today's "
                                     "meeting - let me know if anything is unclear.",
                                     "Great to meet you at the trade fair last week. I've attached our price list; "
                                     "happy to set up a short call."],
           ["Best regards,", "Kind regards,", "Cheers,"], ["Tel.", "Mobile", "Direct", "Office"], "Email"),
    "de": (["Hallo", "Liebe", "Guten Tag"], ["vielen Dank für das nette Gespräch heute. Anbei wie besprochen die "
                                             "Unterlagen zu unserem Angebot.",
                                             "wie telefonisch vereinbart sende ich Ihnen die überarbeitete Planung."],
           ["Mit freundlichen Grüßen", "Viele Grüße"], ["Tel.", "Mobil", "Durchwahl"], "E-Mail"),
    "fr": (["Bonjour", "Chère"], ["Merci pour notre échange de ce matin. Vous trouverez ci-joint le devis dont nous "
                                  "avons parlé.", "Suite à notre rendez-vous, je vous envoie le planning révisé."],
           ["Bien cordialement,", "Cordialement,"], ["Tél.", "Mobile", "Ligne directe"], "E-mail"),
    "es": (["Hola", "Buenos días"], ["Gracias por la reunión de hoy. Le adjunto la propuesta que comentamos.",
                                  "Tal como hablamos por teléfono, le envío el calendario actualizado."],
           ["Un saludo,", "Atentamente,"], ["Tel.", "Móvil", "Directo"], "Correo"),
}


SIGNATURE_FOOTERS = {
    "en": "This e-mail and any attachments are confidential and intended only for the addressee. If you received it "
          "by mistake, please tell the sender and delete it.",
    "de": "Diese E-Mail enthält vertrauliche Informationen. Wenn Sie nicht der richtige Adressat sind, informieren Sie "
          "bitte den Absender und löschen Sie diese E-Mail.",
    "fr": "Ce message et ses pièces jointes sont confidentiels. Si vous l'avez reçu par erreur, merci d'en informer "
          "l'expéditeur et de le supprimer.",
    "es": "Este mensaje y sus anexos son confidenciales. Si lo ha recibido por error, le rogamos que lo comunique al "
          "remitente y lo elimine.",
}


def contact_facts(rng: Random, lang: str, sizes: dict) -> tuple[dict, dict]:
    """A person, maybe with job and company, work e-mails first, numbers from the company's country first."""
    first, last = person(rng) if lang == "en" else rng.choice(LOCAL[lang].people)
    org = company(rng, None if lang == "en" else LANG_COUNTRIES[lang]) if rng.random() < 0.8 else None
    country = COUNTRIES[org[2]] if org else country_for(rng, lang)
    emails: list[str] = []
    while len(emails) < sizes["emails"]:
        work = org and (not emails or rng.random() < 0.4)
        candidate = email(rng, first, last, org[1] if work else None)
        emails += [candidate] if candidate not in emails else []
    phones: list[str] = []
    while len(phones) < sizes["phones"]:  # beyond three: offices abroad
        candidate = phone(rng, country if len(phones) < 3 else COUNTRIES[rng.choice(PRICED)])
        phones += [candidate] if candidate not in phones else []
    gold = {
        "name": f"{first} {last}",
        "title": rng.choice(CONTACT_TITLES[lang]) if rng.random() < 0.8 else None,
        "organization": org[0] if org else None,
        "emails": emails, "phones": phones,
        "address": address(rng, country, lang) if rng.random() < 0.6 else None,
    }
    return gold, {"first": first, "last": last, "country": country, "org": org}


def contact_signature(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A short business e-mail ending in the sender's signature block."""
    g, x = contact_facts(rng, lang, sizes)
    greetings, bodies, closings, phone_labels, email_label = SIGNATURE_WORDS[lang]
    to_first = rng.choice([f for f, _ in LOCAL[lang].people if f != x["first"]]) if lang != "en" else person(rng)[0]
    labels = rng.sample(phone_labels, len(phone_labels))
    parts = [f"{rng.choice(greetings)} {to_first},", "", rng.choice(bodies), "", rng.choice(closings), "",
             g["name"], g["title"], g["organization"]]
    if g["address"]:
        parts += address_lines(g["address"], x["country"])
    parts += [f"{labels[i % len(labels)]} {p}" for i, p in enumerate(g["phones"])]
    parts += [f"{email_label}: {e}" if rng.random() < 0.5 else e for e in g["emails"]]
    if x["org"]:
        parts.append(f"www.{x['org'][1]}")
    parts += ["", SIGNATURE_FOOTERS[lang]]
    return join(*parts), g


def contact_vcard(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A vCard 3.0 export, one line per property."""
    g, x = contact_facts(rng, lang, sizes)
    kinds = ["WORK", "CELL", "HOME", "WORK,VOICE", "CELL,VOICE", "MAIN"]
    parts = [rng.choice(["Contact exported from the address book:", "Attachment: contact.vcf", None]),
             "BEGIN:VCARD", "VERSION:3.0", f"N:{x['last']};{x['first']};;;", f"FN:{g['name']}",
             f"ORG:{g['organization']}" if g["organization"] else None, f"TITLE:{g['title']}" if g["title"] else None]
    parts += [f"TEL;TYPE={kinds[i % len(kinds)]}:{p}" for i, p in enumerate(g["phones"])]
    parts += [f"EMAIL;TYPE=INTERNET{',PREF' if i == 0 else ''}:{e}" for i, e in enumerate(g["emails"])]
    if g["address"]:
        a = g["address"]
        parts.append(f"ADR;TYPE=WORK:;;{a['street']};{a['city']};;{a['postal_code']};{a['country']}")
    parts += [f"REV:{rand_date(rng, 2023, 2025):%Y%m%d}T{rand_time(rng, 8, 18).replace(':', '')}00Z", "END:VCARD"]
    return join(*parts), g


def contact_crm(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A record copied out of a CRM: one labeled field per line, numbered e-mail and phone fields."""
    g, _ = contact_facts(rng, lang, sizes)
    labels = ["mobile", "work", "home", "other"]
    a = g["address"] or {}
    parts = [f"CONTACT RECORD C-{rng.randint(10000, 99999)}", "", f"Full name: {g['name']}",
             f"Job title: {g['title'] or ''}", f"Company: {g['organization'] or ''}"]
    parts += [f"Email {i}: {e}" for i, e in enumerate(g["emails"], 1)]
    parts += [f"Phone ({labels[i % 4]}): {p}" for i, p in enumerate(g["phones"])]
    parts += [f"{label}: {a.get(key, '')}" for label, key in
              [("Street", "street"), ("City", "city"), ("Postcode", "postal_code"), ("Country", "country")]]
    parts += ["Owner: EMEA sales", f"Last activity: {rand_date(rng, 2024, 2025).isoformat()} (call)"]
    return join(*parts), g


def contact_intro(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """An introduction e-mail that gives a third person's details in running prose."""
    g, x = contact_facts(rng, lang, sizes)
    to_first, _ = person(rng)
    role = ", ".join(v for v in (g["title"], g["organization"]) if v)
    reach = [f"by e-mail at {' or '.join(g['emails'])}"] if g["emails"] else []
    reach += [f"by phone on {' or '.join(g['phones'])}"] if g["phones"] else []
    parts = [f"Subject: Introduction: {x['first']} / {to_first}", "", f"Hi {to_first},", "",
             f"as promised, I'd like to introduce you to {g['name']}{f' ({role})' if role else ''}. "
             f"{x['first']} has been working on exactly the supplier questions you mentioned, so I think a call "
             "would be worth it for both of you."]
    if reach:
        parts += ["", f"You can reach {x['first']} {' or '.join(reach)}."]
    if g["address"]:
        parts += ["", f"Postal address: {', '.join(address_lines(g['address'], x['country']))}."]
    parts += ["", "Cheers,", rng.choice(["Tom", "Ines", "Raj", "Maren", "Luis"])]
    return join(*parts), g


def contact_card_scan(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A scanned paper business card, front and back: short lines and labels, scanner damage."""
    g, x = contact_facts(rng, lang, sizes)
    labels = ["Phone", "Mobile", "Tel", "Mob"]
    parts = ["[front]", keep(g["organization"]) if g["organization"] else None, "", keep(g["name"]),
             keep(g["title"]) if g["title"] else None, ""]
    parts += [f"{labels[i % 4]}  {keep(p)}" for i, p in enumerate(g["phones"])]
    parts += [f"Email  {keep(e)}" for e in g["emails"]]
    if g["address"]:
        parts += ["", "  ·  ".join(keep(line) for line in address_lines(g["address"], x["country"]))]
    parts += ["", "[back]", rng.choice(["Reliable partners since 1998.", "Quality that travels further.",
                                        "Independent, personal, close to you."])]
    if x["org"]:
        parts.append(f"www.{keep(x['org'][1])}")
    return ocr_noise(rng, join(*parts)), g


def contact_directory(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A company directory search with one matching row, flattened to pipe-separated cells."""
    g, x = contact_facts(rng, lang, sizes)
    office = ", ".join(address_lines(g["address"], x["country"])) if g["address"] else "—"
    cells = [g["name"], g["title"] or "—", g["organization"] or "—", "; ".join(g["emails"]) or "—",
             "; ".join(g["phones"]) or "—", office]
    parts = ["Staff directory", f"Search: \"{x['last']}\" in all locations - 1 result", "",
             "Name | Title | Organization | Email | Phone | Office", " | ".join(cells), "",
             "Data comes from the HR system and is updated every night. Report mistakes to the service desk."]
    return join(*parts), g


CONTACT = [Layout("email-signature", contact_signature, ALL_LANGS, range(5), personal=True),
           Layout("vcard", contact_vcard, personal=True),
           Layout("crm-record", contact_crm, personal=True),
           Layout("intro-email", contact_intro, sizes=range(4), personal=True),
           Layout("ocr-business-card", contact_card_scan, sizes=range(5), personal=True),
           Layout("directory-row", contact_directory, sizes=range(4), personal=True)]


# ======================================================================================================= Event

EVENT_CITIES = {"en": list(VENUES), "de": ["Berlin", "Hamburg", "München", "Wien", "Zürich"], "fr": ["Paris", "Lyon"],
                "es": ["Madrid", "Barcelona"]}
KIND_WORDS = {"en": {"conference": "conference", "meetup": "meetup", "webinar": "webinar", "concert": "concert"},
              "de": {"conference": "Konferenz", "meetup": "Meetup", "webinar": "Webinar", "concert": "Konzert"},
              "fr": {"conference": "conférence", "meetup": "meetup", "webinar": "webinaire", "concert": "concert"},
              "es": {"conference": "congreso", "meetup": "meetup", "webinar": "seminario web", "concert": "concierto"}}
HOURS = {"conference": (8, 10), "meetup": (18, 19), "webinar": (10, 17), "concert": (19, 20), "other": (10, 15)}
CROWDS = {"conference": (300, 3000, 50), "meetup": (30, 150, 10), "webinar": (100, 1000, 50),
          "concert": (200, 2500, 100), "other": (50, 2000, 50)}


def event_facts(rng: Random, lang: str, organizer: bool | None = None) -> tuple[dict, dict]:
    """One event with an organizer that fits its kind; conferences may run several days (the gold date is the first)."""
    kind = rng.choice(list(HOURS))
    city = rng.choice(EVENT_CITIES[lang])
    day = rand_date(rng, 2025, 2026)
    topic = rng.choice(TOPICS)
    if kind == "other":
        title, host, word = rng.choice(OTHER_EVENTS[lang])
    else:
        title, host, word = rng.choice(EVENT_TITLES[kind]), rng.choice(EVENT_ORGANIZERS[kind]), KIND_WORDS[lang][kind]
    fill = {"topic": topic, "city": city, "year": day.year, "n": rng.randint(5, 60)}
    low, high, step = CROWDS[kind]
    gold = {
        "title": title.format(**fill), "kind": kind, "date": day,
        "start_time": rand_time(rng, *HOURS[kind], 15) if kind == "webinar" or rng.random() < 0.85 else None,
        "location": "Online" if kind == "webinar" else f"{rng.choice(VENUES[city])}, {city}",
        "organizer": host.format(**fill) if organizer or (organizer is None and rng.random() < 0.75) else None,
        "attendees_expected": rng.randrange(low, high, step) if rng.random() < 0.55 else None,
    }
    days = rng.choice([1, 2, 3]) if kind == "conference" and day.day <= 26 else 1
    return gold, {"days": days, "topic": topic, "word": word}


def when_text(rng: Random, g: dict, x: dict, lang: str) -> str:
    """The date, or for a multi-day conference the span: 'June 12-14, 2025', '12.-14. Juni 2025'."""
    d, days = g["date"], x["days"]
    if days == 1:
        return date_text(rng, d, lang, ("long", "weekday", "dmy", "abbr"))
    last, month = d.day + days - 1, MONTHS[lang][d.month - 1]
    return {"en": f"{month} {d.day}–{last}, {d.year}", "de": f"{d.day}.–{last}. {month} {d.year}",
            "fr": f"du {d.day} au {last} {month} {d.year}", "es": f"del {d.day} al {last} de {month} de {d.year}"}[lang]


EVENT_HOOKS = {
    "en": {"conference": "Two tracks of talks, hands-on workshops and plenty of time to meet peers: this is the "
                         "{topic} conference of the year.",
           "meetup": "Our community meetup is back: two short talks about {topic}, then pizza and conversation.",
           "webinar": "In this free one-hour webinar, our experts walk through {topic} and answer your questions live.",
           "concert": "An evening concert you will not forget - seating is limited.",
           "other": "Everyone is welcome: bring friends, family and neighbours!"},
    "de": {"conference": "Vorträge, Workshops und viel Zeit für Austausch rund um {topic}: die Konferenz für alle, "
                         "die mehr wissen wollen.",
           "meetup": "Unser Meetup geht in die nächste Runde: zwei kurze Talks zu {topic}, danach Pizza und Austausch.",
           "webinar": "In diesem kostenlosen Webinar zeigen unsere Expertinnen die Grundlagen von {topic}.",
           "concert": "Ein Konzertabend, den Sie nicht vergessen werden.",
           "other": "Alle sind herzlich eingeladen - bringen Sie Familie und Freunde mit!"},
    "fr": {"conference": "Conférences, ateliers et rencontres autour de {topic} : la conférence à ne pas manquer.",
           "meetup": "Notre meetup revient avec deux courtes présentations sur {topic}, suivies d'un apéro.",
           "webinar": "Dans ce webinaire gratuit d'une heure, nos experts présentent {topic} et répondent à vos "
                      "questions.",
           "concert": "Un concert exceptionnel dans un cadre magnifique.",
           "other": "Entrée libre, venez en famille ou entre amis !"},
    "es": {"conference": "Charlas, talleres y networking sobre {topic}: el congreso del año.",
           "meetup": "Vuelve nuestro meetup: dos charlas cortas sobre {topic} y después, algo de picar.",
           "webinar": "En este seminario web gratuito, nuestros expertos explican {topic} y responden preguntas en "
                      "directo.",
           "concert": "Un concierto único que no te puedes perder.",
           "other": "¡Entrada libre para toda la familia!"},
}
ANNOUNCE_WORDS = {
    "en": ("When", "Time", "Where", "Organized by {org}", "We expect around {n} participants.",
           "Register now - places are limited!",
           "The detailed programme will be published two weeks before the event. The venue is step-free and easy "
           "to reach by public transport; there is no parking on site."),
    "de": ("Wann", "Beginn", "Wo", "Veranstalter: {org}", "Wir erwarten rund {n} Teilnehmende.",
           "Jetzt anmelden - die Plätze sind begrenzt!",
           "Das ausführliche Programm veröffentlichen wir zwei Wochen vorher. Der Veranstaltungsort ist barrierefrei "
           "und gut mit öffentlichen Verkehrsmitteln erreichbar."),
    "fr": ("Quand", "Début", "Où", "Organisé par {org}", "Nous attendons environ {n} participants.",
           "Inscription obligatoire, places limitées !",
           "Le programme détaillé sera publié deux semaines avant l'événement. Le lieu est accessible aux personnes "
           "à mobilité réduite et facile d'accès en transports en commun."),
    "es": ("Cuándo", "Hora", "Dónde", "Organiza: {org}", "Esperamos unos {n} asistentes.",
           "¡Inscríbete ya, las plazas son limitadas!",
           "El programa completo se publicará dos semanas antes. El espacio es accesible y está bien comunicado en "
           "transporte público."),
}


def event_announcement(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A web or newsletter announcement: title, a paragraph, and the practical details."""
    g, x = event_facts(rng, lang)
    when, at, where, org, crowd, register, practical = ANNOUNCE_WORDS[lang]
    parts = [g["title"], "", EVENT_HOOKS[lang][g["kind"]].format(topic=x["topic"]), practical, "",
             f"{when}: {when_text(rng, g, x, lang)}",
             f"{at}: {time_text(rng, g['start_time'], lang)}" if g["start_time"] else None,
             f"{where}: {g['location']}", "",
             period(org.format(org=g["organizer"])) if g["organizer"] else None,
             crowd.format(n=count(g["attendees_expected"], lang)) if g["attendees_expected"] else None,
             register]
    return join(*parts), g


def event_form(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A key: value listing from an events calendar."""
    g, x = event_facts(rng, lang)
    parts = [f"Event: {g['title']}", f"Type: {x['word'].capitalize()}", f"Date: {when_text(rng, g, x, lang)}",
             f"Start: {time_text(rng, g['start_time'], lang)}" if g["start_time"] else None,
             f"Location: {g['location']}", f"Organizer: {g['organizer']}" if g["organizer"] else None,
             f"Expected attendance: {g['attendees_expected']}" if g["attendees_expected"] else None,
             f"Admission: {rng.choice(['free', 'tickets from 15 EUR', 'members only', 'pay what you can'])}",
             f"Description: {EVENT_HOOKS['en'][g['kind']].format(topic=x['topic'])}",
             "Accessibility: step-free access, hearing loop available",
             f"Listing updated {rand_date(rng, 2024, 2024).isoformat()}"]
    return join(*parts), g


def event_invite(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A colleague forwards an invitation by e-mail, with an RSVP deadline and an earlier message quoted."""
    g, x = event_facts(rng, lang, organizer=True)
    first, last = person(rng)
    rsvp = g["date"] - dt.timedelta(days=rng.randint(5, 20))
    kind = f"the {x['word'].lower()}"
    time = f" at {time_text(rng, g['start_time'], 'en')}" if g["start_time"] else ""
    parts = [f"From: {first} {last} <{email(rng, first, last, rng.choice(COMPANIES)[1])}>",
             f"Subject: Invitation: {g['title']}", "", "Hi all,", "",
             f"you're invited to {g['title']}! {g['organizer']} is organizing {kind} this year, and our team has a few "
             f"free spots.", "",
             f"We'll meet on {when_text(rng, g, x, 'en')}{time}.", f"Place: {g['location']}"]
    if g["attendees_expected"]:
        parts.append(f"They are planning for about {g['attendees_expected']} people in total.")
    parts += [f"Please RSVP by {date_text(rng, rsvp, 'en', ('long', 'abbr'))} so I can book the tickets.", "",
              "Cheers,", first, "",
              f"> {rng.choice(['Maya', 'Jonas', 'Priya', 'Chen'])} wrote:",
              "> Is anyone going this year? Last time the talks were really good."]
    return join(*parts), g


def event_poster(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A scanned poster: shouting headline words, the details in short lines, scanner damage."""
    g, x = event_facts(rng, lang)
    banner = {"conference": "THE CONFERENCE", "meetup": "COMMUNITY MEETUP", "webinar": "FREE WEBINAR",
              "concert": "LIVE IN CONCERT", "other": "SAVE THE DATE"}[g["kind"]]
    parts = [f"{keep(g['organizer'])} presents" if g["organizer"] else None, "", banner, keep(g["title"]), "",
             keep(when_text(rng, g, x, "en")),
             f"Start {keep(time_text(rng, g['start_time'], 'en'))}" if g["start_time"] else None,
             keep(g["location"]), "",
             f"Expected attendance: {keep(g['attendees_expected'])}" if g["attendees_expected"] else None,
             rng.choice(["Free entry", "Tickets at the door", "Tickets online and at the box office"]),
             rng.choice(["Food and drinks available", "Bring a friend!", "Doors open 30 minutes earlier"]),
             f"With the kind support of {rng.choice(COMPANIES)[0]}"]
    return ocr_noise(rng, join(*parts)), g


def event_social(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A social-media post with emoji bullets and hashtags."""
    g, x = event_facts(rng, lang)
    parts = [f"🎉 {g['title']} 🎉", EVENT_HOOKS["en"][g["kind"]].format(topic=x["topic"]), "",
             f"📅 {when_text(rng, g, x, 'en')}",
             f"⏰ {time_text(rng, g['start_time'], 'en')}" if g["start_time"] else None,
             f"📍 {g['location']}",
             f"👥 {g['attendees_expected']} people expected" if g["attendees_expected"] else None,
             f"🙌 Hosted by {g['organizer']}" if g["organizer"] else None, "",
             "Tag a friend who should come along - registration link in our bio!", "",
             " ".join(f"#{t}" for t in [x["word"].replace(" ", ""), g["location"].split(", ")[-1], "events"])]
    return join(*parts), g


def event_calendar(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """An iCalendar (.ics) export: the date and time only as DTSTART, the kind in CATEGORIES."""
    g, x = event_facts(rng, lang)
    start = g["date"]
    end = start + dt.timedelta(days=x["days"] - 1)
    if g["start_time"]:
        hour, minute = g["start_time"].split(":")
        dtstart = f"DTSTART:{start:%Y%m%d}T{hour}{minute}00"
        dtend = f"DTEND:{end:%Y%m%d}T{int(hour) + rng.randint(1, 3):02}{minute}00"
    else:
        dtstart, dtend = f"DTSTART;VALUE=DATE:{start:%Y%m%d}", f"DTEND;VALUE=DATE:{end + dt.timedelta(days=1):%Y%m%d}"
    crowd = f" About {g['attendees_expected']} attendees are expected." if g["attendees_expected"] else ""
    org = g["organizer"]
    parts = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Community Calendar//EN", "BEGIN:VEVENT",
             f"UID:{rng.randint(10**8, 10**9)}@calendar.example",
             f"DTSTAMP:{rand_date(rng, 2024, 2024):%Y%m%d}T090000Z",
             dtstart, dtend, f"SUMMARY:{g['title']}", f"LOCATION:{g['location']}",
             f"ORGANIZER;CN={org}:mailto:info@{ascii_slug(org).replace('.', '').replace('&', '')}.org" if org else None,
             f"CATEGORIES:{x['word'].upper()}",
             f"DESCRIPTION:{EVENT_HOOKS['en'][g['kind']].format(topic=x['topic'])}{crowd}", "END:VEVENT",
             "END:VCALENDAR"]
    return join(*parts), g


EVENT = [Layout("announcement", event_announcement, ALL_LANGS),
         Layout("key-value", event_form),
         Layout("email-invite", event_invite, personal=True),
         Layout("ocr-poster", event_poster),
         Layout("social-post", event_social),
         Layout("ics-calendar", event_calendar)]


# ======================================================================================================= JobPosting

EMPLOYMENT_WORDS = {
    "en": {"full_time": ["Full-time", "Full-time, permanent"], "part_time": ["Part-time (20 hours/week)", "Part-time"],
           "contract": ["Freelance contract, 6 months", "Contract (freelance)"],
           "internship": ["Internship (6 months)", "Internship"],
           "temporary": ["Temporary, 12-month fixed term", "Fixed-term (parental leave cover, 9 months)"]},
    "de": {"full_time": ["Vollzeit", "Vollzeit, unbefristet"], "part_time": ["Teilzeit (20 Std./Woche)", "Teilzeit"],
           "contract": ["Freiberuflich, Projektvertrag über 6 Monate"],
           "temporary": ["Befristet auf 12 Monate", "Elternzeitvertretung, befristet auf 14 Monate"]},
    "fr": {"full_time": ["CDI, temps plein"], "part_time": ["Temps partiel (24 h/semaine)"],
           "contract": ["Mission freelance de 6 mois"], "temporary": ["CDD de 6 mois"]},
    "es": {"full_time": ["Jornada completa, contrato indefinido"], "part_time": ["Media jornada"],
           "contract": ["Autónomo / freelance, proyecto de 6 meses"], "temporary": ["Contrato temporal de 6 meses"]},
}
REMOTE_WORDS = {  # (remote, on-site)
    "en": (["Fully remote", "Remote work possible"], ["On-site", "On-site only, no remote work"]),
    "de": (["100 % remote möglich", "Mobiles Arbeiten möglich"], ["Arbeit vor Ort", "Präsenzstelle"]),
    "fr": (["Télétravail complet possible"], ["Poste sur site"]),
    "es": (["100 % en remoto"], ["Trabajo presencial"]),
}
REMOTE_PLACES = {"en": ("Remote", "or"), "de": ("Remote", "oder"), "fr": ("Télétravail", "ou"), "es": ("Remoto", "o")}
PAY_PERIODS = {"year": {"en": "per year", "de": "brutto im Jahr", "fr": "bruts annuels", "es": "brutos anuales"},
               "month": {"en": "per month", "de": "im Monat", "fr": "par mois", "es": "al mes"},
               "hour": {"en": "per hour", "de": "pro Stunde", "fr": "de l'heure", "es": "por hora"}}
PAY_FORMS = {"en": ("{a} – {b}", "up to {b}", "from {a}"), "de": ("{a} – {b}", "bis zu {b}", "ab {a}"),
             "fr": ("de {a} à {b}", "jusqu'à {b}", "à partir de {a}"), "es": ("entre {a} y {b}", "hasta {b}",
                                                                              "desde {a}")}
PAY_SCALE = {"EUR": 1, "USD": 1.3, "GBP": 0.9, "CHF": 1.5, "CAD": 1.3, "JPY": 150}
JOB_WORDS = {
    "en": dict(location="Location", type="Employment type", salary="Salary", posted="Posted", about="About us",
               tasks="What you'll do", reqs="Requirements", offer="What we offer", apply="Apply by e-mail to {email}.",
               blurb="{company} has {n} employees and is growing fast.",
               task_list=["Work closely with a small cross-functional team", "Own projects from idea to delivery",
                          "Share what you know in reviews and internal talks"],
               offers=["30 days of paid holiday", "Flexible working hours", "Annual learning budget",
                       "Company pension scheme"]),
    "de": dict(location="Standort", type="Anstellungsart", salary="Gehalt", posted="Veröffentlicht am",
               about="Über uns", tasks="Ihre Aufgaben", reqs="Ihr Profil", offer="Wir bieten",
               apply="Bitte senden Sie Ihre Bewerbung an {email}.",
               blurb="{company} beschäftigt {n} Mitarbeitende und wächst stetig.",
               task_list=["Eigenverantwortliche Betreuung Ihres Aufgabengebiets",
                          "Enge Zusammenarbeit mit anderen Abteilungen",
                          "Mitarbeit an der Optimierung unserer Prozesse"],
               offers=["30 Tage Urlaub", "Flexible Arbeitszeiten", "Jobticket", "Betriebliche Altersvorsorge"]),
    "fr": dict(location="Lieu", type="Type de contrat", salary="Salaire", posted="Publiée le",
               about="Qui sommes-nous ?", tasks="Vos missions", reqs="Profil recherché", offer="Nous offrons",
               apply="Envoyez votre candidature à {email}.",
               blurb="{company} compte {n} collaborateurs et poursuit sa croissance.",
               task_list=["Piloter les campagnes de bout en bout",
                          "Travailler en lien étroit avec l'équipe commerciale",
                          "Suivre et analyser les résultats"],
               offers=["Tickets restaurant", "Mutuelle prise en charge à 70 %", "RTT", "Prime annuelle"]),
    "es": dict(location="Ubicación", type="Tipo de contrato", salary="Salario", posted="Publicada el",
               about="Sobre nosotros", tasks="Funciones", reqs="Requisitos", offer="Ofrecemos",
               apply="Envía tu candidatura a {email}.", blurb="{company} cuenta con {n} empleados y sigue creciendo.",
               task_list=["Coordinar las entradas y salidas del almacén", "Planificar rutas de transporte",
                          "Controlar el inventario"],
               offers=["Horario flexible", "Seguro médico privado", "Formación continua", "Ticket restaurante"]),
}
APPLY_BOXES = {"en": ["jobs", "careers", "recruiting", "talent"], "de": ["bewerbung", "jobs", "karriere"],
               "fr": ["recrutement", "rh", "carrieres"], "es": ["empleo", "rrhh", "trabajo"]}


def salary(rng: Random, lang: str, cur: str, level: int, etype: str) -> tuple[int | None, int | None, str]:
    """(min, max, text) in cents: a range, one figure (min = max), 'up to' (no min) or 'from' (no max)."""
    period = "month" if etype == "internship" else "hour" if etype == "part_time" and rng.random() < 0.6 else "year"
    base = {"year": [38000, 50000, 64000, 80000, 98000][level], "month": 1200, "hour": 16}[period] * PAY_SCALE[cur]
    step = {"year": 1000, "month": 50, "hour": 0.5}[period] * (100 if cur == "JPY" else 1)
    low = round(base * rng.uniform(0.9, 1.05) / step) * step
    low, high = round(low * 100), round((low + round(base * rng.uniform(0.1, 0.3) / step) * step) * 100)
    m = money(rng, cur, lang, decimals=period == "hour")
    between, up_to, from_ = PAY_FORMS[lang]
    form = rng.choice(["range", "range", "single", "up to", "from"])
    text = {"range": between.format(a=m(low), b=m(high)), "single": m(low), "up to": up_to.format(b=m(high)),
            "from": from_.format(a=m(low))}[form]
    text = f"{text} {PAY_PERIODS[period][lang]}"
    return (None if form == "up to" else low), (low if form == "single" else None if form == "from" else high), text


def job_facts(rng: Random, lang: str, sizes: dict, apply_email: str | None = None,
              dated: bool | None = None) -> tuple[dict, dict]:
    """A posting: title and requirements from one profession, pay in the company's currency."""
    prof = PROFESSIONS[rng.choice(list(PROFESSIONS))] if lang == "en" else LOCAL[lang]
    firm = company(rng, PRICED if lang == "en" else LANG_COUNTRIES[lang], prof.industries)
    country = COUNTRIES[firm[2]]
    etype = rng.choices(list(EMPLOYMENT_WORDS[lang]), [55, 15, 10, 10, 10][:len(EMPLOYMENT_WORDS[lang])])[0]
    if lang == "en":
        level = 0 if etype == "internship" else rng.randint(0, 3)
        title = f"Internship in {prof.area}" if etype == "internship" else prof.titles[level]
    else:
        title, level = rng.choice(prof.posting_titles), rng.randint(1, 3)
    city = rng.choice(country.cities)[0]
    remote = prof.remote_ok and rng.random() < 0.4
    anywhere, or_ = REMOTE_PLACES[lang]
    location = (rng.choice([anywhere, f"{anywhere} ({country.names[lang]})", f"{city} {or_} {anywhere.lower()}"])
                if remote else rng.choice([city, f"{city}, {country.names[lang]}"]))
    low, high, pay = salary(rng, lang, country.currency, level, etype) if rng.random() < 0.7 else (None, None, None)
    gold = {
        "title": title, "company": firm[0], "location": location, "employment_type": etype, "remote": remote,
        "salary_min": None if low is None else low / 100, "salary_max": None if high is None else high / 100,
        "salary_currency": country.currency if pay else None,
        "requirements": rng.sample(prof.requirements, sizes["requirements"]),
        "posted_date": rand_date(rng, 2024, 2025) if dated or (dated is None and rng.random() < 0.6) else None,
        "apply_email": apply_email or (f"{rng.choice(APPLY_BOXES[lang])}@{firm[1]}" if rng.random() < 0.75 else None),
    }
    words = REMOTE_WORDS[lang]
    stated = rng.choice(words[0]) if remote else rng.choice(words[1] + [None])
    return gold, {"pay": pay, "etype": rng.choice(EMPLOYMENT_WORDS[lang][etype]), "remote": stated,
                  "size": rng.choice([12, 40, 85, 150, 400, 1200])}


def job_board(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A job-board listing: header facts, then about us, tasks, requirements, benefits and how to apply."""
    g, x = job_facts(rng, lang, sizes)
    w = JOB_WORDS[lang]
    parts = [g["title"], f"{g['company']} · {g['location']}" if rng.random() < 0.5 else
             f"{g['company']}\n{w['location']}: {g['location']}", f"{w['type']}: {x['etype']}", x["remote"],
             f"{w['salary']}: {x['pay']}" if x["pay"] else None,
             f"{w['posted']}: {date_text(rng, g['posted_date'], lang)}" if g["posted_date"] else None, "",
             w["about"], w["blurb"].format(company=g["company"], n=x["size"]), "", w["tasks"],
             *(f"- {t}" for t in w["task_list"])]
    if g["requirements"]:
        parts += ["", w["reqs"], *(f"- {r}" for r in g["requirements"])]
    parts += ["", w["offer"], *(f"- {o}" for o in rng.sample(w["offers"], 3))]
    if g["apply_email"]:
        parts += ["", w["apply"].format(email=g["apply_email"])]
    return join(*parts), g


def job_careers_page(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A company careers page: prose about the role, then 'what you bring' bullets."""
    g, x = job_facts(rng, lang, sizes)
    intro = (f"Open role: {g['title']}, based in {g['location']}. Contract: {x['etype']}. You will work closely with "
             "colleagues across the company and report to the head of the department.")
    parts = [f"Careers at {g['company']}", "", g["title"], f"{g['location']} · {x['etype']}", "", intro]
    if x["remote"]:
        parts.append(f"Work mode: {x['remote']}.")
    if x["pay"]:
        parts.append(f"The pay for this role is {x['pay']}, depending on experience.")
    if g["requirements"]:
        parts += ["", "What you bring", *(f"• {r}" for r in g["requirements"])]
    parts += ["", f"Why {g['company']}?", *(f"• {o}" for o in rng.sample(JOB_WORDS["en"]["offers"], 3))]
    if g["apply_email"]:
        parts += ["", f"Interested? Send your CV and a few lines about yourself to {g['apply_email']}."]
    if g["posted_date"]:
        parts.append(f"Posted on {date_text(rng, g['posted_date'], 'en')}.")
    return join(*parts), g


def job_recruiter(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """An agency recruiter pitches a client's role by e-mail; the candidate's earlier message is quoted."""
    first, last = person(rng)
    address_ = email(rng, first, last, "talentbridge-partners.com")
    g, x = job_facts(rng, lang, sizes, apply_email=address_, dated=False)
    cand, _ = person(rng)
    parts = [f"From: {first} {last} <{address_}>", f"Subject: {g['title']} role at {g['company']}", "",
             f"Hi {cand},", "",
             f"I'm a recruiter at TalentBridge Partners, and I'm helping our client {g['company']} fill this role: "
             f"{g['title']} ({x['etype']}). Location: {g['location']}."]
    if x["remote"]:
        parts.append(f"{x['remote']}.")
    if x["pay"]:
        parts.append(f"The budget is {x['pay']}.")
    if g["requirements"]:
        parts += ["", "What they need:", *(f"- {r}" for r in g["requirements"])]
    parts += ["", f"If this sounds interesting, send your CV to me at {g['apply_email']} and we can set up a call.",
              "", "Best,", f"{first} {last}", "TalentBridge Partners", "",
              f"> {cand} wrote:", "> Thanks for connecting! I'm open to new opportunities, ideally starting next year."]
    return join(*parts), g


def job_newspaper(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A scanned newspaper job ad: compact lines, requirements run together with semicolons, scanner damage."""
    g, x = job_facts(rng, lang, sizes)
    parts = [f"{keep(g['company'])} is hiring", keep(g["title"]), f"{keep(x['etype'])} - {keep(g['location'])}",
             f"Our team of {x['size']} offers fair pay, training and a friendly workplace.",
             x["remote"],
             f"Requirements: {'; '.join(keep(r) for r in g['requirements'])}." if g["requirements"] else None,
             f"Salary: {keep(x['pay'])}" if x["pay"] else None,
             f"Applications to {keep(g['apply_email'])}" if g["apply_email"] else None,
             f"Ad published {keep(date_text(rng, g['posted_date'], 'en'))}" if g["posted_date"] else None]
    return ocr_noise(rng, join(*parts)), g


def job_table(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """An applicant-tracking export: a two-column field/value table, one row per requirement."""
    g, x = job_facts(rng, lang, sizes)
    rows = [("Position", g["title"]), ("Company", g["company"]), ("Location", g["location"]),
            ("Employment type", x["etype"]), ("Remote", "Yes" if g["remote"] else "No"),
            ("Salary", x["pay"] or "not disclosed"),
            ("Posted", date_text(rng, g["posted_date"], "en", ("iso", "uk", "abbr")) if g["posted_date"] else "—")]
    rows += [("Requirement", r) for r in g["requirements"]]
    rows.append(("Apply to", g["apply_email"] or "via the online form"))
    parts = [f"Job ID {rng.randint(1000, 9999)}", "", "| Field | Value |", "|---|---|",
             *(f"| {a} | {b} |" for a, b in rows)]
    return join(*parts), g


def job_short_ad(rng: Random, lang: str, sizes: dict) -> tuple[str, dict]:
    """A few-line classified ad with at most a couple of requirements."""
    g, x = job_facts(rng, lang, sizes)
    reqs = series(g["requirements"], lang) if g["requirements"] else None
    if lang == "de":
        parts = [f"{g['company']} sucht ab sofort: {g['title']} ({x['etype']}) in {g['location']}.",
                 "Wir sind ein familiengeführtes Unternehmen mit kurzen Entscheidungswegen und einem herzlichen Team.",
                 f"Voraussetzung: {reqs}." if reqs else None, f"Vergütung: {x['pay']}." if x["pay"] else None,
                 x["remote"], f"Kurzbewerbung an {g['apply_email']}." if g["apply_email"] else "Bewerbung nur online."]
    else:
        parts = [f"{g['title']} wanted!", f"{g['company']} ({g['location']}) is hiring - {x['etype']}.",
                 "We are a friendly team that values reliability and good humour.",
                 f"Must have: {reqs}." if reqs else None, f"Pay: {x['pay']}." if x["pay"] else None, x["remote"],
                 f"Apply to {g['apply_email']}." if g["apply_email"] else "Apply through our website."]
    if g["posted_date"]:
        parts.append(f"{'Inseriert am' if lang == 'de' else 'Posted'} {date_text(rng, g['posted_date'], lang)}")
    return join(*parts), g


JOB = [Layout("job-board", job_board, ALL_LANGS),
       Layout("careers-page", job_careers_page),
       Layout("recruiter-email", job_recruiter, personal=True),
       Layout("ocr-newspaper", job_newspaper, sizes=range(6)),
       Layout("ats-table", job_table),
       Layout("short-ad", job_short_ad, ("en", "de"), range(3))]

LAYOUTS = {"Resume": RESUME, "Invoice": INVOICE, "Receipt": RECEIPT, "ContactCard": CONTACT, "Event": EVENT,
           "JobPosting": JOB}
