"""Non-disclosure agreement schema: who is bound, from when, under which law and for how long."""

import datetime

from pydantic import BaseModel, Field


class NDA(BaseModel):
    """A non-disclosure (confidentiality) agreement: its parties, effective date, governing law and term."""

    parties: list[str] = Field(
        description="Names of the parties bound by the agreement (companies or people), as written in the text"
    )
    effective_date: datetime.date | None = Field(
        default=None, description="Date the agreement takes effect, as YYYY-MM-DD; null if not stated"
    )
    jurisdiction: str | None = Field(
        default=None, description="State or country whose law governs the agreement; null if not stated"
    )
    term: str | None = Field(
        default=None, description="How long the agreement lasts, such as '2 years'; null if not stated"
    )
