"""The `extractor` command: schema inspection, extraction over a folder, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extractor.cli import main

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def test_schema_prints_the_refusal_branch_and_grammar_statistics(capsys):
    assert main(["schema", "schemas:ContactCard"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["schema"]["anyOf"][1]["title"] == "Refusal"
    assert out["grammar"]["rules"] > 1 and out["grammar"]["states"] > 10
    assert main(["schema", "schemas:ContactCard", "--no-refusal"]) == 0
    assert "anyOf" not in json.loads(capsys.readouterr().out)["schema"]


@pytest.mark.parametrize("argv,message", [
    (["schema", "nowhere:Model"], "cannot import"),
    (["schema", "schemas:Missing"], "has no"),
    (["schema", "schemas"], "module:Model"),
    (["schema", "typing:Optional"], "not a Pydantic model"),
    (["extract", "--schema", "schemas:ContactCard", "--input", "/no/such/file"], "does not exist"),
])
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.model
def test_extract_writes_one_json_line_per_file(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text((ROOT / "examples" / "data" / "contact.txt").read_text())
    (tmp_path / "in" / "b.md").write_text("Nothing to see here.")
    out = tmp_path / "out.jsonl"
    code = main(["extract", "--schema", "schemas:ContactCard", "--input", str(tmp_path / "in"),
                 "--jsonl", str(out), "--max-tokens", "48", "--trace"])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["file"].rsplit("/", 1)[-1] for line in lines] == ["a.txt", "b.md"]
    assert code in (0, 1) and all(("result" in line) != ("error" in line) for line in lines)
    assert code == (1 if any("error" in line for line in lines) else 0)
    answered = [line for line in lines if "result" in line and not line["refused"]]
    assert all(isinstance(line["trace"], list) for line in answered)
    assert main(["review", str(out), "--texts", str(tmp_path / "in"), "-o", str(tmp_path / "review.html")]) == 0


@pytest.mark.model
def test_a_json_schema_target_reports_a_refusal_as_refused(tmp_path):
    from schemas import ContactCard

    schema = tmp_path / "contact.json"
    schema.write_text(json.dumps(ContactCard.model_json_schema()))
    (tmp_path / "recipe.txt").write_text((ROOT / "examples" / "data" / "no_answer.txt").read_text())
    out = tmp_path / "out.jsonl"
    assert main(["extract", "--schema", str(schema), "--input", str(tmp_path / "recipe.txt"), "--jsonl", str(out),
                 "--max-tokens", "48"]) == 0
    line = json.loads(out.read_text())
    assert line["refused"] is True and set(line["result"]) == {"error"}


def test_a_json_file_that_is_not_a_schema_object_exits_2(tmp_path, capsys):
    for name, data in (("list.json", b"[1, 2]"), ("broken.json", b'{"type": '), ("latin.json", b'{"\xe9": 1}')):
        (tmp_path / name).write_bytes(data)
        assert main(["schema", str(tmp_path / name)]) == 2
        assert str(tmp_path / name) in capsys.readouterr().err


def test_a_file_in_the_working_directory_cannot_stand_in_for_a_dependency(tmp_path, monkeypatch):
    import importlib.util
    import sys

    from extractor.cli import load_target

    (tmp_path / "tenacity.py").write_text("raise SystemExit('planted module imported')\n")
    (tmp_path / "mymodels.py").write_text("from pydantic import BaseModel\nclass Person(BaseModel):\n    name: str\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    assert load_target("mymodels:Person").__name__ == "Person"  # the working directory is still searched...
    assert importlib.util.find_spec("tenacity").origin != str(tmp_path / "tenacity.py")  # ...after the packages


def test_an_undecodable_file_is_reported_and_the_others_still_run(tmp_path, monkeypatch):
    import extractor.api
    from extractor import Traced, trace
    from schemas import ContactCard

    class Fake:
        def __init__(self, model=None):
            pass

        def extract(self, target, text, options=None, with_trace=False, **kw):
            result = ContactCard(name=text.strip(), emails=[], phones=[])
            return Traced(result, trace(result, text)) if with_trace else result

    monkeypatch.setattr(extractor.api, "Extractor", Fake)
    (tmp_path / "a.txt").write_bytes(b"\xff\xfe broken")
    (tmp_path / "b.txt").write_text("Ada Lovelace")
    out = tmp_path / "out.jsonl"
    assert main(["extract", "--schema", "schemas:ContactCard", "--input", str(tmp_path), "--jsonl", str(out)]) == 1
    first, second = map(json.loads, out.read_text().splitlines())
    assert first["error"]["type"] == "UnicodeDecodeError" and "a.txt" in first["error"]["message"]
    assert second["result"]["name"] == "Ada Lovelace"


def test_review_writes_one_page_from_the_jsonl_and_the_texts(tmp_path, capsys):
    from extractor import trace

    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "a.txt").write_text("Ada Lovelace <ada@example.org>")
    found = trace({"name": "Ada Lovelace", "email": "ada@nowhere.org"}, "Ada Lovelace <ada@example.org>",
                  {"type": "object"})
    lines = [{"file": "in/a.txt", "refused": False, "result": {"name": "Ada Lovelace", "email": "ada@nowhere.org"},
              "trace": found.to_json()},
             {"file": "in/b.txt", "error": {"type": "InputError", "message": "the text is empty"}}]
    (texts / "b.txt").write_text(" ")
    results = tmp_path / "out.jsonl"
    results.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    page = tmp_path / "review.html"
    assert main(["review", str(results), "--texts", str(texts), "-o", str(page)]) == 0
    html = page.read_text()
    assert "in/a.txt" in html and "ada@nowhere.org" in html and "the text is empty" in html
    assert "2 documents" in capsys.readouterr().err
    (texts / "b.txt").unlink()
    assert main(["review", str(results), "--texts", str(texts), "-o", str(page)]) == 2
    assert "cannot read the text of in/b.txt" in capsys.readouterr().err


def test_model_prints_the_embedded_models_folder_for_engines_that_load_by_path(capsys):
    pytest.importorskip("transformers", reason="the embedded model is converted with transformers")
    assert main(["model"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert (folder / "config.json").exists() and any(folder.glob("*.safetensors"))


def test_a_corpus_job_without_ray_installed_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    (tmp_path / "a.txt").write_text("Anna Berg, anna@berg.se")
    assert main(["extract", "--schema", "schemas:ContactCard", "--input", str(tmp_path), "--parquet",
                 str(tmp_path / "out"), "--ray"]) == 2
    assert "pip install 'extractor-llm[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_corpus_job_of_no_actors_is_refused_before_ray_is_asked_for(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("Anna Berg, anna@berg.se")
    assert main(["extract", "--schema", "schemas:ContactCard", "--input", str(tmp_path), "--parquet",
                 str(tmp_path / "out"), "--actors", "0"]) == 2
    assert "actors must be an int ≥ 1, got 0" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
