"""A scripted OpenAI-compatible server on 127.0.0.1 for tests.

It speaks the real chat-completions wire format over HTTP, so the `openai` client and our
error handling run for real; what it answers is decided by a Python function the test
gives (`script(request) -> Reply`). Every request is recorded.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    delay_s: float = 0.0
    status: int = 200
    # first-token alternatives and their probabilities, sent as logprobs when asked for
    first_token: dict[str, float] = field(default_factory=dict)


Script = Callable[[dict[str, Any]], Reply | str]


def is_judge(request: dict[str, Any]) -> bool:
    return "Reply with one word: SUPPORTED or UNSUPPORTED" in request["messages"][-1]["content"]


class ScriptedLLM:
    def __init__(self, script: Script, model: str = "scripted-model") -> None:
        self.script = script
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def answers(self) -> list[dict[str, Any]]:
        """Requests that asked for an answer (not the judge)."""
        return [r for r in self.requests if not is_judge(r)]

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep pytest output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    return self._send(404, {"error": {"message": "not found"}})
                outer.requests.append(body)
                reply = outer.script(body)
                reply = Reply(reply) if isinstance(reply, str) else reply
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if reply.status != 200:
                    return self._send(reply.status, {"error": {"message": reply.text or "scripted error",
                                                               "type": "scripted"}})
                choice: dict[str, Any] = {"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": reply.text}}
                if body.get("logprobs") and reply.first_token:
                    alts = [{"token": t, "logprob": math.log(p), "bytes": None}
                            for t, p in sorted(reply.first_token.items(), key=lambda kv: -kv[1])]
                    choice["logprobs"] = {"content": [{**alts[0], "top_logprobs": alts}]}
                words = sum(len(m.get("content", "").split()) for m in body.get("messages", []))
                self._send(200, {"id": "cmpl-1", "object": "chat.completion", "created": int(time.time()),
                                 "model": outer.model, "choices": [choice],
                                 "usage": {"prompt_tokens": words, "completion_tokens": len(reply.text.split()),
                                           "total_tokens": words + len(reply.text.split())}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout tests)

        return Handler
