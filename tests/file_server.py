"""The one test HTTP file server (official-data downloads): scripted replies, every request kept.

Chat completions have their own server, `agentsense.standin.stub`; this one serves bytes: good,
tampered, cut short (`Content-Length` larger than the body, or a chunk that ends early) or an error
status.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    body: bytes = b""
    status: int = 200
    # "normal", "short" (Content-Length larger than the body) or "chunked_cut" (chunk cut short)
    mode: str = "normal"


@dataclass
class FileServer:
    """Replies are served in order per path (None: any path); the last one repeats."""

    url: str = ""
    replies: dict[str | None, list[Reply]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve(self, *replies: Reply, path: str | None = None) -> None:
        self.replies[path] = list(replies)

    def next_reply(self, path: str) -> Reply | None:
        with self.lock:
            self.requests.append(path)
            queue = self.replies.get(path) or self.replies.get(None)
            if not queue:
                return None
            return queue.pop(0) if len(queue) > 1 else queue[0]


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        served: FileServer = self.server.served  # type: ignore[attr-defined]
        reply = served.next_reply(self.path)
        self.close_connection = True
        if reply is None:
            self.send_error(404)
        elif reply.mode == "chunked_cut":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            self.wfile.write(b"%x\r\n" % (len(reply.body) + 50) + reply.body)
        else:
            self.send_response(reply.status)
            extra = 100 if reply.mode == "short" else 0
            self.send_header("Content-Length", str(len(reply.body) + extra))
            self.end_headers()
            self.wfile.write(reply.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def file_server(prefix: str = "/mirror/") -> Iterator[FileServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    served = FileServer(url=f"http://127.0.0.1:{httpd.server_address[1]}{prefix}")
    httpd.served = served  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield served
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
