"""Compiling needs no torch: `import extractor` and `compile_schema` leave torch and transformers unloaded."""

from __future__ import annotations

import subprocess
import sys
import pytest

from tests.data import need_tokenizer

PROGRAM = """
import sys
import extractor
from extractor import Refusal, compile_schema
from extractor.tokens import Vocabulary
vocab = Vocabulary.from_tokenizer_file(sys.argv[1]) if len(sys.argv) > 1 else None
if vocab is not None:
    grammar = compile_schema({"type": "object", "properties": {"a": {"type": "integer"}}}, vocab, refusal=Refusal)
    grammar.matcher().mask()
print(" ".join(m for m in ("torch", "transformers") if m in sys.modules))
"""


@pytest.mark.parametrize("compile_one", [False, True], ids=["import", "compile_schema"])
def test_import_and_compile_load_no_torch(compile_one: bool) -> None:
    args = [str(need_tokenizer("llama3"))] if compile_one else []
    out = subprocess.run([sys.executable, "-c", PROGRAM, *args], capture_output=True, text=True, timeout=300,
                         check=True)
    assert out.stdout.strip() == ""


def test_the_version_is_that_of_the_installed_distribution() -> None:
    from importlib.metadata import PackageNotFoundError, version

    import extractor

    try:
        expected = version("extractor-llm")
    except PackageNotFoundError:
        pytest.skip("run from a source tree that was never installed (pip install -e . names the distribution)")
    assert extractor.__version__ == expected
