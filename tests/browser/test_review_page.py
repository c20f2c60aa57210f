"""The review page in a real browser: it loads cleanly, a field's highlights are exactly its spans, filters and keys
work, and document text is shown as text, never as markup."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from extractor import InputError, Refusal, Traced, trace
from extractor.review import reviewed, write_review
from extractor.tracing import Conflict, Span, Trace
from extractor.tracing.record import Candidate


class Contact(BaseModel):
    name: str
    emails: list[str]
    city: str | None = None
    phone: str | None = None


def _doc(name: str, text: str, contact: Contact):
    return reviewed(name, text, Traced(contact, trace(contact, text)))


TEXTS = {
    "latin.txt": "Dr. Kenji Watanabe\nEmail: k.watanabe@helix.co.uk\nCambridge, United Kingdom\nCall +44 20 7946 0321",
    "emoji.txt": "😀😀 Zoë Ng 👩‍👩‍👧 writes from 東京: zoë@例え.jp, again Zoë Ng",
    "combining.txt": "Cafe\u0301 owner: Mu\u0308ller, Bern",
    "inject.txt": 'Name: <script>window.injected = 1</script><b id="bold">Eve</b> <img src=x onerror="window.injected=2">',
}
DOCUMENTS = [
    _doc("latin.txt", TEXTS["latin.txt"], Contact(name="Dr. Kenji Watanabe", emails=["k.watanabe@helix.co.uk",
                                                  "kenji@nowhere.org"], city="Cambridge", phone="+44 20 7946 0321")),
    _doc("emoji.txt", TEXTS["emoji.txt"], Contact(name="Zoë Ng", emails=["zoë@例え.jp"], city="東京")),
    _doc("combining.txt", TEXTS["combining.txt"], Contact(name="Müller", emails=[], city="Bern")),
    _doc("inject.txt", TEXTS["inject.txt"], Contact(name="<script>window.injected = 1</script>", emails=[])),
    reviewed("recipe.txt", "Pancakes: 2 eggs, 1 cup of flour.", Traced(Refusal(error="the text is a recipe"))),
    reviewed("empty.txt", " ", InputError("the text is empty")),
]


@pytest.fixture(scope="module")
def page(browser, tmp_path_factory):
    path = write_review(DOCUMENTS, tmp_path_factory.mktemp("review") / "review.html")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: problems.append(f"request: {r.url}") if not r.url.startswith("file:") else None)
    page.goto(path.as_uri())
    page.problems = problems
    yield page
    page.close()


def _show(page, name: str) -> None:
    page.click("button[data-filter=all]")
    page.click(f"#docs li:has-text('{name}')")


def _highlighted(page) -> list[tuple[int, int, str]]:
    """(start, end, text) of each run of active highlights, offsets in the DOM's text (JavaScript units)."""
    return page.evaluate("""() => {
        const runs = []; let at = 0;
        for (const node of document.getElementById('text').childNodes) {
            const n = node.textContent.length;
            if (node.nodeName === 'MARK' && node.classList.contains('active')) {
                const last = runs[runs.length - 1];
                if (last && last[1] === at) { last[1] += n; last[2] += node.textContent; }
                else runs.push([at, at + n, node.textContent]);
            }
            at += n;
        }
        return runs;
    }""")


def _units(text: str, index: int) -> int:
    return len(text[:index].encode("utf-16-le")) // 2


def test_the_page_loads_with_no_console_errors_or_requests(page):
    assert page.locator("#docs li").count() == len(DOCUMENTS)
    assert page.problems == []


@pytest.mark.parametrize("doc", [d for d in DOCUMENTS if d.trace.values], ids=lambda d: d.name)
def test_clicking_a_field_highlights_exactly_its_spans(page, doc):
    _show(page, doc.name)
    assert page.locator("#text").text_content() == doc.text  # the DOM's text is the document's, whole
    for value in doc.trace:
        page.click(f'#tree .leaf[data-pointer="{value.pointer}"]')
        expected = [(_units(doc.text, s.start), _units(doc.text, s.end), s.of(doc.text)) for s in value.spans]
        assert [tuple(run) for run in _highlighted(page)] == expected, value.pointer
        assert page.locator("#tree .leaf.active").get_attribute("data-pointer") == value.pointer


def test_clicking_a_highlight_selects_its_field(page):
    _show(page, "emoji.txt")
    page.locator("#text mark").first.click()
    assert page.locator("#tree .leaf.active").get_attribute("data-pointer") == "/name"


def test_values_not_found_are_listed(page):
    _show(page, "latin.txt")
    assert page.locator("#missing li").all_text_contents() == ['/emails/1: "kenji@nowhere.org"']
    assert page.locator('#tree .leaf[data-pointer="/emails/1"] .status').text_content() == "not found"


@pytest.mark.parametrize("name,shown", [("refused", ["recipe.txt"]), ("errors", ["empty.txt"]),
                                        ("not_found", ["latin.txt"])])
def test_a_filter_shows_only_its_documents(page, name, shown):
    page.click(f"button[data-filter={name}]")
    assert [n.strip() for n in page.locator("#docs li .name").all_text_contents()] == shown
    page.click("button[data-filter=all]")


def test_a_refusal_and_an_error_say_why(page):
    _show(page, "recipe.txt")
    assert page.locator("#issues .notice").text_content() == "Refused: the text is a recipe"
    _show(page, "empty.txt")
    assert page.locator("#issues .notice").text_content() == "InputError: the text is empty"


def test_document_text_is_shown_as_text_never_run(page):
    _show(page, "inject.txt")
    assert page.evaluate("window.injected") is None
    assert page.locator("#text script, #text b, #text img, #tree script").count() == 0
    assert page.locator("#text").text_content() == TEXTS["inject.txt"]
    assert "<script>" in page.locator("#tree").text_content()


def test_keys_move_through_the_documents(page):
    _show(page, "latin.txt")
    page.keyboard.press("j")
    assert page.locator("#docs li[aria-selected=true] .name").text_content() == "emoji.txt"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("k")
    assert page.locator("#docs li[aria-selected=true] .name").text_content() == "emoji.txt"


def test_a_screenshot_is_written(page, shots):
    _show(page, "latin.txt")
    page.click('#tree .leaf[data-pointer="/emails/0"]')
    page.screenshot(path=shots / "review.png")
    assert (shots / "review.png").stat().st_size > 10_000


def test_the_page_benchmark_runs_on_a_few_documents(browser, tmp_path):
    from benchmarks.review_page import arguments, report

    result = report(arguments(["--docs", "12", "--runs", "1", "--json", str(tmp_path / "r.json")]), browser, "test")
    assert result["rows"] == 12 and result["first_paint_ms"]["median"] > 0
    assert json.loads((tmp_path / "r.json").read_text())["documents"] == 12


CONFLICTED = "Made as of 3 February 2024. [...] Either party may terminate on 120 days' written notice."


@pytest.mark.parametrize("chosen, candidates, shown", [
    (True, (Candidate(3, 0, Span(11, 12), -4.5), Candidate(120, 2, Span(57, 60), -0.25), Candidate(None, -1)),
     ["/notice: 120 (chosen by the model, window 2)", "3 · window 0 · log-likelihood -4.50",
      "120 · window 2 · log-likelihood -0.25", "null · null"]),
    (False, (), ["/notice: 120 (kept by the merge, window 2)", "3 · window 0"]),
], ids=["chosen", "merge"])
def test_a_long_texts_conflicts_show_their_candidates_and_who_chose(browser, tmp_path, chosen, candidates, shown):
    conflict = Conflict("/notice", 120, 2, ((3, 0),), candidates, chosen)
    doc = reviewed("terms.txt", CONFLICTED, Traced({"notice": 120}, Trace(conflicts=(conflict,))))
    page = browser.new_page()
    page.goto(write_review([doc], tmp_path / "review.html").as_uri())
    rows = page.locator("#conflicts li").all_text_contents()
    page.close()
    assert rows[0].startswith(shown[0]) and [r.strip() for r in rows[1:]] == shown[1:]


def test_a_repeat_taken_out_is_noted_beside_its_document(browser, tmp_path):
    from extractor.tracing import Repeated

    text = "Kenji Watanabe, k@helix.co.uk"
    contact = Contact(name="Kenji Watanabe", emails=["k@helix.co.uk"])
    found = trace(contact, text)
    doc = reviewed("kenji.txt", text, Traced(contact, Trace(found.values, repeated=(Repeated("/emails/1",
                                                                                          "k@helix.co.uk"),))))
    page = browser.new_page()
    page.goto(write_review([doc], tmp_path / "review.html").as_uri())
    page.click("#docs li:has-text('kenji.txt')")
    assert page.locator(".notice.note").all_inner_texts() == [
        'taken out, a repeat the text does not make: /emails/1 "k@helix.co.uk"']
    page.close()
