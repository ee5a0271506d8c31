"""What a derivation rule may be: the one shape check, asked when a rule is proposed or approved
(cards/services/rules.py), by the chaining before it runs an approved rule (cards/answers/derive.py: one changed
by hand into a bad shape is skipped), and by the pages and the admin that write rules."""

from __future__ import annotations

from django.utils.translation import gettext

from .labels import registry

MAX_PREMISES = 5


def _is_var(term: str) -> bool:
    return term.startswith("?") and len(term) > 1


def rule_check(premises, conclusion) -> list[str]:
    """What is wrong with a rule's shape, as sentences; empty when it can run.

    Backward chaining looks facts up by subject, so every premise's subject must
    be a constant or already bound (by the conclusion's subject or an earlier
    premise), and the conclusion's object must come from the premises."""
    problems: list[str] = []
    patterns = [conclusion, *premises] if isinstance(premises, list) else [conclusion]
    if not isinstance(premises, list) or not 1 <= len(premises) <= MAX_PREMISES:
        problems.append(gettext("premises must be a list of 1 to %(most)s patterns") % {"most": MAX_PREMISES})
    for pattern in patterns:
        if not (isinstance(pattern, list) and len(pattern) == 3 and all(isinstance(t, str) and t.strip()
                                                                          and "\x00" not in t for t in pattern)):
            problems.append(gettext("%(pattern)s is not a [subject, label, object] pattern of non-empty text")
                            % {"pattern": repr(pattern)})
    if problems:
        return problems
    labels = {label.key: label for label in registry().values()}
    for _, label, _ in patterns:
        if label not in labels:
            problems.append(gettext("%(label)s is not a registered label key") % {"label": repr(label)})
    if conclusion[1] in labels and labels[conclusion[1]].sensitive:
        # DESIGN §4.8: a sensitive attribute is known only with the person's explicit consent, never inferred.
        problems.append(gettext("%(label)s is a sensitive attribute: a rule may not conclude it")
                        % {"label": repr(conclusion[1])})
    bound = {conclusion[0]} if _is_var(conclusion[0]) else set()
    for subject, _, obj in premises:
        if _is_var(subject) and subject not in bound:
            problems.append(gettext("premise subject %(subject)s is not bound by the conclusion or an earlier premise")
                            % {"subject": subject})
        bound |= {t for t in (subject, obj) if _is_var(t)}
    if _is_var(conclusion[2]) and conclusion[2] not in bound:
        problems.append(gettext("the conclusion's %(object)s does not appear in any premise")
                        % {"object": conclusion[2]})
    return problems
