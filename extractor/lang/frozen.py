"""Frozen dataclasses that keep their hash: a dataclass hashes its whole subtree on every call, and regex
bodies and schema IR are deep trees used as dictionary keys."""

from __future__ import annotations


def keeps_hash(cls: type) -> None:
    """Make `cls` (a frozen dataclass) keep its hash once computed. The kept value is dropped when pickled:
    string hashes differ between processes."""
    plain = cls.__hash__

    def __hash__(self: object) -> int:
        kept = getattr(self, "_hash", None)  # not through __dict__: that would make one for each instance
        if kept is None:
            kept = plain(self)
            object.__setattr__(self, "_hash", kept)
        return kept

    def __getstate__(self: object) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    cls.__hash__ = __hash__  # type: ignore[method-assign]
    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
