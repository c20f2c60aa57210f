"""Ready-made Pydantic models for common documents.

Pass any of these to ``extractor.extract`` to pull a validated object out of
plain text, e.g. ``extract(Resume, text)``.  They use only the types the
grammar compiler supports: str, int, float, bool, optional fields (default
None), lists, nested models, ``Literal``, str-valued ``Enum`` and
``datetime.date``; the only constraints are numeric bounds (``ge``/``le``),
such as years between 1950 and 2100 and amounts that are never negative.

Models:
    Resume       -- a CV (nested: Job, Degree)
    Invoice      -- an invoice (nested: LineItem; enum: Currency)
    Receipt      -- a shop or restaurant receipt (nested: ReceiptItem; literal: PaymentMethod; enum: Currency)
    ContactCard  -- a business card / contact (nested: Address)
    Event        -- an event announcement (literal type: EventKind)
    JobPosting   -- a job advertisement (enums: EmploymentType, Currency)
    NDA          -- a non-disclosure agreement (parties, effective date, governing law, term)
    ScannedReceipt -- the company, date, address and total of a scanned receipt, as printed
"""

from .contact import Address, ContactCard
from .event import Event, EventKind
from .invoice import Currency, Invoice, LineItem
from .job import EmploymentType, JobPosting
from .nda import NDA
from .receipt import PaymentMethod, Receipt, ReceiptItem
from .resume import Degree, Job, Resume
from .scanned_receipt import ScannedReceipt

__all__ = [
    "Resume",
    "Job",
    "Degree",
    "Invoice",
    "LineItem",
    "Currency",
    "Receipt",
    "ReceiptItem",
    "PaymentMethod",
    "ContactCard",
    "Address",
    "Event",
    "EventKind",
    "JobPosting",
    "EmploymentType",
    "NDA",
    "ScannedReceipt",
]
