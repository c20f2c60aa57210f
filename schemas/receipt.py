"""Receipt schema: what was bought where and when, what it cost and how it was paid."""

import datetime
from typing import Literal

from pydantic import BaseModel, Field

from .invoice import Currency

PaymentMethod = Literal["cash", "card", "mobile", "other"]


class ReceiptItem(BaseModel):
    """One printed line of the receipt: an article or dish, how many, and what the line cost."""

    name: str = Field(description="Item name as printed on the receipt")
    quantity: int = Field(ge=1, description="Number of units on this line, a whole number; 1 if no count is printed")
    price: float = Field(ge=0, description="Price of the whole line (all units together), without currency symbol")


class Receipt(BaseModel):
    """A shop or restaurant receipt: merchant, date and time, items, amounts and payment method."""

    merchant: str = Field(description="Name of the shop or restaurant as printed")
    date: datetime.date = Field(description="Date of the purchase, as YYYY-MM-DD")
    time: str | None = Field(
        default=None, description="Time of the purchase in 24-hour HH:MM format; null if not printed"
    )
    items: list[ReceiptItem] = Field(
        description="Every purchased line, in printed order; empty list if none are listed"
    )
    subtotal: float | None = Field(
        default=None, ge=0,
        description="Subtotal as printed (sum of the items, before any tax added on top); null if not printed",
    )
    tax: float | None = Field(
        default=None, ge=0, description="Tax amount as printed, whether added on top or included; null if not printed"
    )
    total: float = Field(ge=0, description="Total amount paid, without currency symbol")
    currency: Currency = Field(description="Three-letter currency code")
    payment_method: PaymentMethod = Field(
        description="How it was paid: cash, card, mobile (phone or wallet app) or other (voucher, gift card, ...)"
    )
