"""Attention for multi-token passes on CPU without copying the KV cache per layer.

A drafted or forced span is several query tokens against the cache, so a mask is needed; transformers'
SDPA path then repeats every key and value head for grouped-query models (a copy of the whole cache per
layer and pass: a third of a 2-token pass of the embedded model). PyTorch's SDPA takes the groups
itself (`enable_gqa`) with a mask on CPU, so this function passes them on; the arithmetic is the same.
"""

from __future__ import annotations

from typing import Any

import torch

NAME = "extractor_sdpa"


def gqa_sdpa(module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
             attention_mask: torch.Tensor | None, dropout: float = 0.0, scaling: float | None = None,
             is_causal: bool | None = None, **kwargs: Any) -> tuple[torch.Tensor, None]:
    """transformers' SDPA attention, with key/value groups left to PyTorch where a mask is given on CPU."""
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    groups = getattr(module, "num_key_value_groups", 1)
    plain = (attention_mask is None or groups == 1 or query.device.type != "cpu" or query.shape[2] == 1
             or kwargs.get("position_bias") is not None or kwargs.get("softcap") is not None)
    if plain:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      is_causal=is_causal, **kwargs)
    out = torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=attention_mask,
                                                           dropout_p=dropout, scale=scaling, enable_gqa=True)
    return out.transpose(1, 2).contiguous(), None


def use_gqa_sdpa(model: Any) -> bool:
    """Switch a model loaded here from "sdpa" to `gqa_sdpa` (CPU only); False when it uses something else."""
    config = getattr(model, "config", None)
    if getattr(config, "_attn_implementation", None) != "sdpa" or next(model.parameters()).device.type != "cpu":
        return False
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(NAME, gqa_sdpa)
    AttentionMaskInterface.register(NAME, sdpa_mask)
    model.set_attn_implementation(NAME)
    return True
