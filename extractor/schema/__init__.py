"""Stage 1: a Pydantic model or JSON Schema becomes the typed schema IR, refusal branch included.

`json_schema(target)` takes a Pydantic model or type (`pydantic_types.py`'s `ExactJsonSchema` narrows Pydantic's
schema to what its validators accept) or a schema dict; `normalize()` (`normalize.py`) walks it once into an
`ir.Schema` (`ir.py`): one frozen node per value shape (`Object`, `Array`, `String`, `Number`, `Const`, `Union_`,
`Ref`, ...) plus named definitions, which is how recursion is expressed (each `$ref` target becomes one). `$ref`
resolves through `referencing` (JSON pointers, anchors, the root `$id`; the registry is made on a schema's first
`$ref`, and a `$schema` that is not a string is refused before `referencing` reads it).

Every key is in exactly one list of `keywords.py`: `ENFORCED` (compiled exactly), `ANNOTATIONS` (ignored, as the
specification says) or `ASSERTIONS` (not enforced yet: `UnsupportedSchemaError` naming the keyword and its JSON
pointer). Unknown keys warn (`SchemaWarning`) and are ignored, as JSON Schema treats them as annotations; a known
`format` not enforced yet is refused, an unknown one warns.

A subschema is the intersection of its parts: its `$ref` target, each `allOf` entry, its `anyOf`/`oneOf` union,
the complement of its `not`, and its own keywords (`values.py` reads bounds, counts and steps exactly). `merge.py`
intersects IR nodes (bounds tightened, object members merged by name, patterns stacked; a `Ref` meeting anything
becomes a new named definition, so recursive intersections terminate; a plainly empty object is `Nothing` at once,
`values.object_or_nothing`). Intersections distribute over unions, so the merger counts the option pairs it
intersects and refuses a schema past `MAX_PAIRS` (`SchemaTooComplexError`). `negation.py` complements `not`, the
other options of an overlapping `oneOf` ("this option and none of the others") and `if`/`then`/`else`
((if and then) or (not if and else)) for the shapes whose complement stays regular and exact, refusing the rest by
name; `exactness.py` says where an option's IR may be trusted as its language (not where a type was implied).
An enum beside other keywords keeps the values that satisfy them (`Merger.admits`). A last pass (`split_contains`)
splits every element schema of an array with `contains` into the part matching it and the part missing it, so
the compiler only sees counted and uncounted elements.

Policies that make generation stricter than validation, never looser (`NormalizeOptions`): with `strict_objects`
objects are closed unless `additionalProperties` is an explicit schema (applied after merging, so `allOf` of open
objects still merges), and a one-value property whose default is that value (a Pydantic union tag) is always
written; with `implied_types` a schema with no `type` takes the type its keywords imply.

`target_ir` adds the refusal branch at IR level, `root = Union_(target, Refusal)` (`refusal.py`), so a `"#"`
reference inside the target keeps meaning the target; `with_refusal` writes the same as one JSON Schema.
`verbatim.py` holds the markers tying a field to the text (`Verbatim`: copied from it, enforced by the grammar;
`FromText`: found in it, checked on the parsed object); `numbers.py` and `dates.py` narrow number and date fields
to the values a text writes (`values_from_text`, `verbatim="all"`); `window.py` makes a long text's window form;
`depth.py` says whether a target is recursive and how deeply a text is structured (the bound on its nesting)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.errors import PydanticInvalidForJsonSchema, PydanticSchemaGenerationError, PydanticUserError

from extractor.errors import InvalidSchemaError
from extractor.lang.collector import collector_paused
from extractor.schema import ir
from extractor.schema.dates import dates_from_text
from extractor.schema.depth import nesting, recursive
from extractor.schema.numbers import numbers_from_text
from extractor.schema.patterned import patterned_from_text
from extractor.schema.pydantic_types import ExactJsonSchema
from extractor.schema.normalize import NormalizeOptions, check_document, normalize, read
from extractor.schema.refusal import Refusal, with_refusal

__all__ = ["NormalizeOptions", "Refusal", "ir", "json_schema", "nesting", "normalize", "recursive", "target_ir",
           "values_from_text", "with_refusal"]


def json_schema(target: type[Any] | dict[str, Any] | bool) -> dict[str, Any] | bool:
    """The JSON Schema of a Pydantic model, any type Pydantic can describe, or a schema dict as is."""
    if isinstance(target, (dict, bool)):
        check_document(target)
        return target
    if isinstance(target, type) and issubclass(target, BaseModel):
        return target.model_json_schema(schema_generator=ExactJsonSchema)
    if isinstance(target, (str, bytes, int, float, list, tuple)) or target is None:  # a value, not a type
        raise InvalidSchemaError(f"a target is a Pydantic model, a type or a JSON Schema dict, not {target!r:.80}")
    try:
        return TypeAdapter(target).json_schema(schema_generator=ExactJsonSchema)
    except (PydanticUserError, PydanticSchemaGenerationError, PydanticInvalidForJsonSchema, TypeError) as exc:
        raise InvalidSchemaError(f"Pydantic cannot describe {target!r:.80} as JSON Schema: {str(exc).splitlines()[0]}") from None


def values_from_text(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of `schema` whose plain number, date and time fields take only the values `text` writes, and whose
    patterned strings are copies where the text writes their form (what `ExtractOptions(verbatim="all")` compiles
    beside its `Verbatim` strings): `numbers_from_text`, `dates_from_text`, then `patterned_from_text`."""
    return patterned_from_text(dates_from_text(numbers_from_text(schema, text), text), text)


@collector_paused
def target_ir(target: type[Any] | dict[str, Any], refusal: type[BaseModel] | None = Refusal,
              options: NormalizeOptions = NormalizeOptions()) -> ir.Schema:
    """The IR of what generation may emit: the target, or else the refusal model."""
    document = json_schema(target)
    schema = read(document, options) if isinstance(target, (dict, bool)) else normalize(document, options)  # checked
    if refusal is None:
        return schema
    other = normalize(refusal.model_json_schema(), NormalizeOptions(strict_objects=True))
    for name, node in other.defs.items():
        if name in schema.defs:
            raise ValueError(f"refusal model definition {name!r} clashes with the target's")
        schema.defs[name] = node
    schema.root = ir.Union_((schema.root, other.root))
    return schema


def quotes_source(schema: ir.Schema) -> bool:
    """Whether some string must be copied from the document (`Verbatim`), so the grammar depends on it."""
    return any(isinstance(node, ir.String) and node.verbatim for node in nodes(schema))


def marks_text(schema: ir.Schema) -> bool:
    """Whether some member is marked `FromText` (its values must be found in the document)."""
    return any(isinstance(node, ir.Object) and any(p.doc.from_text for p in node.properties) for node in nodes(schema))


def nodes(schema: ir.Schema) -> Iterator[ir.Node]:
    """Every node of a schema's IR (the root's and its definitions'), each once."""
    stack: list[ir.Node | None] = [schema.root, *schema.defs.values()]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        if isinstance(node, ir.Union_):
            stack += node.options
        elif isinstance(node, ir.Object):
            stack += [p.value for p in node.properties] + [v for _, v in node.pattern_groups]
            stack += [node.additional, node.key_schema]
        elif isinstance(node, ir.Array):
            stack += [node.items, *node.prefix]
            if node.contains is not None:
                stack += [node.contains.match, node.contains.miss]

