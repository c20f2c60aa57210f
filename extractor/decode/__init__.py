"""Stage 5: the decoding loop over a transformers model, logits masked at every step.

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
