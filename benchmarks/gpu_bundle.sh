#!/usr/bin/env bash
# Packs what benchmarks/gpu_llama.py needs on a GPU machine that has PyTorch and transformers but no network: a clean
# copy of the committed tree (library, schemas, sample documents, the benchmark), the C extensions built for that
# machine's Python, the wheels the library needs beyond such an image (pydantic, tenacity, referencing and theirs, at
# this environment's versions), the Llama-3 tokenizer, and run.sh, which installs and runs it all there.
#
# usage: benchmarks/gpu_bundle.sh [DIR]   (default .gpu; about 14 MB)
#        then, on the GPU machine: bash DIR/run.sh OUT   (OUT/gpu_llama_cuda.json and .md, and the log)
# TARGET_PY: a Python here of the GPU machine's minor version (default python3.12), for headers and wheel tags.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-.gpu}"
PY="${PYTHON:-.venv/bin/python}"
TARGET_PY="${TARGET_PY:-python3.12}"
rm -rf "$DIR/tree" "$DIR/so" "$DIR/whl" && mkdir -p "$DIR/tree" "$DIR/so" "$DIR/whl" "$DIR/llama3"
git archive HEAD extractor schemas examples/data tests/data.py benchmarks/common.py benchmarks/limits.py \
    benchmarks/gpu_llama.py benchmarks/step_clock.py | tar -x -C "$DIR/tree"
touch "$DIR/tree/tests/__init__.py" "$DIR/tree/benchmarks/__init__.py"  # before any `tests` the image installed
git rev-parse HEAD >"$DIR/COMMIT"
"$PY" -c 'from benchmarks.gpu_llama import tokenizer_dir; print(tokenizer_dir(None))' |
    xargs -I{} cp {}/tokenizer.json {}/tokenizer_config.json "$DIR/llama3/"
include=$("$TARGET_PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suffix=$("$TARGET_PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
for src in extractor/masks/_kernel.c extractor/lang/_partition.c extractor/decode/_tracker.c; do
    gcc -O3 -shared -fPIC -I"$include" "$src" -o "$DIR/so/$(basename "$src" .c)$suffix"
done
pins=$("$PY" -c 'from importlib.metadata import version as v; print(*(f"{n}=={v(n)}" for n in ("pydantic",
    "pydantic_core", "annotated-types", "typing-inspection", "typing_extensions", "tenacity", "referencing",
    "rpds-py", "attrs")))')
"$PY" -m pip download -q --no-deps --only-binary=:all: --implementation cp --platform manylinux_2_28_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d "$DIR/whl" \
    --python-version "$("$TARGET_PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')" $pins
cat >"$DIR/run.sh" <<'EOF'
#!/usr/bin/env bash
# On the GPU machine: the wheels into /tmp/site, the C extensions into the tree, then the benchmark ("$@" after OUT
# go to gpu_llama.py).
set -eo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(mkdir -p "${1:-$here/out}" && cd "${1:-$here/out}" && pwd)
shift || true
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$here"/whl/*.whl
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
cd "$here/tree"
cp ../so/_kernel.* extractor/masks/ && cp ../so/_partition.* extractor/lang/ && cp ../so/_tracker.* extractor/decode/
nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv | tee "$out/log.txt"
python3 benchmarks/gpu_llama.py --device cuda --tokenizer ../llama3 --commit "$(cat ../COMMIT)" \
    --json "$out/gpu_llama_cuda.json" --md "$out/gpu_llama_cuda.md" "$@" 2>&1 | tee -a "$out/log.txt"
EOF
echo "gpu_bundle: $DIR ($(du -sh "$DIR" | cut -f1)); on the GPU machine: bash $DIR/run.sh OUT"
