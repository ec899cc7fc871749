"""A local OpenAI-compatible chat-completions server for end-to-end tests (127.0.0.1 only).

The test gives it a responder ``(messages) -> str``; it records every exchange so the test can
recompute, with the critic, exactly what the framework under test should report.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, Any]]], str]


class OpenAIStub:
    def __init__(self, responder: Responder):
        self.responder = responder
        self.exchanges: list[tuple[list[dict[str, Any]], str]] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body, ensure_ascii=False).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model", "owned_by": "test"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                messages = payload.get("messages", [])
                answer = stub.responder(messages)
                with stub._lock:
                    stub.exchanges.append((messages, answer))
                n = max(1, int(payload.get("n", 1) or 1))
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(stub.exchanges)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": payload.get("model", "stub"),
                        "choices": [
                            {"index": i, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}
                            for i in range(n)
                        ],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                    },
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()
