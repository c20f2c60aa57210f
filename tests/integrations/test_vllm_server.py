"""vLLM's OpenAI-compatible server with the extractor backend (EXTRACTOR_VLLM=1): a `response_format` JSON
Schema is answered under our grammar, with the options of its "x-extractor" key, and a schema we cannot enforce
is a 400 naming the keyword; structural tags and tool calls (the hermes parser) are answered valid."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it in .venv-vllm")
jsonschema = pytest.importorskip("jsonschema")

from extractor.integrations.vllm import with_options  # noqa: E402

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
          "required": ["name", "age"], "additionalProperties": False}
STARTUP_S = 300
TOOL_FLAGS = "--enable-auto-tool-choice --tool-call-parser hermes"
"""What docs/vllm.md adds to the command for tool calls: the parser of the model's tool-call format."""


def documented_command() -> str:
    """The server command docs/vllm.md gives for the embedded model on a CPU machine, as written there."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "vllm.md").read_text()
    block = re.search(r"```bash\n# serve the embedded model on a CPU machine\n(.*?)```", text, re.S)
    assert block, "docs/vllm.md no longer shows the CPU server command"
    return block.group(1).strip()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The server, started by docs/vllm.md's own command (its `python` and `extractor` this environment's)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for name in ("EXTRACTOR_VLLM", "VLLM_CPU_KVCACHE_SPACE", "VLLM_CPU_OMP_THREADS_BIND",
                 "VLLM_ENABLE_V1_MULTIPROCESSING"):
        env.pop(name, None)  # the command sets what it needs
    proc = subprocess.Popen(["bash", "-c", f"{documented_command()} {TOOL_FLAGS} --port {port}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            try:
                urllib.request.urlopen(f"{url}/health", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the vLLM server did not start from docs/vllm.md's command (exit code {proc.poll()})")
                time.sleep(2)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


RECIPE = ("Fluffy pancakes. Whisk 2 eggs with 300 ml of milk, stir in 200 g of flour and a pinch of salt, rest "
          "the batter for ten minutes, then fry ladlefuls in a hot buttered pan until golden on both sides.")


def _chat(url: str, schema: dict | None, text: str = "Extract the person: Bob Smith is 42.",
          **fields: object) -> tuple[int, dict]:
    body = {"model": "smol", "max_tokens": 80, "temperature": 0, "messages": [{"role": "user", "content": text}],
            **fields}
    if schema is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": "person", "schema": schema}}
    return _post(f"{url}/v1/chat/completions", body)


def _post(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=600) as reply:  # a shared CPU machine can be slow
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_a_response_format_schema_is_answered_under_our_grammar_and_layout(server: str) -> None:
    status, reply = _chat(server, with_options(PERSON, layout="pretty"))
    content = reply["choices"][0]["message"]["content"]
    assert status == 200 and content.startswith("{\n  \"name\": ")  # the pretty layout: only our grammar writes it
    jsonschema.validate(json.loads(content), PERSON)


def test_a_schema_we_cannot_enforce_is_a_400_naming_the_keyword(server: str) -> None:
    status, reply = _chat(server, {"type": "string", "contentSchema": {"type": "object"}})
    assert status == 400 and "contentSchema" in reply["error"]["message"]


def test_a_text_without_an_answer_is_refused_saying_why_as_extract_refuses_it(server: str) -> None:
    """The refusal decision runs on the server route too: the recipe is screened out before anything is decoded,
    and the refusal says why (not a made-up person, not the prompt's hint copied)."""
    status, reply = _chat(server, with_options({**PERSON, "title": "Person"}, refusal=True), RECIPE)
    content = json.loads(reply["choices"][0]["message"]["content"])
    assert status == 200 and set(content) == {"error"}
    assert content["error"].startswith("no Person in the text: it does not read as one (relevance -")
    assert reply["usage"]["completion_tokens"] == 0


def test_the_decision_can_be_turned_off_per_request(server: str) -> None:
    schema = with_options({**PERSON, "title": "Person"}, refusal=True, min_relevance=None)
    status, reply = _chat(server, schema, RECIPE)
    content = json.loads(reply["choices"][0]["message"]["content"])
    assert status == 200 and not content.get("error", "").startswith("no Person in the text")


WEATHER = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 24},
                                            "unit": {"enum": ["celsius", "fahrenheit"]}},
           "required": ["city", "unit"], "additionalProperties": False}
TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "The weather in a city",
                                           "parameters": WEATHER, "strict": True}}]


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "get_weather"}}],
                         ids=["required", "named"])
def test_a_tool_call_is_written_under_the_tools_schema(server: str, choice: object) -> None:
    """vLLM's hermes parser sends its structural tag (one call: `parallel_tool_calls` false); the call comes back
    parsed, its arguments valid under the tool's schema."""
    status, reply = _chat(server, None, "What is the weather in Paris, in celsius?", max_tokens=120, tools=TOOLS,
                          tool_choice=choice, parallel_tool_calls=False)
    calls = reply["choices"][0]["message"]["tool_calls"]
    assert status == 200 and len(calls) == 1 and calls[0]["function"]["name"] == "get_weather"
    jsonschema.validate(json.loads(calls[0]["function"]["arguments"]), WEATHER)


def test_auto_tool_choice_gives_text_or_a_valid_call(server: str) -> None:
    status, reply = _chat(server, None, "What is the weather in Oslo?", max_tokens=120, tools=TOOLS,
                          tool_choice="auto", parallel_tool_calls=False)
    message = reply["choices"][0]["message"]
    assert status == 200 and (message["content"] or message.get("tool_calls"))
    for call in message.get("tool_calls") or []:
        jsonschema.validate(json.loads(call["function"]["arguments"]), WEATHER)


def test_a_structural_tag_request_is_answered_in_its_tags(server: str) -> None:
    tag = {"type": "structural_tag", "format": {"type": "sequence", "elements": [
        {"type": "const_string", "value": "Person: "},
        {"type": "tag", "begin": "<json>", "content": {"type": "json_schema", "json_schema": PERSON}, "end": "</json>"}]}}
    status, reply = _chat(server, None, max_tokens=80, response_format=tag)
    content = reply["choices"][0]["message"]["content"]
    assert status == 200 and content.startswith("Person: <json>") and content.endswith("</json>")
    jsonschema.validate(json.loads(content[len("Person: <json>"):-len("</json>")]), PERSON)


def test_a_structural_tag_we_do_not_read_is_a_400_naming_the_form(server: str) -> None:
    tag = {"type": "structural_tag", "format": {"type": "json_schema", "json_schema": PERSON, "style": "qwen_xml"}}
    status, reply = _chat(server, None, response_format=tag)
    assert status == 400 and "qwen_xml" in reply["error"]["message"]
