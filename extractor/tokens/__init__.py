"""Token vocabularies as exact byte strings: the alphabet the byte-level grammar masks are computed over.

The grammar and its automata read bytes, so every token is judged by the exact bytes it adds to the output.
`vocab.py`'s `Vocabulary` holds them, one `bytes` per token id, decoded once from a Hugging Face tokenizer
(`from_hf` for a transformers fast tokenizer, `from_tokenizer_file` for a tokenizer.json, its EOS given or read
from the tokenizer_config.json beside it). How tokens map to bytes is read off the tokenizer's decoder, else its
pre-tokenizer:

- byte-level BPE: each character stands for one byte (GPT-2's byte-to-character table reversed); a token with
  characters outside the table falls back to UTF-8, as the tokenizers ByteLevel decoder does;
- SentencePiece: the word-boundary marker (Metaspace, or a Replace to a space) is a space, and with byte fallback
  `<0xNN>` is that one byte.

Anything else is a ValueError naming the decoder and pre-tokenizer, never a guess. Added tokens that are not
special are their content's bytes. Special tokens, `<unk>` and ids with no token are `b""`: never produced as
text, so no mask offers them; EOS is kept apart in `eos_ids`, which a mask allows where the output is complete.
The table is padded with `b""` to `size`, the width of the model's logits, which may exceed the tokenizer's.

A vocabulary's `fingerprint` is its content hash (SHA-256 over every token's bytes and the EOS ids), computed
when it is made and never taken on trust: one given that is not the content's is refused. Token tries, token
tables and table files on disk are shared by it, so two vocabularies share them exactly when they are the same,
and a tokenizer reloaded or renamed finds its tables again."""

from extractor.tokens.vocab import Vocabulary

__all__ = ["Vocabulary"]
