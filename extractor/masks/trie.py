"""The vocabulary in the two shapes mask computation walks: a byte trie and a sorted byte matrix."""

from __future__ import annotations

import numpy as np

from extractor.tokens import Vocabulary


class TokenTrie:
    """Tokens sorted by their bytes; each trie node covers a contiguous range of that order."""

    def __init__(self, vocab: Vocabulary) -> None:
        ids = sorted((i for i, t in enumerate(vocab.tokens) if t), key=lambda i: vocab.tokens[i])
        self.vocab = vocab
        self.ids = np.array(ids, dtype=np.int64)
        self.lengths = np.array([len(vocab.tokens[i]) for i in ids], dtype=np.int64)
        width = int(self.lengths.max()) if ids else 0
        self.matrix = np.zeros((len(ids), width), dtype=np.uint8)
        for row, i in enumerate(ids):
            data = vocab.tokens[i]
            self.matrix[row, : len(data)] = np.frombuffer(data, dtype=np.uint8)
        self.columns = np.ascontiguousarray(self.matrix.T)  # column i: byte i of every token (0 past its end)
        self.children: list[dict[int, int]] = [{}]
        self.ends: list[list[int]] = [[]]
        self.span: list[list[int]] = [[0, len(ids)]]  # [first row, last row + 1] under each node
        for row, i in enumerate(ids):
            node = 0
            for b in vocab.tokens[i]:
                nxt = self.children[node].get(b)
                if nxt is None:
                    nxt = len(self.children)
                    self.children[node][b] = nxt
                    self.children.append({})
                    self.ends.append([])
                    self.span.append([row, row + 1])
                node = nxt
                self.span[node][1] = row + 1
            self.ends[node].append(i)

    def longer_than(self, node: int, depth: int) -> np.ndarray:
        """Token ids under `node` with more than `depth` bytes."""
        lo, hi = self.span[node]
        keep = self.lengths[lo:hi] > depth
        return self.ids[lo:hi][keep]
