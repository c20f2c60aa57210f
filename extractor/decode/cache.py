"""A key-value cache whose layers grow in place: a decoding step writes its token's keys and values into room kept
at the end, where transformers' `DynamicLayer` concatenates, copying the whole cache of every layer at every step
(at 8,000 tokens of the embedded model, about 370 MB a step; 7% of a step's time on the development CPU, where
reading the weights costs most: benchmarks/kv_cache.py). The keys and values each step reads are the same; only
the copying is gone."""

from __future__ import annotations

from typing import Any

import torch
from transformers import DynamicCache
from transformers.cache_utils import DynamicLayer

SLACK = 256
"""Tokens of room kept past what a layer holds when it grows: a copy every `SLACK` tokens at most, and at most this
much more memory per row than the tokens held."""


def growing_cache(model: Any) -> Any:
    """A cache for `model` whose plain dynamic layers are `GrowingLayer`s; None where the model's cache is of another
    kind (sliding windows, quantized, recurrent state) or cannot be built here: the model then makes its own."""
    try:
        cache = DynamicCache(config=model.config)
    except (TypeError, ValueError, AttributeError):
        return None
    layers = getattr(cache, "layers", None)
    if not layers or any(type(layer) is not DynamicLayer for layer in layers):
        return None
    cache.layers = [GrowingLayer() for _ in layers]
    return cache


class GrowingLayer(DynamicLayer):  # type: ignore[misc]
    """`DynamicLayer` with its keys and values held in buffers with room at the end: `keys` and `values` are views of
    their first positions. A crop leaves a shorter view of the same buffers (the next update writes over what it
    dropped); a method of the base class that makes new tensors (batch select, repeat) is followed by the next
    `update` taking them as they are into new buffers."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.room: tuple[torch.Tensor, torch.Tensor] | None = None

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
               **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """The layer's keys and values with the new ones after them, written into the room kept."""
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        keys, values = self.keys, self.values
        held = keys.shape[-2] if keys.numel() else 0
        new = key_states.shape[-2]
        room = self.room
        if room is None or not (_within(keys, room[0]) and _within(values, room[1])) or held + new > room[0].shape[-2]:
            room = self.room = (_buffer(key_states, held + new + SLACK), _buffer(value_states, held + new + SLACK))
            if held:
                room[0][..., :held, :] = keys
                room[1][..., :held, :] = values
        room[0][..., held:held + new, :] = key_states
        room[1][..., held:held + new, :] = value_states
        self.keys, self.values = room[0][..., :held + new, :], room[1][..., :held + new, :]
        return self.keys, self.values

    def reset(self) -> None:
        self.room = None
        super().reset()


def _buffer(like: torch.Tensor, length: int) -> torch.Tensor:
    return like.new_empty((*like.shape[:-2], length, like.shape[-1]))


def _within(view: torch.Tensor, buffer: torch.Tensor) -> bool:
    """Whether `view` is the first positions of `buffer` (what `update` returned, or a crop of it)."""
    return (view.numel() > 0 and view.data_ptr() == buffer.data_ptr() and view.stride() == buffer.stride()
            and view.shape[:-2] == buffer.shape[:-2] and view.shape[-1] == buffer.shape[-1])
