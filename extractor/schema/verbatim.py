"""Markers that tie a field to the source text: `Verbatim` (quoted from it, enforced by the grammar) and `FromText`
(found in it, checked on the parsed object)."""

from __future__ import annotations

import re
from typing import Any, Callable

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


_FREE_KEYS = ("format", "pattern", "minLength", "maxLength", "enum", "const", "contentEncoding", "x-verbatim")
"""A string schema with any of these is not made a copy: it asks for a form, a set of values, a length, or it
says itself whether it is verbatim (`"x-verbatim": false` keeps a string free)."""
ASKS_FORM = re.compile(r"\b(format|formatted|YYYY|MM|DD|HH|ISO|normali[sz]ed?|lower ?case|upper ?case|translat\w*|"
                        r"own words|summari[sz]e\w*|describ\w*|rephras\w*|paraphras\w*)\b", re.IGNORECASE)
"""A description asking for the value written some way (`as YYYY-MM-DD`, `in your own words`): the text may not
hold it so."""
_WALKED = ("properties", "patternProperties", "$defs", "definitions")
_WALKED_ONE = ("items", "additionalProperties")
_WALKED_LIST = ("anyOf", "oneOf", "allOf", "prefixItems", "items")


def verbatim_strings(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of `schema` in which every string field that names something in the text is `Verbatim`: a string
    schema with no format, pattern, length, enum or const, whose description (or its member's) does not ask for
    the value written in some form; and so are the keys of a map (`dict[str, X]`: `additionalProperties` a schema,
    nothing declared, no `propertyNames` or `patternProperties`), which name things of the text as list items do.
    What `ExtractOptions(verbatim="auto")` compiles."""
    return rewritten(schema, _copied)


def _copied(node: dict[str, Any], said: str, free: bool) -> dict[str, Any]:
    if free or ASKS_FORM.search(said):
        return node
    kind = node.get("type")
    if (kind == "string" or (isinstance(kind, list) and "string" in kind)) and \
            not any(k in node for k in _FREE_KEYS):
        node["x-verbatim"] = True
    elif _map(node):  # free keys: a small model invents ever longer ones until the token budget
        node["propertyNames"] = {"type": "string", "x-verbatim": True}
    else:
        free_counted_set(node)
    return node


def free_counted_set(node: dict[str, Any]) -> None:
    """A set of strings (`uniqueItems`) that must hold two or more keeps its strings free (`"x-verbatim": false`):
    copies kept apart by value are not counted toward its minItems, and the text may hold too few of them."""
    items, least = node.get("items"), node.get("minItems", 0)
    if node.get("uniqueItems") is True and isinstance(items, dict) and items.get("type") == "string" and \
            "x-verbatim" not in items and isinstance(least, int) and least > 1:
        node["items"] = {**items, "x-verbatim": False}


def _map(node: dict[str, Any]) -> bool:
    """Whether `node` is a map: keys of its own choosing, each valued by one schema (not `true` or `{}`); one whose
    `minProperties` asks for two keys or more keeps them free (copied keys are not counted toward a minimum)."""
    extra, least = node.get("additionalProperties"), node.get("minProperties", 0)
    return node.get("type") == "object" and isinstance(extra, dict) and bool(extra) and not node.get("properties") \
        and not any(k in node for k in ("propertyNames", "patternProperties", "required", "x-verbatim")) \
        and not (isinstance(least, int) and least > 1)


def rewritten(schema: Any, mark: Callable[[dict[str, Any], str, bool], dict[str, Any]], said: str = "",
              free: bool = False) -> Any:
    """A copy of `schema` with `mark(node, said, free)` applied to each subschema (a copy it may change, whose
    subschemas are then walked as it leaves them): `said`, the description of the member it is under; `free`,
    under a member marked `"x-verbatim": false` (`Optional[str]` puts the mark beside its `anyOf`)."""
    if not isinstance(schema, dict):
        return schema
    said = schema.get("description", said) if isinstance(schema.get("description"), str) else said
    free = free or schema.get("x-verbatim") is False
    out = mark(dict(schema), said, free)
    for key in _WALKED:
        if isinstance(out.get(key), dict):
            out[key] = {name: rewritten(sub, mark) for name, sub in out[key].items()}
    for key in _WALKED_ONE:
        if isinstance(out.get(key), dict):
            out[key] = rewritten(out[key], mark, said if key == "items" else "", free and key == "items")
    for key in _WALKED_LIST:
        if isinstance(out.get(key), list):
            out[key] = [rewritten(sub, mark, said, free) for sub in out[key]]
    return out
