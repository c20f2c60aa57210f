"""What the review page reads: every results line checked (a bad one is an error document naming its line, the
others kept), no number JSON cannot hold on the page, and no text from outside the texts folder without
`trust_paths`."""

from __future__ import annotations

import json
import re

import pytest

from extractor.review import Reviewed, read_jsonl, review_html, write_review
from extractor.tracing import Span, Trace, ValueTrace

GOOD = '{"file": "a.txt", "result": {"n": "Ada"}, "trace": [{"pointer": "/n", "value": "Ada", "status": "copied", ' \
       '"spans": [[0, 3]]}]}'

LINES = [  # (the second line of a results file, the error type of its document (None: no error), a part of its
    # error message or of a note (None: no note))
    ('{"file": "a.txt", "trace": "abc"}', None, 'the trace is a string "abc", not a list'),
    ('{"file": "a.txt", "trace": null}', None, None),
    ('{"file": "a.txt", "trace": [{"pointer": "/n", "value": "Ada", "status": "copied"}]}', None, None),
    ('{"file": "a.txt", "trace": [{"pointer": 5, "status": "found", "spans": []}]}', None,
     'trace entry 0 left out: not an object with a "pointer" string'),
    ('{"file": "a.txt", "trace": [7]}', None, 'trace entry 0 left out'),
    ('{"file": "a.txt", "trace": [{"pointer": "/n", "status": 7, "spans": []}]}', None, "its status is not one of"),
    ('{"file": "a.txt", "trace": [{"pointer": "/n", "status": "found", "spans": [[0.5, 2], "x", [true, 1]]}]}',
     None, "/n: 3 span(s) not a pair of integers: dropped"),
    ('{"file": "a.txt", "trace": [{"pointer": "/n", "status": "found", "spans": {"0": 1}}]}', None,
     "its spans are an object"),
    ('{"file": "a.txt", "result": {"xs": ["SQL"]}, "repeated": [{"pointer": "/xs/1", "item": "SQL"}]}', None,
     'taken out, a repeat the text does not make: /xs/1 "SQL"'),
    ('{"file": "a.txt", "repeated": [{"item": "SQL"}]}', None, "repeat 0 left out: not an object with a pointer"),
    ('{"file": "a.txt", "repeated": 7}', None, "repeat 0 left out: not an object with a pointer: a number 7"),
    ('{"file": "a.txt", "error": "boom"}', "Error", "boom"),
    ('{"file": "a.txt", "error": {"type": 5}}', "5", ""),
    ('{"file": "a.txt", "result": {"n": NaN}}', "BadLine", ":3: not a line of JSON (NaN is not a JSON number)"),
    ('{"file": "a.txt", "result": -Infinity}', "BadLine", "-Infinity is not a JSON number"),
    ('{"file": "a.txt", "result": 1e400}', "BadLine", "1e400 is too large for a JSON number"),
    ('{"file": "a.txt", "result": ' + "1" * 5000 + "}", "BadLine", ":3: not a line of JSON"),
    ("[" * 5000 + "]" * 5000, "BadLine", "maximum recursion depth"),
    ('{"file": "a.txt", "refused": 7}', "BadLine", ':3: "refused" is a number 7, not true or false'),
    ('{"file": 5}', "BadLine", ':3: not a record with a "file" name'),
    ('["a.txt"]', "BadLine", ':3: not a record with a "file" name'),
    ('{"file": "a.txt"', "BadLine", ":3: not a line of JSON"),
    ('{"file": "latin.txt"}', "TextNotRead", ":3: {texts}/latin.txt is not UTF-8 text"),
    ('{"file": "gone.txt", "error": {"type": "InputError", "message": "empty"}}', "TextNotRead",
     ":3: no file {texts}/gone.txt"),
    ('{"file": "sub"}', "TextNotRead", ":3: {texts}/sub is not a file"),
    ('{"file": "a\\u0000.txt"}', "TextNotRead", "embedded null byte"),
    ('{"file": "\\ud800.txt"}', "TextNotRead", "surrogates not allowed"),
]


@pytest.fixture
def texts(tmp_path):
    """A texts folder: a.txt, a Latin-1 file and a folder."""
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "a.txt").write_text("Ada Lovelace")
    (folder / "latin.txt").write_bytes("Zoë".encode("latin-1"))
    (folder / "sub").mkdir()
    return folder


def _payload(page: str) -> list[dict]:
    """The documents embedded in a page, read as strict JSON (no NaN or Infinity)."""
    data = re.search(r'<script type="application/json" id="review-data">(.*?)</script>', page, re.S)[1]
    return json.loads(data, parse_constant=lambda token: pytest.fail(f"{token} on the page"))


def _says(doc: Reviewed) -> str:
    return "\n".join([doc.error["message"] if doc.error else "", *doc.notes])


@pytest.mark.parametrize(("line", "error", "said"), LINES, ids=[row[0][:60] for row in LINES])
def test_a_bad_line_is_a_document_saying_what_is_wrong_and_the_others_are_kept(tmp_path, texts, line, error, said):
    results = tmp_path / "out.jsonl"
    results.write_text(f"{GOOD}\n\n{line}\n")
    first, doc = read_jsonl(results, texts)
    assert (first.error, first.notes, first.text) == (None, (), "Ada Lovelace")
    assert (doc.error or {}).get("type") == error
    if said is None:
        assert doc.notes == ()
    else:
        assert said.format(texts=texts) in _says(doc)
    if error in ("BadLine", "TextNotRead"):  # the review's own errors name the results file and line
        assert doc.error["message"].startswith(f"{results}:3: ")
    assert len(_payload(review_html([first, doc]))) == 2


def test_a_string_error_is_shown_as_its_message(tmp_path, texts):
    (tmp_path / "out.jsonl").write_text('{"file": "a.txt", "error": "boom"}\n')
    assert read_jsonl(tmp_path / "out.jsonl", texts)[0].error == {"type": "Error", "message": "boom"}


@pytest.mark.parametrize(("spans", "kept"), [
    ([Span(0, 3), Span(4, 12)], [[0, 3], [4, 12]]),
    ([Span(0, 3), Span(4, 99)], [[0, 3]]),  # past the end: the text was edited
    ([Span(3, 0)], []),
    ([Span(-1, 2)], []),
    ([Span(0, 1.5)], []),
    ([Span(True, 2)], []),
])
def test_spans_outside_the_text_are_dropped_with_a_note(spans, kept):
    found = Trace((ValueTrace("/n", "Ada", "found", tuple(spans)),))
    doc = Reviewed("a.txt", "Ada Lovelace", {"n": "Ada"}, trace=found)
    [shown] = _payload(review_html([doc]))
    assert shown["trace"][0]["spans"] == kept == shown["trace"][0]["spans16"]
    dropped = len(spans) - len(kept)
    assert shown["notes"] == ([f"/n: {dropped} span(s) outside the text (12 characters): dropped"] if dropped else [])


@pytest.mark.parametrize("result", [{"n": float("nan")}, {"n": float("inf")}, {"n": {1, 2}}])
def test_a_document_json_cannot_hold_is_shown_as_that_error_alone(result):
    docs = [Reviewed("bad.txt", "x", result), Reviewed("good.txt", "Ada", {"n": "Ada"})]
    bad, good = _payload(review_html(docs))
    assert bad["name"] == "bad.txt" and bad["error"]["type"] == "NotJSON" and good["result"] == {"n": "Ada"}


@pytest.mark.parametrize(("line", "value"), [
    ('{"file": "a.txt", "result": "\\ud800 \\udfff"}', "\ud800 \udfff"),  # lone surrogates, escaped in the line
    ('{"file": "a.txt", "result": "a\u2028b\u2029c\x85d"}', "a\u2028b\u2029c\x85d"),  # line breaks to Python only
    ('{"file": "a.txt", "result": "</script><script>x = 1</script><!--"}', "</script><script>x = 1</script><!--"),
])
def test_hostile_strings_reach_the_page_as_they_were(tmp_path, texts, line, value):
    (tmp_path / "out.jsonl").write_text(line + "\n", encoding="utf-8")
    docs = read_jsonl(tmp_path / "out.jsonl", texts)
    page = write_review(docs, tmp_path / "review.html", "out\udce9.jsonl").read_text(encoding="utf-8")
    assert [d["result"] for d in _payload(page)] == [value]
    assert page.count("</script>") == 2 and "\u2028" not in page


@pytest.fixture
def tree(tmp_path):
    """run/out.jsonl beside run/texts/ (a.txt, a link to a secret outside, a link inside); the secret in tmp."""
    folder = tmp_path / "run" / "texts"
    folder.mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("SECRET")
    (folder / "a.txt").write_text("Ada")
    (folder / "out.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "in.txt").symlink_to(folder / "a.txt")
    return tmp_path


PATHS = [  # (the line's file, the texts folder or None, trust_paths, the text read or a part of why it was refused)
    ("texts/a.txt", None, False, "Ada"),
    ("texts/in.txt", None, False, "Ada"),  # a link that stays inside the folder
    ("{tree}/secret.txt", None, False, "is refused: an absolute path or one climbing out with .."),
    ("../secret.txt", None, False, "is refused: an absolute path"),
    ("texts/../texts/a.txt", None, False, "is refused: an absolute path"),
    ("texts/out.txt", None, False, "links out of {tree}/run"),
    ("a.txt", "texts", False, "Ada"),
    ("elsewhere/a.txt", "texts", False, "Ada"),  # by base name
    ("{tree}/run/texts/a.txt", "texts", False, "Ada"),
    ("out.txt", "texts", False, "links out of {tree}/run/texts"),
    ("..", "texts", False, "is refused: an absolute path"),
    ("/", "texts", False, "is refused: an absolute path"),
    ("{tree}/secret.txt", None, True, "SECRET"),
    ("../secret.txt", None, True, "SECRET"),
    ("texts/out.txt", None, True, "SECRET"),
    ("out.txt", "texts", True, "SECRET"),
]


@pytest.mark.parametrize(("file", "texts", "trust", "read"), PATHS, ids=[f"{r[0]}-{r[1]}-{r[2]}" for r in PATHS])
def test_texts_are_read_only_from_inside_the_folder_unless_trusted(tree, file, texts, trust, read):
    results = tree / "run" / "out.jsonl"
    results.write_text(json.dumps({"file": file.format(tree=tree), "result": {"n": 1}}) + "\n")
    [doc] = read_jsonl(results, tree / "run" / texts if texts else None, trust_paths=trust)
    if read in ("Ada", "SECRET"):
        assert (doc.text, doc.error) == (read, None)
    else:
        assert doc.error["type"] == "TextNotRead" and read.format(tree=tree) in doc.error["message"]
        assert doc.error["message"].startswith(f"{results}:1: ") and doc.result == {"n": 1}
        assert "SECRET" not in review_html([doc])


def test_a_mapping_of_texts_names_the_file_it_lacks(tmp_path):
    (tmp_path / "out.jsonl").write_text('{"file": "a.txt"}\n{"file": "b.txt"}\n')
    a, b = read_jsonl(tmp_path / "out.jsonl", {"a.txt": "Ada"})
    assert (a.text, a.error) == ("Ada", None)
    assert b.error == {"type": "TextNotRead", "message": f"{tmp_path / 'out.jsonl'}:2: no text given for b.txt"}


def test_a_missing_results_file_is_a_value_error_naming_it(tmp_path):
    with pytest.raises(ValueError, match=f"cannot read {tmp_path / 'none.jsonl'}: No such file"):
        read_jsonl(tmp_path / "none.jsonl")


@pytest.mark.parametrize("texts", ["none", "a.txt"])
def test_texts_that_are_not_a_folder_are_a_value_error_naming_them(tmp_path, texts):
    (tmp_path / "a.txt").write_text("Ada")
    (tmp_path / "out.jsonl").write_text('{"file": "a.txt"}\n')
    with pytest.raises(ValueError, match=f"cannot read texts from {tmp_path / texts}: not a folder"):
        read_jsonl(tmp_path / "out.jsonl", tmp_path / texts)


def test_lines_end_at_a_newline_only_and_are_numbered_as_the_file_is(tmp_path):
    (tmp_path / "a.txt").write_text("Ada")
    (tmp_path / "out.jsonl").write_bytes(b'{"file": "a.txt", "result": {"x": "1\xe2\x80\xa82"}}\r\n\n'
                                         b'{"file": "a.txt", "resu\n{"file": "a.txt"}')
    first, cut, last = read_jsonl(tmp_path / "out.jsonl")
    assert first.result == {"x": "1\u20282"} and first.error is None and last.error is None
    assert cut.error["message"].startswith(f"{tmp_path / 'out.jsonl'}:3: not a line of JSON")


def test_a_result_with_a_repeat_taken_out_says_so_beside_the_document():
    from extractor.review import reviewed
    from extractor.tracing import Repeated, Traced

    long = {"company": "Acme", "title": "x" * 100}
    doc = reviewed("a.txt", "Acme", Traced({"jobs": [long]}, Trace(repeated=(Repeated("/jobs/1", long),))))
    assert doc.notes == ('taken out, a repeat the text does not make: /jobs/1 {"company": "Acme", "title": "'
                         + "x" * 49 + "…",)  # 79 characters and an ellipsis
    assert _payload(review_html([doc]))[0]["notes"] == list(doc.notes)
