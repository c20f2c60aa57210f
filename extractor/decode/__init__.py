"""Stage 5: the decoding loop over a transformers model, logits masked at every step.

`model.py` loads a causal LM and its tokenizer (the embedded default, a local path or a hub id). `prompt.py` builds
the chat prompt, the schema in the system message (`describe.py` writes it in words, naming the constraints the
grammar enforces) and the text as the user's. `relevance.py` scores, before any decoding, whether a text reads as
the target at all, from the model's own likelihood of short labels after the text; `extract` refuses below a
calibrated threshold.

`loop.py` is the generation loop: the prompt once (a prefix every prompt of a batch shares is fed once and its
cache copied to every row; prompts over `PREFILL_CHUNK` tokens are fed in parts), then one forward pass per free
token on a kept KV cache. Each row (`rows.py`: one document's matcher, guards, sampler state and output) feeds its
chosen token together with the span the grammar forces after it (`forced.py`, jump-forward, tokenized the way the
tokenizer writes that text) and text proposed from the source (`copy.py`); `draft.py` verifies such drafts in
the same pass, a drafted token standing only where the model would have picked it, so outputs are those of
token-by-token decoding. A row's next mask is prepared after the pass is launched, so on an asynchronous device it
overlaps the pass. Rows leave the batch and its cache as they finish; after a long batch freed pages are handed
back (`release_memory`), and glibc is told to map large blocks apart (`map_large_blocks`) so a cache grown a part
at a time does not leave the heap full of holes. `head.py` computes logits for the allowed tokens only where a
mask allows few; `attention.py` runs multi-token passes on CPU without copying the KV cache per layer.

`guards.py` narrows the grammar's mask against the loops small models fall into (a string that never closes, endless
digits, repeated or counted list items, stutters; `fresh.py` keeps an item from repeating an earlier one more often
than the text does, or from being an earlier one cut short). A guard only removes tokens, so output stays valid, and
stands aside where it would remove them all. `Guard.plan` decides from the JSON tracker's state alone (nothing, on
most steps) and only then does `Guard.apply` narrow the mask, a bool vector or a packed row alike
(`masks.bits.Row`). The tracker (`tracker.py`) keeps its place byte by byte in C where `_tracker.c` is built,
handing back to Python only a byte that ends an array item or a member string; the Python tracker beside it gives
the same answers. Its place can be marked and restored, so a speculative decoder's drafts are taken back without
feeding the output again. `sampling.py` picks among the legal tokens (greedy, temperature, top-p, top-k), keeping
the model's distribution over them; `processor.py` is a `LogitsProcessor` for `model.generate` (masks only: no
jump-forward or guards).

Names are imported on first use: most of this stage needs torch, which `import extractor` must not load."""

from importlib import import_module
from typing import Any

_WHERE = {
    "NO_GUARDS": "guards", "Guards": "guards", "Generation": "loop", "generate": "loop", "generate_many": "loop",
    "jump_forward_options": "loop", "DEFAULT_MODEL": "model", "LoadedModel": "model", "load_model": "model",
    "PromptTemplate": "prompt", "encode": "prompt", "messages": "prompt", "DecodeOptions": "rows",
    "SamplingOptions": "sampling",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'extractor.decode' has no attribute {name!r}")
    return getattr(import_module(f"extractor.decode.{_WHERE[name]}"), name)
