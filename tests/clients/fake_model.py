"""A small fake model server on 127.0.0.1 for driving real AI clients in tests: it records every request and answers
the OpenAI Chat Completions and Responses APIs, Anthropic Messages and Gemini generateContent minimally (as SSE
where the client asks for a stream).

Script: while a request offers a tool whose name contains ``tool`` (``recall``: Claude Code calls it
``mcp__gitmem__recall``, opencode ``gitmem_recall``, ...) and the conversation holds no tool result yet, the answer
calls that tool once with ``tool_args``; every other answer is the text ``reply``. Requests that offer no tools
(titles, summaries, quota probes) get the text answer too.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None

    @property
    def api(self) -> str:
        path = urlsplit(self.path).path
        if path.endswith("/chat/completions"):
            return "chat"
        if path.endswith("/responses"):
            return "responses"
        if path.endswith("/messages"):
            return "anthropic"
        if ":generateContent" in path or ":streamGenerateContent" in path:
            return "gemini"
        return "other"

    def strings(self) -> list[str]:
        """Every string value in the body (what the model would read, and some metadata)."""
        out: list[str] = []
        stack = [self.body]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        return out

    def text(self) -> str:
        return "\n".join(self.strings())

    def tool_names(self) -> list[str]:
        return tool_names(self.body) if isinstance(self.body, dict) else []

    def has_tool_result(self) -> bool:
        return has_tool_result(self.api, self.body)

    def answered(self) -> list[str]:
        """The ids (or, for Gemini, the names) of the tool calls whose results the conversation holds."""
        return answered(self.api, self.body)


NAMESPACE = "::"
CUSTOM_INPUT = "__input__"  # tool_args {CUSTOM_INPUT: text}: a call of a freeform (custom) tool


def tool_names(body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):  # chat completions
            names.append(str(tool["function"].get("name", "")))
        elif tool.get("functionDeclarations") or tool.get("function_declarations"):  # gemini
            for declaration in (
                tool.get("functionDeclarations") or tool.get("function_declarations") or []
            ):
                names.append(str(declaration.get("name", "")))
        elif "name" in tool:  # anthropic, responses
            names.append(str(tool["name"]))
        for sub in (
            tool.get("tools") or []
        ):  # responses "namespace" tools (Codex's MCP servers): NAMESPACE::NAME
            if isinstance(sub, dict) and "name" in sub:
                names.append(f"{tool.get('name', '')}{NAMESPACE}{sub['name']}")
    return names


def answered(api: str, body: Any) -> list[str]:
    out: list[str] = []
    if not isinstance(body, dict):
        return out
    if api == "chat":
        for message in body.get("messages") or []:
            if isinstance(message, dict) and message.get("role") == "tool":
                out.append(str(message.get("tool_call_id", "")))
    elif api == "responses":
        for item in body.get("input") if isinstance(body.get("input"), list) else []:
            if isinstance(item, dict) and str(item.get("type", "")).endswith("_output"):
                out.append(str(item.get("call_id", "")))
    elif api == "anthropic":
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for part in content if isinstance(content, list) else []:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    out.append(str(part.get("tool_use_id", "")))
    elif api == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or [] if isinstance(content, dict) else []:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    out.append(str(response.get("id") or response.get("name", "")))
    return out


def has_tool_result(api: str, body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    if api == "chat":
        return any(
            m.get("role") == "tool" for m in body.get("messages") or [] if isinstance(m, dict)
        )
    if api == "responses":
        items = body.get("input") if isinstance(body.get("input"), list) else []
        return any(
            isinstance(i, dict) and str(i.get("type", "")).endswith("_output") for i in items
        )
    if api == "anthropic":
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list) and any(
                isinstance(c, dict) and c.get("type") == "tool_result" for c in content
            ):
                return True
        return False
    if api == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or [] if isinstance(content, dict) else []:
                if isinstance(part, dict) and (
                    "functionResponse" in part or "function_response" in part
                ):
                    return True
    return False


@dataclass
class FakeModel:
    reply: str = "Done."
    tool: str = "recall"
    tool_args: dict[str, Any] = field(default_factory=lambda: {"query": "package manager"})
    requests: list[Request] = field(default_factory=list)
    tool_calls: int = 0
    exact: bool = False  # the tool's name is ``tool`` itself (``Write``, not ``TodoWrite``)
    port: int = 0
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # model lists
                model._record(self, None)
                path = urlsplit(self.path).path
                if path.endswith("/models"):
                    ids = ["fake-model"]
                    self._json(
                        {
                            "object": "list",
                            "data": [{"id": i, "object": "model", "owned_by": "t"} for i in ids],
                        }
                    )
                else:
                    self._json({})

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else self._chunked()
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                request = model._record(self, body)
                answer = model._answer(request)
                stream = (
                    bool(isinstance(body, dict) and body.get("stream"))
                    or "streamGenerateContent" in self.path
                )
                if request.api == "responses":
                    stream = not isinstance(body, dict) or bool(body.get("stream", True))
                if request.api == "other":
                    self._json({})
                elif stream:
                    self._sse(list(_events(request.api, answer, body)))
                else:
                    self._json(_whole(request.api, answer, body))

            def _chunked(self) -> bytes:
                if "chunked" not in (self.headers.get("Transfer-Encoding") or ""):
                    return b""
                data = b""
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()

            def _json(self, data: Any) -> None:
                raw = json.dumps(data).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _sse(self, events: list[tuple[str | None, Any]]) -> None:
                chunks = []
                for name, data in events:
                    head = f"event: {name}\n" if name else ""
                    chunks.append(
                        f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
                    )
                raw = "".join(chunks).encode("utf-8")
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _record(self, handler: BaseHTTPRequestHandler, body: Any) -> Request:
        request = Request(
            handler.command, handler.path, {k.lower(): v for k, v in handler.headers.items()}, body
        )
        with self._lock:
            self.requests.append(request)
        return request

    def _answer(self, request: Request) -> tuple[str, str, dict[str, Any]] | str:
        """The tool call to make (name, call id, arguments), or the text to answer.

        Call ids name the tool (``call_recall_1``), so a later request shows which calls were answered. A client
        that offers a ``WaitForMcpServers`` tool instead of the MCP tools (Claude Code while the server is still
        starting) is asked to wait first, once."""
        names = request.tool_names()
        wanted = [
            name for name in names if (name == self.tool if self.exact else self.tool in name)
        ]
        answered = request.answered()
        if wanted and not any(self.tool in call for call in answered):
            return self._call(wanted[0], dict(self.tool_args))
        if (
            not wanted
            and "WaitForMcpServers" in names
            and not any("wait" in call for call in answered)
        ):
            return self._call("WaitForMcpServers", {})
        return self.reply

    def _call(self, name: str, args: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
        with self._lock:
            self.tool_calls += 1
            number = self.tool_calls
        short = "wait" if name == "WaitForMcpServers" else self.tool
        return (name, f"call_{short}_{number}", args)

    # -- what the model was sent ----------------------------------------------------------------------------------

    def model_requests(self) -> list[Request]:
        return [request for request in self.requests if request.api != "other"]

    def with_tools(self) -> list[Request]:
        """The requests of the agent's main loop (those that offer tools)."""
        return [request for request in self.model_requests() if request.tool_names()]


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _whole(api: str, answer: tuple[str, str, dict[str, Any]] | str, body: Any) -> dict[str, Any]:
    model = body.get("model", "fake-model") if isinstance(body, dict) else "fake-model"
    now = int(time.time())
    if api == "chat":
        if isinstance(answer, str):
            message: dict[str, Any] = {"role": "assistant", "content": answer}
            reason = "stop"
        else:
            name, call, args = answer
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
            reason = "tool_calls"
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": now,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": reason}],
            "usage": _usage(),
        }
    if api == "anthropic":
        if isinstance(answer, str):
            content: list[dict[str, Any]] = [{"type": "text", "text": answer}]
            stop = "end_turn"
        else:
            name, call, args = answer
            content = [{"type": "tool_use", "id": f"toolu_{call}", "name": name, "input": args}]
            stop = "tool_use"
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
    if api == "gemini":
        if isinstance(answer, str):
            part: dict[str, Any] = {"text": answer}
        else:
            part = {"functionCall": {"name": answer[0], "args": answer[2]}}
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "fake-model",
        }
    # responses
    return _response_object(answer, model, "completed")


def _response_item(answer: tuple[str, str, dict[str, Any]] | str) -> dict[str, Any]:
    if isinstance(answer, str):
        return {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": answer, "annotations": []}],
        }
    name, call, args = answer
    if set(args) == {CUSTOM_INPUT}:  # a freeform tool (Codex's apply_patch): its input is text
        item = {"type": "custom_tool_call", "id": f"ctc_{call}", "call_id": call, "name": name}
        return {**item, "input": args[CUSTOM_INPUT], "status": "completed"}
    item = {"type": "function_call", "id": f"fc_{call}", "call_id": call, "name": name}
    if (
        NAMESPACE in name
    ):  # a tool of a namespace is called by its own name, with the namespace beside it
        item["namespace"], item["name"] = name.split(NAMESPACE, 1)
    return {**item, "arguments": json.dumps(args), "status": "completed"}


def _response_object(
    answer: tuple[str, str, dict[str, Any]] | str, model: str, status: str
) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": model,
        "output": [_response_item(answer)] if status == "completed" else [],
        "usage": {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        },
    }


def _events(
    api: str, answer: tuple[str, str, dict[str, Any]] | str, body: Any
) -> Iterator[tuple[str | None, Any]]:
    model = body.get("model", "fake-model") if isinstance(body, dict) else "fake-model"
    if api == "chat":
        base = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }
        if isinstance(answer, str):
            delta: dict[str, Any] = {"role": "assistant", "content": answer}
            reason = "stop"
        else:
            name, call, args = answer
            delta = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": call,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
            reason = "tool_calls"
        yield None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
        yield (
            None,
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "finish_reason": reason}],
                "usage": _usage(),
            },
        )
        yield None, "[DONE]"
    elif api == "anthropic":
        whole = _whole(api, answer, body)
        start = {
            **whole,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }
        yield "message_start", {"type": "message_start", "message": start}
        block = whole["content"][0]
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {**block, "input": {}},
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": 0}
        yield (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        )
        yield "message_stop", {"type": "message_stop"}
    elif api == "gemini":
        yield None, _whole(api, answer, body)
    else:  # responses
        item = _response_item(answer)
        yield (
            "response.created",
            {
                "type": "response.created",
                "response": _response_object(answer, model, "in_progress"),
            },
        )
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": text,
                },
            )
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": item},
        )
        yield (
            "response.completed",
            {
                "type": "response.completed",
                "response": _response_object(answer, model, "completed"),
            },
        )
