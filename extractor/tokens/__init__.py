"""Token vocabularies as exact byte strings, the alphabet of the byte-level grammar masks."""

from extractor.tokens.vocab import Vocabulary

__all__ = ["Vocabulary"]
