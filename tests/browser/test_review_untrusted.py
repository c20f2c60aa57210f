"""The page's script trusts no field of its data: documents of every wrong type each show, or say why not, and the
page of random results files (the fuzz benchmark's first cases) lists and shows every record."""

from __future__ import annotations

import json
import re

import pytest

from extractor.review import review_html

HOSTILE = [  # documents as no version of review_html writes them: the script's own checks are all that is left
    {"name": 5, "text": 7, "trace": "abc", "error": "boom", "notes": [1, None], "refused": "yes", "refusal": 5},
    {"name": "a.txt", "text": "abc", "result": {"a": "b", "__proto__": {"x": 1}},
     "trace": [{"pointer": 5}, {"pointer": "/a", "status": 7}, None, 3,
               {"pointer": "/a", "status": "found", "spans16": [[0, 99], "x", [2, 1], [0.5, 1], [1, 2]]},
               {"pointer": "/a", "status": "weird", "spans16": "x", "how": 5}]},
    {"result": [[["deep"]]], "error": {"type": 1, "message": ["m"]}, "trace": [{"pointer": "", "status": ""}]},
    None, 7, "x", [], {},
]


def _open(browser, tmp_path, data: str):
    """The page with `data` in place of its documents: (page, its page errors)."""
    path = tmp_path / "review.html"
    page = re.sub(r'(id="review-data">).*?(</script>)', lambda m: m[1] + data + m[2], review_html([]), flags=re.S)
    path.write_text(page, encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    return page, errors


SHOW_ALL = """() => window.review.docs.map((d, i) => {
    window.review.show(i);
    return [document.getElementById('title').textContent,
            [...document.querySelectorAll('#issues .notice')].map((n) => n.className + ': ' + n.textContent)];
})"""


def test_documents_of_every_wrong_type_each_show(browser, tmp_path):
    page, errors = _open(browser, tmp_path, json.dumps(HOSTILE))
    shown = page.evaluate(SHOW_ALL)
    assert errors == [] and len(shown) == len(HOSTILE)
    assert not [n for _, notices in shown for n in notices if "broken" in n]
    assert shown[0] == ["document 1", ["notice: Error: boom"]]
    assert shown[1] == ["a.txt", ["notice note: 8 trace entries or spans the page cannot read: left out"]]
    assert shown[2] == ["document 3", ["notice: Error: "]]
    page.evaluate("() => window.review.show(1)")
    assert page.locator("#text mark").all_text_contents() == ["b"]  # the one span of the five inside the text


@pytest.mark.parametrize("data", ["{", "", "null", '[{"name": "cut'])
def test_a_page_whose_data_cannot_be_read_says_so(browser, tmp_path, data):
    page, errors = _open(browser, tmp_path, data)
    assert errors == [] and page.evaluate("() => window.review.docs.length") == 0
    assert page.locator("#title").text_content() == "no document"
    assert page.locator("#summary").text_content().startswith("0 documents")


@pytest.mark.parametrize("case", range(12))
def test_random_results_files_list_and_show_every_record(browser, tmp_path, case):
    from benchmarks.review_fuzz import check

    assert check(case, 0, browser, tmp_path) == {}
