"""Invoice schema: who bills whom, for which items, and for how much."""

import datetime
from enum import Enum

from pydantic import BaseModel, Field


class Currency(str, Enum):
    """ISO 4217 code of a currency (invoices, receipts and salaries use it)."""

    USD = "USD"
    EUR = "EUR"
    GBP = "GBP"
    JPY = "JPY"
    CHF = "CHF"
    CAD = "CAD"


class LineItem(BaseModel):
    """One billed line of the invoice: a product or service with quantity and price."""

    description: str = Field(description="What was sold or done")
    quantity: int = Field(ge=0, description="Number of units billed, a whole number")
    unit_price: float = Field(ge=0, description="Price of one unit, without currency symbol")


class Invoice(BaseModel):
    """An invoice: number, date, seller, buyer, billed items, total and payment status."""

    invoice_number: str = Field(description="Invoice number or ID as printed")
    issue_date: datetime.date = Field(description="Date the invoice was issued, as YYYY-MM-DD")
    seller: str = Field(description="Name of the company or person sending the invoice")
    buyer: str = Field(description="Name of the company or person being billed")
    currency: Currency = Field(description="Three-letter currency code")
    line_items: list[LineItem] = Field(description="Every billed line, in the order listed")
    total: float = Field(ge=0, description="Total amount due, without currency symbol")
    paid: bool = Field(description="true if the invoice says it is already paid, otherwise false")
