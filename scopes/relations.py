"""Relations between members of a scope, read from one side (DESIGN §3 "People
are entities"): Dana is Kai's mother and Sam's wife, so Kai's "Mom" / 媽媽 and
Sam's "my wife" / 老婆 mean Dana, while Sam's "Mom" means nobody here.

A relation is kept in the person's words ("friend from school"), whatever they
are; the words that name a relation this memory knows — the vocabulary below,
and its compounds (in-laws, step-, half-, god-, "friend from …") — bind to that
meaning. The vocabulary is the one home of relation words; the entity binder
asks `members_by_relation` which members a speaker's word names."""

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
# Compounds of a relation, each over the relations it is said of: "step-" + mother is
# step_mother, mother + "-in-law" mother_in_law. Their key is the prefix, or suffix, and the relation's.
_COMPOUNDS: dict[str, tuple[str, ...]] = {
    "step": ("mother", "father", "parent", "son", "daughter", "child", "brother", "sister", "sibling"),
    "half": ("brother", "sister", "sibling"),
    "god": ("mother", "father", "parent", "son", "daughter", "child"),
    "in_law": ("mother", "father", "parent", "son", "daughter", "child", "brother", "sister", "sibling"),
}


def _compound(prefix: str, base: str) -> str:
    return f"{base}_in_law" if prefix == "in_law" else f"{prefix}_{base}"


# A general compound names its narrower ones as the plain words do: "my parent-in-law" may be a mother-in-law.
BROADER.update({_compound(prefix, broad): tuple(_compound(prefix, n) for n in narrower if n in bases)
                for prefix, bases in _COMPOUNDS.items() for broad, narrower in list(BROADER.items())
                if broad in bases})
_PREFIXED = re.compile(r"^(step|half|god)[\s-]*(.+)$")
_IN_LAW = re.compile(r"^(.+?)[\s-]*in[\s-]*laws?$")
# "friend from school", "colleague from my old job": the relation, where they met aside.
_FROM = re.compile(r"^(.+?)\s+(?:from|at|since|of)\s+\S.*$")
# "best friend", "school friend": kinds of friend, still a friend (never "ex-", "former": not the relation now).
_KINDS_OF_FRIEND = re.compile(r"^(?:best|old|close|good|dear|childhood|school|college|university|uni|family|"
                              r"work|running)\s+(friend)$")
# The compounds' words in Chinese, whole: 婆婆 is one word, not 婆 + a suffix.
_CHINESE_COMPOUNDS: dict[str, str] = {
    "婆婆": "mother_in_law", "岳母": "mother_in_law", "丈母娘": "mother_in_law",
    "公公": "father_in_law", "岳父": "father_in_law", "丈人": "father_in_law",
    "媳婦": "daughter_in_law", "媳妇": "daughter_in_law", "兒媳": "daughter_in_law", "儿媳": "daughter_in_law",
    "女婿": "son_in_law", "嫂子": "sister_in_law", "大嫂": "sister_in_law", "弟媳": "sister_in_law",
    "小姑": "sister_in_law", "小姨子": "sister_in_law", "姐夫": "brother_in_law", "妹夫": "brother_in_law",
    "姊夫": "brother_in_law", "小叔": "brother_in_law", "大伯": "brother_in_law", "小舅子": "brother_in_law",
    "繼母": "step_mother", "继母": "step_mother", "後媽": "step_mother", "后妈": "step_mother",
    "繼父": "step_father", "继父": "step_father", "後爸": "step_father", "后爸": "step_father",
    "乾媽": "god_mother", "干妈": "god_mother", "教母": "god_mother",
    "乾爹": "god_father", "干爹": "god_father", "教父": "god_father",
}
RELATION_MAX = 100  # characters of a relation in the person's words
_WORDS: dict[str, str] = {word: key for key, words in RELATIONS.items() for word in words}
# "my wife", "My Mom", 我的老婆, 我媽: the speaker's own side is what the words say anyway.
_MINE = re.compile(r"^(?:my\s+|我的|我)")


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).rstrip(".。")


def _compound_words(prefix: str, base: str) -> set[str]:
    """The English ways to say a compound ("stepmom", "step-mom", "mother in law")."""
    words = [w for w in RELATIONS[base] if w.isascii() and " " not in w]
    if prefix == "in_law":
        return {form % w for w in words for form in ("%s-in-law", "%s in law")}
    return {form % (prefix, w) for w in words for form in ("%s%s", "%s-%s", "%s %s")}


# Every word that names a relation, plain or compound, longest first: what a question is searched for.
RELATION_WORDS: tuple[str, ...] = tuple(sorted(
    {*_WORDS, *_CHINESE_COMPOUNDS,
     *(w for prefix, bases in _COMPOUNDS.items() for base in bases for w in _compound_words(prefix, base))},
    key=lambda w: (-len(w), w)))


def _compound_key(prefix: str, word: str) -> str | None:
    base = _simple_key(word)
    return _compound(prefix, base) if base in _COMPOUNDS[prefix] else None


def _simple_key(folded: str) -> str | None:
    return _WORDS.get(folded) or _WORDS.get(folded.replace("-", " "))


def _meaning(folded: str) -> str | None:
    """The relation key of words already folded, plain or compound."""
    if (key := _simple_key(folded) or _CHINESE_COMPOUNDS.get(folded)) is not None:
        return key
    if (match := _IN_LAW.match(folded)) is not None:
        return _compound_key("in_law", match.group(1))
    if (match := _PREFIXED.match(folded)) is not None:
        return _compound_key(match.group(1), match.group(2))
    if (match := _KINDS_OF_FRIEND.match(folded)) is not None:
        return _simple_key(match.group(1))
    if (match := _FROM.match(folded)) is not None:
        return _meaning(match.group(1))
    return None


def relation_key(word: str) -> str | None:
    """The relation words name ("Mom" → mother, "mother-in-law" → mother_in_law,
    "friend from school" → friend), or None for words that name none this memory knows."""
    folded = _folded(word)
    return _meaning(_MINE.sub("", folded)) or _meaning(folded)


def relation_keys_meant(name: str) -> set[str]:
    """Every relation a name, as a speaker says it, may mean: "my partner" → partner, spouse, wife,
    husband; "my parent-in-law" → parent_in_law, mother_in_law, father_in_law."""
    key = relation_key(name)
    if key is None:
        return set()
    return {key, *BROADER.get(key, ())}


def relation_words_checked(relation: str | None, *, required: bool = True) -> str:
    """The relation as the person said it, trimmed: any words, up to RELATION_MAX characters;
    empty is refused when a relation is `required`, else "" (none stated)."""
    said = " ".join((relation or "").split())
    if not said and required:
        raise InvalidInput(_("Say what one member is to the other, in your own words (\"mother\", "
                             "\"friend from school\")."), fields={"relation": [_("empty")]})
    if len(said) > RELATION_MAX:
        raise InvalidInput(_("A relation is at most %(max)d characters.") % {"max": RELATION_MAX},
                           fields={"relation": [_("too long")]})
    return said


def fellow_scope_ids(scope_ids) -> QuerySet:
    """The shared scopes whose members are people in `scope_ids`, as a subquery: the
    shared ones among them and, for a personal scope among them, every shared scope
    its owner belongs to. A member is who their name means in each fellow member's
    personal scope too (DESIGN §3 "People are entities"); a stranger is nobody there."""
    ids = scope_id_values(scope_ids)
    alone = (ScopeKind.PERSONAL, ScopeKind.GLOBAL)
    owners = Scope.objects.filter(pk__in=ids, kind=ScopeKind.PERSONAL).values("owner_id")
    # A union, not an OR of the two: each part plans on its own index (the binder runs it on every name).
    return (Scope.objects.filter(pk__in=ids).exclude(kind__in=alone).values("id")
            .union(Membership.objects.filter(user_id__in=owners).exclude(scope__kind__in=alone).values("scope_id")))


def members_of(scope_ids) -> QuerySet:
    """User ids of the people in `scope_ids`: the members of their fellow_scope_ids."""
    return Membership.objects.filter(scope_id__in=fellow_scope_ids(scope_ids)).values("user_id")


def members_by_relation(*, scope_ids, speaker_id: int, keys) -> QuerySet:
    """User ids of the members who are, from the speaker's side, one of the
    relations `keys` (`relation_keys_meant` of a word) in the fellow_scope_ids of
    `scope_ids` (Kai's "Mom" is Dana in the family and in Kai's personal scope);
    both must still be members there."""
    shared = fellow_scope_ids(scope_ids)
    rows = MemberRelation.objects.filter(scope_id__in=shared, of_id=speaker_id, relation__in=keys)
    current = Membership.objects.filter(scope_id__in=shared)
    return (rows.filter(member_id__in=current.values("user_id"), of_id__in=current.values("user_id"))
            .values("member_id"))


def relations_of(*, scope: Scope) -> QuerySet[MemberRelation]:
    return (MemberRelation.objects.in_scopes([scope.pk]).select_related("member", "of")
            .order_by("of_id", "member_id"))


def relation_to(*, scope_id: int, member_id: int, of_id: int) -> str:
    """What `member` is to `of` here: the relation meant ("mother"), else the words as said
    ("running buddy"), or ""."""
    row = MemberRelation.objects.filter(scope_id=scope_id, member_id=member_id, of_id=of_id).first()
    return (row.relation or row.said) if row else ""


def _member(scope: Scope, user: User, field: str) -> None:
    if not Membership.objects.filter(scope=scope, user=user).exists():
        raise InvalidInput(_("%(name)r is not a member of this scope.") % {"name": user.username},
                           fields={field: [_("not a member")]})


@transaction.atomic
def relation_set(*, scope: Scope, member: User, of: User, relation: str) -> MemberRelation:
    """`member` is `of`'s `relation` here, in the words said ("friend from school"): kept
    as said, and bound to the relation they mean (friend) where they name one."""
    said = relation_words_checked(relation)
    if scope.kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        raise InvalidInput(_("A %(kind)s scope has no other members.") % {"kind": scope.kind_name},
                           fields={"scope": [_("not shared")]})
    if member.pk == of.pk:
        raise InvalidInput(_("A relation is between two members."), fields={"of": [_("the same member")]})
    _member(scope, member, "member")
    _member(scope, of, "of")
    row, _created = MemberRelation.objects.update_or_create(
        scope=scope, member=member, of=of, defaults={"relation": relation_key(said) or "", "said": said})
    return row


@transaction.atomic
def relation_remove(*, scope: Scope, member: User, of: User) -> bool:
    deleted, _counts = MemberRelation.objects.filter(scope=scope, member=member, of=of).delete()
    return bool(deleted)


def relations_forget_member(*, scope: Scope, user: User) -> None:
    """A member who leaves takes their relations with them, from both sides."""
    MemberRelation.objects.filter(scope=scope, member=user).delete()
    MemberRelation.objects.filter(scope=scope, of=user).delete()
