"""What the review tests share: ingesting a conversation over the API, and the
local stand-in for a language model — a real HTTP server speaking the
chat-completions protocol (the only thing mocked is the model itself)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class ChatServer:
    """Answers each POST with the next scripted reply: (status, content) or (status, raw body bytes)."""

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, content = server.replies.pop(0)
                raw = content if isinstance(content, bytes) else json.dumps(
                    {"id": "x", "object": "chat.completion",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                  "finish_reason": "stop"}]}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        self.thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def chat(settings):
    servers = []

    def start(*replies):
        server = ChatServer(replies)
        servers.append(server)
        settings.LLM_URL, settings.LLM_MODEL, settings.LLM_API_KEY = server.url, "tiny-model", "sk-test"
        settings.LLM_TIMEOUT = 5
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def ingest(django_capture_on_commit_callbacks):
    """The job is queued when the request commits; a test's transaction never
    commits, so each ingest runs its captured callbacks (the Celery task, eager)."""
    def send(agent, scope, *texts, role="user", session="s1", at="2026-05-08T16:44:10+08:00"):
        messages = [{"id": f"m{i}", "role": role, "text": text, "at": at} for i, text in enumerate(texts)]
        with django_capture_on_commit_callbacks(execute=True):
            response = agent.post("/api/v1/ingest/", {"scope": scope.pk, "session": session,
                                                      "messages": messages}, format="json")
        assert response.status_code == 202, response.json()
        return agent.get(f"/api/v1/ingest/{response.json()['job']}/").json()
    return send
