"""The async surface: the same results as the sync calls, on a worker thread; cancelling stops the decoding."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions, aextract, aextract_many, aextract_stream
from extractor.masks import Matcher

CONTACT = (Path(__file__).resolve().parents[1] / "examples" / "data" / "contact.txt").read_text()


class Person(BaseModel):
    name: str
    email: str


class Essay(BaseModel):
    text: str


class Letter(BaseModel):
    name: str
    letter: str  # long: decoding is still under way after the first partial


OPTIONS = ExtractOptions(max_tokens=60)


def test_aextract_and_aextract_many_return_what_the_sync_calls_return(model_extractor):
    expected = model_extractor.extract(Person, CONTACT, OPTIONS)

    async def both():
        one = await aextract(Person, CONTACT, OPTIONS, extractor=model_extractor)
        many = await aextract_many(Person, [CONTACT, ""], OPTIONS, extractor=model_extractor)
        return one, many

    one, many = asyncio.run(both())
    assert one == expected and many[0] == expected
    assert type(many[1]).__name__ == "InputError"


def test_calls_awaited_together_each_get_their_own_result(model_extractor):
    texts = [CONTACT, "Bob Smith can be reached at bob@example.org."]
    expected = [model_extractor.extract(Person, t, OPTIONS) for t in texts]

    async def together():
        return await asyncio.gather(*(aextract(Person, t, OPTIONS, extractor=model_extractor) for t in texts))

    # each in call order, the person of its own text; the other fields are not compared: two threads decoding at
    # once sum in another order inside torch's kernels, and a near tie of the small model (".org" or ".com" in an
    # address) can then go the other way
    names = [r.name for r in asyncio.run(together())]
    assert names == [e.name for e in expected] == ["Dr. Kenji Watanabe", "Bob Smith"]


def test_aextract_stream_yields_partials_then_the_result(model_extractor):
    expected = list(model_extractor.extract_stream(Person, CONTACT, OPTIONS))

    async def collect():
        return [part async for part in aextract_stream(Person, CONTACT, OPTIONS, extractor=model_extractor)]

    assert asyncio.run(collect()) == expected


def _steps(monkeypatch) -> list[float]:
    """Times of every decoding step taken (a token advanced by any matcher)."""
    seen: list[float] = []
    advance = Matcher.advance

    def counted(self, token):
        seen.append(time.monotonic())
        return advance(self, token)

    monkeypatch.setattr(Matcher, "advance", counted)
    return seen


def _quiet_after(seen: list[float], seconds: float = 1.5) -> bool:
    """Whether no step was taken during `seconds`, waiting up to 10 s for that."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(seconds)
        if not seen or time.monotonic() - seen[-1] >= seconds:
            return True
    return False


@pytest.mark.parametrize("call", ["aextract", "aextract_many"])
def test_cancelling_the_task_stops_the_decoding(model_extractor, monkeypatch, call):
    seen = _steps(monkeypatch)
    long = ExtractOptions(max_tokens=2000, guards=False, min_relevance=None, refusal=False)

    async def cancel_midway():
        coro = aextract(Essay, CONTACT, long, extractor=model_extractor) if call == "aextract" else \
            aextract_many(Essay, [CONTACT], long, extractor=model_extractor, progress=False)
        task = asyncio.ensure_future(coro)
        for _ in range(1200):  # decoding under way: steps seen (at most a minute)
            if len(seen) >= 5:
                break
            await asyncio.sleep(0.05)
        assert len(seen) >= 5
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert _quiet_after(seen) and len(seen) < 2000


def test_closing_the_async_stream_stops_the_decoding(model_extractor, monkeypatch):
    seen = _steps(monkeypatch)
    long = ExtractOptions(max_tokens=2000, guards=False, min_relevance=None, refusal=False)

    async def first_only():
        stream = aextract_stream(Letter, CONTACT, long, extractor=model_extractor)
        async for _ in stream:
            break
        await stream.aclose()

    asyncio.run(first_only())
    assert _quiet_after(seen) and len(seen) < 2000


def test_closing_the_async_stream_of_a_long_text_stops_reading_its_windows(model_extractor, monkeypatch):
    seen = _steps(monkeypatch)
    long = ExtractOptions(max_tokens=60, window=64, overlap=8, min_relevance=None, refusal=False)

    async def cancel_midway():
        async def consume():
            return [part async for part in aextract_stream(Person, CONTACT * 8, long, extractor=model_extractor)]

        task = asyncio.ensure_future(consume())
        for _ in range(1200):  # the windows' decoding under way, all in the stream's first step
            if len(seen) >= 5:
                break
            await asyncio.sleep(0.05)
        assert len(seen) >= 5 and not task.done()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert _quiet_after(seen) and len(seen) < 100  # read to the end, its windows take some 500 steps
