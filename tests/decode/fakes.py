"""A fake causal LM for decode-loop tests: fast, deterministic, and strict about the batch bookkeeping.

Its logits are a pure function of each row's real token history (or of the history's bytes), drawn
from a seeded generator, plus a bonus for tokens that close JSON values so outputs end. It checks
what a real model relies on silently: the attention mask covers every cached position, position ids
count the row's real tokens only, rows leave the cache in the order the loop says.
"""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import torch

from extractor.decode import LoadedModel
from extractor.tokens import Vocabulary
from tests.data import need_tokenizer


def hf_tokenizer(name: str = "gpt2"):
    """A transformers fast tokenizer of a real vocabulary (skips the test, naming `make data`, when absent)."""
    from transformers import PreTrainedTokenizerFast

    path = need_tokenizer(name)
    eos = {"gpt2": "<|endoftext|>", "llama2": "</s>", "mistral": "</s>"}.get(name, "<|endoftext|>")
    return PreTrainedTokenizerFast(tokenizer_file=str(path), eos_token=eos)


class FakeCache:
    def __init__(self, rows: int) -> None:
        self.rows: list[list[int]] = [[] for _ in range(rows)]  # every cached position's token, pads included

    @property
    def length(self) -> int:
        return len(self.rows[0]) if self.rows else 0

    def batch_select_indices(self, index: torch.Tensor) -> None:
        self.rows = [self.rows[i] for i in index.tolist()]

    def batch_repeat_interleave(self, n: int) -> None:
        self.rows = [list(row) for row in self.rows for _ in range(n)]

    def crop(self, n: int) -> None:
        assert n < 0, "crop(-n) removes n tokens"
        for row in self.rows:
            del row[n:]


class FakeLM(torch.nn.Module):
    """`by="tokens"`: logits depend on the token ids so far; `by="bytes"`: on the bytes they spell."""

    def __init__(self, vocab: Vocabulary, *, by: str = "tokens", seed: int = 0, bonus: float = 6.0) -> None:
        super().__init__()
        self.vocab, self.by, self.seed = vocab, by, seed
        self.head = torch.nn.Linear(1, vocab.size, bias=False)
        closers = [i for i, t in enumerate(vocab.tokens) if t and t[-1:] in (b'"', b"}", b"]", b",")]
        self.bias = torch.zeros(vocab.size)
        self.bias[closers] = bonus
        self.bias[sorted(vocab.eos_ids)] = bonus
        self.calls: list[tuple[int, int]] = []  # (rows, width) of every forward pass

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, cache=None, use_cache=True,
                logits_to_keep=0):
        rows, width = input_ids.shape
        self.calls.append((rows, width))
        if cache is None:
            cache = FakeCache(rows)
        assert len(cache.rows) == rows, "the cache and the batch disagree on the rows"
        past = cache.length
        if attention_mask is not None:
            assert attention_mask.shape == (rows, past + width), "the attention mask must cover the cache"
        keep = logits_to_keep or width
        out = torch.empty((rows, keep, self.vocab.size))
        for r in range(rows):
            cache.rows[r].extend(input_ids[r].tolist())
            real = cache.rows[r] if attention_mask is None else \
                [t for t, m in zip(cache.rows[r], attention_mask[r].tolist()) if m]
            seen = len(real) - (width if attention_mask is None else int(attention_mask[r, past:].sum()))
            for j in range(width):
                is_real = attention_mask is None or bool(attention_mask[r, past + j])
                if is_real and position_ids is not None:
                    assert int(position_ids[r, j]) == seen, "positions must count the row's real tokens only"
                seen += is_real
                if j >= width - keep:  # a pad's logits are noise, as a real model's are: reading them shows
                    out[r, j - (width - keep)] = self.scores(real[:seen] if is_real else [-1, *real[:seen]])
        return SimpleNamespace(logits=out, cache=cache)

    def get_output_embeddings(self) -> torch.nn.Module:
        return self.head

    def scores(self, history: list[int]) -> torch.Tensor:
        if self.by == "bytes":
            key = b"".join(self.vocab.tokens[t] for t in history)
        else:
            key = b",".join(str(t).encode() for t in history)
        seed = int.from_bytes(hashlib.blake2b(key + bytes([self.seed]), digest_size=6).digest(), "little")
        return torch.randn(self.vocab.size, generator=torch.Generator().manual_seed(seed)) + self.bias


def fake_lm(tokenizer, **kw) -> tuple[LoadedModel, Vocabulary]:
    vocab = Vocabulary.from_hf(tokenizer)
    return LoadedModel.wrap(FakeLM(vocab, **kw), tokenizer, "fake"), vocab
