"""The review page lists how each window of a long text read (the target against the likeliest other kind) and what
a window read as another kind wrote, none of which is in the result."""

from __future__ import annotations

from extractor import Traced
from extractor.review import reviewed, write_review
from extractor.tracing import Trace
from extractor.tracing.record import Reading


def test_each_windows_reading_is_listed_and_a_dropped_one_shows_what_it_wrote(browser, tmp_path):
    found = Trace(readings=(Reading(0, 11.01, "contact list"), Reading(1, -0.907, "invoice", True, {"email": "shall"}),
                            Reading(2, float("-inf"), "")))
    doc = reviewed("resume.txt", "Shaik Tazuddin, Bengaluru", Traced({"name": "Shaik Tazuddin"}, found))
    page = browser.new_page()
    page.goto(write_review([doc], tmp_path / "review.html").as_uri())
    title = page.locator("h2", has_text="Windows read as another kind").text_content()
    rows = page.locator("#readings li").all_text_contents()
    page.close()
    assert title == "Windows read as another kind (1 of 3 gave nothing)"
    assert rows == ["window 0: 11.01 nats against contact list",
                    'window 1: -0.91 nats against invoice · dropped, it wrote {"email":"shall"}',
                    "window 2: no stretch read"]
