"""Each structured-output backend's work per decoding step inside vLLM, without a model: the same token streams
replayed through the grammar objects vLLM drives (ours, XGrammar's and llguidance's), step by step as vLLM's
scheduler and structured-output manager call them.

usage: python benchmarks/backend_replay.py [--streams 300] [--batches 1,16,64,256] [--drafts 3] [--mix 64]
                                           [--backends extractor,xgrammar,guidance] [--seed 7] [--json OUT] [--md OUT]
                                           [--clock wall|cpu]

Runs where vLLM is installed (`.venv-vllm`). Streams: valid instances of a seeded MaskBench sample, written as
compact JSON (the layout our backend serves), split by the embedded model's tokenizer, then its end-of-sequence
token. Each backend is built as vLLM builds it (a stand-in config: any whitespace allowed, no drafts or
`--drafts` of them) and given `batches` requests at a time, in lock step. One step of one request:

- without drafts: the manager's mask step for the batch, then `accept_tokens` with each stream's next token. The
  step is each backend's as it runs inside vLLM: for XGrammar and llguidance, vLLM's own (`fill_bitmask` per
  request); for extractor, the plugin's batch step (each request's packed row looked up, timed per request, then
  every row written by one C call whose time is shared evenly among the batch's requests);
- with drafts (the stream's next `--drafts` tokens, the last of them wrong on every other step): the
  scheduler's `validate_tokens` per request, the manager's mask step for the batch (a row per validated draft,
  each draft accepted after its row, the bonus row, `rollback`: vLLM's own loop of `fill_bitmask` calls for
  XGrammar and llguidance, the plugin's `draft_rows` per request and one C write for extractor), then
  `accept_tokens` with what verification kept (the right drafts and the next token).

Each batch size and draft count runs in a fresh process, every backend from cold (a new backend; our mask
tables forgotten; the heap made so far frozen for the cyclic collector, as vLLM's engine core freezes its heap once
started), the backends taking turns a step each (whatever else the machine runs falls on all alike), and replays
the streams twice: `cold` (first sight of each schema: compile and first visits) and `warm` (the same schemas
compiled again). The serving mix (`--mix`: its batch sizes) replays a server's requests instead, once: each
schema asked once to three times (`REPEATS`), shuffled, each request admitted as a row frees (continuous
batching). Our backends never share a process: the first runs beside the peers, each other one beside XGrammar
in a process of its own (in one process the second would find warm the mask tables and rule automata the first had
just built). Reported per backend: µs per request-step p50 / p99 / mean, the batch's fill time per step (its mask
step, which vLLM runs before each forward pass), compile ms; over the streams every backend of its process accepted
whole; and each backend's means as multiples of XGrammar's in the same process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import MASKBENCH_DATA, commit, percentiles, shown, write_results  # noqa: E402
from benchmarks.vllm_masks import fresh  # noqa: E402

CLOCKS = {"wall": time.perf_counter, "cpu": time.thread_time}
"""What a step is timed by (`--clock`): the wall, or this thread's CPU time, which leaves out the time the process
was preempted (on a machine shared with other work, most of a slow step's wall time)."""
clock = CLOCKS["wall"]

MAX_TOKENS = 512
"""Streams longer than this (in the embedded model's tokens) are left out, as a request's budget would cut them."""
BACKENDS = ("extractor", "xgrammar", "guidance", "extractor-unguarded")
"""The last, not run by default: ours with each schema sent with guards off (`with_options(schema, guards=False)`):
the grammar's own work per step, without the decoding rules XGrammar and llguidance do not have."""


def _unguarded() -> type:
    """Our backend, each JSON Schema request's guards turned off as a client would (the schema's options)."""
    from extractor.integrations.vllm import ExtractorBackend, with_options

    class Unguarded(ExtractorBackend):
        def compile_grammar(self, request_type: Any, grammar_spec: str, stop_token_ids: set[int] | None = None) -> Any:
            if request_type.name == "JSON":
                grammar_spec = json.dumps(with_options(json.loads(grammar_spec), guards=False))
            return super().compile_grammar(request_type, grammar_spec, stop_token_ids)

    return Unguarded


def streams(tokenizer: Any, n: int, seed: int, data: Path = MASKBENCH_DATA) -> list[dict[str, Any]]:
    """Up to `n` (schema, tokens) pairs: the first valid instance of each sampled MaskBench schema in `data`
    (`instances`: every valid one within the budget, which a serving mix's repeats take in turn)."""
    files = sorted(data.glob("*.json"))
    out = []
    for path in random.Random(seed).sample(files, len(files)):
        if len(out) == n:
            break
        doc = json.loads(path.read_text())
        valid = [t["data"] for t in doc.get("tests", []) if t.get("valid")]
        if not valid:
            continue
        instances = [tokenizer(json.dumps(v, ensure_ascii=False, separators=(",", ":")), add_special_tokens=False)
                     ["input_ids"] + [tokenizer.eos_token_id] for v in valid]
        if len(instances[0]) <= MAX_TOKENS:
            out.append({"name": path.stem, "schema": json.dumps(doc["schema"]), "tokens": instances[0],
                        "instances": [ids for ids in instances if len(ids) <= MAX_TOKENS]})
    if not out:
        raise FileNotFoundError(f"{data}: no MaskBench schema here with a valid instance of at most {MAX_TOKENS} "
                                f"tokens ({len(files)} files); tests/data.py says where the corpus is read")
    return out


def backend(name: str, tokenizer: Any, vocab_size: int, drafts: int) -> Any:
    """A backend as vLLM makes it, from a stand-in config holding only what backends read."""
    config = SimpleNamespace(
        structured_outputs_config=SimpleNamespace(disable_any_whitespace=False, disable_additional_properties=False),
        model_config=SimpleNamespace(hf_config=SimpleNamespace(model_type="llama")),
        speculative_config=SimpleNamespace(num_speculative_tokens=drafts) if drafts else None)
    if name == "extractor":
        from extractor.integrations.vllm import ExtractorBackend as cls
        fresh()
    elif name == "extractor-unguarded":
        cls = _unguarded()
        fresh()
    elif name == "xgrammar":
        from vllm.v1.structured_output.backend_xgrammar import XgrammarBackend as cls
    elif name == "guidance":
        from vllm.v1.structured_output.backend_guidance import GuidanceBackend as cls
    else:
        raise ValueError(f"unknown backend {name!r}: one of {', '.join(BACKENDS)}")
    made = cls(config, tokenizer=tokenizer, vocab_size=vocab_size)
    from vllm.utils.gc_utils import freeze_gc_heap

    freeze_gc_heap()  # as vLLM's engine core does once started: the collector skips the heap made so far
    return made


REPEATS = (1, 1, 1, 1, 1, 1, 2, 2, 2, 3)
"""How many requests of one schema a serving mix holds, drawn uniformly from these: most schemas once, some
two or three times (a client retrying, a tool called again), each repeat with the schema's next valid instance."""


def mix(items: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
    """A server's requests: each stream's schema asked `REPEATS` times, the requests shuffled together."""
    rng = random.Random(seed)
    out = [{**item, "tokens": item["instances"][k % len(item["instances"])]}
           for item in items for k in range(rng.choice(REPEATS))]
    rng.shuffle(out)
    return out


@dataclass
class Replay:
    """One pass of the requests through one backend, `batch` rows at a time: per request its request-step µs
    and whether it was accepted whole; per step with every row filled the batch's fill ms; per request its
    compile ms. In lock step, a batch of requests starts once the last has ended; with `refill`, a request
    takes each row freed (continuous batching, as vLLM's scheduler admits requests)."""

    be: Any
    items: list[dict[str, Any]]
    batch: int
    drafts: int
    vocab_size: int
    refill: bool = False
    steps: dict[int, list[float]] = field(default_factory=dict)
    accepted: dict[int, bool] = field(default_factory=dict)
    compile_ms: list[float] = field(default_factory=list)
    fill_ms: list[float] = field(default_factory=list)

    def run(self) -> Iterator[None]:
        """The pass, yielding after each mask step (so that backends can take turns); its result when done."""
        bitmask = self.be.allocate_token_bitmask(self.batch * (1 + self.drafts))
        from extractor.integrations.vllm import ExtractorBackend

        batched = isinstance(self.be, ExtractorBackend)
        waiting = list(range(len(self.items)))[::-1]
        grammars: dict[int, Any] = {}
        at: dict[int, int] = {}
        step = width = 0
        while waiting or at:
            if waiting and (self.refill or not at):
                self._admit(waiting, grammars, at)
                width = len(at)
            full = len(at) == width  # every row admitted still running: a full batch's fill
            if self.drafts:
                filled = self._draft_step(grammars, at, bitmask, batched, step)
            else:
                filled = self._plain_step(grammars, at, bitmask, batched)
            if full and filled is not None:
                self.fill_ms.append(filled * 1e3)
            step += 1
            yield
        return {"steps": self.steps, "accepted": self.accepted, "compile_ms": self.compile_ms,
                "fill_ms": self.fill_ms}

    def _admit(self, waiting: list[int], grammars: dict[int, Any], at: dict[int, int]) -> None:
        """Compile waiting requests into the free rows (a refused schema: its stream is left out for every
        backend)."""
        from vllm.v1.structured_output.backend_types import StructuredOutputOptions

        while waiting and len(at) < self.batch:
            i = waiting.pop()
            start = clock()
            try:
                grammars[i] = self.be.compile_grammar(StructuredOutputOptions.JSON, self.items[i]["schema"])
            except Exception:  # noqa: BLE001 - refused (the summary keeps the streams every backend accepted)
                self.accepted[i] = False
                continue
            self.compile_ms.append((clock() - start) * 1e3)
            self.steps[i], self.accepted[i], at[i] = [], True, 0

    def _plain_step(self, grammars: dict[int, Any], at: dict[int, int], bitmask: Any, batched: bool) -> float | None:
        """The manager's mask step for the whole batch, then each request's sampled token; the fill's seconds."""
        if not at:
            return None
        order, items = list(at), self.items
        spent = _fill_step(grammars, order, bitmask, batched)
        for i in order:
            start = clock()
            ok = grammars[i].accept_tokens(str(i), [items[i]["tokens"][at[i]]])
            self.steps[i].append(spent[i] * 1e6 + (clock() - start) * 1e6)
            _advanced(at, i, ok, 1, items, grammars, self.accepted)
        return sum(spent.values())

    def _draft_step(self, grammars: dict[int, Any], at: dict[int, int], bitmask: Any, batched: bool,
                    step: int) -> float | None:
        """The scheduler's validation, the manager's mask step for the batch, then what was kept; the fill's
        seconds."""
        if not at:
            return None
        order, items = list(at), self.items
        proposed, valid, spent = {}, {}, {}
        for i in order:
            proposed[i] = _proposed(items[i]["tokens"], at[i], self.drafts, step, self.vocab_size)
            start = clock()
            valid[i] = grammars[i].validate_tokens(proposed[i]) if proposed[i] else []
            spent[i] = clock() - start
        fill = _draft_step(grammars, order, valid, bitmask, batched)
        for i in order:
            tokens, right = items[i]["tokens"], 0
            while right < len(proposed[i]) and proposed[i][right] == tokens[at[i] + right]:
                right += 1
            kept = tokens[at[i]:at[i] + right + 1]  # the right drafts, then the token sampled after them
            start = clock()
            ok = grammars[i].accept_tokens(str(i), kept)
            self.steps[i].append((spent[i] + fill[i] + clock() - start) * 1e6)
            _advanced(at, i, ok, len(kept), items, grammars, self.accepted)
        return sum(fill.values())


def passes(be: Any, items: list[dict[str, Any]], batch: int, drafts: int, vocab_size: int,
           phases: tuple[str, ...]) -> Iterator[None]:
    """Each phase's pass in turn through one backend (`cold`, then `warm`: the same schemas again; `mix`: the
    requests as a server admits them), yielding after each step; the phases' results when done."""
    out = {}
    for phase in phases:
        out[phase] = yield from Replay(be, items, batch, drafts, vocab_size, refill=phase == "mix").run()
    return out


def interleaved(runs: dict[str, Iterator[None]]) -> dict[str, Any]:
    """Run the backends a step each in turn, so that whatever else the machine runs falls on all of them alike;
    each backend's result."""
    out, live = {}, dict(runs)
    while live:
        for name, run in list(live.items()):
            try:
                next(run)
            except StopIteration as done:
                out[name] = done.value
                del live[name]
    return out


def _advanced(at: dict[int, int], i: int, ok: bool, taken: int, items: list[dict[str, Any]], grammars: dict[int, Any],
              accepted: dict[int, bool]) -> None:
    """Move stream `i` on by `taken` tokens; a stream that ended or was refused leaves the batch."""
    at[i] += taken
    if not ok or at[i] >= len(items[i]["tokens"]):
        accepted[i] = accepted[i] and ok and grammars[i].is_terminated()
        del at[i]


def _fill_step(grammars: dict[int, Any], order: list[int], bitmask: Any, batched: bool) -> dict[int, float]:
    """Seconds each request's row took in one mask step: vLLM's own step calls `fill_bitmask` per request; ours
    (`batched`: extractor's `fill_batch`, which the plugin puts in the manager) looks each row up, timed per
    request, then writes them all in one C call, whose time is shared evenly."""
    spent = {}
    if not batched:
        for row, i in enumerate(order):
            start = clock()
            if not grammars[i].is_terminated():
                grammars[i].fill_bitmask(bitmask, row)
            spent[i] = clock() - start
        return spent
    from extractor.integrations.vllm.backend import _rows
    from extractor.masks.bits import write_rows

    rows = []
    for row, i in enumerate(order):  # fill_batch's two halves, timed apart
        start = clock()
        g = grammars[i]
        rows.append((row, None if g.is_terminated() else g.row()))
        spent[i] = clock() - start
    start = clock()
    write_rows(_rows(bitmask), rows)
    share = (clock() - start) / len(order)
    return {i: t + share for i, t in spent.items()}


def _proposed(tokens: list[int], at: int, k: int, step: int, vocab_size: int) -> list[int]:
    """The drafts one step verifies: the stream's next `k` tokens, the last of them wrong on every other step."""
    proposed = tokens[at:at + k]
    if step % 2 and len(proposed) == k:
        proposed = proposed[:-1] + [(proposed[-1] + 1) % vocab_size]
    return proposed


def _draft_step(grammars: dict[int, Any], order: list[int], valid: dict[int, list[int]], bitmask: Any,
                batched: bool) -> dict[int, float]:
    """Seconds each request's rows took in one speculative mask step (a row per validated draft, each draft
    accepted after its row, the bonus row, the drafts taken back): vLLM's own loop of `fill_bitmask` calls, or
    ours (`batched`: the plugin's `draft_rows` per request, timed apart, then one C write shared evenly)."""
    from extractor.integrations.vllm.backend import _rows
    from extractor.integrations.vllm.fill import draft_rows
    from extractor.masks.bits import write_rows

    spent, index, rows = {}, 0, []
    for i in order:
        g, start = grammars[i], clock()
        if batched:
            index = draft_rows(g, valid[i], (0, 0), index, rows)
        else:
            advanced = 0
            for j, token in enumerate(valid[i]):  # vLLM's loop: one row per draft, then the bonus row
                if not g.is_terminated():
                    g.fill_bitmask(bitmask, index + j)
                if g.is_terminated() or not g.accept_tokens("r", [token]):
                    break
                advanced += 1
            if not g.is_terminated():
                g.fill_bitmask(bitmask, index + len(valid[i]))
            if advanced:
                g.rollback(advanced)
            index += len(valid[i]) + 1
        spent[i] = clock() - start
    if batched:
        start = clock()
        write_rows(_rows(bitmask), rows)
        share = (clock() - start) / len(order)
        spent = {i: t + share for i, t in spent.items()}
    return spent


def summarize(runs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per backend and phase, over the streams every backend accepted whole in every phase."""
    common = set.intersection(*({i for i, ok in result["accepted"].items() if ok}
                                for run in runs.values() for result in run.values()))
    out: dict[str, Any] = {"streams_common": len(common)}
    keys = {"p50": 50, "p99": 99, "max": 100}
    for name, run in runs.items():
        first = next(iter(run.values()))
        out[name] = {"rejected": sorted(i for i, ok in first["accepted"].items() if not ok)}
        for phase, r in run.items():
            us = [t for i in common for t in r["steps"][i]]
            out[name][phase] = {
                "request_step_us": {**percentiles(us, keys), "mean": round(statistics.fmean(us), 2) if us else None},
                "request_steps": len(us),
                "batch_fill_ms": percentiles(r["fill_ms"], {"p50": 50, "p99": 99}),
                "compile_ms": percentiles(r["compile_ms"], {"p50": 50, "p99": 99, "max": 100}),
            }
    return out


def one(names: list[str], n: int, seed: int, batch: int, drafts: int, data: Path, serving: bool) -> dict[str, Any]:
    """Every backend at one batch size and draft count, in this process, the backends taking turns step by step:
    `cold` then `warm` over the streams, or (`serving`) one `mix` pass over a server's requests."""
    from transformers import AutoTokenizer

    from extractor.decode.model import embedded_path

    path = embedded_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    vocab_size = json.loads((Path(path) / "config.json").read_text())["vocab_size"]
    items = streams(tokenizer, n, seed, data)
    if serving:
        items = mix(items, seed)
    phases = ("mix",) if serving else ("cold", "warm")
    made = {name: backend(name, tokenizer, vocab_size, drafts) for name in names}
    runs = interleaved({name: passes(be, items, batch, drafts, vocab_size, phases) for name, be in made.items()})
    return {"streams": len(items), "stream_tokens": sum(len(s["tokens"]) for s in items),
            "schemas": len({s["schema"] for s in items}), **summarize(runs)}


OURS = ("extractor", "extractor-unguarded")
"""Our backends: each runs in a process of its own. They share process-wide caches (the mask tables, the rules'
automata), so in one process the one stepping second would find warm what the first had just built, and its cold
steps would not be cold."""


def groups(names: list[str]) -> list[list[str]]:
    """The backends run together in one child: the first of ours with every peer, then each other one of ours with
    XGrammar (where asked), the reference its ratios are taken against in its own process."""
    ours = [n for n in names if n in OURS]
    peers = [n for n in names if n not in OURS]
    beside = ["xgrammar"] if "xgrammar" in peers else []
    return [ours[:1] + peers] + [[n] + beside for n in ours[1:]] if ours else [peers]


def run_groups(args: argparse.Namespace, names: list[str], batch: int, drafts: int, serving: bool) -> dict[str, Any]:
    """Every backend at one batch size and draft count, a child per group (`groups`): the first group's results as
    they are; a later group's backend with its own count of common streams and, as `reference`, the XGrammar run
    beside it."""
    first, *rest = groups(names)
    run = child(args, batch, drafts, serving, first)
    for group in rest:
        other = child(args, batch, drafts, serving, group)
        name = group[0]
        run[name] = {**other[name], "streams_common": other["streams_common"],
                     **({"reference": other["xgrammar"]} if "xgrammar" in other else {})}
    return run


def child(args: argparse.Namespace, batch: int, drafts: int, serving: bool, names: list[str]) -> dict[str, Any]:
    """One run in a fresh process: no backend sees a schema first in a run after another's (process-wide
    caches)."""
    command = [sys.executable, __file__, "--one", f"{batch},{drafts},{int(serving)}", "--streams", str(args.streams),
               "--seed", str(args.seed), "--data", str(args.data), "--backends", ",".join(names), "--clock",
               args.clock]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"batch {batch}, drafts {drafts} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--batches", default="1,16,64,256")
    parser.add_argument("--drafts", type=int, default=3, help="draft tokens per step in the speculative runs")
    parser.add_argument("--mix", default="64", help="batch sizes of the serving mix's runs (none: '')")
    parser.add_argument("--backends", default=",".join(BACKENDS[:3]))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=MASKBENCH_DATA, help="MaskBench's folder (tests/data.py)")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/backend_replay.json"))
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--note", default="", help="how the machine was (shared, quiet), written into the results")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="time steps and compiles by the wall or by this thread's CPU time (preemption left out; "
                             "a backend's compile threads too)")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    names = [n for n in args.backends.split(",") if n]
    if args.one:  # a child: one batch size and draft count, its summary on stdout
        batch, drafts, serving = map(int, args.one.split(","))
        print(json.dumps(one(names, args.streams, args.seed, batch, drafts, args.data, bool(serving))))
        return
    result: dict[str, Any] = {"commit": commit(), "data": shown(args.data), "drafts": args.drafts, "seed": args.seed,
                              "note": args.note, "clock": args.clock, "load_average": [round(os.getloadavg()[0], 1)],
                              "runs": {}, "mix": {}}
    batches, mixes = _sizes(parser, args.batches, "--batches"), _sizes(parser, args.mix, "--mix")
    for drafts in dict.fromkeys((0, args.drafts)):
        for batch in batches:
            run = run_groups(args, names, batch, drafts, False)
            result["streams"], result["stream_tokens"] = run.pop("streams"), run.pop("stream_tokens")
            run.pop("schemas")
            key = f"batch {batch}, drafts {drafts}"
            result["runs"][key] = run
            print(f"{key}: " + "; ".join(f"{n} cold mean {run[n]['cold']['request_step_us']['mean']} µs"
                                         for n in names), file=sys.stderr, flush=True)
    for batch in mixes:
        run = run_groups(args, names, batch, 0, True)
        key = f"batch {batch}, drafts 0"
        result["mix"][key] = run
        print(f"mix {key}: " + "; ".join(f"{n} mean {run[n]['mix']['request_step_us']['mean']} µs" for n in names),
              file=sys.stderr, flush=True)
    result["load_average"].append(round(os.getloadavg()[0], 1))  # (the one-minute load at the start and the end)
    write_results(result, markdown(result, names), args.json, args.md or args.json.with_suffix(".md"))


def _sizes(parser: argparse.ArgumentParser, text: str, flag: str) -> list[int]:
    """Batch sizes from a comma list; a size under 1 is refused (a batch of no rows would never end)."""
    try:
        sizes = [int(b) for b in text.split(",") if b]
    except ValueError:
        parser.error(f"{flag}: comma-separated whole numbers expected, got {text!r}")
    if any(b < 1 for b in sizes):
        parser.error(f"{flag}: batch sizes must be 1 or more, got {text!r} (an empty value runs none)")
    return sizes


def ratio(ours: float | None, theirs: float | None) -> str:
    """`ours` as a multiple of `theirs`, two decimals ('–' where either is missing)."""
    return "–" if not ours or not theirs else f"{ours / theirs:.2f}×"


def markdown(result: dict[str, Any], names: list[str]) -> str:
    """The results as tables: per run and backend, then each backend's means as multiples of XGrammar's."""
    lines = [f"# Backends replayed without a model\n\n{result['streams']} MaskBench instances "
             f"({result['stream_tokens']} tokens of the embedded model's tokenizer, seed {result['seed']}) replayed "
             f"through each backend's grammar objects as vLLM calls them, the backends taking turns step by step; "
             f"speculative runs draft {result['drafts']} tokens a step. µs per request-step over the streams every "
             f"backend accepted; batch fill: the manager's mask step for the batch (vLLM's own for XGrammar and "
             f"llguidance, the plugin's for extractor). {_clock(result)}Commit `{result['commit']}`.{_machine(result)}\n",
             "| batch, drafts | backend | streams | warm µs p50 / p99 / mean | cold µs p50 / p99 / mean "
             "| warm batch fill ms p50 / p99 | compile ms cold p50 / p99 / max | rejected |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for key, run in result["runs"].items():
        for name in names:
            r = run[name]
            w, c = r["warm"]["request_step_us"], r["cold"]["request_step_us"]
            f, k = r["warm"]["batch_fill_ms"], r["cold"]["compile_ms"]
            lines.append(f"| {key} | {name} | {_common(run, name)} | {w['p50']} / {w['p99']} / {w['mean']} | "
                         f"{c['p50']} / {c['p99']} / {c['mean']} | {f['p50']} / {f['p99']} | "
                         f"{k['p50']} / {k['p99']} / {k['max']} | {len(r['rejected'])} |")
    lines += mix_lines(result, names) + ratio_lines(result, names)
    return "\n".join(lines) + "\n"


def _clock(result: dict[str, Any]) -> str:
    """What the times are (wall where not kept)."""
    if result.get("clock", "wall") == "wall":
        return ""
    return ("Timed by the thread's CPU time, not the wall: the time the process was preempted is left out, and so "
            "is a backend's compiling in threads of its own. ")


def _machine(result: dict[str, Any]) -> str:
    """The note on the machine and its one-minute load average at the start and the end (none where not kept)."""
    load = result.get("load_average")
    note = f" {result['note']}." if result.get("note") else ""
    return note + (f" Load average {load[0]} at the start, {load[-1]} at the end." if load else "")


def mix_lines(result: dict[str, Any], names: list[str]) -> list[str]:
    """The serving mix's table: requests of many schemas, each asked once or a few times, admitted as rows free."""
    if not result["mix"]:
        return []
    lines = ["\n## A serving mix\n\nThe same schemas, each asked once to three times (`REPEATS`; a repeat takes the "
             "schema's next valid instance), the requests shuffled and admitted into each row as it frees, as vLLM's "
             "scheduler admits them; one pass, every schema new when first asked.\n",
             "| batch, drafts | backend | requests | schemas | µs p50 / p99 / mean | mean ÷ XGrammar's "
             "| batch fill ms p50 / p99 | compile ms p50 / p99 / max |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for key, run in result["mix"].items():
        for name in names:
            theirs = _reference(run, name).get("mix", {}).get("request_step_us", {}).get("mean")
            m = run[name]["mix"]
            u, f, k = m["request_step_us"], m["batch_fill_ms"], m["compile_ms"]
            lines.append(f"| {key} | {name} | {_common(run, name)} | {run['schemas']} | {u['p50']} / {u['p99']} / "
                         f"{u['mean']} | {ratio(u['mean'], theirs)} | {f['p50']} / {f['p99']} | "
                         f"{k['p50']} / {k['p99']} / {k['max']} |")
    return lines


def _reference(run: dict[str, Any], name: str) -> dict[str, Any]:
    """The XGrammar run `name`'s ratios are taken against: the one in its own process."""
    return run[name].get("reference") or run.get("xgrammar", {})


def _common(run: dict[str, Any], name: str) -> int:
    """The streams `name`'s figures are over (every backend of its process accepted them)."""
    return run[name].get("streams_common", run["streams_common"])


def ratio_lines(result: dict[str, Any], names: list[str]) -> list[str]:
    """Each backend's request-step µs as multiples of XGrammar's in the same run."""
    if "xgrammar" not in names:
        return []
    lines = ["\n## As multiples of XGrammar's\n",
             "| batch, drafts | backend | warm p50 | warm mean | cold p50 | cold mean |",
             "|---|---|---:|---:|---:|---:|"]
    for key, run in result["runs"].items():
        for name in (n for n in names if n != "xgrammar"):
            theirs = _reference(run, name)
            cells = [ratio(run[name][phase]["request_step_us"][stat], theirs[phase]["request_step_us"][stat])
                     for phase in ("warm", "cold") for stat in ("p50", "mean")]
            lines.append(f"| {key} | {name} | " + " | ".join(cells) + " |")
    return lines


if __name__ == "__main__":
    main()
