"""The refusal decision on vLLM's OpenAI-compatible server, as `extract` makes it: a chat request whose
`response_format` schema asks for the refusal branch (`"x-extractor": {"refusal": true}`) has its last user message
screened first (the relevance screen, read off the engine's prompt log-probabilities). Below `min_relevance`, or
of low relevance and writing no kind of value the schema asks for (`require_values`), the reply is a refusal
saying why, and nothing is decoded; otherwise the target alone is decoded, and an answer of
doubtful relevance whose identifying values the message holds nowhere is replaced by a refusal saying so. A
streamed request gets the screen's choice of schema only (a streamed answer cannot be taken back)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from extractor.decode.relevance import KINDS, SCREEN_TOKENS, announcements, combine
from extractor.pipeline.grounding import key, schema_ir
from extractor.integrations.vllm.spec import OPTIONS_KEY, Spec, with_options
from extractor.pipeline.calibration import DOUBTFUL
from extractor.pipeline.refusing import Screened, before_decoding, declines, title
from extractor.tracing import trace


def patch(serving: Any) -> None:
    """Wrap `OpenAIServingChat.create_chat_completion` (once)."""
    original = serving.create_chat_completion
    if getattr(original, "_extractor", False):
        return

    async def create_chat_completion(self: Any, request: Any, raw_request: Any = None) -> Any:
        plan = _plan(request)
        text = _user_text(request) if plan is not None else ""
        low = plan[1].min_relevance if plan is not None else None
        if plan is None or low is None or not text.strip():  # no screen: both branches, the model chooses
            return await original(self, request, raw_request)
        schema, spec = plan
        screen = await _screen(self, schema, text)
        reason = before_decoding(screen, schema, text, low, spec.require_values)
        refused = reason is not None
        if refused and not request.stream:
            return _reply(request, {"error": reason})
        chosen = _with_schema(request, _decline_schema(spec) if refused else with_options(
            schema, refusal=False, layout=spec.layout, guards=spec.guards))
        response = await original(self, chosen, raw_request)
        share = spec.max_unfounded
        if refused or request.stream or not hasattr(response, "choices") or screen.score >= DOUBTFUL:
            return response
        message = response.choices[0].message
        try:
            value = json.loads(message.content or "")
        except ValueError:
            return response
        reason = declines(screen, trace(value, text, schema), schema_ir(key(schema)), share)
        if reason is not None:
            message.content = json.dumps({"error": reason}, ensure_ascii=False)
        return response

    create_chat_completion._extractor = True  # type: ignore[attr-defined]
    serving.create_chat_completion = create_chat_completion


def _plan(request: Any) -> tuple[dict[str, Any], Spec] | None:
    """(the target's schema, its options) where the request asks for the refusal branch."""
    fmt = getattr(request, "response_format", None)
    if fmt is None or getattr(fmt, "type", None) != "json_schema" or fmt.json_schema is None:
        return None
    raw = fmt.json_schema.json_schema
    options = raw.get(OPTIONS_KEY) if isinstance(raw, dict) else None
    if not isinstance(options, dict) or not options.get("refusal"):
        return None
    spec = Spec.parse("JSON", raw)
    return spec.schema if isinstance(spec.schema, dict) else {}, spec


def _user_text(request: Any) -> str:
    """The last user message's text: the document the answer must come from."""
    for message in reversed(request.messages):
        role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
        if role != "user":
            continue
        content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
        if isinstance(content, str):
            return content
        parts = content or []
        return "\n".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text")
    return ""


async def _screen(serving: Any, schema: dict[str, Any], text: str) -> Screened:
    """The relevance screen (decode/relevance.py) read off the engine: one prompt-log-probability request per
    announcement, all at once."""
    tokenizer = serving.renderer.tokenizer
    said = [tokenizer(p, add_special_tokens=False)["input_ids"] for p in announcements(schema)]
    body = tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"][:SCREEN_TOKENS]
    rows = await asyncio.gather(*(_likelihood(serving.engine_client, p, body) for p in said))
    kind = KINDS[max(range(len(KINDS)), key=lambda k: rows[3 + k])]
    return Screened(combine(list(rows), tokens=len(body)), title(schema), kind)


async def _likelihood(engine: Any, prefix: list[int], body: list[int]) -> float:
    """log p(body | prefix) from the engine's prompt log-probabilities."""
    from vllm import SamplingParams
    from vllm.inputs import TokensPrompt
    from vllm.utils import random_uuid

    final = None
    async for out in engine.generate(TokensPrompt(prompt_token_ids=prefix + body),
                                     SamplingParams(max_tokens=1, prompt_logprobs=0),
                                     f"extractor-screen-{random_uuid()}"):
        final = out
    logprobs = final.prompt_logprobs
    return sum(logprobs[len(prefix) + k][token].logprob for k, token in enumerate(body))


def _decline_schema(spec: Spec) -> dict[str, Any]:
    """The refusal object alone, for a streamed request the screen refused."""
    from extractor.schema import Refusal

    return with_options(Refusal.model_json_schema(), layout=spec.layout, guards=spec.guards)


def _with_schema(request: Any, schema: dict[str, Any]) -> Any:
    """The request with another response_format schema."""
    chosen = request.model_copy(deep=True)
    chosen.response_format.json_schema.json_schema = schema
    return chosen


def _reply(request: Any, content: dict[str, Any]) -> Any:
    """A chat completion saying `content`, without decoding anything."""
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionResponse, ChatCompletionResponseChoice, ChatMessage,
    )
    from vllm.entrypoints.serve.engine.protocol import UsageInfo

    message = ChatMessage(role="assistant", content=json.dumps(content, ensure_ascii=False))
    return ChatCompletionResponse(model=request.model or "", usage=UsageInfo(),
                                  choices=[ChatCompletionResponseChoice(index=0, message=message)])
