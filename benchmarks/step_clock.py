"""Times the decoding loop's steps from outside it: each forward pass (CUDA events around it, so the device's time,
not the launch's), the rows' mask work queued behind it, and the host's work once its logits are in.

The loop (extractor/decode/loop.py) launches a pass, then calls every row's `prepare` (its next mask, computed
while an asynchronous pass runs), then every row's `step` (which reads the logits). A `StepClock` wraps those
methods while it is entered and puts them back on leaving; nothing in the library changes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from extractor.decode import loop, rows


@dataclass
class Pass:
    """One forward pass and the row work around it (host times in seconds, from `time.perf_counter`)."""

    rows: int
    tokens: int
    call: float
    launched: float
    start: Any = None
    end: Any = None
    prepared: bool = False
    prefill: bool = False
    mask_s: float = 0.0
    prep_end: float = 0.0
    busy: bool = False
    """The device was still running the pass when every row's mask was ready: that work hid behind it."""
    read: bool = False
    """The first row's `step` ran: the logits were read."""
    wait_s: float = 0.0
    after_s: float = 0.0
    step_mask_s: float = 0.0
    last: float = 0.0

    @property
    def forward_s(self) -> float:
        """The pass as the device ran it (the call itself where there are no events: a synchronous device)."""
        if self.start is None:
            return self.launched - self.call
        return self.start.elapsed_time(self.end) / 1e3

    @property
    def exposed_s(self) -> float:
        """Mask time the device sat idle for: the host still preparing after the pass ended."""
        if self.busy:
            return 0.0
        return max(0.0, min(self.mask_s, self.prep_end - (self.call + self.forward_s)))


class StepClock:
    """While entered, records a `Pass` for every forward pass the decoding loop makes on `device`."""

    def __init__(self, device: torch.device) -> None:
        self.cuda = torch.device(device).type == "cuda"
        self.steps: list[Pass] = []
        self._fresh = True
        self._in_step = False
        self._saved: dict[tuple[type, str], Any] = {}

    def __enter__(self) -> "StepClock":
        wrappers: dict[tuple[type, str], Callable[[Any], Any]] = {
            (loop._Batch, "__init__"): self._new_batch, (loop._Batch, "forward"): self._forward,
            (rows.Row, "prepare"): self._prepare, (rows.Row, "step"): self._step, (rows.Row, "_mask"): self._mask}
        for (cls, name), wrap in wrappers.items():
            self._saved[(cls, name)] = cls.__dict__[name]
            setattr(cls, name, wrap(cls.__dict__[name]))
        return self

    def __exit__(self, *exc: object) -> None:
        for (cls, name), original in self._saved.items():
            setattr(cls, name, original)
        if self.cuda:
            torch.cuda.synchronize()

    def _new_batch(self, original: Callable[..., None]) -> Callable[..., None]:
        def init(batch: Any, *args: Any, **kwargs: Any) -> None:
            self._fresh = True  # the next prepared pass feeds the prompts: a prefill, not a decoding step
            original(batch, *args, **kwargs)
        return init

    def _forward(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def forward(batch: Any, ids: list[list[int]], keep: int = 1) -> Any:
            start = end = None
            if self.cuda:
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            call = time.perf_counter()
            if start is not None:
                start.record()
            out = original(batch, ids, keep)
            if end is not None:
                end.record()
            self.steps.append(Pass(len(ids), sum(map(len, ids)), call, time.perf_counter(), start, end))
            return out
        return forward

    def _prepare(self, original: Callable[..., None]) -> Callable[..., None]:
        def prepare(row: Any, masks: Any) -> None:
            p = self.steps[-1]
            if not p.prepared:
                p.prepared, p.prefill, self._fresh = True, self._fresh, False
            began = time.perf_counter()
            original(row, masks)
            p.prep_end = time.perf_counter()
            p.mask_s += p.prep_end - began
        return prepare

    def _step(self, original: Callable[..., None]) -> Callable[..., None]:
        def step(row: Any, logits: Any, masks: Any) -> None:
            p = self.steps[-1]
            began = time.perf_counter()
            if not p.read and p.end is not None:  # the first row: is the pass still running?
                p.busy = not p.end.query()
                p.end.synchronize()
                p.wait_s = time.perf_counter() - began
                began = time.perf_counter()
            p.read = True
            self._in_step = True
            try:
                original(row, logits, masks)
            finally:
                self._in_step = False
            p.last = time.perf_counter()
            p.after_s += p.last - began
        return step

    def _mask(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def mask(row: Any, masks: Any) -> Any:
            if not self._in_step:
                return original(row, masks)
            began = time.perf_counter()
            out = original(row, masks)
            self.steps[-1].step_mask_s += time.perf_counter() - began
            return out
        return mask


def summary(passes: list[Pass]) -> dict[str, Any]:
    """Medians over the decoding steps (passes after the prompts'), in milliseconds, and the shares that say
    whether the masks hid: of mask time overlapped by the pass, and of steps whose every mask was ready first."""
    steps = [p for p in passes if p.prepared and not p.prefill]
    prefill = [p for p in passes if not p.prepared or p.prefill]
    if not steps:
        return {"steps": 0, "prefill_passes": len(prefill)}

    def ms(values: list[float]) -> float:
        return round(statistics.median(values) * 1e3, 3)

    mask = sum(p.mask_s for p in steps)
    return {
        "steps": len(steps), "rows_mean": round(statistics.fmean(p.rows for p in steps), 1),
        "tokens_per_step": round(statistics.fmean(p.tokens for p in steps), 2),
        "forward_ms": ms([p.forward_s for p in steps]), "launch_ms": ms([p.launched - p.call for p in steps]),
        "mask_ms": ms([p.mask_s for p in steps]), "exposed_ms": ms([p.exposed_s for p in steps]),
        "wait_ms": ms([p.wait_s for p in steps]), "after_ms": ms([p.after_s for p in steps]),
        "step_mask_ms": ms([p.step_mask_s for p in steps]), "step_ms": ms([p.last - p.call for p in steps]),
        "mask_over_forward": round((mask + sum(p.step_mask_s for p in steps)) / sum(p.forward_s for p in steps), 4),
        "hidden_share": round(1 - sum(p.exposed_s for p in steps) / mask, 4) if mask else 1.0,
        "steps_hidden_share": round(sum(p.busy for p in steps) / len(steps), 4),
        "prefill_passes": len(prefill), "prefill_ms": round(sum(p.forward_s for p in prefill) * 1e3, 3),
    }
