"""Job posting schema: which role, at which company, where, on what terms and for whom."""

import datetime
from enum import Enum

from pydantic import BaseModel, Field

from .invoice import Currency


class EmploymentType(str, Enum):
    """Kind of employment the posting offers."""

    FULL_TIME = "full_time"
    PART_TIME = "part_time"
    CONTRACT = "contract"
    INTERNSHIP = "internship"
    TEMPORARY = "temporary"


class JobPosting(BaseModel):
    """A job advertisement: title, company, place, terms, pay, requirements and how to apply."""

    title: str = Field(description="Job title as advertised")
    company: str = Field(description="Name of the hiring company")
    location: str = Field(description="Place of work as written (city and/or country, or e.g. 'Remote')")
    employment_type: EmploymentType = Field(
        description="full_time, part_time, contract (freelance), internship or temporary (fixed-term)"
    )
    remote: bool = Field(
        description="true if the posting says the work can be done remotely; false if on-site or not stated"
    )
    salary_min: float | None = Field(
        default=None, ge=0,
        description="Lowest pay offered as a plain number (55000 for '55k'); the figure itself if only one is given; "
                    "null if none",
    )
    salary_max: float | None = Field(
        default=None, ge=0,
        description="Highest pay offered as a plain number; the figure itself if only one is given; null if none",
    )
    salary_currency: Currency | None = Field(default=None, description="Currency of the pay; null if no pay is given")
    requirements: list[str] = Field(
        description="Required skills and qualifications, each a short phrase as written; empty list if none are listed"
    )
    posted_date: datetime.date | None = Field(
        default=None, description="Date the posting was published, as YYYY-MM-DD; null if not given"
    )
    apply_email: str | None = Field(
        default=None, description="Email address to send applications to; null if not given"
    )
