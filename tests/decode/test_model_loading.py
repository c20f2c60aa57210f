"""Loading a model fails fast and typed where it cannot succeed."""

from __future__ import annotations

import pytest

from extractor.decode import model
from extractor.decode.model import load_model
from extractor.errors import ModelLoadError


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_model_name_is_refused(name):
    with pytest.raises(ModelLoadError, match="model is empty"):
        load_model(name)


def test_a_hub_id_that_is_not_cached_fails_at_once_when_the_hub_is_unreachable(monkeypatch):
    import transformers

    def download(*args, **kwargs):
        raise AssertionError("a download was attempted")

    monkeypatch.setattr(model, "_reachable", lambda timeout=3.0: False)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", download)
    with pytest.raises(ModelLoadError, match="not in the local Hugging Face cache and the hub cannot be reached"):
        load_model("nobody/no-such-model")


def test_a_missing_local_path_is_named():
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_model("./no/such/folder")
