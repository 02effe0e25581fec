"""A local OpenAI-compatible server whose replies come from a deterministic rule.

It speaks just enough of the OpenAI / vLLM HTTP API for Inspect's `vllm/` and `openai-api/`
providers: `GET /v1/models`, `GET /health` and non-streaming `POST /v1/chat/completions`
returning `choices` and `usage`. Replies depend only on the request (`agentsense.standin.rules`),
latency and faults only on a seed and the request body (`faults.py`), so runs are reproducible.
Every request lands in an in-memory log (and optionally a JSONL file) that tests read.

    with StubServer(rule="persona", faults=Faults(error_500=0.2)) as stub:
        os.environ["VLLM_BASE_URL"] = stub.base_url
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal, TextIO, get_args

from agentsense.standin.rules import RULES, Request, Rule, rule_for
from agentsense.standin.stub.faults import Faults, Latency, Outcome, uniform

# "auto" picks by model name: `parity/<name>` -> parity rule as <name>, anything else -> persona.
RuleSpec = str | Rule
CHAT_PATH = "/v1/chat/completions"
MODELS_PATH = "/v1/models"
MAX_MODEL_LEN = 32768
# What a reply says of its tokens: "counts" (estimated), or as some OpenAI-compatible servers do:
# "zero" (every count 0), "no-total" (prompt and completion counted, total_tokens 0), "none" (no
# `usage` field at all).
UsageMode = Literal["counts", "zero", "no-total", "none"]
USAGE_MODES: tuple[str, ...] = get_args(UsageMode)
# Only the start of a malformed reply is sent: valid HTTP, broken JSON.
MALFORMED_BODY = (
    b'{"id": "chatcmpl-stub", "object": "chat.completion", "choices": [{"index": 0, "mess'
)


@dataclass
class RequestRecord:
    """One HTTP request as the stub saw it; `reply` is set only for a successful completion."""

    index: int
    started: float  # seconds since the server started
    method: str
    path: str
    model: str | None = None
    messages: list[dict[str, str]] = field(default_factory=list)
    temperature: float | None = None
    max_tokens: int | None = None
    params: dict[str, Any] = field(default_factory=dict)  # every other body field
    attempt: int = 0  # how many times this exact body was sent before
    outcome: str = "ok"  # an `Outcome`, or bad_request / not_found / incomplete
    status: int | None = None  # None: no HTTP reply (hang, drop)
    reply: str | None = None
    duration: float | None = None  # until the reply was sent (or the request ended); None before

    @property
    def is_chat(self) -> bool:
        return self.method == "POST" and self.path == CHAT_PATH

    @property
    def system(self) -> str:
        first = self.messages[0] if self.messages else {}
        return first.get("content", "") if first.get("role") == "system" else ""

    @property
    def last(self) -> str:
        return self.messages[-1].get("content", "") if self.messages else ""

    @property
    def body_key(self) -> str:
        """What makes two requests the same call (model, messages, sampling parameters)."""
        return json.dumps([self.model, self.messages, self.params], sort_keys=True)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def message_text(content: Any) -> str:
    """Message content as text: a string, or the text parts of a content list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def resolve_rule(spec: RuleSpec, model: str) -> tuple[Rule, str]:
    """The rule for a request and the name it sees (see `RuleSpec`)."""
    if callable(spec):
        return spec, model
    if spec == "auto":
        return rule_for(model)
    return RULES[spec], model


def completion_body(
    index: int, model: str, reply: str, prompt_chars: int, usage: UsageMode = "counts"
) -> dict[str, Any]:
    # Rough token counts (4 characters a token), as the in-process stand-in reports them.
    prompt_tokens, completion_tokens = prompt_chars // 4 + 1, len(reply) // 4 + 1
    if usage == "zero":
        prompt_tokens = completion_tokens = 0
    total = 0 if usage in ("zero", "no-total") else prompt_tokens + completion_tokens
    body: dict[str, Any] = {
        "id": f"chatcmpl-stub-{index}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": total,
        },
    }
    if usage == "none":
        del body["usage"]
    return body


def error_body(status: int, message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": status}}


class StubServer:
    """The stub: start it (or use it as a context manager), point a provider at `base_url`."""

    def __init__(
        self,
        rule: RuleSpec = "auto",
        latency: Latency | str | float = 0.0,
        faults: Faults | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: str | Path | None = None,
        models: Sequence[str] = (),
        verbose: bool = False,
        usage: UsageMode = "counts",
    ) -> None:
        if isinstance(rule, str) and rule != "auto" and rule not in RULES:
            raise ValueError(f"unknown rule {rule!r}: use auto, {', '.join(RULES)} or a callable")
        if usage not in USAGE_MODES:
            raise ValueError(f"unknown usage {usage!r}: use {', '.join(USAGE_MODES)}")
        self.rule = rule
        self.usage = usage
        self.latency = latency if isinstance(latency, Latency) else Latency.parse(latency)
        self.faults = faults or Faults()
        self.models = list(models)
        self.verbose = verbose
        self._address = (host, port)
        self._log_path = Path(log_path) if log_path else None
        self._log_file: TextIO | None = None
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)  # notified when a request finishes
        self._in_flight = 0
        self._records: list[RequestRecord] = []
        self._attempts: Counter[bytes] = Counter()
        self._connections: set[socket.socket] = set()
        self.stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._t0 = time.monotonic()

    # -- lifecycle -----------------------------------------------------------

    def start(self) -> StubServer:
        if self._log_path is not None:
            self._log_file = self._log_path.open("a", encoding="utf-8")
        self._httpd = _HTTPServer(self._address, _Handler, self)
        self._t0 = time.monotonic()
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"agentsense-stub-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hung and sleeping requests are released, open connections closed."""
        httpd = self._httpd
        if httpd is None:
            return
        self.stopping.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):  # already closed by its handler
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        with self._lock:
            # Released requests finish within moments; wait so their log lines are written.
            self._idle.wait_for(lambda: self._in_flight == 0, timeout=5)
            if self._log_file is not None:
                self._log_file.close()
                self._log_file = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the stub server is not running")
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://{self._address[0]}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (with `/v1`), as `VLLM_BASE_URL` wants it."""
        return f"{self.root_url}/v1"

    def now(self) -> float:
        """Seconds since the server started: the clock of `RequestRecord.started`."""
        return time.monotonic() - self._t0

    # -- request log ---------------------------------------------------------

    @property
    def records(self) -> list[RequestRecord]:
        with self._lock:
            return list(self._records)

    def chat_records(
        self, outcome: str | None = None, model: str | None = None
    ) -> list[RequestRecord]:
        """Chat-completion requests, optionally only those with an outcome or a model."""
        return [
            r
            for r in self.records
            if r.is_chat
            and (outcome is None or r.outcome == outcome)
            and (model is None or r.model == model)
        ]

    def paid_twice(self) -> int:
        """Successful replies to a request body that had already been answered successfully."""
        ok = [record.body_key for record in self.chat_records(outcome="ok")]
        return len(ok) - len(set(ok))

    def outcomes(self) -> Counter[str]:
        """How many chat requests ended in each outcome."""
        return Counter(r.outcome for r in self.chat_records())

    def clear(self) -> None:
        """Forget the log and the attempt counters (a fresh run sees fresh fault draws)."""
        with self._lock:
            self._records.clear()
            self._attempts.clear()

    def _new_record(self, method: str, path: str) -> RequestRecord:
        with self._lock:
            record = RequestRecord(len(self._records), self.now(), method, path)
            self._records.append(record)
            self._in_flight += 1
            return record

    def _next_attempt(self, key: bytes) -> int:
        with self._lock:
            attempt = self._attempts[key]
            self._attempts[key] += 1
            return attempt

    def _finish(self, record: RequestRecord) -> None:
        with self._lock:
            if record.duration is None:  # no reply was sent (hang, drop, incomplete)
                record.duration = self.now() - record.started
            if self._log_file is not None:
                self._log_file.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
                self._log_file.flush()
            self._in_flight -= 1
            self._idle.notify_all()

    def _track(self, conn: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    # -- replies -------------------------------------------------------------

    def reply_for(self, model: str, messages: Sequence[tuple[str, str]]) -> str:
        rule, name = resolve_rule(self.rule, model)
        return rule(Request(name, list(messages)))

    def delay(self, key: bytes, attempt: int) -> float:
        u = uniform(self.faults.seed, "latency", key, attempt)
        v = uniform(self.faults.seed, "latency-2", key, attempt)
        return self.latency.seconds(u, v)

    def seen_models(self) -> list[str]:
        seen = {r.model for r in self.chat_records() if r.model}
        return [*self.models, *sorted(seen - set(self.models))]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True  # a hung handler never blocks shutdown
    allow_reuse_address = True
    request_queue_size = 512  # the default 5 resets connections when a client opens 100 at once

    def __init__(self, address: tuple[str, int], handler: type[_Handler], stub: StubServer) -> None:
        self.stub = stub
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hang up on hung requests (attempt timeouts): that is expected, not an error.
        if self.stub.verbose:
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like a real server
    disable_nagle_algorithm = True  # headers and body go out at once, no delayed-ACK stall
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.stub._track(self.connection, True)

    def finish(self) -> None:
        self.server.stub._track(self.connection, False)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.stub.verbose:
            super().log_message(format, *args)

    # -- routes --------------------------------------------------------------

    def do_GET(self) -> None:
        stub = self.server.stub
        record = stub._new_record("GET", self.path)
        try:
            self._get(stub, record)
        finally:
            stub._finish(record)

    def _get(self, stub: StubServer, record: RequestRecord) -> None:
        path = self.path.rstrip("/")
        if path == MODELS_PATH:
            data = [
                {
                    "id": m,
                    "object": "model",
                    "owned_by": "agentsense-stub",
                    "max_model_len": MAX_MODEL_LEN,
                }
                for m in stub.seen_models()
            ]
            self._send_json(200, {"object": "list", "data": data}, record)
        elif path in ("/health", "/v1/health"):
            self._send_json(200, {"status": "ok"}, record)
        else:
            record.outcome = "not_found"
            self._send_json(404, error_body(404, f"no route {self.path}", "NotFoundError"), record)

    def do_POST(self) -> None:
        stub = self.server.stub
        record = stub._new_record("POST", self.path)
        try:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = self.rfile.read(length)
            except OSError:
                body = b""  # the client hung up mid-request
            if len(body) < length:
                # The client gave up while sending (e.g. its attempt timed out): nobody to answer.
                record.outcome = "incomplete"
                self.close_connection = True
                return
            self._chat(stub, record, body)
        finally:
            stub._finish(record)

    def _chat(self, stub: StubServer, record: RequestRecord, body: bytes) -> None:
        if self.path.rstrip("/") != CHAT_PATH:
            record.outcome = "not_found"
            self._send_json(404, error_body(404, f"no route {self.path}", "NotFoundError"), record)
            return
        request = self._parse(body, record)
        if request is None:
            return
        key = json.dumps(request, sort_keys=True).encode()
        record.attempt = stub._next_attempt(key)
        outcome = stub.faults.decide(key, record.attempt)
        record.outcome = outcome
        if outcome == "hang":
            # Released at shutdown; the client has usually given up (attempt timeout) by then.
            stub.stopping.wait(stub.faults.hang_seconds)
            self.close_connection = True
            return
        if stub.stopping.wait(stub.delay(key, record.attempt)):
            self.close_connection = True
            return
        self._answer(stub, record, outcome)

    def _parse(self, body: bytes, record: RequestRecord) -> dict[str, Any] | None:
        try:
            request = json.loads(body)
            messages = request["messages"]
            record.model = str(request["model"])
            record.messages = [
                {"role": str(m.get("role", "")), "content": message_text(m.get("content"))}
                for m in messages
            ]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            record.outcome = "bad_request"
            record.params = {"error": repr(error), "body": body[:500].decode("utf-8", "replace")}
            message = f"expected a JSON body with model and messages ({error!r})"
            self._send_json(400, error_body(400, message, "BadRequestError"), record)
            return None
        if request.get("stream"):
            record.outcome = "bad_request"
            message = "the agentsense stub serves non-streaming requests only"
            self._send_json(400, error_body(400, message, "BadRequestError"), record)
            return None
        record.temperature = request.get("temperature")
        record.max_tokens = request.get("max_tokens", request.get("max_completion_tokens"))
        record.params = {k: v for k, v in request.items() if k not in ("model", "messages")}
        return dict(request)

    def _answer(self, stub: StubServer, record: RequestRecord, outcome: Outcome) -> None:
        if outcome == "drop":
            self.close_connection = True  # hang up without a reply
        elif outcome == "error_500":
            body = error_body(500, "stub: injected server error", "InternalServerError")
            self._send_json(500, body, record)
        elif outcome == "rate_limit_429":
            body = error_body(429, "stub: injected rate limit", "RateLimitError")
            self._send_json(429, body, record, {"Retry-After": f"{stub.faults.retry_after:g}"})
        elif outcome == "malformed":
            self._send(200, MALFORMED_BODY, record)
        else:
            assert record.model is not None
            pairs = [(m["role"], m["content"]) for m in record.messages]
            record.reply = stub.reply_for(record.model, pairs)
            chars = sum(len(content) for _, content in pairs)
            body = completion_body(record.index, record.model, record.reply, chars, stub.usage)
            self._send_json(200, body, record)

    # -- output --------------------------------------------------------------

    def _send_json(
        self,
        status: int,
        payload: dict[str, Any],
        record: RequestRecord,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send(status, json.dumps(payload).encode(), record, headers)

    def _send(
        self, status: int, data: bytes, record: RequestRecord, headers: dict[str, str] | None = None
    ) -> None:
        record.status = status
        # Set before the reply leaves, so a client that reads the log next sees a finished record.
        record.duration = self.server.stub.now() - record.started
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True  # the client went away (e.g. its attempt timed out)
