"""A screenshot in the docs records the page it shows: the SHA-256 of the page's HTML in a PNG text chunk, so a test
without a browser can tell whether the committed picture is of today's page."""

from __future__ import annotations

import hashlib
import struct
import zlib
from pathlib import Path

REVIEW_SHOT = Path(__file__).resolve().parents[1] / "docs" / "review.png"
"""The review page of the bundled examples (examples/review.py), written by tests/browser (`make test-browser`)."""

KEY = b"extractor-page-sha256"


def digest(html: str) -> str:
    return hashlib.sha256(html.encode("utf-8")).hexdigest()


def stamped(png: bytes, page_digest: str) -> bytes:
    """The PNG with a text chunk naming its page, right after its header chunk (IHDR: the first 33 bytes)."""
    data = KEY + b"\0" + page_digest.encode("ascii")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    return png[:33] + chunk + png[33:]


def recorded(png: Path) -> str | None:
    """The page digest a stamped PNG names; None for a PNG without one (or no file)."""
    data = png.read_bytes() if png.exists() else b""
    at = 8
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + size]
        if kind == b"tEXt" and body.startswith(KEY + b"\0"):
            return body[len(KEY) + 1:].decode("ascii")
        at += 12 + size
    return None
