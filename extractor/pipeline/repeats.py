"""List items the text does not repeat, left out of an answer after decoding. The decoder's rule (`decode.fresh`)
holds a repeat back as it is written, but where the guards' bans together leave no token it stands aside (an object
repeated whole whose last member the grammar allows only one value, the layout's forced `}`), so a small model may
write the same item again; such a repeat is left out here and kept on the trace (`Trace.repeated`). An item stays
where the text writes it as often (`fresh.times_written`), where its array may repeat (`uniqueItems: false`), and
where leaving it out would break the array's own bounds (`minItems`, `contains`, a prefix)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from extractor.decode.fresh import Path, path_matches, times_written
from extractor.pipeline.grounding import cut_out, key, place_of, schema_ir
from extractor.schema import ir
from extractor.tracing.leaves import escape, output_ranges
from extractor.tracing.record import Repeated


@dataclass(frozen=True)
class Unrepeated:
    """An output with its repeats left out."""

    output: str
    repeated: tuple[Repeated, ...] = ()


def unrepeated(output: str, value: Any, text: str, target: Any, repeatable: frozenset[Path]) -> Unrepeated:
    """`output` less every list item written more often than `text` writes it (the first copies kept), save in the
    `repeatable` arrays (the guards' patterns: member names, None for any item). Items are compared in `value`, the
    output as validated in JSON form (a member left out and one written null are alike there, as in the result)."""
    found = _repeats(value, text, schema_ir(key(target)), repeatable)
    if not found:
        return Unrepeated(output)
    raw = output.encode()
    ranges = output_ranges(raw, containers=True)
    found = [r for r in found if r.pointer in ranges]  # (a list the output leaves to its default holds none)
    found.sort(key=lambda r: ranges[r.pointer][0])
    for one in reversed(found):  # from the end: none is inside another, so the places before it stay
        start, end = ranges[one.pointer]
        quoted = isinstance(one.item, str)  # a string's range is its content: its quotes go too
        cut = cut_out(raw, start - quoted, end + quoted, False)
        raw = raw[:cut[0]] + raw[cut[1]:]
    return Unrepeated(raw.decode(), tuple(found))


def _repeats(data: Any, text: str, schema: ir.Schema, repeatable: frozenset[Path]) -> list[Repeated]:
    """The items to leave out, outermost first, none inside another."""
    out: list[Repeated] = []
    work: list[tuple[Any, str, Path]] = [(data, "", ())]
    while work:
        value, pointer, path = work.pop()
        if isinstance(value, dict):
            work += [(v, f"{pointer}/{escape(k)}", path + (k,)) for k, v in value.items()]
            continue
        if not isinstance(value, list):
            continue
        gone = set(_extra(value, text, pointer, schema)) if not path_matches(repeatable, path) else set()
        out += [Repeated(f"{pointer}/{i}", value[i]) for i in sorted(gone)]
        work += [(v, f"{pointer}/{i}", path + (None,)) for i, v in enumerate(value) if i not in gone]
    return out


def _extra(items: list[Any], text: str, pointer: str, schema: ir.Schema) -> list[int]:
    """The indices of the list's items past the times the text writes them (a string, number or object; at least
    one copy kept), as many as the list's schema lets go."""
    arrays = [n for n in place_of(schema, pointer)[0] if isinstance(n, ir.Array)]
    if not arrays or any(a.prefix or a.contains is not None for a in arrays):
        return []
    seen: Counter[str] = Counter()
    extra = []
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, (str, int, float, dict)):
            continue
        seen[name := json.dumps(item, sort_keys=True)] += 1
        if seen[name] > max(1, times_written(item, text)):
            extra.append(i)
    return extra[:max(0, len(items) - max(a.min_items for a in arrays))]
