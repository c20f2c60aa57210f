"""Benchmark smoke runs get the session's loaded model where they ask for the embedded one (`Extractor()`,
`Extractor(None)`, `Extractor(device=None)`), as a fresh process would load it: one load for the suite, not one per
smoke run. Import the fixture into a test module to use it."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import extractor


@pytest.fixture
def shared_model(model_extractor, monkeypatch: pytest.MonkeyPatch):
    """`Extractor` with no model, tokenizer, device or template named is the session's, in `extractor` and in every
    benchmark module that imported it; what a run sets on the model or the extractor is put back afterwards."""
    real = extractor.Extractor

    def made(model: Any = None, tokenizer: Any = None, **named: Any) -> Any:
        default = model is None and tokenizer is None and all(v is None for v in named.values())
        return model_extractor if default else real(model, tokenizer, **named)

    monkeypatch.setattr(extractor, "Extractor", made)
    for name, module in list(sys.modules.items()):
        if name.startswith("benchmarks.") and getattr(module, "Extractor", None) is real:
            monkeypatch.setattr(module, "Extractor", made)
    for held in (model_extractor, model_extractor.lm):
        for key, value in vars(held).items():
            monkeypatch.setattr(held, key, value)  # restored after the run, whatever it set
    yield model_extractor
    for name, module in list(sys.modules.items()):  # a module first imported during the run took `made`
        if name.startswith("benchmarks.") and getattr(module, "Extractor", None) is made:
            module.Extractor = real
