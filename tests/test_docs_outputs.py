"""What the docs show is what the code does: every ```python block of the pages below runs as written, in page
order, one namespace per page, on the embedded model (from a folder where `examples/` is the checkout's), and a
```text block right after one is exactly what it prints. A block the line `<!-- not run: WHY -->` precedes (it
needs vLLM, Ray, a GPU or a file of your own) is compiled only. The `extractor ...` lines of ```bash blocks name
only options the command has.

When the code's output changes, `DOCS_UPDATE=1 .venv/bin/python -m pytest tests/test_docs_outputs.py` rewrites
the shown outputs from what the blocks print now (then read the diff)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
from pathlib import Path

import pytest

from extractor import cli
from tests.shared_model import one_model  # noqa: F401 - a fixture

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
"""The pages held to this: the README and every page of docs/, a new one as soon as it is written."""

FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.M | re.S)
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->\n\s*$")
UPDATE = os.environ.get("DOCS_UPDATE") == "1"
REWRITE = "DOCS_UPDATE=1 .venv/bin/python -m pytest tests/test_docs_outputs.py rewrites the shown outputs"


def blocks(page: str) -> list[tuple[str, str, str | None, re.Match[str] | None]]:
    """A page's fenced blocks: (language, code, why it is not run, the ```text block right after it)."""
    text = (ROOT / page).read_text(encoding="utf-8")
    found = list(FENCE.finditer(text))
    out = []
    for i, m in enumerate(found):
        why = NOT_RUN.search(text, 0, m.start())
        after = found[i + 1] if i + 1 < len(found) else None
        shown = after if after and after.group(1) == "text" and not text[m.end():after.start()].strip() else None
        out.append((m.group(1), m.group(2), why.group(1) if why and why.end() == m.start() else None, shown))
    return out


@pytest.fixture
def checkout_folder(one_model, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The blocks run in a temporary folder holding the checkout's `examples/`: what they write stays there."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("page", PAGES)
def test_python_blocks_run_and_print_what_is_shown(page: str, checkout_folder) -> None:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    wrong = []
    for lang, code, why, shown in blocks(page):
        if lang != "python":
            continue
        compiled = compile(code, page, "exec", dont_inherit=True)  # not this module's `from __future__` imports
        if why:
            assert shown is None, f"{page}: a block not run shows an output"
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compiled, namespace)  # noqa: S102 - the docs' own snippets
        if shown and shown.group(2).rstrip() != printed.getvalue().rstrip():
            wrong.append((shown, printed.getvalue().rstrip() + "\n"))
    if UPDATE and wrong:
        text = (ROOT / page).read_text(encoding="utf-8")
        for shown, printed in reversed(wrong):
            text = text[:shown.start(2)] + printed + text[shown.end(2):]
        (ROOT / page).write_text(text, encoding="utf-8")
    else:
        assert not wrong, [REWRITE] + [f"shown:\n{s.group(2)}printed:\n{p}" for s, p in wrong]


def options_of(command: str) -> set[str]:
    """The options `extractor COMMAND --help` lists."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), pytest.raises(SystemExit):
        cli.main([command, "--help"])
    return set(re.findall(r"--[\w-]+", printed.getvalue()))


@pytest.mark.parametrize("page", PAGES)
def test_command_lines_name_only_options_the_command_has(page: str) -> None:
    unknown = []
    for lang, code, _, _ in blocks(page):
        for line in code.replace("\\\n", " ").splitlines() if lang == "bash" else []:
            words = shlex.split(line, comments=True)
            if words[:1] == ["extractor"] and len(words) > 1:
                unknown += [(line, w) for w in words[2:] if w.startswith("--")
                            and w.split("=")[0] not in options_of(words[1])]
    assert not unknown

