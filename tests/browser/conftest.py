"""Headless Chromium (Debian's package) driven by Playwright; the tests skip, saying why, where either is missing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

OUTPUT = Path(__file__).resolve().parent / "output"
"""Screenshots the tests take (kept for a person to look at; not committed)."""

FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
"""No network from the browser: this machine's closed network refuses its background connections."""


def chromium_path() -> str | None:
    """The system Chromium: $CHROMIUM, else `chromium` or `chromium-browser` on the PATH."""
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def shots() -> Path:
    """The folder screenshots go to."""
    OUTPUT.mkdir(exist_ok=True)
    return OUTPUT


@pytest.fixture(scope="package")
def browser():
    """One Chromium for this folder's tests, closed when they end: Playwright's sync API runs an event loop on this
    thread while it is open, and later tests call `asyncio.run`."""
    playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (make test-browser "
                                                                     "installs it)")
    path = chromium_path()
    if path is None:
        pytest.skip("no Chromium: install Debian's `chromium` package (make test-browser tries to) or set $CHROMIUM")
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=FLAGS)
        yield browser
        browser.close()
