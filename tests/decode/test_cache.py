"""The growing key-value cache: the same keys and values as transformers' concatenating layer after any run of the
operations the decoding loop makes, and the same tokens from the embedded model."""

from __future__ import annotations

import random

import pytest
import torch
from transformers import DynamicCache, LlamaConfig, MistralConfig
from transformers.cache_utils import DynamicLayer

from extractor.decode import cache as cache_module
from extractor.decode.cache import GrowingLayer, growing_cache


def _kv(rows: int, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(rows, 3, n, 8, generator=g), torch.randn(rows, 3, n, 8, generator=g)


def _apply(layer: DynamicLayer, op: tuple, rows: int) -> int:
    """One operation of the loop on a layer; the rows after it."""
    kind, arg = op
    if kind == "update":
        layer.update(*_kv(rows, arg[0], arg[1]))
    elif kind == "crop":
        layer.crop(-min(arg, max(layer.get_seq_length() - 1, 0)))
    elif kind == "repeat" and rows == 1:
        layer.batch_repeat_interleave(arg)
        rows *= arg
    elif kind == "select" and rows > 1:
        keep = sorted(random.Random(arg).sample(range(rows), rows - 1))
        layer.batch_select_indices(torch.tensor(keep))
        rows -= 1
    return rows


OPS = [
    ("one token at a time", [("update", (5, 0))] + [("update", (1, s)) for s in range(1, 40)]),
    ("a prompt in parts, then steps past the room", [("update", (300, 0)), ("update", (300, 1))]
     + [("update", (1, s)) for s in range(2, 300)]),
    ("drafts dropped and written over", [("update", (10, 0)), ("update", (4, 1)), ("crop", 3), ("update", (2, 2)),
                                         ("crop", 1), ("update", (1, 3))]),
    ("a shared prefix repeated, then rows leaving", [("update", (7, 0)), ("repeat", 3), ("update", (1, 1)),
                                                     ("select", 5), ("update", (1, 2)), ("select", 6),
                                                     ("update", (2, 3))]),
]


@pytest.mark.parametrize("ops", [o for _, o in OPS], ids=[n for n, _ in OPS])
def test_a_growing_layer_holds_what_concatenation_holds(ops):
    plain, grown, rows_a, rows_b = DynamicLayer(), GrowingLayer(), 1, 1
    for op in ops:
        rows_a, rows_b = _apply(plain, op, rows_a), _apply(grown, op, rows_b)
        assert torch.equal(plain.keys, grown.keys) and torch.equal(plain.values, grown.values), op
        assert grown.get_seq_length() == plain.get_seq_length()


@pytest.mark.parametrize("seed", range(20))
def test_random_runs_of_the_loops_operations_agree(seed):
    rng = random.Random(seed)
    plain, grown, rows_a, rows_b = DynamicLayer(), GrowingLayer(), 1, 1
    for step in range(60):
        kind = rng.choice(["update", "update", "update", "crop", "repeat", "select"])
        op = (kind, (rng.choice([1, 1, 2, 5, 300]), step) if kind == "update" else rng.randint(1, 4))
        if kind != "update" and plain.get_seq_length() == 0:
            continue
        rows_a, rows_b = _apply(plain, op, rows_a), _apply(grown, op, rows_b)
        assert torch.equal(plain.keys, grown.keys) and torch.equal(plain.values, grown.values), (step, op)


def test_room_is_kept_so_a_step_copies_nothing():
    layer = GrowingLayer()
    layer.update(*_kv(1, 10, 0))
    buffer = layer.room[0]
    for s in range(cache_module.SLACK):
        layer.update(*_kv(1, 1, s + 1))
    assert layer.room[0] is buffer and layer.get_seq_length() == 10 + cache_module.SLACK
    layer.update(*_kv(1, 1, 999))  # past the room: one copy into a larger buffer
    assert layer.room[0] is not buffer and layer.room[0].shape[-2] == 10 + cache_module.SLACK + 1 + cache_module.SLACK


@pytest.mark.parametrize(("config", "grows"), [
    (LlamaConfig(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, intermediate_size=32), True),
    (MistralConfig(num_hidden_layers=2, hidden_size=16, num_attention_heads=2, intermediate_size=32,
                   sliding_window=8), False),
], ids=["full attention", "sliding window"])
def test_only_plain_dynamic_layers_are_replaced(config, grows):
    class Model:
        pass

    model = Model()
    model.config = config
    made = growing_cache(model)
    assert (made is not None) == grows
    if made is not None:
        assert isinstance(made, DynamicCache) and all(isinstance(layer, GrowingLayer) for layer in made.layers)


def test_a_model_without_a_config_keeps_its_own_cache():
    assert growing_cache(object()) is None


def test_a_transformers_without_layered_caches_leaves_the_model_its_own(monkeypatch):
    import sys

    import extractor.decode
    from extractor.decode import loop

    model = type("Model", (), {"config": LlamaConfig(num_hidden_layers=2, hidden_size=16, num_attention_heads=2,
                                                     intermediate_size=32)})()
    assert loop._growing_cache(model) is not None
    monkeypatch.setitem(sys.modules, "extractor.decode.cache", None)  # its import fails, as without DynamicLayer
    monkeypatch.delattr(extractor.decode, "cache", raising=False)
    assert loop._growing_cache(model) is None
