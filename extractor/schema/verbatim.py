"""`Verbatim`: a string field that must be quoted from the source text, enforced by the grammar."""

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
