"""End-to-end decode speed on the embedded model: free generation, constrained, constrained with jump-forward.

usage: python benchmarks/e2e.py [--json OUT] [--md OUT.md] [--docs matched|all] [--max-tokens N]
                                [--batches 1,4,16] [--schemas Resume,Event] [--device cuda] [--threads N]

Documents: the `schemas/` models on the sample texts in examples/data (`matched`: each model on its
own text; `all`: every model on every text, the other texts testing the refusal branch). Per document,
back to back so machine load hits them alike:

- (b) constrained without jump-forward (guards on; run first, so it pays the first mask visits);
- (c) constrained with jump-forward, verified (the default; guards on), no source drafts;
- (d) as (c) plus drafts copied from the source text (what `extract` runs);
- (a) unconstrained greedy generation of exactly as many tokens as (c) produced (EOS suppressed);
- (c') jump-forward "canonical" (the tokenizer's split of forced text, unverified), for comparison;
- (d) again without guards, for the share of documents finishing within the token budget.

Then `extract`-style batched decoding (jump-forward and guards on) at each batch size, in documents/s.
Greedy throughout. Writes JSON and a Markdown table (benchmarks.common.write_results).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402
from extractor import Extractor, Refusal  # noqa: E402
from extractor.pipeline.inputs import guards_for  # noqa: E402
from extractor.pipeline.outcome import parse  # noqa: E402
from extractor.decode import NO_GUARDS, DecodeOptions, encode, generate, generate_many, messages  # noqa: E402
import schemas  # noqa: E402

SAMPLES = [(schemas.Resume, "resume"), (schemas.Invoice, "invoice"), (schemas.ContactCard, "contact"),
           (schemas.Event, "event")]
TEXTS = ["resume", "invoice", "contact", "event", "no_answer"]
DATA = Path(__file__).resolve().parents[1] / "examples" / "data"


def documents(which: str, only: str | None = None) -> list[tuple[Any, str]]:
    """The (model, text name) pairs of `which`, of the schemas named in `only` (comma-separated; None: all)."""
    known = [model.__name__ for model, _ in SAMPLES]
    names = only.split(",") if only else known
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise SystemExit(f"unknown schema {unknown[0]!r}; the schemas are {', '.join(known)}")
    kept = [(model, name) for model, name in SAMPLES if model.__name__ in names]
    if which == "matched":
        return kept
    return [(model, text) for model, _ in kept for text in TEXTS]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/e2e.json"))
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--docs", choices=["matched", "all"], default="all")
    parser.add_argument("--max-tokens", type=int, default=300)
    parser.add_argument("--batches", default="1,4,16")
    parser.add_argument("--schemas", default=None, help="only these schemas, comma-separated (default: all four)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--threads", type=int, default=0,
                        help="torch CPU threads (0: torch's default); 1 keeps timings steady on a shared machine")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    ex = Extractor(device=args.device)
    docs = documents(args.docs, args.schemas)
    prompts, grammars, texts = [], [], []
    for model, name in docs:
        text = (DATA / f"{name}.txt").read_text()
        texts.append(text)
        prompts.append(encode(ex.lm.tokenizer, messages(model.model_json_schema(), text, ex.template)))
        grammars.append(ex.compile(model))
    no_eos = replace(ex.vocab, eos_ids=frozenset(), fingerprint="")  # the content hash is made anew
    budget = args.max_tokens

    rows = []
    for i, ((model, name), prompt, grammar, text) in enumerate(zip(docs, prompts, grammars, texts)):
        guards = guards_for(True, text)

        def run(mode: bool | str = True, source: str | None = None, g=guards):
            return generate(ex.lm, ex.vocab, prompt, grammar.matcher(), max_tokens=budget, guards=g,
                            jump_forward=mode, source=source)

        plain = run(False)  # first: it pays the first visits of this document's mask states (< 1 ms each)
        jf = run(True)
        drafts = run(True, text)
        free = generate(ex.lm, no_eos, prompt, None, max_tokens=len(jf.token_ids))
        canonical = run("canonical")
        unguarded = run(True, text, NO_GUARDS)
        row = {
            "schema": model.__name__, "text": name, "prompt_tokens": len(prompt),
            "unconstrained_s": free.usage.seconds, "constrained_s": plain.usage.seconds,
            "jump_forward_s": jf.usage.seconds, "prefill_s": jf.usage.prefill_seconds,
            "output_tokens": len(jf.token_ids), "forced_tokens": jf.forced_tokens,
            "forward_passes": jf.usage.forward_passes, "constrained_tokens": len(plain.token_ids),
            "constrained_passes": plain.usage.forward_passes, "complete": jf.complete,
            "valid": _valid(model, jf), "valid_without_jump_forward": _valid(model, plain),
            "complete_without_guards": unguarded.complete, "guard_steps": jf.guard_steps,
            "identical": jf.text == plain.text, "output": jf.text,
            "drafts_s": drafts.usage.seconds, "drafts_tokens": len(drafts.token_ids),
            "drafts_passes": drafts.usage.forward_passes, "drafts_copied": drafts.copied_tokens,
            "drafts_forced": drafts.forced_tokens, "drafts_identical": drafts.text == plain.text,
            "drafts_valid": _valid(model, drafts),
            "canonical_s": canonical.usage.seconds, "canonical_tokens": len(canonical.token_ids),
            "canonical_passes": canonical.usage.forward_passes, "canonical_identical": canonical.text == plain.text,
            "canonical_valid": _valid(model, canonical), "canonical_complete": canonical.complete,
        }
        for key, gen in (("difference", jf), ("drafts_difference", drafts)):
            if gen.text != plain.text:
                row["without_jump_forward"] = plain.text
                row[key] = _difference(ex, gen, plain)
        rows.append(row)
        print(f"[{i + 1}/{len(docs)}] {model.__name__} on {name}: {row['output_tokens']} tok, passes "
              f"{row['forward_passes']} (c) {row['drafts_passes']} (d); a {row['unconstrained_s']:.1f} s "
              f"b {row['constrained_s']:.1f} s c {row['jump_forward_s']:.1f} s d {row['drafts_s']:.1f} s; "
              f"identical c={row['identical']} d={row['drafts_identical']}", file=sys.stderr, flush=True)

    batch = {}
    for size in [int(s) for s in args.batches.split(",")]:
        batch[str(size)] = _throughput(ex, prompts, grammars, texts, size, args.max_tokens)
        print(f"batch {size}: {batch[str(size)]:.3f} docs/s", file=sys.stderr, flush=True)

    result = _summary(rows, batch, args, ex)
    write_results(result, _markdown(result), args.json, args.md or args.json.with_suffix(".md"))


def _valid(model: Any, gen: Any) -> bool | None:
    """None when the output is incomplete (budget); else whether it parses and validates."""
    if not gen.complete:
        return None
    try:
        parse(model, Refusal, gen.text)
        return True
    except Exception:  # noqa: BLE001
        return False


def _difference(ex: Extractor, jf: Any, plain: Any) -> str:
    """Where the two greedy outputs part, and how their token boundaries differed before that."""
    a, b = jf.data, plain.data
    at = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
    cuts_a = _boundaries(ex, jf.token_ids, at)
    cuts_b = _boundaries(ex, plain.token_ids, at)
    split = sorted(cuts_a ^ cuts_b)
    where = a[max(0, at - 30):at].decode("utf-8", "replace")
    why = (f"token boundaries differed before it (at bytes {split[:6]}): the jump-forward tokens there were not "
           "the ones the model picked alone" if split else
           "same tokens up to there: the model's pick itself changed (a multi-token pass computes the same logits "
           "as single-token passes only up to floating-point rounding, which can flip a near-tie)")
    return f"parted at byte {at} after {where!r}: {why}"


def _boundaries(ex: Extractor, ids: list[int], upto: int) -> set[int]:
    out, pos = set(), 0
    for t in ids:
        pos += len(ex.vocab.tokens[t])
        if pos >= upto:
            break
        out.add(pos)
    return out


def _throughput(ex: Extractor, prompts: list, grammars: list, texts: list, size: int, max_tokens: int) -> float:
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i]))
    options = DecodeOptions(max_tokens=max_tokens)
    start = time.perf_counter()
    for k in range(0, len(order), size):
        chunk = order[k:k + size]
        generate_many(ex.lm, ex.vocab, [prompts[i] for i in chunk], [grammars[i].matcher() for i in chunk],
                      options, guards=[guards_for(True, texts[i]) for i in chunk], sources=[texts[i] for i in chunk])
    return len(prompts) / (time.perf_counter() - start)


def _summary(rows: list[dict], batch: dict, args: Any, ex: Extractor) -> dict:
    total = {k: sum(r[k] for r in rows) for k in ("unconstrained_s", "constrained_s", "jump_forward_s", "prefill_s",
                                                    "output_tokens", "forward_passes", "forced_tokens",
                                                    "constrained_tokens", "constrained_passes", "canonical_s",
                                                    "canonical_tokens", "canonical_passes", "drafts_s",
                                                    "drafts_tokens", "drafts_passes", "drafts_copied",
                                                    "drafts_forced")}
    complete = [r for r in rows if r["complete"]]
    decode = {k: total[k] - total["prefill_s"] for k in ("unconstrained_s", "jump_forward_s")}
    return {
        "unconstrained_s": total["unconstrained_s"], "constrained_s": total["constrained_s"],
        "jump_forward_s": total["jump_forward_s"],
        "jump_forward_over_unconstrained": total["jump_forward_s"] / total["unconstrained_s"],
        "decode_only_jump_forward_over_unconstrained": decode["jump_forward_s"] / decode["unconstrained_s"],
        "prefill_s": total["prefill_s"],
        "output_tokens": total["output_tokens"], "forced_tokens": total["forced_tokens"],
        "forward_passes": total["forward_passes"],
        "forward_passes_per_token": total["forward_passes"] / max(total["output_tokens"], 1),
        "constrained_output_tokens": total["constrained_tokens"],
        "constrained_forward_passes": total["constrained_passes"],
        "valid_rate": sum(bool(r["valid"]) for r in complete) / max(len(complete), 1),
        "valid_rate_without_jump_forward": _rate([r["valid_without_jump_forward"] for r in rows]),
        "greedy_identical_rate": sum(r["identical"] for r in rows) / len(rows),
        "with_source_drafts": {
            "seconds": total["drafts_s"], "over_unconstrained": total["drafts_s"] / total["unconstrained_s"],
            "decode_only_over_unconstrained": (total["drafts_s"] - total["prefill_s"]) / decode["unconstrained_s"],
            "output_tokens": total["drafts_tokens"], "forced_tokens": total["drafts_forced"],
            "copied_tokens": total["drafts_copied"], "forward_passes": total["drafts_passes"],
            "forward_passes_per_token": total["drafts_passes"] / max(total["drafts_tokens"], 1),
            "greedy_identical_rate": sum(r["drafts_identical"] for r in rows) / len(rows),
            "valid_rate": _rate([r["drafts_valid"] for r in rows]),
        },
        "canonical": {
            "seconds": total["canonical_s"], "output_tokens": total["canonical_tokens"],
            "forward_passes": total["canonical_passes"],
            "forward_passes_per_token": total["canonical_passes"] / max(total["canonical_tokens"], 1),
            "greedy_identical_rate": sum(r["canonical_identical"] for r in rows) / len(rows),
            "valid_rate": _rate([r["canonical_valid"] for r in rows]),
            "finish_rate": sum(r["canonical_complete"] for r in rows) / len(rows),
        },
        "batch": batch,
        "finish_rate": {"with_guards": len(complete) / len(rows),
                        "without_guards": sum(r["complete_without_guards"] for r in rows) / len(rows)},
        "not_identical": [{"schema": r["schema"], "text": r["text"], "mode": mode, "reason": r[key]}
                          for r in rows for mode, key in (("(c)", "difference"), ("(d)", "drafts_difference"))
                          if key in r],
        "setup": {"documents": len(rows), "docs": args.docs, "schemas": args.schemas or "all",
                  "max_tokens": args.max_tokens,
                  "device": str(ex.lm.device), "torch_threads": torch.get_num_threads(),
                  "machine": platform.machine(), "python": platform.python_version(), "torch": torch.__version__,
                  "note": "greedy; timings include the prompt's prefill pass (prefill_s); (a) generates as many "
                          "tokens as (c) did"},
        "rows": rows,
    }


def _rate(values: list[bool | None]) -> float:
    done = [v for v in values if v is not None]
    return sum(done) / max(len(done), 1)


def _markdown(r: dict) -> str:
    s, d, c = r["setup"], r["with_source_drafts"], r["canonical"]
    lines = [
        f"End to end on the embedded SmolLM2-135M, {s['documents']} documents ({s['docs']}), greedy, "
        f"max {s['max_tokens']} tokens, {s['device']} ({s['torch_threads']} threads); guards on unless said.",
        "(c) is verified jump-forward over forced spans; (d) adds drafts copied from the source text (what "
        "`extract` runs); (c') trusts the tokenizer's split of forced text. Times include the prompt's prefill.", "",
        "| measure | (c) jump-forward | (d) + source drafts | (c') canonical |", "|---|---:|---:|---:|",
        f"| wall time (b: no jump-forward {r['constrained_s']:.1f} s; a: unconstrained {r['unconstrained_s']:.1f} s) "
        f"| {r['jump_forward_s']:.1f} s | {d['seconds']:.1f} s | {c['seconds']:.1f} s |",
        f"| / (a) unconstrained, same token count | {r['jump_forward_over_unconstrained']:.2f} | "
        f"{d['over_unconstrained']:.2f} | – |",
        f"| / (a), prefill ({r['prefill_s']:.1f} s) excluded | "
        f"{r['decode_only_jump_forward_over_unconstrained']:.2f} | {d['decode_only_over_unconstrained']:.2f} | – |",
        f"| output tokens (forced + copied kept) | {r['output_tokens']} ({r['forced_tokens']}) | "
        f"{d['output_tokens']} ({d['forced_tokens']} + {d['copied_tokens']}) | {c['output_tokens']} |",
        f"| forward passes (per output token) | {r['forward_passes']} ({r['forward_passes_per_token']:.2f}) | "
        f"{d['forward_passes']} ({d['forward_passes_per_token']:.2f}) | {c['forward_passes']} "
        f"({c['forward_passes_per_token']:.2f}) |",
        f"| valid rate (complete outputs) | {r['valid_rate']:.0%} | {d['valid_rate']:.0%} | {c['valid_rate']:.0%} |",
        f"| greedy output identical to (b) | {r['greedy_identical_rate']:.0%} | {d['greedy_identical_rate']:.0%} | "
        f"{c['greedy_identical_rate']:.0%} |",
        "", "| other | value |", "|---|---:|",
        f"| (b) forward passes per output token | "
        f"{r['constrained_forward_passes'] / max(r['constrained_output_tokens'], 1):.2f} |",
        f"| finish within {s['max_tokens']} tokens, guards on / off | {r['finish_rate']['with_guards']:.0%} / "
        f"{r['finish_rate']['without_guards']:.0%} |",
    ]
    lines += [f"| batch {k} (as `extract_many`), documents/s | {v:.3f} |" for k, v in r["batch"].items()]
    lines += ["", "| schema | text | out tok | forced | copied (d) | passes (c) | passes (d) | (a) s | (b) s | (c) s "
              "| (d) s | identical (c)/(d) | done guards/none |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|"]
    yes = {True: "yes", False: "no"}
    for row in r["rows"]:
        lines.append(f"| {row['schema']} | {row['text']} | {row['output_tokens']} | {row['forced_tokens']} | "
                     f"{row['drafts_copied']} | {row['forward_passes']} | {row['drafts_passes']} | "
                     f"{row['unconstrained_s']:.1f} | {row['constrained_s']:.1f} | {row['jump_forward_s']:.1f} | "
                     f"{row['drafts_s']:.1f} | {yes[row['identical']]}/{yes[row['drafts_identical']]} | "
                     f"{yes[row['complete']]}/{yes[row['complete_without_guards']]} |")
    if r["not_identical"]:
        lines += ["", "Not identical to decoding without jump-forward:", ""]
        lines += [f"- {x['mode']} {x['schema']} on {x['text']}: {x['reason']}" for x in r["not_identical"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
