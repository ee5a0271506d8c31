"""A connector as hosted assistants are: an HTTP client that discovers the
authorization server, registers itself, sends a person to consent, and trades
the code for tokens with PKCE. The person is a second client with a session."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

PASSWORD = "correct horse battery staple"


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


class _Inputs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hidden: dict[str, str] = {}
        self.checked: dict[str, list[str]] = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag != "input":
            return
        if attrs.get("type") == "hidden" and attrs.get("name") != "csrfmiddlewaretoken":
            self.hidden[attrs["name"]] = attrs.get("value") or ""
        elif attrs.get("type") in ("checkbox", "radio") and "checked" in attrs:
            self.checked.setdefault(attrs["name"], []).append(attrs["value"])


def form_inputs(html: str) -> _Inputs:
    parser = _Inputs()
    parser.feed(html)
    return parser


def signed_in(base: str, username: str) -> httpx.Client:
    """A browser-like client signed in as `username`."""
    person = httpx.Client(base_url=base, timeout=60)
    person.get("/accounts/login/")
    answer = person.post("/accounts/login/", data={"username": username, "password": PASSWORD,
                                                   "csrfmiddlewaretoken": person.cookies["csrftoken"]})
    assert answer.status_code == 302, answer.text[:500]
    return person


@dataclass
class Connector:
    base: str
    redirect_uri: str = "http://127.0.0.1:9/callback"
    client_id: str = ""
    verifier: str = ""
    state: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    http: httpx.Client = field(default=None)

    def __post_init__(self) -> None:
        self.http = self.http or httpx.Client(base_url=self.base, timeout=60)

    @property
    def resource(self) -> str:
        return self.base + "/mcp/"

    def register(self, **metadata) -> httpx.Response:
        body = {"client_name": "Household Assistant", "redirect_uris": [self.redirect_uri],
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                "token_endpoint_auth_method": "none", **metadata}
        answer = self.http.post("/oauth/register/", json=body)
        if answer.status_code == 201:
            self.client_id = answer.json()["client_id"]
        return answer

    def authorize_url(self, *, scope: str = "read write", resource: str | None = "", **extra) -> str:
        self.verifier, challenge = pkce_pair()
        query = {"response_type": "code", "client_id": self.client_id, "redirect_uri": self.redirect_uri,
                 "scope": scope, "state": self.state, "code_challenge": challenge,
                 "code_challenge_method": "S256", **extra}
        if resource is not None:
            query["resource"] = resource or self.resource
        return "/oauth/authorize/?" + urlencode(query)

    def consent(self, person: httpx.Client, url: str, *, scopes: list[int] | None = None,
                access: str | None = None, allow: bool = True) -> httpx.Response:
        """The person opens the consent page and answers it; returns the answer to the POST."""
        page = person.get(url)
        assert page.status_code == 200, page.text[:800]
        inputs = form_inputs(page.text)
        data = {**inputs.hidden, "csrfmiddlewaretoken": person.cookies["csrftoken"],
                "scopes": [str(s) for s in scopes] if scopes is not None else inputs.checked.get("scopes", []),
                "access": access or inputs.checked["access"][0]}
        if allow:
            data["allow"] = "on"
        return person.post("/oauth/authorize/", data=data)

    def code_from(self, answer: httpx.Response) -> str:
        assert answer.status_code == 302, answer.text[:800]
        location = answer.headers["Location"]
        assert location.startswith(self.redirect_uri), location
        query = parse_qs(urlsplit(location).query)
        assert query["state"] == [self.state]
        return query["code"][0]

    def token(self, code: str, *, verifier: str | None = None, redirect_uri: str | None = None) -> httpx.Response:
        return self.http.post("/oauth/token/", data={
            "grant_type": "authorization_code", "code": code, "client_id": self.client_id,
            "redirect_uri": redirect_uri or self.redirect_uri, "code_verifier": verifier or self.verifier})

    def refresh(self, refresh_token: str) -> httpx.Response:
        return self.http.post("/oauth/token/", data={
            "grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": self.client_id})

    def revoke(self, token: str) -> httpx.Response:
        return self.http.post("/oauth/revoke/", data={"token": token, "client_id": self.client_id})

    def connect(self, person: httpx.Client, **consent) -> dict:
        """Register (once), authorize, consent, and trade the code: the token response."""
        if not self.client_id:
            assert self.register().status_code == 201
        code = self.code_from(self.consent(person, self.authorize_url(), **consent))
        answer = self.token(code)
        assert answer.status_code == 200, answer.text
        return answer.json()
