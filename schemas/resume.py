"""Resume / CV schema: a person, their skills, jobs and degrees."""

from pydantic import BaseModel, Field


class Job(BaseModel):
    """One position held by the person, as listed in the work history."""

    company: str = Field(description="Name of the company or employer")
    title: str = Field(description="Job title held at this company")
    start_year: int = Field(ge=1950, le=2100, description="Four-digit year the job started")
    end_year: int | None = Field(
        default=None,
        ge=1950,
        le=2100,
        description="Four-digit year the job ended; null if this is the current job",
    )


class Degree(BaseModel):
    """One academic degree or diploma the person earned."""

    degree: str = Field(description="Name of the degree")
    institution: str = Field(description="University or school that awarded the degree")
    graduation_year: int | None = Field(
        default=None, ge=1950, le=2100, description="Four-digit year the degree was completed; null if not given"
    )


class Resume(BaseModel):
    """A person's resume: contact details, skills, work history and education."""

    name: str = Field(description="Full name of the person the resume belongs to")
    email: str = Field(description="The person's email address")
    phone: str | None = Field(default=None, description="The person's phone number; null if not given")
    location: str | None = Field(
        default=None, description="City (and country) where the person lives; null if not given"
    )
    summary: str | None = Field(
        default=None, description="One-sentence professional summary; null if not given"
    )
    skills: list[str] = Field(description="Short skill names")
    experience: list[Job] = Field(description="Jobs held, most recent first")
    education: list[Degree] = Field(description="Degrees earned; empty list if none are given")
