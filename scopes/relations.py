"""Relations between members of a scope, read from one side (DESIGN §3 "People
are entities"): Dana is Kai's mother and Sam's wife, so Kai's "Mom" / 媽媽 and
Sam's "my wife" / 老婆 mean Dana, while Sam's "Mom" means nobody here.

The vocabulary is the one home of relation words; the entity binder asks
`members_by_relation` which members a speaker's word names."""

from __future__ import annotations

import re
import unicodedata

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from core.errors import InvalidInput

from .models import Membership, MemberRelation, Scope, ScopeKind, User
from .restriction import scope_id_values

# Each relation, with the words a speaker uses for that member (English and Chinese).
RELATIONS: dict[str, tuple[str, ...]] = {
    "mother": ("mother", "mom", "mum", "mommy", "mummy", "mama", "媽媽", "媽", "妈妈", "妈", "母親", "母亲"),
    "father": ("father", "dad", "daddy", "papa", "爸爸", "爸", "父親", "父亲"),
    "parent": ("parent",),
    "wife": ("wife", "老婆", "太太", "妻子"),
    "husband": ("husband", "hubby", "老公", "丈夫", "先生"),
    "spouse": ("spouse", "配偶"),
    "partner": ("partner", "伴侶", "伴侣"),
    "son": ("son", "兒子", "儿子"),
    "daughter": ("daughter", "女兒", "女儿"),
    "child": ("child", "kid", "孩子", "小孩"),
    "brother": ("brother", "哥哥", "弟弟", "兄弟"),
    "sister": ("sister", "姐姐", "妹妹", "姊姊"),
    "sibling": ("sibling",),
    "grandmother": ("grandmother", "grandma", "granny", "奶奶", "外婆", "祖母"),
    "grandfather": ("grandfather", "grandpa", "爺爺", "爷爷", "外公", "祖父"),
    "grandchild": ("grandchild", "grandson", "granddaughter", "孫子", "孙子", "孫女", "孙女"),
    "aunt": ("aunt", "阿姨", "姑姑", "姨媽", "姨妈"),
    "uncle": ("uncle", "叔叔", "舅舅", "伯伯"),
    "cousin": ("cousin", "表哥", "表姐", "堂哥", "堂姐"),
    "niece": ("niece",),
    "nephew": ("nephew",),
    "friend": ("friend", "朋友"),
    "neighbour": ("neighbour", "neighbor", "鄰居", "邻居"),
    "roommate": ("roommate", "flatmate", "housemate", "室友"),
    "manager": ("manager", "boss", "lead", "team lead", "經理", "经理", "老闆", "老板"),
    "report": ("report", "direct report"),
    "colleague": ("colleague", "coworker", "同事"),
}
# A general word names any of the narrower relations too ("my partner" may be a wife).
BROADER: dict[str, tuple[str, ...]] = {
    "parent": ("mother", "father"),
    "spouse": ("wife", "husband", "partner"),
    "partner": ("wife", "husband", "spouse"),
    "child": ("son", "daughter"),
    "sibling": ("brother", "sister"),
}
_WORDS: dict[str, str] = {word: key for key, words in RELATIONS.items() for word in words}
# "my wife", "My Mom", 我的老婆, 我媽: the speaker's own side is what the words say anyway.
_MINE = re.compile(r"^(?:my\s+|我的|我)")


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).rstrip(".。")


def relation_key(word: str) -> str | None:
    """The relation a word or key names ("Mom" → mother), or None."""
    folded = _folded(word)
    return _WORDS.get(_MINE.sub("", folded)) or _WORDS.get(folded)


def relation_keys_meant(name: str) -> set[str]:
    """Every relation a name, as a speaker says it, may mean: "my partner" → partner, spouse, wife, husband."""
    key = relation_key(name)
    if key is None:
        return set()
    return {key, *BROADER.get(key, ())}


def shared_scope_ids(scope_ids) -> QuerySet:
    """Of `scope_ids`, those with other members (not personal, not global), as a subquery."""
    return Scope.objects.filter(pk__in=scope_id_values(scope_ids)).exclude(kind__in=(ScopeKind.PERSONAL, ScopeKind.GLOBAL)).values("id")


def members_of(scope_ids) -> QuerySet:
    """User ids of the members of the shared scopes among `scope_ids`."""
    return Membership.objects.filter(scope_id__in=shared_scope_ids(scope_ids)).values("user_id")


def members_by_relation(*, scope_ids, speaker_id: int, keys) -> QuerySet:
    """User ids of the members who are, from the speaker's side, one of the
    relations `keys` (`relation_keys_meant` of a word) in the shared scopes among
    `scope_ids`; both must still be members there."""
    shared = shared_scope_ids(scope_ids)
    rows = MemberRelation.objects.filter(scope_id__in=shared, of_id=speaker_id, relation__in=keys)
    current = Membership.objects.filter(scope_id__in=shared)
    return (rows.filter(member_id__in=current.values("user_id"), of_id__in=current.values("user_id"))
            .values("member_id"))


def relations_of(*, scope: Scope) -> QuerySet[MemberRelation]:
    return (MemberRelation.objects.in_scopes([scope.pk]).select_related("member", "of")
            .order_by("of_id", "member_id"))


def relation_to(*, scope_id: int, member_id: int, of_id: int) -> str:
    """What `member` is to `of` here ("mother"), or ""."""
    row = MemberRelation.objects.filter(scope_id=scope_id, member_id=member_id, of_id=of_id).first()
    return row.relation if row else ""


def _member(scope: Scope, user: User, field: str) -> None:
    if not Membership.objects.filter(scope=scope, user=user).exists():
        raise InvalidInput(_("%(name)r is not a member of this scope.") % {"name": user.username},
                           fields={field: [_("not a member")]})


@transaction.atomic
def relation_set(*, scope: Scope, member: User, of: User, relation: str) -> MemberRelation:
    """`member` is `of`'s `relation` here (a relation key or one of its words)."""
    key = relation_key(relation)
    if key is None:
        raise InvalidInput(_("%(relation)r is not a relation this memory knows; use one of: %(known)s.")
                           % {"relation": relation, "known": ", ".join(sorted(RELATIONS))},
                           fields={"relation": [_("unknown relation")]})
    if scope.kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        raise InvalidInput(_("A %(kind)s scope has no other members.") % {"kind": scope.kind_name},
                           fields={"scope": [_("not shared")]})
    if member.pk == of.pk:
        raise InvalidInput(_("A relation is between two members."), fields={"of": [_("the same member")]})
    _member(scope, member, "member")
    _member(scope, of, "of")
    row, _created = MemberRelation.objects.update_or_create(scope=scope, member=member, of=of,
                                                            defaults={"relation": key})
    return row


@transaction.atomic
def relation_remove(*, scope: Scope, member: User, of: User) -> bool:
    deleted, _counts = MemberRelation.objects.filter(scope=scope, member=member, of=of).delete()
    return bool(deleted)


def relations_forget_member(*, scope: Scope, user: User) -> None:
    """A member who leaves takes their relations with them, from both sides."""
    MemberRelation.objects.filter(scope=scope, member=user).delete()
    MemberRelation.objects.filter(scope=scope, of=user).delete()
