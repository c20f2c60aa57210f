"""A request's schema as vLLM hands it over (JSON text, key order kept), with extractor's own options riding
in one vendor key at its root, so a plain OpenAI-style request can ask for the refusal branch or a layout."""

from __future__ import annotations

import json
import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from extractor.decode.fresh import repeatable_arrays
from extractor.decode.guards import Guards
from extractor.masks.compiler import (
    check_choices, compile_choices, compile_ebnf, compile_regex, compile_schema, compile_structural_tag,
)
from extractor.grammar import CompileOptions, Layout
from extractor.grammar.ebnf import parse_ebnf
from extractor.grammar.tags import read_structural_tag
from extractor.lang.pattern import compile_whole
from extractor.masks import CompiledGrammar
from extractor.masks.finish import prepare_ways
from extractor.pipeline.calibration import MAX_UNFOUNDED, MIN_RELEVANCE
from extractor.schema import Refusal, target_ir
from extractor.tokens import Vocabulary

OPTIONS_KEY = "x-extractor"
"""Root key of a schema holding extractor's options: {"refusal": bool, "layout": "pretty" | "compact" | ...,
"guards": bool}, and for the server's refusal decision (server.py) "min_relevance" and "max_unfounded" (numbers or
null) and "require_values" (bool), as in `ExtractOptions`."""

SERVED_LAYOUT = "compact"
"""A served request's whitespace when it names none: what clients of vLLM's other backends get (no newlines
to strip); `VLLMExtractor` asks for its own layout, as `extract` does."""

TAG_LAYOUT = "spaced"
"""The whitespace of a structural tag's JSON contents: `{"a": 1, "b": [1, 2]}`, as the tool-call envelopes vLLM
builds write theirs (`{"name": "get_weather", "arguments": `), so a call's arguments read like its envelope."""

_OPTION_NAMES = ("refusal", "layout", "guards", "min_relevance", "max_unfounded", "require_values")
"""The keys `OPTIONS_KEY` takes, each a keyword of `with_options` and a field of `Spec` (docs/vllm.md lists them)."""


@dataclass(frozen=True)
class Spec:
    """What to compile: the schema, whether the refusal model is offered beside it, the layout, and whether
    `Guards` (the loop stoppers `extract` uses, on by default) narrow each mask."""

    schema: dict[str, Any] | bool
    refusal: bool = False
    layout: str = SERVED_LAYOUT
    guards: bool = True
    choices: tuple[str, ...] | None = None
    """A `choice` request: the output is one of these strings, as written (no schema, no guards)."""
    regex: str | None = None
    """A `regex` request: the output is text the pattern matches whole (no schema, no guards)."""
    ebnf: str | None = None
    """A `grammar` request in GBNF: the output is a sentence of the grammar (no schema, no guards)."""
    tag: str | None = None
    """A `structural_tag` request (its JSON text): free text with tagged parts, tool calls among them (no guards;
    JSON contents in `TAG_LAYOUT`)."""
    min_relevance: float | None = MIN_RELEVANCE
    """With `refusal`, on the OpenAI server: the relevance screen's threshold (server.py); None: no screen."""
    max_unfounded: float | None = MAX_UNFOUNDED
    """With `refusal`, on the OpenAI server: the share of unfounded identifying values that refuses a doubtful
    answer (server.py); None: never."""
    require_values: bool = True
    """With `refusal`, on the OpenAI server: a message of low relevance writing no value of any kind the
    schema's fields ask for is refused before decoding (server.py, as `ExtractOptions.require_values`)."""

    @classmethod
    def parse(cls, kind: str, text: str | dict[str, Any] | None) -> Spec:
        """From vLLM's request type name ("JSON", "JSON_OBJECT", "CHOICE", "REGEX", "GRAMMAR", "STRUCTURAL_TAG")
        and its spec; ValueError says what is wrong."""
        if kind == "JSON_OBJECT":
            return cls({"type": "object"})
        if kind == "CHOICE":
            choices = _json(text) if isinstance(text, str) else text
            if not isinstance(choices, list):
                raise ValueError(f"a choice request is a non-empty list of strings, not {choices!r}")
            check_choices(choices)
            return cls(True, guards=False, choices=tuple(choices))
        if kind == "REGEX":
            if not isinstance(text, str):
                raise ValueError(f"a regex request is a pattern string, not {text!r}")
            return cls(True, guards=False, regex=text)
        if kind == "GRAMMAR":
            if not isinstance(text, str):
                raise ValueError(f"a grammar request is GBNF text, not {text!r}")
            return cls(True, guards=False, ebnf=text)
        if kind == "STRUCTURAL_TAG":
            if not isinstance(text, str):
                raise ValueError(f"a structural tag request is JSON text, not {text!r}")
            return cls(True, layout=TAG_LAYOUT, guards=False, tag=text)
        if kind != "JSON":
            raise ValueError(f"the extractor backend compiles JSON Schemas (response_format json_schema or "
                             f"json_object), choice lists, regular expressions, GBNF grammars and structural tags; "
                             f"{kind.lower()} requests need one of vLLM's own backends")
        schema = _json(text) if isinstance(text, str) else text
        if not isinstance(schema, (dict, bool)):
            raise ValueError(f"a JSON Schema is an object or a boolean, not {type(schema).__name__}")
        options = _options(schema.get(OPTIONS_KEY, {}) if isinstance(schema, dict) else {})
        if isinstance(schema, dict):
            schema = {k: v for k, v in schema.items() if k != OPTIONS_KEY}
        return cls(schema, **options)

    def served_guards(self) -> Guards | None:
        """The guards a request's output is held to: the defaults, wrapping up once the plugin sets the budget, and
        the schema's `uniqueItems: false` arrays free to repeat items (None where the request turns guards off)."""
        if not self.guards:
            return None
        return Guards(wrap_up=True, repeatable=repeatable_arrays(self.schema) if isinstance(self.schema, dict)
                      else frozenset())

    def check(self) -> None:
        """Refuse, cheaply, what the compiler would refuse (unsupported keywords, bad references)."""
        if self.regex is not None:
            compile_whole(self.regex)  # a PatternError (a ValueError) names what is refused
        if self.ebnf is not None:
            parse_ebnf(self.ebnf)  # a GrammarSyntaxError (a ValueError) says what and where
        if self.tag is not None:  # a StructuralTagError (a ValueError) names the form and its pointer
            read_structural_tag(self.tag, CompileOptions(layout=self.layout))
        if self.choices is not None or self.regex is not None or self.ebnf is not None or self.tag is not None:
            return
        target_ir(self.schema, Refusal if self.refusal else None)

    def compile(self, vocab: Vocabulary) -> CompiledGrammar:
        if self.choices is not None:
            return compile_choices(self.choices, vocab)
        if self.regex is not None:
            return compile_regex(self.regex, vocab)
        if self.ebnf is not None:
            return compile_ebnf(self.ebnf, vocab)
        if self.tag is not None:
            return compile_structural_tag(self.tag, vocab, CompileOptions(layout=self.layout))
        return compile_schema(self.schema, vocab, refusal=Refusal if self.refusal else None,
                              options=CompileOptions(layout=self.layout))


def _json(text: str) -> Any:
    """A request's JSON; ValueError where it is not JSON or nests past what json's parser recurses through."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("the request nests too deeply to be read") from None


def with_options(schema: dict[str, Any], *, refusal: bool = False, layout: str = SERVED_LAYOUT,
                 guards: bool = True, min_relevance: float | None = MIN_RELEVANCE,
                 max_unfounded: float | None = MAX_UNFOUNDED, require_values: bool = True) -> dict[str, Any]:
    """The schema with extractor's options in it, for a request to a server running the extractor backend;
    ValueError names an option the server would refuse."""
    options = {"refusal": refusal, "layout": layout, "guards": guards, "min_relevance": min_relevance,
               "max_unfounded": max_unfounded, "require_values": require_values}
    _options(options)
    return {**schema, OPTIONS_KEY: options}


def _options(options: Any) -> dict[str, Any]:
    """The options of `OPTIONS_KEY`, each checked (the defaults where absent); ValueError names the one refused."""
    if not isinstance(options, dict) or set(options) - set(_OPTION_NAMES):
        raise ValueError(f"{OPTIONS_KEY!r} takes an object with keys {list(_OPTION_NAMES)}, not {options!r}")
    out = {"refusal": options.get("refusal", False), "layout": options.get("layout", SERVED_LAYOUT),
           "guards": options.get("guards", True), "min_relevance": options.get("min_relevance", MIN_RELEVANCE),
           "max_unfounded": options.get("max_unfounded", MAX_UNFOUNDED),
           "require_values": options.get("require_values", True)}
    for name in ("refusal", "guards", "require_values"):
        if not isinstance(out[name], bool):
            raise ValueError(f"{OPTIONS_KEY}.{name} takes true or false, not {out[name]!r}")
    if not isinstance(out["layout"], str):
        raise ValueError(f"{OPTIONS_KEY}.layout takes a layout's name, not {out['layout']!r}")
    Layout.named(out["layout"])  # an unknown name fails here, with the names it could have been
    low, share = out["min_relevance"], out["max_unfounded"]
    if low is not None and (isinstance(low, bool) or not isinstance(low, (int, float)) or not math.isfinite(low)):
        raise ValueError(f"{OPTIONS_KEY}.min_relevance takes a finite number or null, not {low!r}")
    if share is not None and (isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1):
        raise ValueError(f"{OPTIONS_KEY}.max_unfounded takes a number in (0, 1] or null, not {share!r}")
    return out


PREPARE_ENV = "EXTRACTOR_VLLM_PREPARE_MS"
"""Milliseconds a compile may spend preparing its first steps, three times over: building the grammar's token
tables, numbering configurations with their rows, and (with guards) the rules' shortest ways out that the wrap-up
guard reads (default 50; 0 prepares nothing). vLLM holds a request until its
grammar is compiled, so this is added to the first request of a new schema's time to first token, and taken
off its steps (and its batch's) later."""
PREPARE_MS = 50
EXPLORE_STATES = 512
"""Configurations a compile numbers ahead, breadth first from the start, with their rows (6 KB each for a
49k-token vocabulary)."""


def prepare_seconds() -> float:
    """The preparation budget from the environment (`PREPARE_ENV`), in seconds."""
    text = os.environ.get(PREPARE_ENV, "").strip()
    try:
        ms = float(text) if text else PREPARE_MS
    except ValueError:
        raise ValueError(f"{PREPARE_ENV} takes milliseconds (a number, 0 to prepare nothing), not {text!r}") from None
    if not ms >= 0:
        raise ValueError(f"{PREPARE_ENV} takes milliseconds (a number, 0 to prepare nothing), not {text!r}")
    return ms / 1e3


CACHE_BYTES = 2 << 30
"""Bytes the cached grammars' own caches (masks, rows, walks) may hold together, checked as each compile is
added: the least recently used grammars go first (the shared token tables are bounded on their own)."""


class GrammarCache:
    """Compiled grammars by spec text, shared by the requests of one engine (vLLM compiles from a thread pool)."""

    def __init__(self, vocab: Vocabulary, capacity: int = 1024, prepare: float | None = None,
                 max_bytes: int = CACHE_BYTES) -> None:
        self.vocab = vocab
        self.capacity = capacity
        self.max_bytes = max_bytes
        self.prepare = prepare_seconds() if prepare is None else prepare
        """Seconds each compile spends on tables, then as many on configurations and rows (see PREPARE_ENV)."""
        self.items: OrderedDict[tuple[str, str], tuple[CompiledGrammar, Spec]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, kind: str, text: str) -> tuple[CompiledGrammar, Spec]:
        """The request's grammar and the options it came with."""
        key = (kind, text)
        with self.lock:
            hit = self.items.get(key)
            if hit is not None:
                self.items.move_to_end(key)
                return hit
        spec = Spec.parse(kind, text)
        grammar = spec.compile(self.vocab), spec  # outside the lock: compiles run side by side
        grammar[0].bitmask(grammar[0].start)  # every request's first mask, made here in the compile thread
        if self.prepare > 0:
            grammar[0].prepare(self.prepare)  # the tables its first masks read
            grammar[0].states().explore(self.prepare, EXPLORE_STATES)  # and the first configurations' rows
            if spec.guards:  # the rules' shortest ways out, which the wrap-up guard reads near a request's budget
                prepare_ways(grammar[0].automaton, self.prepare)
        with self.lock:
            self.items[key] = grammar
            held = sum(g.held_bytes() for g, _ in self.items.values())
            while len(self.items) > 1 and (len(self.items) > self.capacity or held > self.max_bytes):
                held -= self.items.popitem(last=False)[1][0].held_bytes()  # least recently used first
        return grammar
