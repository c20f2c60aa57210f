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


def test_the_converted_model_is_keyed_by_content_and_transformers_major_not_by_path(tmp_path, monkeypatch):
    from extractor.decode import model

    data = bytes(range(256)) * 9000
    a, b = tmp_path / "one" / "m.gguf", tmp_path / "two" / "m.gguf"
    for path in (a, b):
        path.parent.mkdir()
        path.write_bytes(data)
    assert model._conversion_key(a) == model._conversion_key(b)  # another virtualenv, the same copy
    b.write_bytes(data[:-1] + b"x")
    assert model._conversion_key(a) != model._conversion_key(b)
    before = model._conversion_key(a)
    monkeypatch.setattr("importlib.metadata.version", lambda name: "99.0.0")
    assert model._conversion_key(a) != before  # a new transformers major converts again
