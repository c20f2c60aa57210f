"""Ready-made Pydantic models for common documents.

Pass any of these to ``extractor.extract`` to pull a validated object out of
plain text, e.g. ``extract(Resume, text)``.  They use only the types the
grammar compiler supports: str, int, float, bool, optional fields (default
None), lists, nested models, ``Literal``, str-valued ``Enum`` and
``datetime.date``; no field constraints.

Models:
    Resume       -- a CV (nested: Job, Degree)
    Invoice      -- an invoice (nested: LineItem; enum: Currency)
    ContactCard  -- a business card / contact (nested: Address)
    Event        -- an event announcement (literal type: EventKind)
"""

from .contact import Address, ContactCard
from .event import Event, EventKind
from .invoice import Currency, Invoice, LineItem
from .resume import Degree, Job, Resume

__all__ = [
    "Resume",
    "Job",
    "Degree",
    "Invoice",
    "LineItem",
    "Currency",
    "ContactCard",
    "Address",
    "Event",
    "EventKind",
]
