"""docs/review.png is today's review page: the bundled examples extracted by the embedded model, in Chromium.
Where the committed picture names another page, this writes it again (`make test-browser` regenerates it)."""

from __future__ import annotations

import importlib.util
import warnings

import pytest

from extractor.review import review_html
from tests.screenshots import REVIEW_SHOT, digest, recorded, stamped

_spec = importlib.util.spec_from_file_location("review_example", REVIEW_SHOT.parents[1] / "examples" / "review.py")
review = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(review)


@pytest.fixture
def page_html(model_extractor) -> str:
    return review_html(review.documents(model_extractor), review.TITLE)


def test_docs_review_png_shows_todays_page(browser, page_html, tmp_path) -> None:
    if recorded(REVIEW_SHOT) == digest(page_html):
        return
    (tmp_path / "review.html").write_text(page_html, encoding="utf-8")
    page = browser.new_page(viewport={"width": 1400, "height": 760})
    page.goto((tmp_path / "review.html").as_uri(), wait_until="load")
    page.wait_for_selector("#tree .leaf")
    field = page.locator('#tree .leaf[data-pointer="/emails/0"]')  # a field selected: its spans outlined
    if field.count():
        field.click()
    REVIEW_SHOT.write_bytes(stamped(page.screenshot(), digest(page_html)))
    page.close()
    warnings.warn(f"{REVIEW_SHOT} was of another page: written again (commit it)", stacklevel=1)
    assert recorded(REVIEW_SHOT) == digest(page_html)
