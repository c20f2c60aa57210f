"""The `extractor` command: schema inspection, extraction over a folder, and clear errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from extractor.cli import main
from extractor.errors import InputError, MissingFieldsError
from extractor.tracing import Conflict, Incomplete, Repeated, Span, Trace, Traced

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
    (["schema", "missing.json"], "schema file missing.json does not exist"),
    (["extract", "--schema", "no/such.json", "--input", "README.md"], "schema file no/such.json does not exist"),
    (["schema", "README.md"], "expected module:Model or a .json file, got 'README.md'"),
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


@pytest.fixture
def answers(monkeypatch):
    """The model replaced by a fake: a text's outcome is what this dict maps it to (a `Traced`, or an exception to
    raise), else a ContactCard named by the text."""
    import extractor.api
    from extractor import Traced, trace
    from schemas import ContactCard

    outcomes: dict[str, Any] = {}

    class Fake:
        def __init__(self, model=None):
            pass

        def extract(self, target, text, options=None, with_trace=False, **kw):
            outcome = outcomes.get(text)
            if isinstance(outcome, BaseException):
                raise outcome
            if outcome is None:
                result = ContactCard(name=text.strip(), emails=[], phones=[])
                outcome = Traced(result, trace(result, text))
            return outcome if with_trace else outcome.result

    monkeypatch.setattr(extractor.api, "Extractor", Fake)
    return outcomes


def _lines(path: Path) -> list[dict[str, Any]]:
    """A JSONL file's records, read as strictly as other languages read JSON (no NaN, no Infinity)."""
    def refuse(token: str) -> None:
        raise ValueError(f"{token} is not JSON")
    return [json.loads(line, parse_constant=refuse) for line in path.read_text().splitlines()]


def _extract(folder: Path, *extra: str) -> int:
    return main(["extract", "--schema", "schemas:ContactCard", "--input", str(folder), *extra])


@pytest.mark.parametrize("extra, focus", [((), None), (("--focus",), True), (("--no-focus",), False)],
                         ids=["default", "focus", "no_focus"])
def test_focus_reaches_the_options_of_every_file(tmp_path, monkeypatch, extra, focus):
    import extractor.api

    seen = []

    class Fake:
        def __init__(self, model=None):
            pass

        def extract(self, target, text, options=None, with_trace=False, **kw):
            from extractor import Traced, trace

            seen.append(options.focus)
            result = target(name=text.strip(), emails=[], phones=[])
            return Traced(result, trace(result, text)) if with_trace else result

    monkeypatch.setattr(extractor.api, "Extractor", Fake)
    (tmp_path / "a.txt").write_text("Ada Lovelace")
    assert _extract(tmp_path, "--jsonl", str(tmp_path / "out.jsonl"), *extra) == 0
    assert seen == [focus]


def test_an_undecodable_file_is_reported_and_the_others_still_run(tmp_path, answers):
    (tmp_path / "a.txt").write_bytes(b"\xff\xfe broken")
    (tmp_path / "b.txt").write_text("Ada Lovelace")
    out = tmp_path / "out.jsonl"
    assert _extract(tmp_path, "--jsonl", str(out)) == 1
    first, second = _lines(out)
    assert first["error"]["type"] == "UnicodeDecodeError" and "a.txt" in first["error"]["message"]
    assert second["result"]["name"] == "Ada Lovelace"


WINDOWS = (Span(0, 40), Span(30, 80))
LEFT_OUT = Incomplete("/phones/1", {"number": None, "kind": "fax"}, (0, 1), ("/phones/1/number",))


@pytest.mark.parametrize("trace_kw,failing,fields,code", [
    ({}, False, {}, 0),  # a text read whole
    ({"windows": WINDOWS, "unread": (1,)}, False, {"unread": [{"window": 1, "start": 30, "end": 80}]}, 3),
    ({"windows": WINDOWS, "left_out": (LEFT_OUT,)}, False,
     {"left_out": [{"pointer": "/phones/1", "item": {"number": None, "kind": "fax"}, "windows": [0, 1],
                    "missing": ["/phones/1/number"]}]}, 0),
    ({"repeated": (Repeated("/phones/1", {"number": "555 0192", "kind": "work"}),)}, False,  # a text read whole
     {"repeated": [{"pointer": "/phones/1", "item": {"number": "555 0192", "kind": "work"}}]}, 0),
    ({"windows": WINDOWS, "unread": (0, 1)}, True,  # a failed file says more than an incomplete one
     {"unread": [{"window": 0, "start": 0, "end": 40}, {"window": 1, "start": 30, "end": 80}]}, 1),
])
def test_a_long_texts_unread_windows_and_left_out_items_are_on_its_record_and_unread_sets_exit_3(
        tmp_path, answers, trace_kw, failing, fields, code):
    from schemas import ContactCard

    (tmp_path / "a.txt").write_text("a long text")
    answers["a long text"] = Traced(ContactCard(name="Ada", emails=[], phones=[]), Trace(**trace_kw))
    if failing:
        (tmp_path / "b.txt").write_text("a failing text")
        answers["a failing text"] = InputError("the text is empty")
    out = tmp_path / "out.jsonl"
    assert _extract(tmp_path, "--jsonl", str(out)) == code
    record = _lines(out)[0]
    assert {k: record[k] for k in ("unread", "left_out", "repeated") if k in record} == fields


@pytest.mark.parametrize("outcome,kind,message", [
    (b"\xff\xfe", "UnicodeDecodeError", "is not UTF-8 text"),
    (InputError("the text is empty"), "InputError", "the text is empty"),
    (MissingFieldsError(["/name"], {"emails": []}, []), "MissingFieldsError", "the required /name"),
    (Traced({"score": float("nan")}, Trace()), "ValueError", "/result/score is nan, which JSON cannot write"),
    (Traced({"name": "Ada"}, Trace(windows=WINDOWS, left_out=(Incomplete("/xs/0", {"n": float("inf")}, (1,), ()),))),
     "ValueError", "/left_out/0/item/n is inf"),
    (Traced({"name": "Ada"}, Trace(conflicts=(Conflict("/n", 1.0, 0, ((float("-inf"), 1),)),))),
     "ValueError", "/conflicts/0/others/0/value is -inf"),
])
def test_a_failed_file_is_a_json_error_record_of_two_strings_and_exit_1(tmp_path, answers, outcome, kind, message):
    if isinstance(outcome, bytes):
        (tmp_path / "a.txt").write_bytes(outcome)
    else:
        (tmp_path / "a.txt").write_text("a text")
        answers["a text"] = outcome
    out = tmp_path / "out.jsonl"
    assert _extract(tmp_path, "--jsonl", str(out)) == 1
    [record] = _lines(out)
    assert set(record) == {"file", "error", "seconds"} and isinstance(record["error"]["type"], str)
    assert record["error"]["type"] == kind and message in record["error"]["message"]


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv", [
    ["--input", "{d}/in/a.txt", "--jsonl", "{d}/in/a.txt"],
    ["--input", "{d}/in", "--jsonl", "{d}/in/b.md"],  # a file of the folder
    ["--input", "{d}/in", "--jsonl", "{d}/symlink.jsonl"],  # a link to one
    ["--input", "{d}/in", "--jsonl", "{d}/hardlink.jsonl"],
    ["--input", "{d}/in", "--jsonl", "{d}/in/../in/a.txt"],
    ["--input", "{d}/in", "--jsonl", "{d}/contact.json", "--schema", "{d}/contact.json"],
    ["--input", "{d}/in", "--jsonl", "{d}/model.gguf", "--model", "{d}/model.gguf"],
    ["--input", "{d}/in", "--parquet", "{d}/in"],  # the corpus job's folder
    ["--input", "{d}/in", "--parquet", "{d}"],
    ["--input", "{d}/in", "--jsonl", "{d}/out", "--parquet", "{d}/out"],
    ["--input", "{d}/in", "--jsonl", "{d}/in/gone/../a.txt"],  # through a folder that does not exist
])
def test_extract_never_writes_over_a_file_it_reads(tmp_path, answers, capsys, argv):
    from schemas import ContactCard

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("Ada Lovelace")
    (tmp_path / "in" / "b.md").write_text("Bob Stone")
    (tmp_path / "contact.json").write_text(json.dumps(ContactCard.model_json_schema()))
    (tmp_path / "model.gguf").write_bytes(b"GGUF")
    (tmp_path / "symlink.jsonl").symlink_to(tmp_path / "in" / "a.txt")
    os.link(tmp_path / "in" / "b.md", tmp_path / "hardlink.jsonl")
    before = _tree(tmp_path)
    args = [a.format(d=tmp_path) for a in argv]
    assert main(["extract", "--schema", "schemas:ContactCard", *args]) == 2
    assert "an input (" in capsys.readouterr().err
    assert _tree(tmp_path) == before


@pytest.mark.parametrize("output,texts", [
    ("out.jsonl", True),  # the results file
    ("link.html", True),  # a symbolic link to it
    ("hard.html", True),  # a hard link to it
    ("texts/a.txt", True),  # a text the page shows
    ("texts/c.txt", True),  # any file of --texts
    ("texts/a.txt", False),  # a record's own file, read where there is no --texts
])
def test_review_never_writes_over_the_results_or_a_text(tmp_path, monkeypatch, capsys, output, texts):
    monkeypatch.chdir(tmp_path)
    Path("texts").mkdir()
    Path("texts/a.txt").write_text("Ada Lovelace")
    Path("texts/c.txt").write_text("not in the results")
    record = {"file": "texts/a.txt", "refused": False, "result": {"name": "Ada"}}
    Path("out.jsonl").write_text(json.dumps(record) + "\n")
    Path("link.html").symlink_to("out.jsonl")
    os.link("out.jsonl", "hard.html")
    before = _tree(tmp_path)
    assert main(["review", "out.jsonl", *(["--texts", "texts"] if texts else []), "-o", output]) == 2
    assert "is also an input" in capsys.readouterr().err
    assert _tree(tmp_path) == before


def test_a_run_that_stops_leaves_the_previous_results_whole_and_no_temporary_file(tmp_path, answers, monkeypatch):
    import extractor.review

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("Ada Lovelace")
    (tmp_path / "in" / "b.txt").write_text("stops here")
    answers["stops here"] = KeyboardInterrupt()
    out, page = tmp_path / "out.jsonl", tmp_path / "review.html"
    out.write_text("previous results\n")
    page.write_text("previous page")
    with pytest.raises(KeyboardInterrupt):  # after the first file's line
        _extract(tmp_path / "in", "--jsonl", str(out))
    assert out.read_text() == "previous results\n"
    del answers["stops here"]
    assert _extract(tmp_path / "in", "--jsonl", str(out)) == 0
    unwritable = "<html>\ud800"  # a lone surrogate: the write fails once the file is open
    monkeypatch.setattr(extractor.review, "review_html", lambda *a: unwritable)
    assert main(["review", str(out), "--texts", str(tmp_path / "in"), "-o", str(page)]) == 2
    assert page.read_text() == "previous page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "out.jsonl", "review.html"]


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
    (texts / "b.txt").unlink()  # a text gone is an error document on the page, the others kept
    assert main(["review", str(results), "--texts", str(texts), "-o", str(page)]) == 0
    assert "ada@nowhere.org" in page.read_text() and f"no file {texts / 'b.txt'}" in page.read_text()
    assert "2 documents, 1 of them lines or texts that could not be read" in capsys.readouterr().err


def test_review_reads_a_text_outside_its_folder_only_when_trusted(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret")
    folder = tmp_path / "run"
    folder.mkdir()
    results = folder / "out.jsonl"
    results.write_text(json.dumps({"file": str(secret), "refused": False, "result": {}}) + "\n")
    page = folder / "review.html"
    for flags, shown in (([], False), (["--trust-paths"], True)):
        assert main(["review", str(results), "-o", str(page), *flags]) == 0
        assert ("the secret" in page.read_text()) is shown, flags


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


@pytest.mark.parametrize("command", ["extract", "review"])
def test_an_output_in_a_missing_folder_exits_2_naming_it_before_the_model_is_loaded(tmp_path, monkeypatch, capsys,
                                                                                     command):
    import extractor.api

    def unloadable(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(extractor.api, "Extractor", unloadable)
    (tmp_path / "a.txt").write_text("Ada Lovelace")
    (tmp_path / "out.jsonl").write_text(json.dumps({"file": "a.txt", "result": {}}) + "\n")
    output = str(tmp_path / "gone" / "out")
    argv = ["extract", "--schema", "schemas:ContactCard", "--input", str(tmp_path / "a.txt"), "--jsonl", output] \
        if command == "extract" else ["review", str(tmp_path / "out.jsonl"), "-o", output]
    assert main(argv) == 2
    assert f"{tmp_path / 'gone'}, which is not a folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "out.jsonl"]


@pytest.mark.parametrize("texts", ["none", "a.txt"])
def test_review_with_texts_that_are_not_a_folder_exits_2_naming_them(tmp_path, capsys, texts):
    (tmp_path / "a.txt").write_text("Ada")
    (tmp_path / "out.jsonl").write_text('{"file": "a.txt"}\n')
    assert main(["review", str(tmp_path / "out.jsonl"), "--texts", str(tmp_path / texts), "-o",
                 str(tmp_path / "review.html")]) == 2
    assert f"cannot read texts from {tmp_path / texts}: not a folder" in capsys.readouterr().err
    assert not (tmp_path / "review.html").exists()


def test_a_corpus_job_into_a_file_is_refused_before_ray_is_asked_for(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("Anna Berg, anna@berg.se")
    (tmp_path / "out").write_text("not a folder")
    assert main(["extract", "--schema", "schemas:ContactCard", "--input", str(tmp_path / "in"), "--parquet",
                 str(tmp_path / "out")]) == 2
    assert "is a file: name a folder" in capsys.readouterr().err
    assert (tmp_path / "out").read_text() == "not a folder"


def test_python_dash_m_runs_the_command_line():
    """`python -m extractor` where the `extractor` script is not on the PATH."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "extractor", "schema", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("usage: extractor schema"), done.stderr
