"""Pydantic's JSON Schema narrowed to what its validators accept, so every value generation can write
validates: `Decimal`, non-string dict keys, `HttpUrl`, `timedelta` and `complex` are described more
loosely by Pydantic than they are checked (a string where only a numeral parses, any key of a
`dict[int, str]`, any scheme of an http URL, durations of thousands of digits)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

INTEGER_KEY = r"^-?(0|[1-9][0-9]*)$"
NUMBER_KEY = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,3})?$"
DECIMAL_TEXT = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?$"
COMPLEX_TEXT = r"^-?[0-9]+(\.[0-9]+)?([+-][0-9]+(\.[0-9]+)?j)?$"
DURATION_DIGITS = r"^[^0-9]*([0-9]{1,6}[^0-9]+)*$"
"""Every run of digits in a duration at most 6 long: Pydantic refuses a component too large for its range
(and fractions past microseconds)."""
FINITE = 10**21
"""A JSON number for a Decimal is read as a float first: past this, an exponent could make it infinite (and
refused); larger amounts remain writable as numeric strings."""
LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST = rf"{LABEL}(\.{LABEL})*"


class ExactJsonSchema(GenerateJsonSchema):
    """The JSON Schema of a Pydantic type, narrowed wherever its validator is stricter than the schema."""

    def decimal_schema(self, schema: core_schema.DecimalSchema) -> JsonSchemaValue:
        """A bare numeral or a numeric string; with any constraint, a number that carries them all."""
        bounds = {k: schema.get(k) for k in ("ge", "gt", "le", "lt", "multiple_of")}
        places, digits = schema.get("decimal_places"), schema.get("max_digits")
        finite = {"type": "number", "minimum": -FINITE, "maximum": FINITE}
        if not any(v is not None for v in (*bounds.values(), places, digits)):
            return {"anyOf": [finite, {"type": "string", "pattern": DECIMAL_TEXT}]}
        out: dict[str, Any] = {"type": "number", "allOf": [finite]}
        for key, name in (("ge", "minimum"), ("gt", "exclusiveMinimum"), ("le", "maximum"),
                          ("lt", "exclusiveMaximum"), ("multiple_of", "multipleOf")):
            if bounds[key] is not None:
                out[name] = _number(bounds[key])
        if places is not None:  # a multiple of 10^-places has at most `places` decimals
            out["allOf"].append({"multipleOf": _number(Decimal(1).scaleb(-places))})
        if digits is not None:  # the integral digits left once the decimals are counted
            limit = _number(Decimal(1).scaleb(digits - (places or 0)))
            out["allOf"].append({"exclusiveMaximum": limit, "exclusiveMinimum": -limit})
        return out

    def dict_schema(self, schema: core_schema.DictSchema) -> JsonSchemaValue:
        """Object keys are strings: a dict of integer or number keys takes only keys that parse as such."""
        out = super().dict_schema(schema)
        kind = schema.get("keys_schema", {}).get("type")
        pattern = {"int": INTEGER_KEY, "float": NUMBER_KEY}.get(kind)  # type: ignore[arg-type]
        if pattern is not None:
            out["propertyNames"] = {"pattern": pattern}
        return out

    def url_schema(self, schema: core_schema.UrlSchema) -> JsonSchemaValue:
        """A URL limited to the schemes the type allows, with a host name where one is required."""
        return _with_schemes(super().url_schema(schema), schema.get("allowed_schemes"))

    def multi_host_url_schema(self, schema: core_schema.MultiHostUrlSchema) -> JsonSchemaValue:
        """A DSN (`PostgresDsn`...) as a single-host URL of its schemes: Pydantic's `multi-host-uri` format
        names no format this compiler knows, so the schema would otherwise admit any string."""
        out: dict[str, Any] = {"type": "string", "format": "uri", "minLength": 1}
        self.update_with_validations(out, schema, self.ValidationsMapping.string)
        return _with_schemes(out, schema.get("allowed_schemes"))

    def timedelta_schema(self, schema: core_schema.TimedeltaSchema) -> JsonSchemaValue:
        out = super().timedelta_schema(schema)
        if out.get("type") == "string":
            out["pattern"] = DURATION_DIGITS
        return out

    def complex_schema(self, schema: core_schema.ComplexSchema) -> JsonSchemaValue:
        """A real part and an optional imaginary one, as Python's `complex()` reads them."""
        return {**super().complex_schema(schema), "pattern": COMPLEX_TEXT}


def _with_schemes(out: dict[str, Any], schemes: list[str] | None) -> dict[str, Any]:
    if schemes:
        names = "|".join(sorted(s.replace(".", r"\.").replace("+", r"\+") for s in schemes))  # `+` is literal
        out["pattern"] = rf"^({names})://{HOST}(:[0-9]{{1,4}})?([/?#][^\s]*)?$"
    return out


def _number(value: Any) -> int | float:
    """A JSON number for a bound: an integer when integral, else the shortest float that reads back."""
    exact = Decimal(str(value))
    return int(exact) if exact == exact.to_integral_value() else float(exact)
