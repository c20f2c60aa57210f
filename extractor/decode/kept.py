"""Keys and values of rows the model read before, kept per model, so that a later row beginning the same way reads
only what follows: the relevance screen's announcements (the same for every text), and a prompt read once for an
answer and again for the likelihood of each value it could hold (the conflict choice of a long text).

Only rows a caller asks to keep are kept (`KeptRows.read`); a decoding run looks its prompt up (`longest`) and
feeds what follows the part kept. Stores are bounded by bytes and drop the least recently used rows first."""

from __future__ import annotations

from typing import Any, Literal
from weakref import WeakKeyDictionary

import torch

from extractor.decode.model import LoadedModel
from extractor.masks.lru import ByteLRU

Kept = tuple[list[tuple[torch.Tensor, torch.Tensor]], torch.Tensor]
"""A row's keys and values per layer, and the model's output at its last token (which predicts what follows)."""

SHARED = 32
"""Fewest tokens a row must share with a kept one for the kept keys and values to be reused: fewer cost less to
read than to look up and copy."""

Store = Literal["announcements", "prompts"]
BUDGETS: dict[Store, int] = {"announcements": 64 << 20, "prompts": 128 << 20}
"""Bytes each store of a model may hold: the screen's announcements, and prompts kept for a second reading (a
700-token prompt of the embedded model holds about 32 MB)."""

_STORES: WeakKeyDictionary[Any, dict[Store, KeptRows]] = WeakKeyDictionary()


class KeptRows:
    """Rows read by one model, by their token ids."""

    def __init__(self, max_bytes: int) -> None:
        self.rows: ByteLRU[tuple[int, ...], Kept] = ByteLRU(max_bytes)

    def longest(self, row: list[int], most: int | None = None) -> tuple[Kept | None, int]:
        """The kept row that shares the longest beginning with `row` (at least `SHARED` tokens, at most `most`),
        and how many tokens they share; (None, 0) where none does."""
        best, length = None, 0
        for key in self.rows.keys():
            n = next((i for i, (a, b) in enumerate(zip(key, row)) if a != b), min(len(key), len(row)))
            if n > length:
                best, length = key, n
        length = length if most is None else min(length, most)
        kept = self.rows.get(best) if best is not None and length >= SHARED else None  # got: kept longer
        return (kept, length) if kept is not None else (None, 0)

    @torch.inference_mode()
    def read(self, lm: LoadedModel, row: list[int]) -> Kept:
        """`row` read by the model and kept: a row kept before is not read again, and one that begins as a kept
        row reads only what follows the part they share (its last token at least, whose output is kept)."""
        from transformers import DynamicCache

        if not row:
            raise ValueError("an empty row has no last token to read on from")
        found = self.rows.get(tuple(row))
        if found is not None:
            return found
        base, shared = self.longest(row, len(row) - 1)
        kwargs: dict[str, Any] = {"input_ids": torch.tensor([row[shared:]], device=lm.device), "use_cache": True}
        if base is not None:
            kwargs[lm.cache_kwarg] = DynamicCache([(k[:, :, :shared], v[:, :, :shared]) for k, v in base[0]])
        out = lm.model.base_model(**kwargs) if lm.head is not None else lm.model(**kwargs)
        layers = [(layer.keys, layer.values) for layer in getattr(out, lm.cache_kwarg).layers]
        last = (out.last_hidden_state if lm.head is not None else out.logits)[0, -1]
        self.rows.put(tuple(row), (layers, last), sum(k.nbytes + v.nbytes for k, v in layers) + last.nbytes)
        return layers, last

    def forget(self, row: list[int]) -> None:
        """Let `row` go (a caller done with it)."""
        self.rows.discard(tuple(row))


def kept_rows(lm: LoadedModel, store: Store) -> KeptRows:
    """One of a model's stores (`BUDGETS` names them), made on first use; gone with the model."""
    stores = _STORES.setdefault(lm.model, {})
    if store not in stores:
        stores[store] = KeptRows(BUDGETS[store])
    return stores[store]
