"""The manager's mask step for a batch of our requests: each request's packed rows looked up in Python (under
speculative decoding, one per draft and the bonus row, the drafts accepted between them and taken back after),
then every row written into vLLM's shared bitmask by one C call with the GIL released (vLLM's own step makes one
Python call, one tensor write and, above 128 requests without drafts, one thread hand-off per row)."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from extractor.integrations.vllm.backend import ExtractorGrammar, _rows
from extractor.masks.bits import write_rows

NEEDS = ("_grammar_bitmask", "_get_constraint_bounds", "backend", "vllm_config")
"""What the batch step reads of vLLM's StructuredOutputManager; where a version lacks one, vLLM's own step runs."""

_log = logging.getLogger(__name__)

Rows = list[tuple[int, "np.ndarray | None"]]
"""(bitmask row, packed words) pairs; None: every id allowed."""


def fill_batch(rows: np.ndarray, entries: list[tuple[ExtractorGrammar, int, bool]]) -> None:
    """Write each `(grammar, index, apply)` entry's row into `rows` (vLLM's bitmask, as a NumPy view): the
    grammar's mask where `apply` and it is not finished, else every id allowed, as vLLM's `_fill_bitmasks` does."""
    write_rows(rows, [(index, grammar.row() if apply and not grammar.is_terminated() else None)
                      for grammar, index, apply in entries])


def draft_rows(grammar: ExtractorGrammar, drafts: list[int], bounds: tuple[int, int], index: int,
               rows: Rows, request_id: str = "") -> int:
    """Append one request's rows to `rows` as vLLM's speculative mask step makes them, from bitmask row `index`:
    a row per draft (each draft accepted after its row; the grammar's constraint starts at `bounds[1]`, the
    tokens it is fed at `bounds[0]`; a -1 pads the rest), then the bonus row, the accepted drafts taken back
    at the end. After a draft the grammar refuses, the remaining rows repeat the last one filled. Returns the
    next free row."""
    grammar_start, constraint_start = bounds
    advanced, padded, failed, last = 0, False, False, None
    for i, token in enumerate(drafts):
        if failed:
            rows.append((index, last))
            index += 1
            continue
        last = grammar.row() if not padded and i >= constraint_start and not grammar.is_terminated() else None
        rows.append((index, last))
        if token == -1:
            padded = True
        elif not padded and i >= grammar_start:
            if not grammar.is_terminated() and grammar.accept_tokens(request_id, [token]):
                advanced += 1
            else:  # drafts are validated before they are scheduled: logged as vLLM's own step logs it
                _log.error("Unexpected: grammar terminated or rejected draft token %s for request %s during "
                           "bitmask fill.", token, request_id)
                failed = True
        index += 1
    if failed:
        rows.append((index, last))
    else:
        apply = not padded and constraint_start <= len(drafts) and not grammar.is_terminated()
        rows.append((index, grammar.row() if apply else None))
    if advanced:
        grammar.rollback(advanced)
    return index + 1


def patch(manager: type) -> None:
    """Route the manager's mask step for batches all of whose requests are ours to `fill_batch` (no drafts) or
    `draft_rows`; anything else (another backend's request, a diffusion model's canvas, a vLLM without what this
    reads) takes vLLM's own step unchanged. Safe to call more than once."""
    original = manager.grammar_bitmask
    if getattr(original, "_extractor", False):
        return
    try:
        from vllm.v1.structured_output.utils import strip_speculative_padding
    except ImportError:  # a vLLM without it: its own step, unpatched
        return

    def grammar_bitmask(self: Any, requests: dict[str, Any], ids: list[str],
                        spec_tokens: dict[str, list[int]]) -> np.ndarray | None:
        if not ids or not all(hasattr(self, name) for name in NEEDS):
            return original(self, requests, ids, spec_tokens)
        config = self.vllm_config
        drafts = config.num_speculative_tokens
        if drafts and getattr(config.model_config, "is_diffusion", True):
            return original(self, requests, ids, spec_tokens)
        grammars = []
        for req_id in ids:
            grammar = requests[req_id].structured_output_request.grammar
            if not isinstance(grammar, ExtractorGrammar):
                return original(self, requests, ids, spec_tokens)
            grammars.append(grammar)
        if self._grammar_bitmask is None:  # one row per request the scheduler may run, and one per draft
            self._grammar_bitmask = self.backend.allocate_token_bitmask(
                config.scheduler_config.max_num_seqs * (1 + drafts))
        bitmask = self._grammar_bitmask
        view = _rows(bitmask)
        if view is None:  # not on the CPU
            return original(self, requests, ids, spec_tokens)
        if not drafts:
            bounds = [self._get_constraint_bounds(requests[req_id], ()) for req_id in ids]
            fill_batch(view, [(grammar, index, at.constraint_start == 0)
                              for index, (grammar, at) in enumerate(zip(grammars, bounds))])
            used = len(ids)
        else:
            rows: Rows = []
            used = 0
            for req_id, grammar in zip(ids, grammars):
                tokens = spec_tokens.get(req_id, [])
                bounds = self._get_constraint_bounds(requests[req_id], strip_speculative_padding(tokens))
                used = draft_rows(grammar, tokens, (bounds[0], bounds[1]), used, rows, req_id)
            write_rows(view, rows)
        return (bitmask[:used] if used < bitmask.shape[0] else bitmask).numpy()

    grammar_bitmask._extractor = True  # type: ignore[attr-defined]
    manager.grammar_bitmask = grammar_bitmask  # type: ignore[attr-defined]
