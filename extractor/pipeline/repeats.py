"""List items the text does not repeat, left out of an answer after decoding. The decoder's rule (`decode.fresh`)
holds a repeat back as it is written, but where the guards' bans together leave no token it stands aside (an object
repeated whole whose last member the grammar allows only one value, the layout's forced `}`), so a small model may
write the same item again; such a repeat is left out here and kept on the trace (`Trace.repeated`). An item stays
where the text writes it as often (`fresh.times_written`), where its array may repeat (`uniqueItems: false`), and
where leaving it out would break the array's own bounds (`minItems`, `contains`, a prefix)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from extractor.decode.fresh import Path, extra_copies, path_matches
from extractor.pipeline.grounding import cut_out, key, place_of, schema_ir, unescape
from extractor.schema import ir
from extractor.tracing.leaves import escape, output_ranges
from extractor.tracing.record import Repeated


@dataclass(frozen=True)
class Unrepeated:
    """An output with its repeats left out, and what the value it was read from is without them."""

    output: str
    repeated: tuple[Repeated, ...] = ()
    value: Any = None
    """The validated value less the items left out: the new output must validate to it (a validator that reorders
    a list would otherwise have moved the items the pointers name)."""


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
    less = copy.deepcopy(value)
    for one in reversed(found):  # from the end: none is inside another, so the places before it stay
        start, end = ranges[one.pointer]
        quoted = isinstance(one.item, str)  # a string's range is its content: its quotes go too
        cut = cut_out(raw, start - quoted, end + quoted, False)
        raw = raw[:cut[0]] + raw[cut[1]:]
        *at, last = one.pointer.split("/")[1:]
        holder = less
        for token in at:
            holder = holder[int(token)] if isinstance(holder, list) else holder[unescape(token)]
        del holder[int(last)]
    return Unrepeated(raw.decode(), tuple(found), less)


def _repeats(data: Any, text: str, schema: ir.Schema, repeatable: frozenset[Path]) -> list[Repeated]:
    """The items to leave out, none inside another (the items of an item left out are not looked at)."""
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
    """The indices of the list's items past the times the text writes them (`fresh.extra_copies`), as many as the
    list's schema lets go."""
    arrays = [n for n in place_of(schema, pointer)[0] if isinstance(n, ir.Array)]
    if not arrays or any(a.prefix or a.contains is not None for a in arrays):
        return []
    return extra_copies(items, text)[:max(0, len(items) - max(a.min_items for a in arrays))]
