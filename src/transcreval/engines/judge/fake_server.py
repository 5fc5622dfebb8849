"""A fake OpenAI-compatible chat endpoint on loopback, for tests, benchmarks and the demo.

It is **not a judge**: its answers are scripted by the caller or synthesised from the prompt
(:func:`synthetic_answer` fills the JSON the prompt asks for with values derived from a hash
of the request), so the numbers it produces mean nothing. It exists to exercise the plumbing
(retries, timeouts, refusals, truncation, caching) with no network and no credentials.

    with FakeOpenAIServer(latency=0.05) as server:
        server.script(FakeHTTPError(429, headers={"retry-after": "0.1"}), '{"score": 4}')
        judge = OpenAICompatibleJudge("fake-judge", base_url=server.base_url)

Run it as a process: ``python -m transcreval.engines.judge.fake_server --latency 0.05`` prints its
base URL on the first line of stdout and serves until killed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from transcreval.engines.judge.fake_answers import prompt_text, synthetic_answer

__all__ = [
    "FakeAnswer",
    "FakeDrop",
    "FakeHTTPError",
    "FakeHang",
    "FakeOpenAIServer",
    "FakeRaw",
    "prompt_text",
    "synthetic_answer",
]


@dataclass
class FakeAnswer:
    """A 200 chat completion. ``refusal`` fills ``message.refusal`` (OpenAI's refusal field);
    ``model`` reports this answer as served by that model (default: the server's ``model``)."""

    content: str | None
    finish_reason: str = "stop"
    refusal: str | None = None
    model: str | None = None


@dataclass
class FakeHTTPError:
    """An HTTP error status with an OpenAI-style error body and optional headers (retry-after)."""

    status: int
    message: str = "scripted error"
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeHang:
    """Accept the request and answer nothing for ``seconds`` (then drop the connection)."""

    seconds: float = 30.0


@dataclass
class FakeDrop:
    """Start a 200 answer (status line, headers, the first ``after`` bytes of the body), then drop
    the connection: a server or proxy that died mid-response."""

    content: str = '{"score": 3}'
    after: int = 20


@dataclass
class FakeRaw:
    """Any bytes as the response body (for malformed JSON and the like)."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"


Action = FakeAnswer | FakeHTTPError | FakeHang | FakeDrop | FakeRaw | str
Responder = Callable[[dict[str, Any]], Action]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


class FakeOpenAIServer:
    """A loopback ``/v1/chat/completions`` endpoint serving scripted or synthetic answers.

    Args:
        responder: ``fn(request_body) -> action`` used when the script is empty (default:
            :func:`synthetic_answer`). An action is a string (the answer text),
            :class:`FakeAnswer`, :class:`FakeHTTPError`, :class:`FakeHang`, :class:`FakeDrop` or
            :class:`FakeRaw`.
        latency: seconds each request takes before its answer, counted from the moment its
            request line and headers were read (the server's own parsing and logging fall
            inside it, as a real endpoint's processing falls inside its latency).
        model: the model name reported back (None: the name each request asked for, as a server
            that serves that model does; give another name to script a mismatch).
        log_path: append ``recv HASH`` when a request arrives and ``sent HASH UNIXTIME`` once its
            answer is written (HASH: the SHA-256 of the prompt text) to this file.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        model: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: str | None = None,
    ) -> None:
        self.responder = responder or synthetic_answer
        self.latency = latency
        self.model = model
        self.host, self.port = host, port
        self.log_path = log_path
        self.requests: list[dict[str, Any]] = []
        self.auth_headers: list[str] = []
        self.request_headers: list[dict[str, str]] = []  # every header of every chat request
        self.request_paths: list[str] = []  # the path and query string of every chat request
        self._script: deque[Action] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._n = 0
        self.in_flight = 0
        self._conns: set[Any] = set()
        self.max_in_flight = 0

    # ------------------------------------------------------------------ control
    def script(self, *actions: Action) -> None:
        """Queue actions, served one per request in order before the responder takes over."""
        with self._lock:
            self._script.extend(actions)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> FakeOpenAIServer:
        self._httpd = _Server((self.host, self.port), self._handler())
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        with self._lock:
            conns = list(self._conns)
        for c in conns:  # kept-alive connections would otherwise go on being served
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *_: Any) -> None:
        self.stop()

    # ------------------------------------------------------------------ serving
    def _next_action(self, body: dict[str, Any]) -> Action:
        with self._lock:
            self.requests.append(body)
            if self._script:
                return self._script.popleft()
        try:
            return self.responder(body)
        except Exception as e:  # a broken responder answers 500 instead of dropping the connection
            return FakeHTTPError(500, message=f"fake responder failed: {type(e).__name__}: {e}")

    def _log(self, line: str) -> None:
        if self.log_path:
            with self._lock, open(self.log_path, "a") as f:
                f.write(line + "\n")

    def _completion(self, a: FakeAnswer, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._n += 1
            n = self._n
        prompt = prompt_text(body)
        content = a.content or ""
        return {
            "id": f"chatcmpl-fake-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": a.model or (self.model if self.model is not None else str(body.get("model", "fake-judge"))),
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": a.content, "refusal": a.refusal},
                    "finish_reason": a.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": len(prompt) // 4 + 1,
                "completion_tokens": len(content) // 4 + 1,
                "total_tokens": (len(prompt) + len(content)) // 4 + 2,
            },
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def setup(self) -> None:
                super().setup()
                with server._lock:
                    server._conns.add(self.connection)

            def finish(self) -> None:
                with server._lock:
                    server._conns.discard(self.connection)
                with contextlib.suppress(OSError):
                    super().finish()

            def _leave(self) -> None:
                # A request stops counting as in flight the moment its reply starts to go out: the
                # client may send its next request before this handler thread runs again, so
                # decrementing after the write would count one request twice.
                if getattr(self, "_counted", False):
                    self._counted = False
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, payload: bytes, ctype: str = "application/json", headers: Any = None) -> None:
                self._leave()
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    listed = server.model or "fake-judge"
                    self._send(200, json.dumps({"object": "list", "data": [{"id": listed}]}).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.partition("?")[0].rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "unknown route"}}')
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, b'{"error": {"message": "invalid JSON body"}}')
                    return
                with server._lock:
                    server.auth_headers.append(self.headers.get("Authorization", ""))
                    server.request_headers.append(dict(self.headers.items()))
                    server.request_paths.append(self.path)
                digest = hashlib.sha256(prompt_text(body).encode()).hexdigest()
                server._log(f"recv {digest}")
                action = server._next_action(body)
                with server._lock:
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                self._counted = True
                try:
                    left = server.latency - (time.monotonic() - arrived)
                    if left > 0:
                        time.sleep(left)
                    self._act(action, body)
                    server._log(f"sent {digest} {time.time():.6f}")
                finally:
                    self._leave()

            def _act(self, action: Action, body: dict[str, Any]) -> None:
                try:
                    if isinstance(action, str):
                        action = FakeAnswer(action)
                    if isinstance(action, FakeAnswer):
                        self._send(200, json.dumps(server._completion(action, body)).encode())
                    elif isinstance(action, FakeHTTPError):
                        err = {"error": {"message": action.message, "type": "fake", "code": action.code}}
                        self._send(action.status, json.dumps(err).encode(), headers=action.headers)
                    elif isinstance(action, FakeHang):
                        server._stop.wait(action.seconds)
                        self.close_connection = True
                    elif isinstance(action, FakeRaw):
                        self._send(action.status, action.body, ctype=action.content_type)
                    elif isinstance(action, FakeDrop):
                        payload = json.dumps(server._completion(FakeAnswer(action.content), body)).encode()
                        self._leave()
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload[: action.after])
                        self.wfile.flush()
                        with contextlib.suppress(OSError):
                            self.connection.shutdown(socket.SHUT_RDWR)
                        self.close_connection = True
                    else:  # pragma: no cover - a test bug
                        raise TypeError(f"unknown fake action {action!r}")
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

        return Handler


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="a fake OpenAI-compatible endpoint (synthetic answers; not a judge)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--latency", type=float, default=0.0)
    p.add_argument("--model", default=None, help="the model name reported back (default: the one asked for)")
    p.add_argument("--log", default=None, help="log 'recv HASH' and 'sent HASH TIME' lines per request to this file")
    args = p.parse_args(argv)
    server = FakeOpenAIServer(latency=args.latency, model=args.model, host=args.host, port=args.port, log_path=args.log)
    server.start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
