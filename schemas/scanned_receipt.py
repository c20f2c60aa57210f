"""Scanned receipt schema: the four facts a bookkeeper copies from a receipt, each as printed."""

from pydantic import BaseModel, Field


class ScannedReceipt(BaseModel):
    """The header facts of a scanned or photographed receipt, each copied as printed."""

    company: str = Field(description="Name of the company or shop that issued the receipt, as printed")
    date: str = Field(description="Date of the purchase, exactly as printed")
    address: str = Field(description="Address of the shop, as printed (lines joined by spaces)")
    total: str = Field(description="Total amount paid, exactly as printed, without currency")
