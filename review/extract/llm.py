"""The language-model extractor: any OpenAI-compatible chat endpoint
(POST {LLM_URL}/v1/chat/completions), standard library only.

The ingest policy runs first: refused clauses are blanked out before the model
sees the conversation, and anything the model proposes from refused words is
dropped again. The answer is JSON, checked by llm_schema; an invalid answer is
retried once with the problems listed, then the job fails (not retryable).
Connection errors, timeouts, 429 and 5xx fail as retryable: the task layer
decides when to try again.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import urllib.error
import urllib.request

from django.core.exceptions import ImproperlyConfigured

from cards.screen.never_store import policy_screen, policy_split
from cards.time.when import anchor_zone, zone_from_label, zone_label
from core.errors import DomainError

from .base import Dropped, ExtractContext, Extraction, ExtractionFailed, Message
from .config import extract_setting
from .llm_schema import SCHEMA, validate

TRANSIENT_STATUS = {408, 425, 429, 500, 502, 503, 504}
BLANKED = "[…]"

RULES = """Rules:
1. Extract only what the user states explicitly about themselves or the people, places and things in their life.
   Never extract what the assistant said, and never guess.
2. Never extract transient feelings ("I'm tired today", 今天好累), one-off frustrations ("ugh, the bus was late
   again") or speculative motives ("maybe he's only nice because he wants something", 他可能是想…). List them
   under "dropped" with the rule: transient_feeling, one_off_frustration or speculative_motive.
3. Sensitive attributes (health, allergies, weight, religion, sexual orientation, political views, ethnicity):
   only when the user says them explicitly; never infer them.
4. Use a known label whenever one fits; use "me" as the subject for the user, and known entity names as written.
5. Every event gets an absolute occurred_at_hint: an ISO 8601 datetime with offset, worked out from the message's
   "at" time (relative to current_time when in doubt); an event said in the present ("I'm at the airport") takes
   the message's own "at" time; null when no time was said.
6. "quote" is copied exactly, character for character, from the message's text.
Answer with one JSON object, nothing else, in this shape:
"""


class LLMExtractionFailed(ExtractionFailed):
    """`retryable`: the endpoint may answer next time (network, 429, 5xx); False for an invalid answer."""

    def __init__(self, message: str, *, retryable: bool, reasons: list[str] | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.reasons = reasons or []


class _NotAnAnswer(Exception):
    pass


def _zone(name: str) -> dt.tzinfo:
    try:
        return zone_from_label(name)
    except DomainError:
        return dt.timezone.utc


def system_prompt(messages: list[Message], context: ExtractContext) -> str:
    # The speaker's clock: the last message's own offset, the person's zone only where they agree.
    zone = anchor_zone(messages[-1].at, _zone(context.time_zone))
    now = messages[-1].at.astimezone(zone)
    return "\n".join([
        "You extract long-term memories about the user from a conversation, as candidate cards that a person will "
        "review.",
        f"<current_time>{now.isoformat()}</current_time>",
        f"<time_zone>{zone_label(zone)}</time_zone>",
        f"<known_labels>{', '.join(context.known_labels)}</known_labels>",
        f"<known_entities>{', '.join(context.known_entities)}</known_entities>",
        RULES + SCHEMA,
    ])


def _screened(messages: list[Message]) -> tuple[list[dict], list[Dropped]]:
    """The conversation as the model sees it: user clauses the policy refuses are blanked."""
    shown, dropped = [], []
    for message in messages:
        text = message.text
        if message.role == "user":
            for clause, refused_by in policy_split(message.text):
                if refused_by:
                    dropped.append(Dropped(message.id, refused_by))
                    text = text.replace(clause, BLANKED, 1)
        shown.append({"id": message.id, "role": message.role, "at": message.at.isoformat(), "text": text})
    return shown, dropped


class LLMExtractor:
    name = "llm"

    def __init__(self) -> None:
        base = extract_setting("LLM_URL").strip().rstrip("/")
        self.model = extract_setting("LLM_MODEL").strip()
        if not base or not self.model:
            raise ImproperlyConfigured("EXTRACTOR=llm needs LLM_URL (e.g. http://127.0.0.1:8080) and LLM_MODEL.")
        # Accept both "http://host:8080" and "http://host:8080/v1", as OpenAI clients do.
        self.url = f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"
        self.api_key = extract_setting("LLM_API_KEY").strip()
        try:
            self.timeout = float(extract_setting("LLM_TIMEOUT", "60"))
        except ValueError:
            raise ImproperlyConfigured("LLM_TIMEOUT must be a number of seconds.") from None

    def extract(self, messages: list[Message], context: ExtractContext) -> Extraction:
        shown, dropped = _screened(messages)
        kept = [m for m in shown if m["role"] == "user" and m["text"].replace(BLANKED, "").strip()]
        if not kept:  # nothing left that could be remembered: no request at all
            return Extraction(dropped=dropped)
        chat = [{"role": "system", "content": system_prompt(messages, context)},
                {"role": "user", "content": json.dumps({"messages": shown}, ensure_ascii=False)}]
        tz = _zone(context.time_zone)
        for attempt in (1, 2):
            try:
                content = self._answer(chat)
                extraction, errors = validate(content, messages, tz)
            except _NotAnAnswer as error:
                content, errors = "", [str(error)]
            if not errors:
                return self._after_policy(extraction, dropped)
            if attempt == 1:
                chat += [{"role": "assistant", "content": content},
                         {"role": "user", "content": "Your answer was invalid:\n- " + "\n- ".join(errors)
                          + "\nAnswer again with the complete, corrected JSON object."}]
        raise LLMExtractionFailed(f"{self.url} gave an invalid extraction twice: {'; '.join(errors)}",
                                  retryable=False, reasons=errors)

    @staticmethod
    def _after_policy(extraction: Extraction, dropped: list[Dropped]) -> Extraction:
        # The model is told the rules; the policy still has the last word.
        kept = []
        for proposal in extraction.proposals:
            refused_by = policy_screen(proposal.quote)
            if refused_by:
                dropped.append(Dropped(proposal.message_id, refused_by))
            else:
                kept.append(proposal)
        return Extraction(kept, dropped + extraction.dropped)

    def _answer(self, chat: list[dict]) -> str:
        body = self._post({"model": self.model, "messages": chat, "temperature": 0,
                           "response_format": {"type": "json_object"}})
        try:
            content = json.loads(body)["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _NotAnAnswer(f"the response is not a chat completion: {body[:200]!r}") from None
        if not isinstance(content, str):
            raise _NotAnAnswer("the message content is not text")
        return content

    def _post(self, payload: dict) -> bytes:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(payload, ensure_ascii=False).encode(),
                                         headers=headers, method="POST")
        where = f"chat endpoint {self.url} (model {self.model!r})"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.read()
        except urllib.error.HTTPError as error:
            detail = error.read()[:300].decode(errors="replace")
            raise LLMExtractionFailed(f"{where} answered HTTP {error.code}: {detail}",
                                      retryable=error.code in TRANSIENT_STATUS) from error
        except (urllib.error.URLError, http.client.HTTPException, TimeoutError, ConnectionError, OSError) as error:
            raise LLMExtractionFailed(f"{where} could not be reached: {getattr(error, 'reason', error)}",
                                      retryable=True) from error
