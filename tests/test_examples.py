"""The runnable examples of docs/guide.md run as written, on the embedded model."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EXAMPLES = [  # (script, what its output must show)
    ("refusal.py", ["recipe, grounded: declined:", "not in the text: ['/email']", "Verbatim fields"]),
    ("review.py", ["contact.txt /name: copied decoder 'Dr. Kenji Watanabe'", "wrote "]),
    ("stream.py", ["['name'] -> ContactCard", '"name": "Dr. Kenji Watanabe"']),
    ("prompt.py", ["You read event announcements", '"date": "2025-06-12"']),
    ("checks.py", ["attempt:", "total_is_the_sum"]),
]


@pytest.mark.model
@pytest.mark.parametrize("script,expected", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example_runs(script: str, expected: list[str], capsys: pytest.CaptureFixture[str],
                      monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Run as `python examples/<script> OUT` runs it (as `__main__`, its folder first on the path, an output path
    in a temporary folder as its argument), but in this process: torch and transformers are imported once for the
    suite, not once per example."""
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.setattr("sys.argv", [script, str(tmp_path / "out.html")])
    runpy.run_path(str(ROOT / "examples" / script), run_name="__main__")
    out = capsys.readouterr().out
    for piece in expected:
        assert piece in out, (piece, out[-2000:])
