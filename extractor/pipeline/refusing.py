"""Whether the text holds an answer at all, decided twice: before decoding by the relevance screen's score (and,
where that is low, by whether the text writes any kind of value the target asks for), and after it by what the
answer's trace says (identifying values found nowhere in the text mean the model made the
answer up). A refusal made here says why, in words a log reader can use."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from extractor.documents.lexical import asked, writes
from extractor.pipeline.calibration import DOUBTFUL, VALUELESS
from extractor.pipeline.grounding import key, schema_ir, unescape
from extractor.schema import Refusal, ir
from extractor.tracing import Trace, ValueTrace
from extractor.tracing.leaves import shapes

if TYPE_CHECKING:
    from extractor.pipeline.options import ExtractOptions

@dataclass(frozen=True)
class Screened:
    """The relevance screen's reading of one text for one target."""

    score: float
    """The relevance score (decode/relevance.py), or a lower bound of it at or above what was asked."""
    title: str
    kind: str | None = None
    """What the text reads most like instead (set where the screen refuses)."""
    exact: Callable[[], float] | None = field(default=None, compare=False)
    """Reads the whole score where `score` may be a lower bound below DOUBTFUL: only an answer the trace would
    refuse needs it, so the other kinds of document are read for that answer alone."""

    def whole(self) -> float:
        """The relevance score itself, read to the end where `score` may be a bound."""
        return self.exact() if self.exact is not None else self.score


def identifying(trace: Trace, schema: ir.Schema) -> list[ValueTrace]:
    """The values that say what the answer is about: those written (strings and numbers the schema does not
    spell) under the target's required top-level members."""
    required = {p.name for n in shapes(schema.root, schema.defs) if isinstance(n, ir.Object)
                for p in n.properties if p.required}
    return [v for v in trace if v.status in ("copied", "found", "not_found") and _top(v.pointer) in required]


def unfounded(trace: Trace, schema: ir.Schema) -> list[ValueTrace]:
    """The identifying values the text holds nowhere."""
    return [v for v in identifying(trace, schema) if v.status == "not_found"]


def declines(screen: Screened, trace: Trace, schema: ir.Schema, max_unfounded: float | None) -> str | None:
    """Why an answer is refused after decoding (None: it stands): its relevance is doubtful and at least
    `max_unfounded` of its identifying values are found nowhere in the text."""
    if max_unfounded is None or screen.score >= DOUBTFUL:
        return None
    values = identifying(trace, schema)
    missing = [v for v in values if v.status == "not_found"]
    if not values or len(missing) < max_unfounded * len(values) or (relevance := screen.whole()) >= DOUBTFUL:
        return None
    shown = ", ".join(f"{v.pointer[1:]}={v.value!r:.40}" for v in missing[:4]) + (", ..." if len(missing) > 4 else "")
    return (f"no {screen.title} in the text: {len(missing)} of its {len(values)} identifying values are found nowhere "
            f"in it ({shown}); relevance {relevance:.1f}")


def checks_answer(screen: Screened | None, opts: ExtractOptions) -> bool:
    """Whether an answer will be judged by its trace (so it must be traced): the library's own `Refusal` is
    offered, the check is on and the relevance is doubtful."""
    return screen is not None and opts.refusal_model is Refusal and opts.max_unfounded is not None \
        and screen.score < DOUBTFUL


def judged(result: Any, found: Trace | None, screen: Screened | None, target: Any,
           opts: ExtractOptions) -> tuple[Any, Trace | None]:
    """The result and its trace, or a `Refusal` saying why where the trace shows the answer made up."""
    if not checks_answer(screen, opts) or isinstance(result, Refusal) or found is None:
        return result, found
    reason = declines(screen, found, schema_ir(key(target)), opts.max_unfounded)
    return (Refusal(error=reason), Trace()) if reason else (result, found)


def before_decoding(screen: Screened, schema: Any, text: str, min_relevance: float, require_values: bool) -> str | None:
    """Why a text is refused before anything is decoded (None: it is decoded): it does not read as the target
    (below `min_relevance`), or, with `require_values`, it reads little like the target (below VALUELESS) and
    writes no value of any kind the target asks for (`unwritten`)."""
    if screen.score < min_relevance:
        return screened_out(screen, min_relevance)
    if not require_values or screen.score >= VALUELESS:
        return None
    wanted = unwritten(schema, text)
    if not wanted or (relevance := screen.whole()) >= VALUELESS:
        return None
    named = [SHAPE_NAMES.get(s, s) for s in wanted]
    either = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} or {named[-1]}"
    return (f"no {screen.title} in the text: it writes no {either}, the kinds of value its fields ask for, and "
            f"reads little like one (relevance {relevance:.1f}, below {VALUELESS:g})")


def unwritten(schema: Any, text: str) -> tuple[str, ...]:
    """The kinds of value the target's fields ask for (`documents.lexical`'s shapes: an amount and a date for a
    receipt, an e-mail address and a phone number for a contact card), where the text writes none of them; () where
    it writes one, the target asks for fewer than `MIN_KINDS`, or the text is a fragment."""
    wanted = asked(schema) if isinstance(schema, dict) and len(text) >= FRAGMENT else ()
    return () if len(wanted) < MIN_KINDS or writes(text, wanted) else wanted


MIN_KINDS = 2
"""Kinds of value a target must ask for before a text writing none of them is refused: one kind left out says
little (the first page of a contract, its date on a later page)."""


FRAGMENT = 200
"""Characters under which a text is a fragment (a sentence or two), left to the screen's score alone by
`require_values`: a fragment may name a target without any value its optional fields ask for ("Maria Lopez, 34,
joined the lab in March ..." as a `Person` with an optional e-mail address). Every short text of
benchmarks/data/short is at most 114 characters long, every labeled document of benchmarks/data/quality at least 182."""

SHAPE_NAMES = {"email": "e-mail address", "url": "web address", "phone": "phone number"}
"""The value shapes in a refusal's words (the others are their own names: amount, date, year, time)."""


def screened_out(screen: Screened, min_relevance: float) -> str:
    """Why a text is refused before decoding."""
    like = f"; it reads most like {_article(screen.kind)} {screen.kind}" if screen.kind else ""
    return (f"no {screen.title} in the text: it does not read as one (relevance {screen.score:.1f}, below "
            f"min_relevance {min_relevance:g}){like}")


def title(schema: Any) -> str:
    """A target's name as its JSON Schema gives it."""
    return str(schema.get("title", "record")) if isinstance(schema, dict) else "record"


def _top(pointer: str) -> str:
    return unescape(pointer.split("/")[1]) if pointer.count("/") else ""


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"
