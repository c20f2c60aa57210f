"""Pydantic models covering every construct the foundation promises, for property tests."""

from __future__ import annotations

import datetime
from enum import Enum
from typing import Literal, Optional, Union

from pydantic import BaseModel, Field


class Color(str, Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Point(BaseModel):
    x: float
    y: float
    label: Optional[str] = None


class Flat(BaseModel):
    name: str
    age: int
    height: float
    active: bool
    nothing: None


class Optionals(BaseModel):
    a: Optional[str] = None
    b: Optional[int] = None
    c: str
    d: Optional[bool] = None


class Nested(BaseModel):
    origin: Point
    corners: list[Point]
    note: Optional[Point] = None


class Enums(BaseModel):
    color: Color
    level: Literal["low", "mid", "high"]
    code: Literal[1, 2, 3]
    fixed: Literal["only"]


class Lists(BaseModel):
    tags: list[str]
    grid: list[list[int]]
    colors: list[Color] = Field(default_factory=list)


class Maps(BaseModel):
    counts: dict[str, int]
    points: dict[str, Point]


class Tree(BaseModel):
    value: str
    children: list[Tree]


class Comment(BaseModel):
    text: str
    replies: Optional[list[Comment]] = None
    parent: Optional[Comment] = None


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    good: bool


class Unions(BaseModel):
    value: Union[int, str, None]
    pet: Union[Cat, Dog] = Field(discriminator="kind")
    either: Union[Point, list[int]]


class Dated(BaseModel):
    day: datetime.date
    when: datetime.datetime
    at: Optional[datetime.time] = None


ZOO: list[type[BaseModel]] = [Flat, Optionals, Nested, Enums, Lists, Maps, Tree, Comment, Unions, Dated]
