"""Logits from the model's last hidden states, computed only for the tokens a mask allows.

On CPU the output layer (vocabulary × hidden) is a large share of a pass: 9.5 ms of 60 for the embedded
model, per position, all of it memory traffic. Under a mask only the allowed tokens' logits matter, so a
position where the grammar allows a few thousand tokens (keys, numbers, enums, punctuation, the
bytes of a forced span) reads those rows of the matrix only; a position that allows most of the
vocabulary (free text) computes every logit, once for all of the pass's remaining positions. Same dot
products: the logits of allowed tokens do not change, the others are -inf as the mask makes them anyway.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from extractor.decode.sampling import masked
from extractor.masks.device import apply_token_bitmask

SPARSE_SHARE = 1 / 16
"""Compute allowed logits row by row when at most this share of the vocabulary is allowed (measured:
3,000 of 49,152 rows cost 1.5 ms against 8–11 ms for the whole layer on one position)."""


def apply_mask(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Logits with forbidden tokens at -inf: `allowed` is bool per token or packed int32 words."""
    if allowed.dtype == torch.int32:
        return apply_token_bitmask(logits.clone(), allowed)
    width = logits.shape[-1]
    if allowed.shape[-1] != width:  # a vocabulary narrower than the logits: the rest is never allowed
        allowed = torch.nn.functional.pad(allowed[:width], (0, max(width - allowed.shape[-1], 0)))
    return masked(logits, allowed)


class Head:
    """The output layer of a causal LM, applied apart from the model so that it can skip rows."""

    def __init__(self, layer: torch.nn.Linear) -> None:
        self.layer = layer
        self.limit = int(layer.out_features * SPARSE_SHARE)

    @property
    def weight(self) -> torch.Tensor:
        return self.layer.weight.detach()  # read per use: the model may have been moved or reloaded

    @property
    def bias(self) -> torch.Tensor | None:
        return None if self.layer.bias is None else self.layer.bias.detach()

    @classmethod
    def probe(cls, model: Any, cache_kwarg: str) -> "Head | None":
        """A Head when the model's logits are its output layer on its base model's output, which returns
        its cache as `cache_kwarg` (checked on a short input: soft-capping, scaling or anything else
        between the two makes it None)."""
        layer = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
        base = getattr(model, "base_model", None)
        if not isinstance(layer, torch.nn.Linear) or base is None or base is model:
            return None
        ids = torch.tensor([[1, 2, 3, 4]], device=layer.weight.device)
        try:
            with torch.inference_mode():
                full = model(input_ids=ids, use_cache=False).logits
                out = base(input_ids=ids, use_cache=True)
                same = (getattr(out, cache_kwarg, None) is not None
                        and torch.allclose(layer(out.last_hidden_state), full, rtol=1e-4, atol=1e-4))
        except Exception:  # noqa: BLE001  (a model this cannot drive keeps the whole forward)
            return None
        return cls(layer) if same else None

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """All logits for hidden states [n, d]: for up to 8 positions as W·hᵀ, which MKL streams faster than
        x·Wᵀ (in a pass, embedded model: 2 positions 6.6 against 23.5 ms), one position doubled (7.9
        against 11.1 ms: two columns take the matrix-matrix path, one the slower matrix-vector one)."""
        weight, bias = self.weight, self.bias
        n = hidden.shape[0]
        if n > 8:
            out = torch.nn.functional.linear(hidden, weight)
        else:
            out = torch.mm(weight, (torch.cat([hidden, hidden]) if n == 1 else hidden).T).T[:n]
        return out if bias is None else out + bias

    def allowed_logits(self, hidden: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Logits of `ids` from one hidden state [d], -inf for every other token."""
        weight, bias = self.weight, self.bias
        out = torch.full((weight.shape[0],), float("-inf"), dtype=hidden.dtype, device=hidden.device)
        values = weight.index_select(0, ids) @ hidden
        out[ids] = values if bias is None else values + bias[ids]
        return out


class PassLogits:
    """One row's logits in one forward pass, position by position: masked ones sparse where they can be.

    Holds either the row's last hidden states (with a Head) or the model's logits (without one).
    """

    def __init__(self, states: torch.Tensor, head: Head | None = None) -> None:
        self.states, self.head = states, head
        self._logits: torch.Tensor | None = None if head is not None else states
        self._from = 0

    def last(self, n: int) -> "PassLogits":
        """The last `n` positions."""
        return PassLogits(self.states[self.states.shape[0] - n:], self.head)

    def at(self, j: int, allowed: torch.Tensor | None) -> torch.Tensor:
        """Position j's logits, tokens outside `allowed` (bool per token, or packed words) at -inf."""
        head = self.head
        if head is not None and allowed is not None and allowed.dtype == torch.bool:
            host = allowed.numpy()[: head.layer.out_features]
            if np.count_nonzero(host) <= head.limit:
                return head.allowed_logits(self.states[j], torch.from_numpy(np.flatnonzero(host)))
        row = self._row(j)
        return row if allowed is None else apply_mask(row, allowed)

    def _row(self, j: int) -> torch.Tensor:
        """All of position j's logits; with a Head, computed for j and every later position at once."""
        if self.head is not None and (self._logits is None or j < self._from):
            self._logits, self._from = self.head.logits(self.states[j:]), j
        return self._logits[j - self._from]
