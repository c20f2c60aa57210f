"""Peer engines for the benchmarks: llguidance, xgrammar and outlines-core behind the `Engine` protocol.

Each peer is given the same tokenizer.json and the extractor `Vocabulary` of it, compiles the JSON Schema
for compact JSON (no whitespace between tokens, "," and ":" separators), and answers `mask()` with a bool
vector over `len(vocab.tokens)` token ids, EOS set only where the value may end, as `ExtractorEngine` does.

The peers compute a packed bitmask (32 token ids per int32 word). `mask()` includes unpacking it into the
bool vector with numpy (`np.unpackbits`, about 10 µs for a 128k vocabulary on the 2-core benchmark machine):
the harness times `mask()` and consumes a bool vector, so that conversion is part of every peer's mask time
(the extractor's own masks are bool vectors already, cached per automaton configuration).

Install with the `bench` extra: `pip install -e .[bench]` (xgrammar's torch/triton requirements are only
needed for its GPU kernels; the CPU path used here works with the CPU build of torch).
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.limits import Timeout

PACKAGES = {"llguidance": "llguidance", "xgrammar": "xgrammar", "outlines": "outlines_core"}


def _require(engine: str) -> Any:
    """Import the peer's package, or fail with the install hint."""
    import importlib

    module = PACKAGES[engine]
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"engine {engine!r} needs the {module.replace('_', '-')} package: "
            f"pip install -e '.[bench]' (the `bench` extra of pyproject.toml)") from exc


def _unpack(words: np.ndarray, size: int) -> np.ndarray:
    """A packed bitmask (int32 words, bit i of word w = token 32*w + i) -> bool vector of `size` ids."""
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")
    if len(bits) < size:  # a peer vocabulary narrower than ours: the extra ids are never allowed
        bits = np.concatenate([bits, np.zeros(size - len(bits), dtype=np.uint8)])
    return bits[:size].view(bool)


def _words(size: int) -> int:
    return (size + 31) // 32


_KEYWORD_PATTERNS = (
    r"[Uu]nimplemented keys?:?\s*\[?\s*[\"']?([$\w-]+)",  # llguidance: Unimplemented keys: ["not"]
    r"[Uu]nknown format|[Ff]ormat \S+ is not supported|unsupported format",  # -> format
    r"[\"'`]?([$\w-]+)[\"'`]? (?:is|are) not (?:yet )?supported",
    r"[Uu]nsupported (?:keyword|key|type)s?:?\s*[\"'`]?([$\w-]+)",
    r"([\w/]+) only supported when",  # llguidance: min/maxProperties only supported when all keys ... required
    r"(?:Integer|integer) exceeds .*precision loss",  # xgrammar: an integer bound beyond 64 bits -> below
    r"vocabulary provided is incompatible with the regex",  # outlines-core: no token path through the regex
)
_FIXED = {5: "integer bound beyond 64 bits", 6: "regex the vocabulary cannot spell"}
_IGNORED = {"description", "title", "$comment", "examples", "default", "$schema", "$id"}


def _keyword(message: str) -> str | None:
    """The refused keyword named in a peer's error message, when there is one."""
    structure = re.search(r"[Uu]nsupported JSON Schema structure (.*?)\s*(?:Make sure|$)", message, re.S)
    if structure:  # outlines-core quotes the whole subschema
        try:
            sub = json.loads(structure[1])
        except ValueError:
            return "structure"
        if isinstance(sub, dict):
            keys = [k for k in sub if k not in _IGNORED]
            return keys[0] if keys else "structure"
        return f"{json.dumps(sub)} schema"
    for index, pattern in enumerate(_KEYWORD_PATTERNS):
        match = re.search(pattern, message)
        if match:
            return match[1] if match.groups() and match[1] else _FIXED.get(index, "format")
    return None


def _classify(exc: Exception) -> tuple[str, str]:
    """Shared classification: "unsupported" with the keyword when the message names a missing feature,
    "error" for a crash, else "invalid" (the peer's refusal, schema errors included)."""
    message = f"{exc}".strip() or type(exc).__name__
    if isinstance(exc, ProbeCrash):
        return "error", message
    lowered = message.lower()
    if any(word in lowered for word in _UNSUPPORTED_WORDS):
        return "unsupported", _keyword(message) or message.splitlines()[0][:120]
    return "invalid", f"{type(exc).__name__}: {message}"


_UNSUPPORTED_WORDS = ("unimplemented", "not supported", "unsupported", "not implemented", "unknown format",
                      "not yet supported", "only supported when", "precision loss", "incompatible with the regex")


class CompileError(Exception):
    """A peer refused the schema (its message says why)."""


class ProbeCrash(CompileError):
    """The probe process compiling the schema died of a signal (a native crash, or its memory cap)."""


def probe(compile_fn: Any, schema: Any, seconds: float, memory_gib: float = 8.0) -> None:
    """Compile once in a forked child killed after `seconds`: a hard limit for native compilers.

    The harness's SIGALRM limit is only seen once a native call returns, and xgrammar's and outlines-core's
    compilers can run for minutes (or exhaust memory) on some schemas. The harness calls this (as the
    engine's `precheck`) before the timed compile: `Timeout` when the child does not finish in time,
    `ProbeCrash` when it dies of a signal (a crash, or the child's address-space cap of current + `memory_gib`);
    nothing when it finishes, refusals included (the timed compile in this process then repeats it).
    """
    if not seconds or seconds <= 0:
        return
    pid = os.fork()
    if pid == 0:  # the child: no alarm, a memory cap, and never back into the caller
        code = 1
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
            with open("/proc/self/statm") as statm:
                current = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            cap = current + int(memory_gib * 2**30)
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
            compile_fn(schema)
            code = 0
        except BaseException:  # noqa: BLE001 - a refusal: the parent's own compile reports it
            code = 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + seconds
    done, status = 0, 0
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() >= deadline:
                raise Timeout(f"time limit of {seconds:g} s exceeded (compile killed)")
            time.sleep(0.005)
    finally:
        if not done:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        raise ProbeCrash(f"compile crashed in a probe process (signal {os.WTERMSIG(status)}; "
                           f"memory cap {memory_gib:g} GiB)")


# --- llguidance ------------------------------------------------------------------------------------

class LlguidanceMatcher:
    def __init__(self, matcher: Any, size: int, words: int) -> None:
        self.m = matcher
        self.size = size
        self.words = np.zeros(words, dtype=np.int32)

    def mask(self) -> np.ndarray:
        # the packed mask is computed straight into our buffer; the unpack to bool is included in the timing
        self.m.unsafe_compute_mask_ptr(self.words.ctypes.data, self.words.nbytes)
        return _unpack(self.words, self.size)

    def advance(self, token: int) -> None:
        if not self.m.consume_token(token):
            raise ValueError(self.m.get_error() or f"token {token} refused")

    def accepting(self) -> bool:
        return bool(self.m.is_accepting())


class LlguidanceEngine:
    """llguidance `LLMatcher` over the tokenizer.json; JSON compiled with whitespace_flexible=False and
    "," / ":" separators (compact), otherwise llguidance's defaults (unknown keywords are errors)."""

    name = "llguidance"
    options = {"whitespace_flexible": False, "item_separator": ",", "key_separator": ":"}

    def __init__(self, tokenizer: str | Path, vocab: Any) -> None:
        self.llg = _require("llguidance")
        self.vocab = vocab
        self.size = len(vocab.tokens)
        self.eos_ids = sorted(vocab.eos_ids)
        self.tokenizer = self.llg.LLTokenizer(str(tokenizer), n_vocab=None, eos_token=self.eos_ids)
        self.matcher(self.compile({"type": "null"})).mask()  # warm-up outside any timing

    def compile(self, schema: Any) -> Any:
        grammar = self.llg.LLMatcher.grammar_from_json_schema(
            json.dumps(schema, ensure_ascii=False), overrides=self.options)  # type: ignore[arg-type]
        matcher = self.llg.LLMatcher(self.tokenizer, grammar, log_level=0)
        if matcher.is_error():
            raise CompileError(matcher.get_error())
        return matcher

    def matcher(self, handle: Any) -> LlguidanceMatcher:
        return LlguidanceMatcher(handle.deep_copy(), self.size, _words(self.tokenizer.vocab_size))

    def classify(self, exc: Exception) -> tuple[str, str]:
        return _classify(exc)


# --- xgrammar --------------------------------------------------------------------------------------

class XgrammarMatcher:
    def __init__(self, matcher: Any, size: int, words: int) -> None:
        import torch

        self.m = matcher
        self.size = size
        self.bitmask = torch.zeros((1, words), dtype=torch.int32)  # xgrammar fills torch/DLPack arrays
        self.words = self.bitmask.numpy()[0]  # a view of the same memory

    def mask(self) -> np.ndarray:
        self.m.fill_next_token_bitmask(self.bitmask)  # the unpack to bool below is included in the timing
        return _unpack(self.words, self.size)

    def advance(self, token: int) -> None:
        if not self.m.accept_token(token):
            raise ValueError(f"token {token} refused")

    def accepting(self) -> bool:
        return bool(self.m.is_completed())


class XgrammarEngine:
    """xgrammar `GrammarCompiler.compile_json_schema(any_whitespace=False, separators=(",", ":"),
    strict_mode=False)`: compact JSON; strict_mode off so undeclared properties/items follow JSON Schema
    (additionalProperties defaults to true), as the other engines do. No compile cache (each schema is
    compiled once anyway; the cache would only merge identical schemas)."""

    name = "xgrammar"
    options: dict[str, Any] = {"any_whitespace": False, "separators": (",", ":"), "strict_mode": False}

    def __init__(self, tokenizer: str | Path, vocab: Any) -> None:
        self.xgr = _require("xgrammar")
        from transformers import AutoTokenizer, PreTrainedTokenizerFast

        self.vocab = vocab
        self.size = len(vocab.tokens)
        self.eos_ids = sorted(vocab.eos_ids)
        path = Path(tokenizer)
        if path.with_name("tokenizer_config.json").is_file():  # special tokens and EOS as configured
            hf = AutoTokenizer.from_pretrained(str(path.parent))
        else:
            hf = PreTrainedTokenizerFast(tokenizer_file=str(path))
        self.info = self.xgr.TokenizerInfo.from_huggingface(hf, vocab_size=self.size, stop_token_ids=self.eos_ids)
        self.compiler = self.xgr.GrammarCompiler(self.info, cache_enabled=False)
        self.words = _words(self.info.vocab_size)
        self.matcher(self.compile({"type": "null"})).mask()  # warm-up outside any timing

    def compile(self, schema: Any) -> Any:
        return self.compiler.compile_json_schema(json.dumps(schema, ensure_ascii=False), **self.options)

    def precheck(self, schema: Any, seconds: float) -> None:
        def compile_alone(schema: Any) -> Any:  # a fresh compiler (same settings): its own threads, none inherited
            compiler = self.xgr.GrammarCompiler(self.info, cache_enabled=False)
            return compiler.compile_json_schema(json.dumps(schema, ensure_ascii=False), **self.options)

        probe(compile_alone, schema, seconds)

    def matcher(self, handle: Any) -> XgrammarMatcher:
        return XgrammarMatcher(self.xgr.GrammarMatcher(handle, override_stop_tokens=self.eos_ids), self.size,
                               self.words)

    def classify(self, exc: Exception) -> tuple[str, str]:
        return _classify(exc)


# --- outlines-core ---------------------------------------------------------------------------------

class OutlinesMatcher:
    def __init__(self, guide: Any, size: int) -> None:
        self.g = guide
        self.size = size
        self.words = np.zeros(_words(size), dtype=np.int32)

    def mask(self) -> np.ndarray:
        # write_mask_into fills the packed mask (EOS set in final states); the unpack is included in the timing
        self.g.write_mask_into(self.words.ctypes.data, self.words.size, 4)
        return _unpack(self.words, self.size)

    def advance(self, token: int) -> None:
        try:
            self.g.advance(token, return_tokens=False)
        except Exception as exc:  # noqa: BLE001 - outlines raises its own error types for refused tokens
            raise ValueError(f"token {token} refused: {exc}") from None

    def accepting(self) -> bool:
        return bool(self.g.is_finished())


class OutlinesEngine:
    """outlines-core: `json_schema.build_regex_from_schema(schema, whitespace_pattern="")` (compact JSON),
    then an `Index` (the regex's DFA over the vocabulary) per schema and a `Guide` per generation.
    The `Vocabulary` is built from the shared extractor vocabulary's token bytes (special tokens, which
    never stand for text, left out), EOS being the tokenizer's."""

    name = "outlines"

    def __init__(self, tokenizer: str | Path, vocab: Any) -> None:
        self.oc = _require("outlines")
        self.size = len(vocab.tokens)
        self.eos_ids = sorted(vocab.eos_ids)
        ids: dict[bytes, list[int]] = {}
        for token_id, data in enumerate(vocab.tokens):
            if data and token_id not in vocab.eos_ids:
                ids.setdefault(data, []).append(token_id)
        self.vocabulary = self.oc.Vocabulary(self.eos_ids[0], ids)
        self.matcher(self.compile({"type": "null"})).mask()  # warm-up outside any timing

    def compile(self, schema: Any) -> Any:
        regex = self.oc.json_schema.build_regex_from_schema(json.dumps(schema, ensure_ascii=False),
                                                            whitespace_pattern="")
        return self.oc.Index(regex, self.vocabulary)

    def precheck(self, schema: Any, seconds: float) -> None:
        probe(self.compile, schema, seconds)

    def matcher(self, handle: Any) -> OutlinesMatcher:
        return OutlinesMatcher(self.oc.Guide(handle), self.size)

    def classify(self, exc: Exception) -> tuple[str, str]:
        return _classify(exc)


PEERS = {"llguidance": LlguidanceEngine, "xgrammar": XgrammarEngine, "outlines": OutlinesEngine}
