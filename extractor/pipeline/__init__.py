"""Stage 6: one document's extraction, above the decoder and below the public face, in the order its modules import
one another (`tests/test_layers.py` holds that order):

checks, inputs, grounding → options → outcome, refusing → target → engine → document → batch, windowed → rounds →
stream.

`options` declares what a call may ask; `target` resolves the schema once per call and its form for one text;
`engine` is the seam a model backend implements (`engines.local` for transformers, `integrations.vllm` for vLLM);
`document` holds one document's steps, written once; `batch`, `windowed` and `rounds` drive them for one document,
a batch, and a text longer than a window; `stream` yields partial results while decoding."""
