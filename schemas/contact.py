"""Contact card schema: a person's name, role and ways to reach them."""

from pydantic import BaseModel, Field


class Address(BaseModel):
    """A postal address."""

    street: str = Field(description="Street name and house number")
    city: str = Field(description="City or town name")
    postal_code: str = Field(description="Postal or ZIP code, as written")
    country: str = Field(description="Country name")


class ContactCard(BaseModel):
    """A business-card style contact: name, job, emails, phones and address."""

    name: str = Field(description="Full name of the person")
    title: str | None = Field(
        default=None, description="The person's job title; null if not given"
    )
    organization: str | None = Field(
        default=None, description="Company or organization the person works for; null if not given"
    )
    emails: list[str] = Field(description="Email addresses of the person; empty list if none")
    phones: list[str] = Field(description="Phone numbers of the person, as written; empty list if none")
    address: Address | None = Field(default=None, description="Postal address; null if not given")
