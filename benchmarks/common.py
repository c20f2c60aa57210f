"""Shared pieces of the correctness benchmarks (maskbench.py, jsts.py) and tests/test_compliance.py.

- `Engine`: the small protocol a constrained-decoding engine implements to be benchmarked
  (`name`, `compile(schema) -> handle`, `matcher(handle)` with mask/advance/accepting, `classify`).
  `extractor` is here; the peers (llguidance, xgrammar, outlines-core) are in peers.py, loaded on use.
- `time_limit`, `Timeout`: a per-call wall-clock limit (SIGALRM), from limits.py (re-exported here).
- `compact`: the serialization every engine is checked on (compact JSON, UTF-8).
- `Reorderer`: rewrites an instance so that object keys follow `properties` order, walking the
  instance alongside its schema; used to tell "rejected only for key order" apart from real rejects.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmarks.limits import Timeout, time_limit  # noqa: F401 (re-exported: maskbench.py, jsts.py, compile_profile.py)
from extractor.automata import Automaton, accepts
from tests.data import maskbench_data, tokenizer_file

REPO = Path(__file__).resolve().parents[1]
MASKBENCH_DATA = maskbench_data()
LLAMA3 = tokenizer_file("llama3")


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Suppress warnings (SchemaWarning for unknown keywords/formats) while compiling a corpus."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# --- serialization -----------------------------------------------------------------------------

def compact_text(data: Any) -> str:
    """Compact JSON as the generation policy writes it; \\u-escapes only where UTF-8 cannot carry it."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate: only an escape can express it
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    return text


def compact(data: Any) -> bytes:
    return compact_text(data).encode()


@functools.lru_cache(maxsize=1)
def commit() -> str:
    """The commit a run started on (read once, when this module is imported: a commit made while a long run goes
    on is not what it ran), `+dirty` when the library, schemas or benchmarks had uncommitted changes (result
    files aside: another run's output does not change what this one ran)."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "extractor", "schemas", "benchmarks",
                                ":!benchmarks/results"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+dirty" if dirty else "")


commit()  # the run's start


def write_results(result: dict[str, Any], table: str, json_path: Path | None, md_path: Path | None) -> None:
    """Write the JSON (with the commit it ran on, unless it says so already) and Markdown results where
    asked, and print the table."""
    result = result if "commit" in result else {"commit": commit(), **result}
    for path, text in ((json_path, json.dumps(result, indent=1, ensure_ascii=False) + "\n"), (md_path, table)):
        if path:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    print(table)


def percentiles(values: list[float], keys: dict[str, float]) -> dict[str, float | None]:
    """{"p50": 50, ...} -> {"p50": value}; "avg" and "max" are understood too. None when empty."""
    if not values:
        return {k: None for k in keys}
    arr = np.asarray(values, dtype=np.float64)
    out: dict[str, float | None] = {}
    for name, q in keys.items():
        if name == "avg":
            out[name] = round(float(arr.mean()), 3)
        elif name == "max":
            out[name] = round(float(arr.max()), 3)
        else:
            out[name] = round(float(np.percentile(arr, q)), 3)
    return out


# --- key re-ordering -----------------------------------------------------------------------------

_COMBINERS = ("$ref", "allOf", "anyOf", "oneOf")
Conj = list[list[dict[str, Any]]]
"""Alternatives, each a list of subschemas that all apply."""


class Reorderer:
    """Instances re-ordered so object keys follow `properties` order, undeclared keys after.

    The instance is walked alongside its schema through `properties`, `patternProperties`,
    `additionalProperties`, `items` (draft-4 tuple form and `additionalItems` too), `prefixItems`,
    local `$ref` (`#` and `#/...` pointers) and `allOf` (their `properties` after the schema's own, or
    before them); every `anyOf`/`oneOf` branch gives its own candidate. An object or array equal to a
    `const`/`enum` value up to key order also gets that value's order (generation writes literals as the
    schema spells them). At most `limit` distinct candidates come back, the first for the first branches.
    """

    def __init__(self, root: Any, limit: int = 16) -> None:
        self.root = root
        self.limit = limit
        # (id, base_last) -> (schema, conjunctions): holding the schema keeps its id from being reused
        self._conj: dict[tuple[int, bool], tuple[Any, Conj]] = {}
        self._busy: set[tuple[int, bool]] = set()

    def candidates(self, value: Any, schema: Any = None) -> list[Any]:
        """Distinct re-orderings of `value` under `schema` (the root by default), original order excluded."""
        schema = self.root if schema is None else schema
        original = compact_text(value)
        out, seen = [], {original}
        for cand in self._values(value, schema):
            key = compact_text(cand)
            if key not in seen:
                seen.add(key)
                out.append(cand)
        return out

    def _values(self, value: Any, schema: Any) -> list[Any]:
        if not isinstance(value, (dict, list)):
            return [value]
        out, seen = [], set()
        for conj in [*self.conjunctions(schema), *self.conjunctions(schema, base_last=True)]:
            for cand in [*_literals(value, conj), *self._under(value, conj)]:
                key = compact_text(cand)
                if key not in seen:
                    seen.add(key)
                    out.append(cand)
                    if len(out) >= self.limit:
                        return out
        return out or [value]

    def _under(self, value: Any, conj: list[dict[str, Any]]) -> Iterator[Any]:
        if isinstance(value, dict):
            order: list[str] = []
            for part in conj:
                props = part.get("properties")
                if isinstance(props, dict):
                    order += [k for k in props if k not in order]
            declared = set(order)
            keys = [k for k in order if k in value] + [k for k in value if k not in declared]
            options = [self._values(value[k], _all_of(self._member(conj, k))) for k in keys]
            for combo in itertools.islice(itertools.product(*options), self.limit):
                yield dict(zip(keys, combo))
        else:
            options = [self._values(item, _all_of(self._element(conj, i))) for i, item in enumerate(value)]
            for combo in itertools.islice(itertools.product(*options), self.limit):
                yield list(combo)

    @staticmethod
    def _member(conj: list[dict[str, Any]], key: str) -> list[Any]:
        subs: list[Any] = []
        for part in conj:
            props = part.get("properties") if isinstance(part.get("properties"), dict) else {}
            if key in props:
                subs.append(props[key])
                continue
            matched = False
            patterns = part.get("patternProperties")
            if isinstance(patterns, dict):
                for pattern, sub in patterns.items():
                    with contextlib.suppress(re.error, TypeError):
                        if re.search(pattern, key):
                            subs.append(sub)
                            matched = True
            if not matched and isinstance(part.get("additionalProperties"), dict):
                subs.append(part["additionalProperties"])
        return subs

    @staticmethod
    def _element(conj: list[dict[str, Any]], index: int) -> list[Any]:
        subs: list[Any] = []
        for part in conj:
            prefix, items = part.get("prefixItems"), part.get("items")
            if isinstance(items, list):  # draft-4 tuple form
                prefix, items = items, part.get("additionalItems")
            if isinstance(prefix, list) and index < len(prefix):
                subs.append(prefix[index])
            elif isinstance(items, dict):
                subs.append(items)
        return subs

    def conjunctions(self, schema: Any, base_last: bool = False) -> Conj:
        """The schema as alternatives, each a list of plain subschemas that all apply (refs and allOf inlined).

        A schema's own keywords come before those of its `$ref` and `allOf` parts, or after them with
        `base_last` (the two orders a compiler may merge `properties` in)."""
        if not isinstance(schema, dict):
            return [[]]
        key = (id(schema), base_last)
        if key in self._conj:
            return self._conj[key][1]
        if key in self._busy:  # a $ref cycle that reads no value: contributes nothing more
            return [[]]
        self._busy.add(key)
        try:
            base: Conj = [[{k: v for k, v in schema.items() if k not in _COMBINERS}]]
            out: Conj = [[]] if base_last else base
            ref = schema.get("$ref")
            if isinstance(ref, str):
                target = self.resolve(ref)
                if target is not None:
                    out = self._product(out, self.conjunctions(target, base_last))
            if isinstance(schema.get("allOf"), list):
                for branch in schema["allOf"]:
                    out = self._product(out, self.conjunctions(branch, base_last))
            if base_last:
                out = self._product(out, base)
            for word in ("anyOf", "oneOf"):
                if isinstance(schema.get(word), list) and schema[word]:
                    alts = [c for branch in schema[word] for c in self.conjunctions(branch, base_last)]
                    out = self._product(out, alts[: self.limit])
        finally:
            self._busy.discard(key)
        self._conj[key] = (schema, out)
        return out

    def _product(self, left: Conj, right: Conj) -> Conj:
        return [a + b for a, b in itertools.islice(itertools.product(left, right), self.limit)]

    def resolve(self, ref: str) -> Any:
        """A local `#` / `#/json/pointer` reference into the root; None for anything else."""
        if not ref.startswith("#"):
            return None
        node = self.root
        pointer = ref[1:]
        if not pointer:
            return node
        if not pointer.startswith("/"):
            return None  # an anchor: not followed
        from urllib.parse import unquote
        for token in pointer[1:].split("/"):
            token = unquote(token).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node


def _literals(value: Any, conj: list[dict[str, Any]]) -> list[Any]:
    """`const`/`enum` values equal to `value` up to key order: the order generation writes them in."""
    out = []
    for part in conj:
        options = [part["const"]] if "const" in part else []
        options += part["enum"] if isinstance(part.get("enum"), list) else []
        out += [lit for lit in options if _same(value, lit)]
    return out


def _same(a: Any, b: Any) -> bool:
    """Deep equality ignoring key order only: no 1 == True == 1.0 across JSON types or spellings."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def shown(path: Path | str) -> str:
    """A path as recorded in results: relative to the repository root when it lies beside it."""
    path = Path(path).resolve()
    try:
        return os.path.relpath(path, REPO) if path.is_relative_to(REPO.parent) else str(path)
    except ValueError:
        return str(path)


def _all_of(subs: list[Any]) -> Any:
    if not subs:
        return True
    return subs[0] if len(subs) == 1 else {"allOf": subs}


# --- engines -----------------------------------------------------------------------------------

class Matcher(Protocol):
    def mask(self) -> np.ndarray:
        """Bool vector over token ids: the tokens allowed next (EOS only where the value may end)."""

    def advance(self, token: int) -> None:
        """Consume one token; ValueError when it is forbidden."""

    def accepting(self) -> bool:
        """True when the output so far is a complete value."""


class Engine(Protocol):
    """What a constrained-decoding engine implements to be benchmarked here.

    Constructed as `ENGINES[name](tokenizer_path, vocab)`, `vocab` being the extractor Vocabulary of the
    same file (token bytes and EOS ids, shared by every engine so instances are tokenized once)."""

    name: str
    eos_ids: list[int]

    def compile(self, schema: Any) -> Any:
        """A compiled handle for one JSON Schema; raises on unsupported/invalid schemas."""

    def matcher(self, handle: Any) -> Matcher:
        """A fresh matcher at the start of a value."""

    def classify(self, exc: Exception) -> tuple[str, str]:
        """("unsupported", keyword) | ("invalid", message) | ("error", message) for a compile exception."""


class ExtractorEngine:
    """This project's engine: compile_schema(refusal=None, strict_objects=False)."""

    name = "extractor"

    def __init__(self, tokenizer: str | Path, vocab: Any = None) -> None:
        from extractor.schema import NormalizeOptions
        from extractor.tokens import Vocabulary

        from extractor.masks import TableCache

        self.vocab = vocab if vocab is not None else Vocabulary.from_tokenizer_file(tokenizer)
        self.eos_ids = sorted(self.vocab.eos_ids)
        self.options = NormalizeOptions(strict_objects=False)
        self.tables = TableCache()  # in memory only: every table is paid for in this run, as the peers pay
        self.matcher(self.compile({"type": "null"})).mask()  # builds the token trie once, outside any timing

    def compile(self, schema: Any) -> Any:
        """The compiled grammar; a schema no value satisfies is an engine that rejects everything."""
        from extractor import UnsatisfiableSchemaError, compile_schema

        try:
            grammar = compile_schema(schema, self.vocab, refusal=None, normalize=self.options)
        except UnsatisfiableSchemaError:
            return None
        grammar.tables = self.tables
        return grammar

    def matcher(self, handle: Any) -> Matcher:
        return handle.matcher() if handle is not None else _Empty(self.vocab.size)

    def peak_kib(self, schema: Any) -> float:
        """Peak traced allocation of a compile and its first mask, tables computed afresh (KiB)."""
        import tracemalloc

        from extractor.masks import TableCache

        saved, self.tables = self.tables, TableCache()
        tracemalloc.start()
        try:
            self.matcher(self.compile(schema)).mask()
            return tracemalloc.get_traced_memory()[1] / 1024
        finally:
            tracemalloc.stop()
            self.tables = saved

    def classify(self, exc: Exception) -> tuple[str, str]:
        from extractor.errors import ExtractorError, InvalidSchemaError, UnsupportedSchemaError

        if isinstance(exc, UnsupportedSchemaError):
            return "unsupported", exc.keyword
        if isinstance(exc, InvalidSchemaError):
            return "invalid", str(exc)
        if isinstance(exc, ExtractorError):
            return "invalid", f"{type(exc).__name__}: {exc}"
        return "error", f"{type(exc).__name__}: {exc}"


class _Empty:
    """The matcher of an empty language: nothing allowed, never accepting."""

    def __init__(self, size: int) -> None:
        self.size = size

    def mask(self) -> np.ndarray:
        return np.zeros(self.size, dtype=bool)

    def advance(self, token: int) -> None:
        raise ValueError("the schema admits no value")

    def accepting(self) -> bool:
        return False


def _peer(name: str) -> Any:
    """A constructor importing benchmarks/peers.py (and the peer's package) only when the engine is selected."""

    def construct(tokenizer: str | Path, vocab: Any) -> Any:
        from benchmarks.peers import PEERS

        return PEERS[name](tokenizer, vocab)

    return construct


class LetterEngine(ExtractorEngine):
    """The engine reading schemas to the letter of JSON Schema: no implied types either (a subschema without
    `type` admits every other type), as a validator does; for sets whose valid instances include such values."""

    name = "extractor-letter"

    def __init__(self, tokenizer: str | Path, vocab: Any = None) -> None:
        from extractor.schema import NormalizeOptions

        super().__init__(tokenizer, vocab)
        self.options = NormalizeOptions(strict_objects=False, implied_types=False)


ENGINES: dict[str, Any] = {"extractor": ExtractorEngine, "extractor-letter": LetterEngine,
                           **{name: _peer(name) for name in ("llguidance", "xgrammar", "outlines")}}
"""Engine name -> constructor `(tokenizer_path, vocab)`. The peers live in benchmarks/peers.py (`bench` extra)."""


def accepted_order(auto: Automaton, value: Any, budget: int = 20_000) -> str | None:
    """The value written with its objects' keys in an order the automaton accepts, or None: a depth-first
    search over key orders, each branch cut as soon as the automaton refuses a byte (at most `budget` nodes)."""
    nodes = 0

    def feed(config: Any, text: str) -> Any:
        for byte in text.encode("utf-8", "surrogatepass"):
            config = auto.step(config, byte)
            if not config:
                return None
        return config

    def walk(config: Any, v: Any) -> Iterator[tuple[Any, Any]]:
        nonlocal nodes
        nodes += 1
        if config is None or nodes > budget:
            return
        if isinstance(v, dict):
            yield from members(feed(config, "{"), list(v.items()), {})
        elif isinstance(v, list):
            yield from items(feed(config, "["), v, [])
        elif (end := feed(config, compact_text(v))) is not None:
            yield end, v

    def members(config: Any, rest: list[tuple[str, Any]], done: dict[str, Any]) -> Iterator[tuple[Any, Any]]:
        if config is None:
            return
        if not rest:
            if (end := feed(config, "}")) is not None:
                yield end, done
            return
        for i, (k, v) in enumerate(rest):
            for after, w in walk(feed(config, ("," if done else "") + compact_text(k) + ":"), v):
                yield from members(after, rest[:i] + rest[i + 1:], {**done, k: w})

    def items(config: Any, rest: list[Any], done: list[Any]) -> Iterator[tuple[Any, Any]]:
        if config is None or not rest:
            end = None if config is None else feed(config, "]")
            yield from [] if end is None else [(end, done)]
            return
        for after, w in walk(feed(config, "," if done else ""), rest[0]):
            yield from items(after, rest[1:], [*done, w])

    try:
        texts = (compact_text(found) for end, found in walk(auto.start(), value) if auto.accepting(end))
        return next((text for text in texts if accepts(auto, text.encode("utf-8", "surrogatepass"))), None)
    finally:  # the closures call each other through their cells: cycles left for the collector to find, inside
        del feed, walk, members, items  # some engine's timed call, unless emptied here
