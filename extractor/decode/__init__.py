"""Stage 5: the decoding loop over a transformers model, logits masked at every step."""

from extractor.decode.loop import Generation, generate
from extractor.decode.model import DEFAULT_MODEL, LoadedModel, ModelLoadError, load_model
from extractor.decode.prompt import PromptTemplate, encode, messages
from extractor.decode.sampling import SamplingOptions

__all__ = ["DEFAULT_MODEL", "Generation", "LoadedModel", "ModelLoadError", "PromptTemplate",
           "SamplingOptions", "encode", "generate", "load_model", "messages"]
