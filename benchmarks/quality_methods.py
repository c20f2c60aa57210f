"""The methods benchmarks/quality.py compares, each run on one document: the same model, the same prompt
(`Extractor`'s default), greedy, the same token budget.

- `prompt_retry`: free generation; the first JSON object in the reply is parsed and validated, and up to 3
  retries see the errors (what users do without constrained decoding);
- `constrained`: the grammar alone: compact layout, no jump-forward, no guards, no relevance screen (the
  model chooses between the target and the refusal branch), strings written freely (`verbatim="marked"`);
- `extract`: `Extractor.extract` with its defaults; variants `extract[key=value,...]` override options (such as
  `extract[fields=apart]`: each field asked on its own after the text), `extract[prompt=text-first]` puts the text
  before the question (the layout fields asked apart use) for the whole target, and
  `extract[strip=true]` extracts the target's JSON Schema with every description (docstrings, field
  descriptions) taken out: a bare target, as a user who wrote none gives it;
- `llguidance`, `xgrammar`: the peers' own transformers logits processors (benchmarks/generation_peers.py),
  on the same JSON Schema with the refusal branch.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from benchmarks.quality_score import Outcome
from extractor import ExtractorError, Extractor, Refusal
from extractor.decode import PromptTemplate, encode, generate, messages
from extractor.errors import Attempt, Usage
from extractor.schema import json_schema, with_refusal

PROMPT_RETRIES = 3


@dataclass(frozen=True)
class Method:
    """A named way to extract; `options` are `Extractor.extract` keywords (extract-kind methods)."""

    name: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)

    def config(self) -> dict[str, Any]:
        return {"kind": self.kind, "options": self.options}


def method(spec: str) -> Method:
    """A method by name; `extract[layout=compact,guards=false]` overrides extract's defaults (JSON values)."""
    if spec in ("prompt_retry", "extract", "llguidance", "xgrammar"):
        return Method(spec, "peer" if spec in ("llguidance", "xgrammar") else spec)
    if spec == "constrained":
        return Method(spec, "extract", {"layout": "compact", "jump_forward": False, "guards": False,
                                        "min_relevance": None, "verbatim": "marked"})
    if spec.startswith("extract[") and spec.endswith("]"):
        options = {}
        for pair in filter(None, spec[8:-1].split(",")):
            key, _, value = pair.partition("=")
            try:
                options[key] = json.loads(value)
            except json.JSONDecodeError:
                options[key] = value
        return Method(spec, "extract", options)
    raise ValueError(f"unknown method {spec!r}")


def run(m: Method, ex: Extractor, target: type[BaseModel], text: str, budget: int) -> Outcome:
    """One document through one method, timed."""
    start = time.perf_counter()
    if m.kind == "extract":
        out = _extract(ex, target, text, budget, m.options)
    elif m.kind == "prompt_retry":
        out = _prompt_retry(ex, target, text, budget)
    else:
        out = _peer(m.name, ex, target, text, budget)
    out.seconds = round(time.perf_counter() - start, 3)
    return out


PROMPTS = {"text-first": PromptTemplate().text_first()}
"""Prompt variants for ablations (`extract[prompt=text-first]`); the default is `PromptTemplate()`."""


def _extract(ex: Extractor, target: type[BaseModel], text: str, budget: int, options: dict[str, Any]) -> Outcome:
    attempts: list[Attempt] = []
    options = dict(options)
    if options.pop("strip", False):
        target = stripped(json_schema(target))
    saved = ex.template
    ex.template = PROMPTS[options.pop("prompt")] if "prompt" in options else saved
    try:
        traced = ex.extract(target, text, max_tokens=budget, on_attempt=attempts.append, with_trace=True, **options)
    except ExtractorError as exc:
        return _outcome(None, attempts, error=f"{type(exc).__name__}: {exc}"[:300])
    finally:
        ex.template = saved
    out = _outcome(traced.result, attempts)
    out.trace = traced.trace.to_json()
    return out


def stripped(schema: Any) -> Any:
    """A JSON Schema without its `description`s (the target's docstring and its fields' descriptions); property
    names are kept, whatever they are called."""
    if isinstance(schema, list):
        return [stripped(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            out[key] = {name: stripped(sub) for name, sub in value.items()}
        else:
            out[key] = stripped(value) if isinstance(value, (dict, list)) and key not in ("enum", "const",
                                                                                          "examples", "default") \
                else value
    return out


def _outcome(result: Any, attempts: list[Attempt], error: str | None = None) -> Outcome:
    refused = isinstance(result, Refusal)
    dumped = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    return Outcome(output=None if result is None or refused else dumped,
                   refused=refused, valid=result is not None, cut=any(a.cut for a in attempts),
                   tokens=sum(a.usage.completion_tokens for a in attempts), seconds=0.0, attempts=len(attempts),
                   text=attempts[-1].text if attempts else "", error=error)


def _prompt_retry(ex: Extractor, target: type[BaseModel], text: str, budget: int) -> Outcome:
    """Ask for JSON, parse the first object in the reply, validate; feed errors back up to 3 times."""
    attempts: list[Attempt] = []
    for _ in range(1 + PROMPT_RETRIES):
        history = [(a.text, "\n".join(map(str, a.errors))) for a in attempts]
        prompt = encode(ex.lm.tokenizer, messages(json_schema(target), text, ex.template, history))
        gen = generate(ex.lm, ex.vocab, prompt, None, max_tokens=budget)
        attempt = Attempt(gen.text, gen.usage, cut=not gen.complete)
        attempts.append(attempt)
        try:
            return _outcome(parse(target, gen.text), attempts)
        except (ValueError, ValidationError) as exc:
            attempt.errors = [str(exc)[:500]]
    return _outcome(None, attempts, error=f"invalid after {len(attempts)} attempts: {attempts[-1].errors}")


def parse(target: type[BaseModel], text: str) -> BaseModel:
    """The first JSON object in a free reply (code fences and chatter around it ignored), validated."""
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON object in the reply")
    data, _ = json.JSONDecoder().raw_decode(text[start:])
    if isinstance(data, dict) and set(data) == {"error"}:
        return Refusal.model_validate(data)
    return target.model_validate(data)


def _peer(name: str, ex: Extractor, target: type[BaseModel], text: str, budget: int) -> Outcome:
    from benchmarks.generation_peers import peer_generate

    schema = with_refusal(json_schema(target), Refusal.model_json_schema())
    prompt = encode(ex.lm.tokenizer, messages(json_schema(target), text, ex.template))
    out = peer_generate(name, ex.lm.model, ex.lm.tokenizer, prompt, schema, budget)
    attempt = Attempt(out.text, Usage(completion_tokens=len(out.token_ids)), cut=not out.complete)
    try:
        return _outcome(parse(target, out.text) if out.complete else None, [attempt])
    except (ValueError, ValidationError) as exc:
        return _outcome(None, [attempt], error=str(exc)[:300])

