"""The prompt: the model's chat template, the schema in the system message, the text as the user's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extractor.decode.describe import describe

DEFAULT_SYSTEM = (
    "Extract information from the user's text as JSON with these fields:\n{schema}\n"
    "Copy values exactly as written in the text. "
    '(A text that has nothing to do with a {title} gets an "error" key instead.)'
)
"""Default system message: `{schema}` is a field-per-line description, `{title}` the target's name.
Chosen on the embedded 135M model: any more prominent mention of the refusal makes it refuse everything."""

RETRY = "That JSON failed validation:\n{errors}\nReply with corrected JSON only."
"""Fed back after a failed semantic check; `{errors}` lists what failed."""


@dataclass(frozen=True, kw_only=True)
class PromptTemplate:
    """The words around the schema and the text; override to tune for a model."""

    system: str = DEFAULT_SYSTEM
    retry: str = RETRY


def messages(schema: dict[str, Any], text: str, template: PromptTemplate,
             history: list[tuple[str, str]] = ()) -> list[dict[str, str]]:
    """Chat messages; `history` holds (failed output, its errors) from earlier attempts."""
    title = schema.get("title", "record")
    out = [{"role": "system", "content": template.system.format(schema=describe(schema), title=title)},
           {"role": "user", "content": text}]
    for output, errors in history:
        out += [{"role": "assistant", "content": output},
                {"role": "user", "content": template.retry.format(errors=errors)}]
    return out


def encode(tokenizer: Any, chat: list[dict[str, str]]) -> list[int]:
    """Token ids of the chat, through the model's chat template when it has one."""
    if getattr(tokenizer, "chat_template", None):
        text = tokenizer.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    else:
        text = "\n\n".join(f"{m['role']}: {m['content']}" for m in chat) + "\n\nassistant: "
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])
