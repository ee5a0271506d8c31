"""Agent tokens: `memsite_<id>_<secret>`. The id finds the row; the secret (32
random bytes) is checked against a stored SHA-256 and never stored itself."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import hmac
import secrets

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _
from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model

from core.compiled import Compiled
from core.errors import DomainError, InvalidInput

from .guardians import minor_check, ward_ids
from .models import AgentToken, Scope, User
from .principals import TOKEN_ACCESS, Principal

TOKEN_PREFIX = "memsite"
DEFAULT_DAYS = 90
MAX_DAYS = 366
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)

# A new token's secret, kept in the person's session for the one page that shows it
# (the connect page, memory_site/connect.py): the creating POST redirects there.
TOKEN_SHOWN_ONCE = "token_shown_once"


class TokenRefused(DomainError):
    """Raised by authentication; the API turns it into a 401 with this code."""

    status = 401

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def secret_digest(raw: str) -> str:
    """What is stored of a secret shown once (a token, an invite link) and looked up by: its SHA-256."""
    return hashlib.sha256(raw.encode()).hexdigest()


def _columns(model, prefix: str = "") -> list[str]:
    return [prefix + field.attname for field in model._meta.concrete_fields]


@functools.cache
def _companions() -> list:
    """The one-to-one rows other apps hang on a user — the store's person entity,
    "me", which every card read and write asks for. Found through the user
    model's relations, so the ladder names no app above it. The ladder's own
    (the personal scope) stays out: no request reads it from the token's user,
    and joining it made every agent request's first statement wider. Cached:
    the relations are fixed once the apps are loaded."""
    own = User._meta.app_label
    return [rel for rel in User._meta.related_objects if rel.one_to_one and rel.related_model._meta.app_label != own]


def _token_query(*, prefix: str):
    return AgentToken.objects.filter(prefix=prefix).values(
        *_columns(AgentToken), *_columns(User, "user__"),
        *(column for rel in _companions() for column in _columns(rel.related_model, f"user__{rel.name}__")))


# Every agent request starts here: compiled once (core/compiled.py).
_TOKEN = Compiled(_token_query, "prefix", text=("prefix",))


def token_with_user(prefix: str) -> AgentToken | None:
    """The token, its user and the user's one-to-one companions (their own
    entity), from one prepared statement."""
    rows = _TOKEN.rows({"prefix": prefix})
    if not rows:
        return None
    row = rows[0]

    def instance(model, prefix=""):
        names = _columns(model)
        return model.from_db("default", names, [row[prefix + name] for name in names])

    token, user = instance(AgentToken), instance(User, "user__")
    token.user = user
    for rel in _companions():
        prefix = f"user__{rel.name}__"
        if row[prefix + rel.related_model._meta.pk.attname] is not None:
            rel.set_cached_value(user, instance(rel.related_model, prefix))
    return token


def token_access_flags(access: str) -> dict[str, bool]:
    """A token's access as the API, the pages and the command name it (`read`,
    `read+write`, `propose`), as token_create's flags."""
    if access not in TOKEN_ACCESS:
        raise InvalidInput(_("Unknown access."),
                           fields={"access": [_("one of %(choices)s") % {"choices": ", ".join(TOKEN_ACCESS)}]})
    return {"can_write": access == "read+write", "proposes": access == "propose"}


def token_rights_check(*, user: User, can_write: bool, proposes: bool, scopes: list[Scope] | None,
                       all_scopes: bool, days: int, name: str) -> None:
    """What every token and connection must be (scopes/connections.py grants
    through it too): one access, a lifetime, scopes the person sees, a name.
    Minors hold neither (scopes/guardians.py)."""
    minor_check(user, "agent tokens")
    problems: dict[str, list[str]] = {}
    if can_write and proposes:
        problems["access"] = [_("a token either writes or only proposes")]
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= MAX_DAYS:
        problems["days"] = [_("must be between 1 and %(most)s; tokens always expire") % {"most": MAX_DAYS}]
    if not all_scopes and not scopes:
        problems["scopes"] = [_("choose at least one scope, or all")]
    if scopes:
        allowed = set(Scope.objects.visible_to(Principal(user), "view")
                      .filter(pk__in=[s.pk for s in scopes]).values_list("pk", flat=True))
        missing = sorted(s.pk for s in scopes if s.pk not in allowed)
        if missing:
            problems["scopes"] = [_("not a scope of this user: %(ids)s") % {"ids": ", ".join(map(str, missing))}]
    if not isinstance(name, str) or not name.strip() or len(name) > 100 or "\x00" in name:
        problems["name"] = [_("must be a non-empty text of at most 100 characters")]
    if problems:
        raise InvalidInput(_("The token request has invalid fields; see `fields`."), fields=problems)


@transaction.atomic
def token_create(*, user: User, name: str, can_write: bool = False, proposes: bool = False,
                 scopes: list[Scope] | None = None, all_scopes: bool = False,
                 days: int = DEFAULT_DAYS, application=None) -> tuple[AgentToken, str]:
    """Returns the token row and the raw token, which is shown once and never again.
    A propose-only token (`proposes`) never writes: its writes wait in the
    person's review queue. With `application`, the row is a connection
    (scopes/connections.py) and the raw token is never shown to anyone."""
    token_rights_check(user=user, can_write=can_write, proposes=proposes, scopes=scopes, all_scopes=all_scopes,
                       days=days, name=name)
    for _attempt in range(5):
        prefix = secrets.token_hex(4)
        raw = f"{TOKEN_PREFIX}_{prefix}_{secrets.token_urlsafe(32)}"
        try:
            with transaction.atomic():
                token = AgentToken.objects.create(
                    user=user, name=name.strip(), prefix=prefix, secret_hash=secret_digest(raw), can_write=can_write,
                    proposes=proposes, all_scopes=all_scopes, expires_at=timezone.now() + dt.timedelta(days=days),
                    application=application)
            break
        except IntegrityError:  # an id collision: draw again
            continue
    else:
        raise RuntimeError("could not draw a unique token id")
    if scopes and not all_scopes:
        token.scopes.set(scopes)
    return token, raw


def tokens_of_wards(*, guardian: User):
    """The tokens of the minors `guardian` looks after (scopes/guardians.py), newest first."""
    return (AgentToken.objects.filter(user_id__in=ward_ids(guardian)).select_related("user")
            .prefetch_related("scopes").order_by("-id"))


def token_get(*, person: User, token_id: int) -> AgentToken:
    """A token its person may revoke: their own, or a ward's. Anyone else's is
    as absent as a missing one (404)."""
    token = (AgentToken.objects.filter(pk=token_id)
             .filter(Q(user_id=person.pk) | Q(user_id__in=ward_ids(person))).first())
    if token is None:
        raise Http404
    return token


@transaction.atomic
def token_revoke(*, token: AgentToken) -> AgentToken:
    """Stops the token at once; for a connection, its assistant's OAuth tokens
    and codes go too, so nothing it holds can be refreshed into a new one."""
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        AgentToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=token.revoked_at)
    if token.is_connection:
        connection_credentials_delete(user_id=token.user_id, application_id=token.application_id)
    return token


def connection_credentials_delete(*, user_id: int, application_id: int) -> None:
    """Every OAuth token and code an assistant holds for one person: what revoking its connection
    (scopes/connections.py) takes with it."""
    for model in (get_refresh_token_model(), get_access_token_model(), get_grant_model()):
        model.objects.filter(user_id=user_id, application_id=application_id).delete()


def token_authenticate(raw: str) -> AgentToken:
    parts = raw.split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or len(parts[1]) != 8 or len(raw) > 200:
        raise TokenRefused("invalid_token", "The token is malformed; it looks like memsite_<id>_<secret>.")
    # The user's own entity comes along: every card read and write asks for it ("me").
    token = token_with_user(parts[1])
    # Compare digests in constant time; an unknown id still pays for a digest.
    if token is None or not hmac.compare_digest(token.secret_hash, secret_digest(raw)):
        raise TokenRefused("invalid_token", "The token is not valid.")
    return token_admitted(token)


def token_admitted(token: AgentToken) -> AgentToken:
    """The checks every credential passes at every request, whichever way it was
    presented (an agent token, or a connection's OAuth access token): revoked,
    expired, an inactive person; then its last use is noted."""
    now = timezone.now()
    if token.revoked_at is not None:
        raise TokenRefused("token_revoked", "The token was revoked; create a new one.")
    if token.expires_at <= now:
        raise TokenRefused("token_expired", "The token has expired; create a new one.")
    if not token.user.is_active:
        raise TokenRefused("invalid_token", "The token's user is inactive.")
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        # At most one write a minute per token, however busy the agent.
        AgentToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
