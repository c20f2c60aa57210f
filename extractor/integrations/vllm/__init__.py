"""extractor inside vLLM: our compiler as vLLM's structured-output backend, a logits processor for engines
that cannot take a plugin, and `VLLMExtractor`, the `extract` API with vLLM as the decoding loop.

The backend is installed by the `vllm.general_plugins` entry point (vLLM loads it in every process) and is
selected by the environment variable `EXTRACTOR_VLLM=1` (vLLM's own `structured_outputs_config.backend`
accepts only its built-in names): then every request with a JSON Schema (`response_format`,
`StructuredOutputsParams(json=...)`) or `json_object`, a choice, a regex, a GBNF grammar or a structural tag (tool
calls among them) is compiled and masked by extractor.
"""

import importlib
from typing import Any

_WHERE = {"ENV": "backend", "ExtractorBackend": "backend", "ExtractorGrammar": "backend", "register": "plugin",
          "ExtractorLogitsProcessor": "logits", "VLLMExtractor": "engine", "OPTIONS_KEY": "spec", "with_options": "spec"}
"""Where each public name lives; modules that import vllm are loaded only when one of their names is asked for,
so `with_options` works without vLLM installed (a client talking to a server)."""

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
