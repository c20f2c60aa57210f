"""Markers that tie a field to the source text: `Verbatim` (quoted from it, enforced by the grammar) and `FromText`
(found in it, checked on the parsed object)."""

from __future__ import annotations

from typing import Any

from pydantic import GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import core_schema


class Verbatim:
    """Mark a `str` field with `Annotated[str, Verbatim]`: generation can only copy a substring of
    the document (escaped as JSON needs), so names, emails and numbers cannot be invented.

    In JSON Schema it is `"x-verbatim": true` on a string schema; compile such a schema with
    `CompileOptions(source=text)` (`extract` passes the document itself)."""

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
                                     ) -> JsonSchemaValue:
        out = handler(schema)
        target = handler.resolve_ref_schema(out)
        target["x-verbatim"] = True
        return out

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return handler(source)


class FromText:
    """Mark a field with `Annotated[T, FromText]` (any type: a string, a number, a date, a list or a nested model):
    every value under it must be found in the document, as written or as a normalization of it (case, spacing,
    Unicode forms, numbers and dates written another way). Unlike `Verbatim` the grammar is not narrowed; the
    parsed object's trace is checked instead, and a value found nowhere fails the attempt, which is retried with
    the error fed back (`ExtractOptions.grounding`).

    In JSON Schema it is `"x-from-text": true` on the field's own schema (beside a `$ref`, not on the definition)."""

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
                                     ) -> JsonSchemaValue:
        out = handler(schema)
        out["x-from-text"] = True
        return out

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> core_schema.CoreSchema:
        return handler(source)
