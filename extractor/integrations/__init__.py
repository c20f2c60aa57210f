"""Serving engines that run extractor's grammars in their own decoding loop (vLLM), above the public API."""
