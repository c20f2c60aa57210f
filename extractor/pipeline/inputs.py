"""Arguments checked before anything is compiled or generated: each bad one named in an InputError."""

from __future__ import annotations

import unicodedata
from typing import Any

from extractor.decode.guards import NO_GUARDS, Guards
from extractor.errors import InputError

_INVISIBLE = {"Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp", "Zs"}
"""Unicode categories that show nothing: controls, format characters (zero-width), unassigned, separators."""


def nonempty(text: str) -> None:
    """A text to extract from: a str with something visible in it that UTF-8 can encode."""
    if not isinstance(text, str):
        hint = " (decode bytes first)" if isinstance(text, (bytes, bytearray)) else ""
        raise InputError(f"the text must be a str, not {type(text).__name__}{hint}")
    if all(ch.isspace() or unicodedata.category(ch) in _INVISIBLE for ch in text):
        raise InputError("the text is empty (nothing but whitespace or invisible characters): there is nothing to "
                         "extract from")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"the text holds a lone surrogate at character {exc.start}, which no UTF-8 text can hold "
                         "(decode with errors='replace')") from None


def at_least(minimum: int, **counts: Any) -> None:
    """Counts passed as arguments: ints no smaller than `minimum`, or an InputError that names them."""
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise InputError(f"{name} must be an int ≥ {minimum}, got {value!r}")


def guards_for(guards: bool | Guards, text: str, tight: bool = False) -> Guards:
    """True: the default guards, strings bounded by the source text's length (at least 64 bytes);
    `tight` (after a cut): those guards tightened, whatever was asked."""
    chosen = guards if isinstance(guards, Guards) else Guards(max_string_bytes=max(len(text.encode()), 64)) \
        if guards else NO_GUARDS
    return chosen.tightened() if tight else chosen
