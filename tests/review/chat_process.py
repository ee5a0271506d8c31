"""A local server, in a process of its own, speaking the OpenAI-compatible chat-completions
protocol as a model server does (POST /v1/chat/completions, GET /v1/models, a bearer key), for
testing the `llm` extractor end to end without a model: its "model" is a table of answers keyed by
words of the user's messages (the only thing stood in for). Every request is logged, one JSON line
each, for the test to read.

    python tests/review/chat_process.py --answers answers.json --log requests.jsonl [--api-key K]

It prints its base URL on its first line of output, then serves until stopped. The answers file
maps a phrase to the items proposed for a message holding it (`message_id` is filled in)."""

from __future__ import annotations

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _proposals(request: dict, answers: dict[str, list[dict]]) -> dict:
    """The "model": for each message the user turn shows, the items of every phrase it holds."""
    user = next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")
    items = []
    for message in json.loads(user)["messages"]:
        for phrase, proposed in answers.items():
            if phrase in message.get("text", ""):
                items += [{**item, "message_id": message["id"]} for item in proposed]
    return {"items": items, "dropped": []}


def serve(answers: dict[str, list[dict]], log_path: str, api_key: str | None) -> None:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: dict) -> None:
            raw = json.dumps(body, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _authorized(self) -> bool:
            if api_key is None or self.headers.get("Authorization") == f"Bearer {api_key}":
                return True
            self._send(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
            return False

        def do_GET(self):
            if self._authorized():
                self._send(200, {"object": "list", "data": [{"id": "local-model", "object": "model"}]})

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with open(log_path, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body},
                                     ensure_ascii=False) + "\n")
            if not self._authorized():
                return
            if self.path != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            content = json.dumps(_proposals(body, answers), ensure_ascii=False)
            self._send(200, {"id": "chatcmpl-local", "object": "chat.completion", "model": body.get("model"),
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": content}}]})

        def log_message(self, *args):
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{http.server_address[1]}", flush=True)
    http.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--api-key", default=None)
    args = parser.parse_args()
    with open(args.answers, encoding="utf-8") as file:
        answers = json.load(file)
    try:
        serve(answers, args.log, args.api_key)
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
