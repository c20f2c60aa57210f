"""Map every token id of a Hugging Face tokenizer to the exact bytes it adds to the output."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer

_BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte -> printable character table, which byte-level BPE vocabularies are written in."""
    table = {b: chr(b) for b in [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]}
    shifted = (b for b in range(256) if b not in table)
    table.update({b: chr(256 + n) for n, b in enumerate(shifted)})
    return table


# str.translate table: byte-level character -> the latin-1 character of its byte. Every other
# character below 256 is sent to U+FFFF so the latin-1 encode fails and the token falls back to
# UTF-8, as the tokenizers ByteLevel decoder does for tokens outside the table.
_BYTE_LEVEL = {c: 0xFFFF for c in range(256)} | {ord(ch): b for b, ch in _bytes_to_unicode().items()}


def _byte_level(token: str) -> bytes:
    """Bytes of a byte-level BPE token: each character stands for one byte."""
    try:
        return token.translate(_BYTE_LEVEL).encode("latin-1")
    except UnicodeEncodeError:
        return token.encode()


def _components(node: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A decoder or pre-tokenizer with its Sequence flattened, so detection sees every part."""
    if not node:
        return []
    if node.get("type") == "Sequence":
        parts = node.get("decoders") or node.get("pretokenizers") or []
        return [leaf for part in parts for leaf in _components(part)]
    return [node]


def _space_marker(parts: list[dict[str, Any]]) -> str | None:
    """The SentencePiece word-boundary character that decodes to a space, if these parts use one."""
    for part in parts:
        if part.get("type") == "Metaspace":
            return str(part.get("replacement", "\u2581"))
        pattern = part.get("pattern", {}).get("String") if part.get("type") == "Replace" else None
        if pattern is not None and part.get("content") == " ":
            return str(pattern)
    return None


def _token_decoder(spec: dict[str, Any]) -> Callable[[str], bytes]:
    """Pick the per-token byte decoding from the tokenizer's decoder, else its pre-tokenizer."""
    byte_fallback = bool(spec.get("model", {}).get("byte_fallback"))
    decoder, pre = _components(spec.get("decoder")), _components(spec.get("pre_tokenizer"))
    for parts in (decoder, pre):
        if any(part.get("type") == "ByteLevel" for part in parts):
            return _byte_level
        marker = _space_marker(parts)
        if marker is not None:
            byte_fallback = byte_fallback or any(part.get("type") == "ByteFallback" for part in parts)
            return partial(_sentencepiece, marker=marker, byte_fallback=byte_fallback)
    kinds = [p.get("type") for p in decoder], [p.get("type") for p in pre]
    raise ValueError(
        f"cannot tell how tokens map to bytes: decoder {kinds[0]}, pre_tokenizer {kinds[1]}, "
        f"byte_fallback={byte_fallback}"
    )


def _sentencepiece(token: str, marker: str, byte_fallback: bool) -> bytes:
    """Bytes of a SentencePiece token mid-sequence: <0xNN> is one byte, the marker is a space."""
    match = _BYTE_TOKEN.fullmatch(token) if byte_fallback else None
    return bytes([int(match[1], 16)]) if match else token.replace(marker, " ").encode()


def _fingerprint(tokens: tuple[bytes, ...], eos_ids: frozenset[int]) -> str:
    """Content hash of the vocabulary, so caches keyed on it survive reloads and renames."""
    digest = hashlib.sha256(len(tokens).to_bytes(8, "little"))
    for token in tokens:
        digest.update(len(token).to_bytes(4, "little") + token)
    for eos in sorted(eos_ids):
        digest.update(eos.to_bytes(8, "little"))
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Token id -> the exact bytes the token contributes to the output, for byte-level masking."""

    tokens: tuple[bytes, ...]
    eos_ids: frozenset[int]
    fingerprint: str = ""
    """The content hash, made here: token tries, tables and table files are shared by it, so two vocabularies
    may share one only when they are the same (one given that is not theirs is refused)."""

    def __post_init__(self) -> None:
        try:
            made = _fingerprint(self.tokens, self.eos_ids)
        except (TypeError, AttributeError, OverflowError):
            raise TypeError("a Vocabulary's tokens are bytes and its eos_ids non-negative ints") from None
        if self.fingerprint and self.fingerprint != made:
            raise ValueError(f"fingerprint {self.fingerprint[:16]!r} is not the content hash of these tokens and EOS "
                             f"ids ({made[:16]!r}): leave it out, it is computed")
        object.__setattr__(self, "fingerprint", made)

    @property
    def size(self) -> int:
        """Number of token ids, which is the width of the model's logits."""
        return len(self.tokens)

    @classmethod
    def from_tokenizer_file(
        cls, path: str | Path, *, eos_token: str | None = None, size: int | None = None
    ) -> Vocabulary:
        """Load a tokenizer.json; the EOS comes from the argument or the tokenizer_config.json beside it."""
        path = Path(path)
        if eos_token is None:
            config_path = path.with_name("tokenizer_config.json")
            config = json.loads(config_path.read_text(encoding="utf-8")) if config_path.is_file() else {}
            eos = config.get("eos_token")
            eos_token = eos.get("content") if isinstance(eos, dict) else eos
            if not isinstance(eos_token, str):
                raise ValueError(f"no eos_token given and none in {config_path}")
        tokenizer = Tokenizer.from_file(str(path))
        eos_id = tokenizer.token_to_id(eos_token)
        if eos_id is None:
            raise ValueError(f"EOS token {eos_token!r} is not in the vocabulary of {path}")
        return cls._build(tokenizer, eos_id, size)

    @classmethod
    def from_hf(cls, tokenizer: Any, *, size: int | None = None) -> Vocabulary:
        """Build from a transformers fast tokenizer, taking the EOS it is configured with."""
        backend = getattr(tokenizer, "backend_tokenizer", None)
        if not isinstance(backend, Tokenizer):
            raise ValueError(f"{type(tokenizer).__name__} is not a fast tokenizer (no tokenizers backend)")
        if tokenizer.eos_token_id is None:
            raise ValueError(f"{type(tokenizer).__name__} has no EOS token")
        return cls._build(backend, tokenizer.eos_token_id, size)

    @classmethod
    def _build(cls, tokenizer: Tokenizer, eos_id: int, size: int | None) -> Vocabulary:
        """Decode every id of the tokenizer to bytes, padded with b"" to the logits width."""
        spec = json.loads(tokenizer.to_str())
        decode = _token_decoder(spec)
        added = {t["id"]: t for t in spec.get("added_tokens", [])}
        unk = spec["model"].get("unk_token")
        unk_id = tokenizer.token_to_id(unk) if unk else None
        count = max(tokenizer.get_vocab(with_added_tokens=True).values()) + 1
        if size is not None and size < count:
            raise ValueError(f"size {size} is smaller than the tokenizer's {count} token ids")
        tokens = []
        for token_id in range(count):
            token, entry = tokenizer.id_to_token(token_id), added.get(token_id)
            if token is None or token_id == unk_id or (entry and entry["special"]):
                tokens.append(b"")  # never produced as text: holes, <unk>, specials (EOS is in eos_ids)
            elif entry:
                tokens.append(entry["content"].encode())
            else:
                tokens.append(decode(token))
        tokens += [b""] * ((size or count) - count)
        eos_ids = frozenset({eos_id})
        return cls(tuple(tokens), eos_ids)
