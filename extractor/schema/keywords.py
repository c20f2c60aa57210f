"""The explicit list of JSON Schema keywords: enforced, annotation, or refused."""

ANNOTATIONS = frozenset({
    "title", "description", "examples", "default", "$comment", "$schema", "$id", "$anchor",
    "deprecated", "readOnly", "writeOnly", "discriminator", "contentMediaType",
    "contentEncoding", "$defs", "definitions", "$vocabulary", "x-from-text", "x-window",
})
"""Keywords that never constrain a value: ignored, as the specification says."""

ENFORCED = frozenset({
    "type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref",
    "properties", "required", "additionalProperties",
    "items", "prefixItems", "minItems", "maxItems",
    "minLength", "maxLength", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern",
    "minProperties", "maxProperties", "additionalItems", "patternProperties", "not",
    "multipleOf", "dependencies", "dependentRequired", "dependentSchemas", "propertyNames",
    "if", "then", "else", "contains", "minContains", "maxContains", "uniqueItems",
    "x-verbatim",
})
"""Keywords the compiler turns into grammar exactly."""

ASSERTIONS = frozenset({
    "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef",
    "$dynamicAnchor", "$recursiveAnchor", "contentSchema",
})
"""Validation keywords not yet enforced: refused with UnsupportedSchemaError."""

KNOWN_FORMATS = frozenset({
    "date", "time", "date-time", "duration", "email", "idn-email", "hostname", "idn-hostname",
    "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
})
"""Formats the specification defines; an unimplemented one of these is refused, not dropped."""

IMPLYING = {
    "object": frozenset({"properties", "required", "additionalProperties", "minProperties", "maxProperties",
                         "patternProperties", "propertyNames"}),
    "array": frozenset({"items", "prefixItems", "minItems", "maxItems", "additionalItems", "contains", "minContains",
                        "maxContains", "uniqueItems"}),
    "string": frozenset({"x-verbatim", "minLength", "maxLength", "format", "pattern"}),
    "number": frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}),
}
"""The keywords of each type: a subschema without `type` is read as the type its keywords imply."""

APPLICATORS = frozenset({"$ref", "allOf", "anyOf", "oneOf", "not", "dependencies", "dependentRequired",
                         "dependentSchemas", "if", "then", "else"})
"""Keywords that combine subschemas (or demand some when a key is present): they imply no type."""
