"""Event schema: what is happening, when, where and who organizes it."""

import datetime
from typing import Literal

from pydantic import BaseModel, Field

EventKind = Literal["conference", "meetup", "webinar", "concert", "other"]


class Event(BaseModel):
    """An announced event: title, kind, date, time, place and organizer."""

    title: str = Field(description="Name of the event")
    kind: EventKind = Field(description="Type of event: conference, meetup, webinar, concert or other")
    date: datetime.date = Field(description="Day the event takes place (first day if several), as YYYY-MM-DD")
    start_time: str | None = Field(
        default=None, description="Start time in 24-hour HH:MM format; null if not given"
    )
    location: str = Field(description="Venue and city, or 'Online' for a webinar")
    organizer: str | None = Field(
        default=None, description="Person or organization running the event; null if not given"
    )
    attendees_expected: int | None = Field(
        default=None, ge=0, description="Number of people expected to attend, a whole number; null if not given"
    )
