"""The manager's mask step for a batch of our requests: each request's packed row looked up in Python, then every
row written into vLLM's shared bitmask by one C call with the GIL released (vLLM's own step makes one Python call,
one tensor write and, above 128 requests, one thread hand-off per request)."""

from __future__ import annotations

from typing import Any

import numpy as np

from extractor.integrations.vllm.backend import ExtractorGrammar, _rows
from extractor.masks.bits import write_rows

NEEDS = ("_grammar_bitmask", "_get_constraint_bounds", "backend", "vllm_config")
"""What the batch step reads of vLLM's StructuredOutputManager; where a version lacks one, vLLM's own step runs."""


def fill_batch(bitmask: Any, entries: list[tuple[ExtractorGrammar, int, bool]]) -> None:
    """Write each `(grammar, index, apply)` entry's row into `bitmask` (a CPU int32 tensor or array of rows): the
    grammar's mask where `apply` and it is not finished, else every id allowed, as vLLM's `_fill_bitmasks` does."""
    rows = _rows(bitmask) if not isinstance(bitmask, np.ndarray) else bitmask
    if rows is None:  # not on the CPU: row by row, as vLLM would
        for grammar, index, apply in entries:
            if apply and not grammar.is_terminated():
                grammar.fill_bitmask(bitmask, index)
            else:
                bitmask[index].fill_(-1)
        return
    write_rows(rows, [(index, grammar.row() if apply and not grammar.is_terminated() else None)
                      for grammar, index, apply in entries])


def patch(manager: type) -> None:
    """Route the manager's mask step for batches without speculative tokens, all of whose requests are ours, to
    `fill_batch`; anything else (drafts, another backend's request, a vLLM without what it reads) takes vLLM's
    own step unchanged. Safe to call more than once."""
    original = manager.grammar_bitmask
    if getattr(original, "_extractor", False):
        return

    def grammar_bitmask(self: Any, requests: dict[str, Any], ids: list[str],
                        spec_tokens: dict[str, list[int]]) -> np.ndarray | None:
        if not ids or not all(hasattr(self, name) for name in NEEDS) or self.vllm_config.num_speculative_tokens:
            return original(self, requests, ids, spec_tokens)
        entries = []
        for index, req_id in enumerate(ids):
            request = requests[req_id]
            grammar = request.structured_output_request.grammar
            if not isinstance(grammar, ExtractorGrammar):
                return original(self, requests, ids, spec_tokens)
            entries.append((grammar, index, self._get_constraint_bounds(request, ()).constraint_start == 0))
        if self._grammar_bitmask is None:  # one row per request the scheduler may run (no drafts: no more rows)
            self._grammar_bitmask = self.backend.allocate_token_bitmask(self.vllm_config.scheduler_config.max_num_seqs)
        fill_batch(self._grammar_bitmask, entries)
        bitmask = self._grammar_bitmask
        return (bitmask[:len(ids)] if len(ids) < bitmask.shape[0] else bitmask).numpy()

    grammar_bitmask._extractor = True  # type: ignore[attr-defined]
    manager.grammar_bitmask = grammar_bitmask  # type: ignore[attr-defined]
