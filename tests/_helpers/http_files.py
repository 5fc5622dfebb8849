"""A loopback HTTP server that serves byte strings and counts the requests it gets.

``with serve({"/a.pth": data}, chunk_delay=0.05) as srv: srv.url("/a.pth"); srv.hits["/a.pth"]``.
``truncate_at`` makes the server announce the full length but close after that many bytes.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Served:
    port: int
    hits: Counter = field(default_factory=Counter)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@contextmanager
def serve(
    files: Mapping[str, bytes], *, chunk_delay: float = 0.0, chunks: int = 8, truncate_at: int | None = None
) -> Iterator[Served]:
    lock = threading.Lock()
    state = Served(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with lock:
                state.hits[self.path] += 1
            data = files.get(self.path)
            if data is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            body = data if truncate_at is None else data[:truncate_at]
            step = max(1, len(body) // chunks)
            for i in range(0, len(body), step):
                self.wfile.write(body[i : i + step])
                self.wfile.flush()
                if chunk_delay:
                    time.sleep(chunk_delay)
            if truncate_at is not None:
                self.close_connection = True

        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
