"""The vocabulary in the shapes mask computation walks: a byte trie in preorder (and, for the NumPy
fallback, a sorted byte matrix)."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from extractor.tokens import Vocabulary

try:
    from extractor.masks import _kernel
except ImportError:  # built without a C compiler: tables.py walks with NumPy instead
    _kernel = None


class TokenTrie:
    """Tokens sorted by their bytes; trie nodes are numbered in preorder, each covering a contiguous
    range of rows. Per node there are only arrays and one dict of ints: no Python containers for the
    garbage collector to traverse (hundreds of thousands of lists made every full collection slow)."""

    def __init__(self, vocab: Vocabulary) -> None:
        ids = sorted((i for i, t in enumerate(vocab.tokens) if t), key=lambda i: vocab.tokens[i])
        self.vocab = vocab
        self.ids = np.array(ids, dtype=np.int64)
        self.lengths = np.array([len(vocab.tokens[i]) for i in ids], dtype=np.int64)
        self.width = int(self.lengths.max()) if ids else 0
        """The longest token's length in bytes."""
        self.edges: dict[int, int] = {}  # node * 256 + byte -> child
        self.reaches: dict[bytes, int] = {}
        """`reach` by alphabet."""
        depth, byte, lo, hi, nends, end = [0], [-1], [0], [len(ids)], [0], [0]
        path, previous = [0], b""
        for row, i in enumerate(ids):
            data = vocab.tokens[i]
            shared = 0
            while shared < min(len(data), len(previous)) and data[shared] == previous[shared]:
                shared += 1
            while len(path) > shared + 1:  # nodes below the shared prefix end before this row
                node = path.pop()
                hi[node], end[node] = row, len(depth)
            for d in range(shared + 1, len(data) + 1):
                node = len(depth)
                self.edges[path[-1] * 256 + data[d - 1]] = node
                depth.append(d), byte.append(data[d - 1]), lo.append(row), hi.append(0), nends.append(0), end.append(0)
                path.append(node)
            nends[path[-1]] += 1
            previous = data
        for node in path[1:]:
            hi[node], end[node] = len(ids), len(depth)
        end[0] = len(depth)
        self.depth, self.byte, self.lo, self.hi, self.nends, self.end = (
            np.array(a, dtype=np.int32) for a in (depth, byte, lo, hi, nends, end))
        packed = np.zeros((len(depth) + 1, 3), dtype=np.int32)  # one row per node plus a sentinel
        packed[:-1, 0], packed[:-1, 1], packed[-1, 1] = self.end, self.lo, len(ids)
        packed[1:-1, 2] = (self.depth[1:] << 8) | self.byte[1:]
        self.packed = packed
        """The preorder nodes as the native walk reads them: subtree end, first row, depth << 8 | byte."""

    def child(self, node: int, byte: int) -> int:
        """The child of `node` along `byte`, or -1."""
        return self.edges.get(node * 256 + byte, -1)

    def ends(self, node: int) -> np.ndarray:
        """Token ids whose bytes end exactly at `node`."""
        lo = int(self.lo[node])
        return self.ids[lo: lo + int(self.nends[node])]

    def under(self, node: int) -> np.ndarray:
        """Token ids whose bytes start with `node`'s prefix."""
        return self.ids[int(self.lo[node]): int(self.hi[node])]

    def longer_than(self, node: int) -> np.ndarray:
        """Token ids under `node` that run past it."""
        return self.ids[int(self.lo[node] + self.nends[node]): int(self.hi[node])]

    @cached_property
    def columns(self) -> np.ndarray:
        """Column i: byte i of every token in row order (0 past its end); only the NumPy walk needs it."""
        matrix = np.zeros((len(self.ids), self.width), dtype=np.uint8)
        for row, i in enumerate(self.ids.tolist()):
            data = self.vocab.tokens[i]
            matrix[row, : len(data)] = np.frombuffer(data, dtype=np.uint8)
        return np.ascontiguousarray(matrix.T)

    def reach(self, alphabet: np.ndarray) -> int:
        """How many bytes of `alphabet` (256 flags) a token begins with, at most: how deep a walk reading only
        those bytes goes into any token (remembered per alphabet)."""
        key = np.asarray(alphabet, dtype=bool).tobytes()
        found = self.reaches.get(key)
        if found is None:
            rows, flags, found = np.arange(len(self.ids)), np.asarray(alphabet, dtype=bool), self.width
            for i in range(self.width):
                rows = rows[(self.lengths[rows] > i) & flags[self.columns[i][rows]]]
                if not len(rows):
                    found = i
                    break
            self.reaches[key] = found
        return found

    def ending(self, nodes: np.ndarray) -> np.ndarray:
        """Token ids whose bytes end exactly at any of `nodes`."""
        lo = self.lo[nodes].astype(np.int64)
        sizes = self.nends[nodes].astype(np.int64)
        return self.ids[np.arange(int(sizes.sum())) + np.repeat(lo - (np.cumsum(sizes) - sizes), sizes)]

    @cached_property
    def preorder(self) -> tuple[list[int], list[int], list[int], list[bool], list[bool]]:
        """Per node as lists, for walks in Python (array indexing is slow): depth, byte, subtree end,
        whether tokens end there, whether tokens run on past it."""
        return (self.depth.tolist(), self.byte.tolist(), self.end.tolist(), (self.nends > 0).tolist(),
                (self.lo + self.nends < self.hi).tolist())


def along(trie: TokenTrie, path: bytes) -> np.ndarray:
    """Token ids whose bytes are a non-empty prefix of `path`: the tokens that keep to it."""
    node, found = 0, []
    for byte in path:
        node = trie.child(node, byte)
        if node < 0:
            break
        found.append(trie.ends(node))
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)
