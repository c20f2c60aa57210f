"""Extract a Resume from a text file with the embedded model; print it as JSON and the time taken."""

import sys
import time
from pathlib import Path

from extractor import Extractor, Refusal
from schemas import Resume


def main(path: str) -> None:
    text = Path(path).read_text()
    start = time.perf_counter()
    extractor = Extractor()  # the embedded SmolLM2-135M-Instruct, on CUDA when present
    loaded = time.perf_counter()
    result = extractor.extract(Resume, text)
    done = time.perf_counter()
    if isinstance(result, Refusal):
        print("the model declined:", result.error)
    else:
        print(result.model_dump_json(indent=2))
    print(f"model load {loaded - start:.1f}s, extraction {done - loaded:.1f}s, total {done - start:.1f}s",
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "examples/data/resume.txt")
