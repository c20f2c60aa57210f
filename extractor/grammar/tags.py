"""A structural tag, the format XGrammar reads and vLLM's `structural_tag` requests and tool calls send, read into a
`Grammar`: free text until a trigger, then the begin string, the tag's content (a JSON Schema's rules, a regex, a
GBNF grammar, or formats of these) and the end string. The forms read are XGrammar's, with its meaning:

- `triggered_tags` / `dispatch`: free text in which no trigger (and nothing in `excludes`) is written; where a
  trigger is written, a tag whose begin starts with it follows (its content, its end); then free text again, or
  nothing more with `stop_after_first`; with `at_least_one` the output opens with a tag. Inside a tag, free text
  never writes the tag's end (it ends the tag).
- `tags_with_separator`, `tag`, `sequence`, `or`, `optional`, `plus`, `star`, `repeat`, `const_string`,
  `any_text` (`excludes`, `max_chars`), `json_schema` (the "json" style), `regex`, `grammar` (GBNF).
- The legacy form `{"structures": [{"begin", "schema", "end"}], "triggers": [...]}`: triggered tags of schemas.

Token formats (`token`, `exclude_token`, `any_tokens`, `token_triggered_tags`, `token_dispatch`), XML styles of
JSON and `any_text`'s `max_tokens` are refused with `StructuralTagError` naming the form and where it is.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from extractor.errors import InvalidSchemaError, UnsupportedSchemaError
from extractor.grammar.compile import CompileOptions, Grammar, compile_grammar
from extractor.grammar.ebnf import GrammarSyntaxError, parse_ebnf
from extractor.grammar.layout import Layout
from extractor.lang.pattern import MAX_CP, MAX_REPEAT, PatternError, compile_whole, raw_chars
from extractor.lang.regex import (
    Alt, Counted, Minus, Node, Ref, Repeat, Seq, Suffix, alt, lit, opt, repeat, seq, star,
)
from extractor.schema import target_ir

MAX_DEPTH = 64
"""Formats nested deeper than this are refused (no Python recursion as deep as a request)."""

_FIELDS = {
    "const_string": {"value"}, "json_schema": {"json_schema", "style", "any_order", "max_whitespace_cnt", "excludes"},
    "any_text": {"excludes", "max_tokens", "max_chars"}, "grammar": {"grammar"}, "regex": {"pattern"},
    "sequence": {"elements"}, "or": {"elements"}, "tag": {"begin", "content", "end"},
    "triggered_tags": {"triggers", "tags", "at_least_one", "stop_after_first", "excludes"},
    "tags_with_separator": {"tags", "separator", "at_least_one", "stop_after_first"},
    "optional": {"content"}, "plus": {"content"}, "star": {"content"}, "repeat": {"min", "max", "content"},
    "dispatch": {"rules", "loop", "excludes"},
}
"""The formats read, each with the fields it may carry (besides `type`)."""
_METHODS = {"or": "either"}
"""A format whose name is a Python keyword, and the reader's method for it."""
_TOKEN_FORMATS = {"token", "exclude_token", "any_tokens", "token_triggered_tags", "token_dispatch"}
ANY = raw_chars(((0, MAX_CP),))
"""One character, as UTF-8."""


class StructuralTagError(ValueError):
    """A structural tag this reader refuses or cannot read, with the JSON pointer of the part at fault."""


def read_structural_tag(tag: str | dict[str, Any], options: CompileOptions = CompileOptions()) -> Grammar:
    """The tag's grammar; JSON contents are compiled with `options` (their layout among them)."""
    if isinstance(tag, str):
        try:
            tag = json.loads(tag)
        except (ValueError, RecursionError):
            raise StructuralTagError("a structural tag is a JSON object; this text is not JSON") from None
    if not isinstance(tag, dict):
        raise StructuralTagError(f"a structural tag is a JSON object, not {type(tag).__name__}")
    reader = _Reader(options)
    reader.rules["root"] = reader.format(*_modern(tag), ())
    return Grammar(rules=reader.rules, root="root", leaves=frozenset(reader.leaves), distinct=reader.distinct,
                   unique=reader.unique, max_states=options.max_states, timeout=options.timeout)


def _modern(tag: dict[str, Any]) -> tuple[Any, str]:
    """(the format, its pointer) of either form: `{"type": "structural_tag", "format": ...}` or the legacy one."""
    if tag.get("type", "structural_tag") != "structural_tag":
        raise StructuralTagError(f"/type: a structural tag's type is \"structural_tag\", not {tag['type']!r}")
    if "structures" in tag or "triggers" in tag:
        _fields(tag, {"type", "structures", "triggers"}, "")
        structures = _list(tag.get("structures"), "/structures", nonempty=True)
        tags = [{"type": "tag", "begin": _get(s, "begin", f"/structures/{i}"), "end": _get(s, "end", f"/structures/{i}"),
                 "content": {"type": "json_schema", "json_schema": _get(s, "schema", f"/structures/{i}")}}
                for i, s in enumerate(structures)]
        return {"type": "triggered_tags", "triggers": tag.get("triggers"), "tags": tags}, ""
    _fields(tag, {"type", "format"}, "")
    return _get(tag, "format", ""), "/format"


class _Reader:
    def __init__(self, options: CompileOptions) -> None:
        self.options = options
        self.rules: dict[str, Node] = {}
        self.leaves: set[str] = set()
        self.distinct: dict[str, str | None] = {}
        self.unique: dict[str, str] = {}

    def format(self, node: Any, at: str, stop: tuple[str, ...], depth: int = 0) -> Node:
        """A format's body; `stop`: the enclosing tag's ends, which its free text never writes."""
        if depth > MAX_DEPTH:
            raise StructuralTagError(f"{at}: formats nest more than {MAX_DEPTH} deep")
        kind = _get(node, "type", at) if isinstance(node, dict) else None
        if kind in _TOKEN_FORMATS or kind == "qwen_xml_parameter":
            raise StructuralTagError(f"{at}: the {kind!r} format is not supported by the extractor backend (token "
                                     "formats and XML parameters need vLLM's xgrammar backend)")
        if kind not in _FIELDS:
            raise StructuralTagError(f"{at}: a format is an object whose type is one of {sorted(_FIELDS)}, "
                                     f"not {kind!r}")
        _fields(node, _FIELDS[kind] | {"type"}, at)
        return getattr(self, _METHODS.get(kind, kind))(node, at, stop, depth + 1)

    def const_string(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        return lit(_text(_get(node, "value", at), f"{at}/value"))

    def json_schema(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        if node.get("style", "json") != "json":
            raise StructuralTagError(f"{at}/style: JSON contents are read in the 'json' style only, not "
                                     f"{node['style']!r} (XML styles need vLLM's xgrammar backend)")
        if node.get("any_order", False) is not False or node.get("excludes", []) != []:
            raise StructuralTagError(f"{at}: any_order and excludes of JSON contents are not supported")
        spaces, layout = node.get("max_whitespace_cnt"), Layout.named(self.options.layout)
        if spaces is not None and (not isinstance(spaces, int) or spaces < 1 or layout.indent is not None
                                   or layout.flexible is not None):  # a one-line layout writes single spaces
            raise StructuralTagError(f"{at}/max_whitespace_cnt: at least 1, under a one-line layout, is supported; "
                                     f"not {spaces!r}")
        try:
            schema = target_ir(_get(node, "json_schema", at), None)
        except (InvalidSchemaError, UnsupportedSchemaError) as exc:  # said where it is in the tag
            raise StructuralTagError(f"{at}/json_schema: {exc}") from exc
        return self.merged(compile_grammar(schema, self.options), "json")

    def grammar(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        try:
            return self.merged(parse_ebnf(_text(_get(node, "grammar", at), f"{at}/grammar")), "gbnf")
        except GrammarSyntaxError as exc:
            raise StructuralTagError(f"{at}/grammar: {exc}") from exc

    def regex(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        try:
            return self.rule("regex", compile_whole(_text(_get(node, "pattern", at), f"{at}/pattern")))
        except PatternError as exc:
            raise StructuralTagError(f"{at}/pattern: {exc}") from exc

    def any_text(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        if node.get("max_tokens") is not None:
            raise StructuralTagError(f"{at}/max_tokens: a bound in tokens is not supported (max_chars is)")
        most = node.get("max_chars")
        if most is not None and (not isinstance(most, int) or isinstance(most, bool) or not 0 <= most <= MAX_REPEAT):
            raise StructuralTagError(f"{at}/max_chars: a number of characters 0..{MAX_REPEAT}, not {most!r}")
        banned = _strings(node.get("excludes", []), f"{at}/excludes") + stop
        return self.rule("text", _without(star(ANY) if most is None else repeat(ANY, 0, most), banned))

    def sequence(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        items = _list(node.get("elements"), f"{at}/elements", nonempty=True)
        return seq(*(self.format(e, f"{at}/elements/{i}", stop, depth) for i, e in enumerate(items)))

    def either(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        items = _list(node.get("elements"), f"{at}/elements", nonempty=True)
        return alt(*(self.format(e, f"{at}/elements/{i}", stop, depth) for i, e in enumerate(items)))

    def tag(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        begin, content, end = self.parts(node, at, depth)
        return seq(lit(begin), content, end)

    def parts(self, node: Any, at: str, depth: int) -> tuple[str, Node, Node]:
        """A tag's begin string, its content (whose free text never writes an end) and its ends."""
        if not isinstance(node, dict) or node.get("type", "tag") != "tag":
            raise StructuralTagError(f"{at}: expected a tag format, not {node!r:.80}")
        _fields(node, _FIELDS["tag"] | {"type"}, at)
        begin, ends = _get(node, "begin", at), _get(node, "end", at)
        if isinstance(begin, dict) or isinstance(ends, dict):
            raise StructuralTagError(f"{at}: a token as a tag's begin or end is not supported by the extractor "
                                     "backend (it needs vLLM's xgrammar backend)")
        ends = _strings(ends, f"{at}/end", nonempty=True) if isinstance(ends, list) else (_text(ends, f"{at}/end"),)
        content = self.format(_get(node, "content", at), f"{at}/content", ends, depth)
        return _text(begin, f"{at}/begin"), content, alt(*map(lit, ends))

    def triggered_tags(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        triggers = _triggers(node.get("triggers"), f"{at}/triggers")
        tags = _list(node.get("tags"), f"{at}/tags", nonempty=True)
        groups: dict[str, list[Node]] = {t: [] for t in triggers}
        firsts = []
        for i, tag in enumerate(tags):
            begin, content, end = self.parts(tag, f"{at}/tags/{i}", depth)
            trigger = next((t for t in triggers if begin.startswith(t)), None)
            if trigger is None:
                raise StructuralTagError(f"{at}/tags/{i}/begin: {begin!r} starts with none of the triggers "
                                         f"{list(triggers)}")
            groups[trigger].append(seq(lit(begin[len(trigger):]), content, end))
            firsts.append(seq(lit(begin), content, end))
        once, first = _flag(node, "stop_after_first", at), _flag(node, "at_least_one", at)
        if first and once:
            return alt(*firsts)
        lead = [(t, alt(*groups[t])) for t in triggers if groups[t]]
        loop = self.dispatch_of(lead, not once, _strings(node.get("excludes", []), f"{at}/excludes") + stop)
        return seq(alt(*firsts), loop) if first else loop

    def dispatch(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        rules = _list(node.get("rules"), f"{at}/rules", nonempty=True)
        patterns = _triggers([r[0] if isinstance(r, list) and len(r) == 2 else None for r in rules], f"{at}/rules")
        lead = [(p, self.format(r[1], f"{at}/rules/{i}/1", stop, depth)) for i, (p, r) in enumerate(zip(patterns, rules))]
        return self.dispatch_of(lead, _flag(node, "loop", at, True),
                                _strings(node.get("excludes", []), f"{at}/excludes") + stop)

    def dispatch_of(self, groups: list[tuple[str, Node]], loop: bool, banned: tuple[str, ...]) -> Node:
        """Free text until one of the triggers, which the node paired with it follows (once, or again and again)."""
        triggers = tuple(t for t, _ in groups)
        tail = self.rule("text", _without(star(ANY), triggers + banned))
        steps = alt(*(seq(self.rule("lead", _first_at_end(t, triggers, banned)), then) for t, then in groups))
        return seq(star(steps), tail) if loop else alt(steps, tail)

    def tags_with_separator(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        tags = _list(node.get("tags"), f"{at}/tags", nonempty=True)
        one = alt(*(self.tag(t, f"{at}/tags/{i}", stop, depth) for i, t in enumerate(tags)))
        between = lit(_text(_get(node, "separator", at), f"{at}/separator"))
        some = one if _flag(node, "stop_after_first", at) else seq(one, star(seq(between, one)))
        return some if _flag(node, "at_least_one", at) else opt(some)

    def optional(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        return opt(self.format(_get(node, "content", at), f"{at}/content", stop, depth))

    def plus(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        return repeat(self.format(_get(node, "content", at), f"{at}/content", stop, depth), 1, None)

    def star(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        return star(self.format(_get(node, "content", at), f"{at}/content", stop, depth))

    def repeat(self, node: dict[str, Any], at: str, stop: tuple[str, ...], depth: int) -> Node:
        low, high = _get(node, "min", at), _get(node, "max", at)
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) or not (
                0 <= low <= MAX_REPEAT and (high == -1 or low <= high <= MAX_REPEAT)):
            raise StructuralTagError(f"{at}: repeat takes 0 <= min <= max <= {MAX_REPEAT} (max -1: unbounded), "
                                     f"not min={low!r} max={high!r}")
        body = self.format(_get(node, "content", at), f"{at}/content", stop, depth)
        return repeat(body, low, None if high == -1 else high)

    def rule(self, kind: str, body: Node) -> Ref:
        """`body` as a rule of its own (free text and regexes are whole rule bodies, as `Minus` must be)."""
        name = f"{kind}#{len(self.rules)}"
        self.rules[name] = body
        return Ref(name)

    def merged(self, grammar: Grammar, kind: str) -> Ref:
        """A grammar's rules taken in under names of their own; a call of its root."""
        prefix = f"{kind}#{len(self.rules)}/"
        names = {name: prefix + name for name in grammar.rules}
        for name, body in grammar.rules.items():
            self.rules[names[name]] = _renamed(body, names)
        self.leaves |= {names[n] for n in grammar.leaves}
        self.distinct.update((names[n], v) for n, v in grammar.distinct.items())
        self.unique.update((names[n], v) for n, v in grammar.unique.items())
        return Ref(names[grammar.root])


def _without(text: Node, banned: tuple[str, ...]) -> Node:
    """`text` in which none of `banned` is written."""
    return Minus(text, seq(star(ANY), alt(*map(lit, banned)), star(ANY))) if banned else text


def _first_at_end(trigger: str, triggers: tuple[str, ...], banned: tuple[str, ...]) -> Node:
    """Free text ending with `trigger` where it is the first trigger written and nothing banned is: XGrammar's
    dispatch, which takes the first trigger its text writes."""
    early = seq(star(ANY), alt(*map(lit, triggers)), ANY, star(ANY))
    return Minus(seq(star(ANY), lit(trigger)), alt(early, *(seq(star(ANY), lit(b), star(ANY)) for b in banned)))


def _renamed(body: Node, names: dict[str, str]) -> Node:
    """`body` with its calls renamed, without recursion; a node shared in it (the `Suffix` DAG) stays shared."""
    done: dict[int, Node] = {}
    work = [body]
    while work:
        node = work[-1]
        if id(node) in done:
            work.pop()
            continue
        parts = _parts(node)
        missing = [p for p in parts if id(p) not in done]
        if missing:
            work.extend(missing)
            continue
        work.pop()
        done[id(node)] = _rebuilt(node, [done[id(p)] for p in parts], names)
    return done[id(body)]


def _parts(node: Node) -> tuple[Node, ...]:
    if isinstance(node, (Seq, Alt)):
        return node.items
    if isinstance(node, (Repeat, Suffix)):
        return (node.item,)
    if isinstance(node, Counted):
        return (node.body,) if node.unit is None else (node.body, node.unit)
    return ()  # leaves, and bodies that call nothing (Minus, Both)


def _rebuilt(node: Node, parts: list[Node], names: dict[str, str]) -> Node:
    if isinstance(node, Ref):
        return Ref(names.get(node.rule, node.rule))
    if isinstance(node, Counted):
        callees = None if node.callees is None else frozenset(names.get(c, c) for c in node.callees)
        return replace(node, body=parts[0], unit=parts[1] if len(parts) > 1 else None, callees=callees)
    if all(a is b for a, b in zip(parts, _parts(node))):
        return node
    if isinstance(node, (Seq, Alt)):
        return type(node)(tuple(parts))
    if isinstance(node, Repeat):
        return Repeat(parts[0], node.min, node.max)
    return Suffix(parts[0])  # the only other kind with parts


def _triggers(value: Any, at: str) -> tuple[str, ...]:
    """Triggers (or dispatch patterns): non-empty strings, none written inside another (which would fire first)."""
    triggers = _strings(value, at, nonempty=True)
    for a in triggers:
        if any(a != b and a in b for b in triggers):
            raise StructuralTagError(f"{at}: triggers are non-empty and none is written inside another, "
                                     f"not {list(triggers)}")
    return triggers


def _strings(value: Any, at: str, nonempty: bool = False) -> tuple[str, ...]:
    items = _list(value, at, nonempty)
    return tuple(_text(v, f"{at}/{i}", nonempty=True) for i, v in enumerate(items))


def _text(value: Any, at: str, nonempty: bool = False) -> str:
    if not isinstance(value, str) or (nonempty and not value):
        raise StructuralTagError(f"{at}: expected a {'non-empty ' if nonempty else ''}string, not {value!r}")
    try:
        value.encode()
    except UnicodeEncodeError:
        raise StructuralTagError(f"{at}: a lone surrogate: UTF-8 cannot write it") from None
    return value


def _list(value: Any, at: str, nonempty: bool = False) -> list[Any]:
    if not isinstance(value, list) or (nonempty and not value):
        raise StructuralTagError(f"{at}: expected a {'non-empty ' if nonempty else ''}list, not {value!r}")
    return value


def _flag(node: dict[str, Any], name: str, at: str, default: bool = False) -> bool:
    value = node.get(name, default)
    if not isinstance(value, bool):
        raise StructuralTagError(f"{at}/{name}: expected true or false, not {value!r}")
    return value


def _get(node: Any, name: str, at: str) -> Any:
    if not isinstance(node, dict) or name not in node:
        raise StructuralTagError(f"{at}: expected an object with {name!r}, not {node!r:.80}")
    return node[name]


def _fields(node: dict[str, Any], known: set[str], at: str) -> None:
    unknown = sorted(set(node) - known)
    if unknown:
        raise StructuralTagError(f"{at}: unknown field(s) {unknown} (this form takes {sorted(known)})")
