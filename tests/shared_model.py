"""Code the tests run as a user runs it (the docs' blocks, examples/) gets the session's loaded model from
`extract(...)` and `Extractor()`, as a fresh process gets the embedded one: the model loads once, not per snippet.
Import the fixture into a test module to use it."""

from __future__ import annotations

import pytest

import extractor
from extractor import api


@pytest.fixture
def one_model(model_extractor, monkeypatch: pytest.MonkeyPatch):
    """`Extractor()` with no arguments and the module functions' default model are the session's; `Extractor(...)`
    with arguments still builds its own."""
    real = extractor.Extractor
    monkeypatch.setitem(api._DEFAULTS, (None, None), model_extractor)
    monkeypatch.setattr(extractor, "Extractor", lambda *a, **kw: real(*a, **kw) if a or kw else model_extractor)
    return model_extractor
