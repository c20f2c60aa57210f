"""Normalization and grammar compilation make, for a table of real-world and hand-made schemas, exactly the IR and
rules recorded: a change meant to make these stages cheaper must leave what they produce alone (every field of
every IR node, docs and pointers too; each rule's name, order and body digest; leaves, distinct and unique rules).
A change meant to change the output re-records the table: `python -m tests.schema.test_recorded_outputs`."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from extractor.errors import ExtractorError
from extractor.grammar import CompileOptions, compile_grammar
from extractor.lang.regex import digest
from extractor.schema import NormalizeOptions, target_ir

REALWORLD = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "realworld"

MADE: dict[str, Any] = {
    "from-text": {"type": "object", "properties": {"a": {"anyOf": [{"type": "string", "x-from-text": True},
                                                                  {"type": "null"}], "description": " A "}}},
    "prefix-contains": {"type": "array", "prefixItems": [{"type": "integer", "minimum": 2}], "items": {"enum": [1, "x"]},
                        "contains": {"const": "x"}, "maxContains": 2},
    "unique-enum": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True, "minItems": 1},
    "if-then-else": {"type": "object", "properties": {"k": {"enum": ["a", "b"]}, "v": {"type": "number"}},
                     "if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["v"]},
                     "else": {"properties": {"v": {"multipleOf": 3}}}},
    "one-of-cut": {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                             {"type": "object", "properties": {"b": {"type": "integer"}}, "additionalProperties": False}]},
    "dependent": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                  "dependentRequired": {"a": ["b"]}, "patternProperties": {"^x-": {"type": "boolean"}}},
}

CONFIGS = {
    "lax": (NormalizeOptions(strict_objects=False), CompileOptions()),
    "strict-pretty": (NormalizeOptions(), CompileOptions(layout="pretty", max_nesting=3)),
}


def _ir_digest(obj: Any, memo: dict[int, tuple[Any, str]]) -> str:
    """A digest of every field of an IR value (compare=False fields too), each shared node read once."""
    hit = memo.get(id(obj))
    if hit is not None:
        return hit[1]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        text = type(obj).__name__ + "(" + ",".join(f"{f.name}={_ir_digest(getattr(obj, f.name), memo)}"
                                                   for f in dataclasses.fields(obj)) + ")"
    elif isinstance(obj, (tuple, list)):
        text = type(obj).__name__ + "[" + ",".join(_ir_digest(x, memo) for x in obj) + "]"
    elif isinstance(obj, dict):
        text = "{" + ",".join(f"{k!r}:{_ir_digest(v, memo)}" for k, v in obj.items()) + "}"
    else:
        text = f"{type(obj).__name__}:{obj!r}"
    memo[id(obj)] = (obj, hashlib.sha256(text.encode()).hexdigest())
    return memo[id(obj)][1]


def outputs(schema: Any, config: str) -> str:
    """A digest of the IR and grammar a schema compiles to under a configuration, or the error class refusing it."""
    normalize_options, compile_options = CONFIGS[config]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ir = target_ir(schema, None, normalize_options)
            memo: dict[int, tuple[Any, str]] = {}
            grammar = compile_grammar(ir, compile_options)
        except ExtractorError as exc:
            return f"refused:{type(exc).__name__}"
    rules = [(name, digest(body).hex()) for name, body in grammar.rules.items()]
    parts = [_ir_digest(ir.root, memo), _ir_digest(ir.defs, memo), rules, sorted(grammar.leaves), grammar.distinct,
             grammar.unique, grammar.root]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:20]


def schema_of(name: str) -> Any:
    return MADE[name] if name in MADE else json.loads((REALWORLD / name).read_text())["schema"]


RECORDED = {
    ('nbformat---nbformat.v4.5.schema.json', 'lax'): '035c264b2fe33f039592',
    ('nbformat---nbformat.v4.5.schema.json', 'strict-pretty'): 'aabe6ece28c01b7a96ca',
    ('schemastore-catalog---avro-avsc.json', 'lax'): '0860dbf919e564997864',
    ('schemastore-catalog---avro-avsc.json', 'strict-pretty'): 'c132acd6937dd405362b',
    ('schemastore-catalog---chrome-manifest.json', 'lax'): 'd6c3fc2e9027dbfe7629',
    ('schemastore-catalog---chrome-manifest.json', 'strict-pretty'): '427282a6fd90e4cdad60',
    ('pyproject---pyproject_toml.schema.json', 'lax'): '3683e12be4baf6fe6654',
    ('pyproject---pyproject_toml.schema.json', 'strict-pretty'): 'c2d97aa5271be8a8a4e8',
    ('schemastore-catalog---aiproj-1.8.json', 'lax'): 'b7c6c28ed20e4091d947',
    ('schemastore-catalog---aiproj-1.8.json', 'strict-pretty'): '1677d4fdd6484035e9f0',
    ('metaschema---draft6.json', 'lax'): 'refused:UnsupportedSchemaError',
    ('metaschema---draft6.json', 'strict-pretty'): 'refused:UnsupportedSchemaError',
    ('pyproject---setuptools.schema.json', 'lax'): 'refused:UnsupportedSchemaError',
    ('pyproject---setuptools.schema.json', 'strict-pretty'): 'refused:UnsupportedSchemaError',
    ('schemastore-catalog---claude-code-marketplace.json', 'lax'): 'b2c5a99e09e9bf78f5ee',
    ('schemastore-catalog---claude-code-marketplace.json', 'strict-pretty'): '2e66ded0f5ea198e03af',
    ('kubernetes---selfsubjectaccessreviewspec-authorization-v1.json', 'lax'): 'e9977f8904d79c315adb',
    ('kubernetes---selfsubjectaccessreviewspec-authorization-v1.json', 'strict-pretty'): '6646023dce43e3e2486e',
    ('schemastore-catalog---claude-code-plugin-manifest.json', 'lax'): 'e39f977ff50c8ada9134',
    ('schemastore-catalog---claude-code-plugin-manifest.json', 'strict-pretty'): '7e2fb8834f90083d0b76',
    ('schemastore-catalog---cargo-make.json', 'lax'): '4cf34740da0fc26b72ec',
    ('schemastore-catalog---cargo-make.json', 'strict-pretty'): '969f919da246846712dd',
    ('cloudformation---AWS-CloudFront-Distribution.json', 'lax'): '488f41bf67aa8ed21b38',
    ('cloudformation---AWS-CloudFront-Distribution.json', 'strict-pretty'): '4b955711667dc8100300',
    ('schemastore-catalog---abc-supply-plan-14.0.0.json', 'lax'): 'b2dcc5383e20227eb43b',
    ('schemastore-catalog---abc-supply-plan-14.0.0.json', 'strict-pretty'): 'a0302252303dbb66d415',
    ('schemastore-catalog---asconfig-schema.json', 'lax'): '2c9d4d819b79b255cd77',
    ('schemastore-catalog---asconfig-schema.json', 'strict-pretty'): '63058ab38891b8c9f2a9',
    ('kubernetes---podlist-v1.json', 'lax'): '07c8cd2774569df281b4',
    ('kubernetes---podlist-v1.json', 'strict-pretty'): '85d34121ddf973763087',
    ('schemastore-catalog---detekt-1.22.0.json', 'lax'): '26613a9daeeea6e26b84',
    ('schemastore-catalog---detekt-1.22.0.json', 'strict-pretty'): '1c4d5c445dadadb9fbc9',
    ('kubernetes---horizontalpodautoscaler-autoscaling-v1.json', 'lax'): '8712096f9c16e46341cc',
    ('kubernetes---horizontalpodautoscaler-autoscaling-v1.json', 'strict-pretty'): '29326aa5784d54e50be8',
    ('schemastore---bamboo-spec.json', 'lax'): 'c388040c8e227a89cb81',
    ('schemastore---bamboo-spec.json', 'strict-pretty'): '69c1a2a8c6df0617170a',
    ('schemastore---taskfile.json', 'lax'): '0479ad4261baca4be636',
    ('schemastore---taskfile.json', 'strict-pretty'): '31bb106b8e68e836f3d5',
    ('schemastore---github-issue-forms.json', 'lax'): '38e516931868002ab720',
    ('schemastore---github-issue-forms.json', 'strict-pretty'): 'bb3d418bee58183e4868',
    ('cloudformation---AWS-CodeDeploy-DeploymentGroup.json', 'lax'): '05150f3db19f471927e8',
    ('cloudformation---AWS-CodeDeploy-DeploymentGroup.json', 'strict-pretty'): '10c7afbdae158adf74fc',
    ('from-text', 'lax'): '6ce5895d5913b851faf8',
    ('from-text', 'strict-pretty'): '95606067d41bcbaf7a86',
    ('prefix-contains', 'lax'): '3cb262ecf21df17d7328',
    ('prefix-contains', 'strict-pretty'): '6f686068731c28ad810c',
    ('unique-enum', 'lax'): '8a533a71ea851967640b',
    ('unique-enum', 'strict-pretty'): '86b615d16a91a8c01bc7',
    ('if-then-else', 'lax'): 'babd7b2bb0b99e4f742c',
    ('if-then-else', 'strict-pretty'): '7e6a358787fde8066911',
    ('one-of-cut', 'lax'): '54ff5bd0b8adf7a357c0',
    ('one-of-cut', 'strict-pretty'): '9b4d2c969a36caf6119e',
    ('dependent', 'lax'): '3e9dc1ae008a1997a28b',
    ('dependent', 'strict-pretty'): 'df8f0d7b57a4c2129c79',
}


@pytest.mark.parametrize("name,config", sorted(RECORDED), ids=[f"{n}-{c}" for n, c in sorted(RECORDED)])
def test_a_schema_compiles_to_the_recorded_ir_and_rules(name: str, config: str) -> None:
    assert outputs(schema_of(name), config) == RECORDED[name, config]


if __name__ == "__main__":  # re-record (a change meant to alter the output)
    for name in dict.fromkeys(n for n, _ in RECORDED):
        for config in CONFIGS:
            print(f"    ({name!r}, {config!r}): {outputs(schema_of(name), config)!r},")
