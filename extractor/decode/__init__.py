"""Stage 5: the decoding loop over a transformers model, logits masked at every step."""

from extractor.decode.guards import NO_GUARDS, Guards
from extractor.decode.loop import Generation, generate, generate_many, jump_forward_options
from extractor.decode.model import DEFAULT_MODEL, LoadedModel, ModelLoadError, load_model
from extractor.decode.prompt import PromptTemplate, encode, messages
from extractor.decode.rows import DecodeOptions
from extractor.decode.sampling import SamplingOptions

__all__ = [
    "DEFAULT_MODEL", "NO_GUARDS", "DecodeOptions", "Generation", "Guards", "LoadedModel", "ModelLoadError",
    "PromptTemplate", "SamplingOptions", "encode", "generate", "generate_many", "jump_forward_options", "load_model",
    "messages",
]
