"""The prompt: the model's chat template, the schema in the system message, the text as the user's."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from functools import lru_cache
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pydantic import BaseModel

from extractor.decode.describe import describe
from extractor.errors import Attempt, SchemaWarning
from extractor.grammar import Layout, LayoutName
from extractor.schema import NormalizeOptions, normalize

DEFAULT_SYSTEM = (
    "Extract information from the user's text as JSON with these fields:\n{schema}\n"
    "Copy values exactly as written in the text. {refusal}"
)
"""Default system message: `{schema}` is a field-per-line description (the target's docstring first),
`{title}` the target's name, `{refusal}` the refusal sentence where the refusal branch is on."""

REFUSAL = '(A text with no {title} in it gets an "error" key instead.)'
"""Said where the refusal branch is on. On the embedded 135M model any more prominent mention of the
refusal makes it refuse everything; whether to refuse is decided by the relevance screen (decode/relevance.py)."""

RETRY = "That JSON failed validation:\n{errors}\nReply with corrected JSON only."
"""Fed back after a failed semantic check; `{errors}` lists what failed."""

USER = "{text}"
"""The user's message: the document itself."""

FIRST_SYSTEM = "You extract information from texts as JSON."
"""The system message where the text comes first (fields asked apart): it names no field, so every question about
one text begins with the same tokens."""

FIRST_USER = ("{text}\n\nExtract the {title} from the text above as JSON with these fields:\n{schema}\n"
              "Copy values exactly as written in the text. {refusal}")
"""The user's message where the text comes first: the text, then the question about the fields asked (a shared
prefix of the text's questions ends where the question begins)."""

_FIELD = re.compile(r"\{(schema|title|refusal|errors|text)\}")


@dataclass(frozen=True, kw_only=True)
class PromptTemplate:
    """The words around the schema and the text; override to tune for a model. Only `{schema}`,
    `{title}`, `{refusal}`, `{text}` (in `user`) and `{errors}` (in `retry`) are filled in: other braces
    stay as written."""

    system: str = DEFAULT_SYSTEM
    user: str = USER
    refusal: str = REFUSAL
    retry: str = RETRY
    first_system: str = FIRST_SYSTEM
    """The system message where the text comes first (`fields="apart"`)."""
    first_user: str = FIRST_USER
    """The user's message where the text comes first: `{text}` then the question (`fields="apart"`)."""

    def text_first(self) -> PromptTemplate:
        """This template with the text before the question: what fields asked apart share as a prefix."""
        return replace(self, system=self.first_system, user=self.first_user)


class PromptOptions(Protocol):
    """What the prompt is made of besides the target and the text (`ExtractOptions` has these)."""

    examples: Sequence[tuple[str, Any]]
    system: str | None
    messages: Sequence[dict[str, str]] | None
    layout: Layout | LayoutName
    fields: str
    """"apart": the text comes first and the question after it (`PromptTemplate.text_first`)."""

    @property
    def refusal_model(self) -> type[BaseModel] | None: ...


def chat_prompt(tokenizer: Any, template: PromptTemplate, schema: Any, text: str, attempts: Sequence[Attempt],
                opts: PromptOptions) -> list[int]:
    """The chat prompt's token ids for a target's JSON Schema, with earlier failed attempts and their errors as turns
    of the conversation (shared by every decoding loop: this library's and a serving engine's)."""
    history = [(a.text, "\n".join(map(str, a.errors))) for a in attempts if not a.cut]  # a cut is no answer
    if opts.messages is not None:
        return encode(tokenizer, [*opts.messages, *retries(template, history)])
    layout = Layout.named(opts.layout)
    template = template.text_first() if opts.fields == "apart" else template
    shots = [(shown, layout.dumps(_plain(answer))) for shown, answer in opts.examples]
    return encode(tokenizer, messages(schema, text, template, history, examples=shots,
                                      refusal=opts.refusal_model is not None, system=opts.system))


def _plain(answer: Any) -> Any:
    """An example answer as JSON data: a Pydantic instance dumped in field order, anything else as is."""
    return answer.model_dump(mode="json") if isinstance(answer, BaseModel) else answer


def fill(template: str, **values: str) -> str:
    """`template` with its known `{name}` fields replaced; any other brace (JSON in an example) left alone."""
    return _FIELD.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def messages(schema: dict[str, Any], text: str, template: PromptTemplate,
             history: Sequence[tuple[str, str]] = (), *, examples: Sequence[tuple[str, str]] = (),
             refusal: bool = True, system: str | None = None) -> list[dict[str, str]]:
    """Chat messages: the system message, `examples` as earlier (text, JSON answer) turns, the text, and
    `history`'s (failed output, its errors) turns from earlier attempts."""
    title = str(schema.get("title", "record"))
    refusal_words = fill(template.refusal, title=title) if refusal else ""
    values = {"schema": _described(json.dumps(schema)), "title": title, "refusal": refusal_words}
    content = fill(template.system if system is None else system, **values).strip()
    out = [{"role": "system", "content": content}]
    for shown, answer in examples:
        out += [{"role": "user", "content": fill(template.user, text=shown, **values)},
                {"role": "assistant", "content": answer}]
    out.append({"role": "user", "content": fill(template.user, text=text, **values)})
    return out + retries(template, history)


@lru_cache(maxsize=64)
def _described(schema: str) -> str:
    """The schema (as JSON text) in words; its warnings were given when it was compiled."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        return describe(normalize(json.loads(schema), NormalizeOptions(strict_objects=False)))


def retries(template: PromptTemplate, history: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """Each failed attempt as the assistant's turn, its errors as the user's reply."""
    out = []
    for output, errors in history:
        out += [{"role": "assistant", "content": output},
                {"role": "user", "content": fill(template.retry, errors=errors)}]
    return out


def encode(tokenizer: Any, chat: list[dict[str, str]]) -> list[int]:
    """Token ids of the chat, through the model's chat template when it has one; the text of a message never
    becomes a control token (a document holding `<|im_end|>` must not end its own turn)."""
    specials = [s for s in getattr(tokenizer, "all_special_tokens", []) if s]
    if not any(s in m["content"] for m in chat for s in specials):
        return _tokens(tokenizer, _render(tokenizer, chat))
    # the template rendered around markers; the messages' own text tokenized apart, special tokens as plain text
    marks = [f"{_MARK}{i}{_MARK}" for i in range(len(chat))]
    rendered = _render(tokenizer, [{**m, "content": mark} for m, mark in zip(chat, marks)])
    ids: list[int] = []
    for k, piece in enumerate(re.split(f"{_MARK}(\\d+){_MARK}", rendered)):
        if k % 2 == 0:
            ids += _tokens(tokenizer, piece) if piece else []
        else:
            ids += list(tokenizer(chat[int(piece)]["content"], add_special_tokens=False,
                                  split_special_tokens=True)["input_ids"])
    return ids


_MARK = "\u2063extractor-message\u2063"
"""Stands for a message's text while the chat template is rendered (invisible separators: no document text
is expected to hold them, and a template's `trim` keeps them)."""


def _render(tokenizer: Any, chat: list[dict[str, str]]) -> str:
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in chat) + "\n\nassistant: "


def _tokens(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])
