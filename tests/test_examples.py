"""The runnable examples of docs/guide.md run as written, on the embedded model; a picture in the docs of what one
writes is of what it writes today."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from tests.screenshots import REVIEW_SHOT, digest, recorded
from tests.shared_model import one_model  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[1]

EXAMPLES = [  # (script, what its output must show, the docs' picture of the page it writes)
    ("refusal.py", ["recipe, grounded: declined:", "not in the text: ['/email']", "required fields that come from it"], None),
    ("review.py", ["contact.txt /name: copied decoder 'Dr. Kenji Watanabe'", "wrote "], REVIEW_SHOT),
    ("stream.py", ["['name'] -> ContactCard", '"name": "Dr. Kenji Watanabe"'], None),
    ("prompt.py", ["You read event announcements", '"date": "2025-06-12"'], None),
    ("checks.py", ["attempt:", "total_is_the_sum"], None),
]


@pytest.mark.parametrize("script,expected,picture", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example_runs(script: str, expected: list[str], picture: Path | None, one_model,
                      capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Run as `python examples/<script> OUT` runs it (as `__main__`, its folder first on the path, an output path
    in a temporary folder as its argument), but in this process: torch and transformers are imported and the
    model loaded once for the suite, not once per example."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.setattr("sys.argv", [script, str(tmp_path / "out.html")])
    runpy.run_path(str(ROOT / "examples" / script), run_name="__main__")
    out = capsys.readouterr().out
    for piece in expected:
        assert piece in out, (piece, out[-2000:])
    if picture:
        page = (tmp_path / "out.html").read_text(encoding="utf-8")
        assert recorded(picture) == digest(page), f"{picture} shows another page: `make test-browser` writes it"
