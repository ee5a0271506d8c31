"""A stated boundary goes where it belongs (issue 22): whatever its kind (extraction files
"please don't call me before 9" as a note tagged boundary), it is listed under Boundaries in
MEMORY.md, and it is always in the person's context block, before memories, never cut by the
budget — so every agent honours it. Someone else's boundary is not put in the asker's block."""

import io
import zipfile

import pytest

from cards.context import count_tokens
from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

NO_CALLS = "Please don't call me before 9 in the morning"


def remember(scope, actor, **fields):
    fields.setdefault("subject", "me")
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**fields)).card


@pytest.fixture
def lins(alice):
    """alice said two boundaries (one a note, as extraction files it; one a state) and many hobbies;
    bob, in the same family, said one of his own."""
    bob = UserFactory(username="bob")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=bob, role="member")
    notes = remember(alice.personal_scope, alice, kind="knowledge", label="note", text=NO_CALLS, value=NO_CALLS,
                     tag="boundary")
    private = remember(family, alice, kind="state", label="dislikes", value="talking about my salary", tag="boundary")
    remember(family, bob, kind="knowledge", label="note", text="Never mention the surprise party",
             value="Never mention the surprise party", tag="boundary")
    for index in range(25):
        remember(family, alice, kind="state", subject=f"Friend {index}", label="hobby",
                 value=f"restoring vintage motorcycles and sailing boats, project number {index}")
    return {"family": family, "bob": bob, "notes": notes, "private": private}


def context(agent, scope, **params):
    response = agent.get("/api/v1/context/", {"scope": scope.pk, "query": "hobbies", **params})
    assert response.status_code == 200, response.json()
    return response.json()


def test_the_persons_boundaries_come_first_in_the_context_block(alice, bearer, lins):
    body = context(bearer(alice), lins["family"], budget=4000)
    prompt = body["prompt"]
    section = prompt.split("<boundaries>\n", 1)[1].split("\n</boundaries>", 1)[0]
    assert section.splitlines() == [f"- {NO_CALLS}", "- talking about my salary"]
    assert prompt.index("<boundaries>") < prompt.index("<memory>")
    assert {lins["notes"].pk, lins["private"].pk} <= set(body["cards"])
    # Said once: a boundary is not repeated among the memories.
    assert prompt.count(NO_CALLS) == 1
    # bob's boundary is his: it is not in alice's block.
    assert "surprise party" not in prompt


@pytest.mark.parametrize("budget", [60, 120, 300])
def test_no_budget_cuts_a_boundary(alice, bearer, lins, budget):
    body = context(bearer(alice), lins["family"], budget=budget, k=25)
    assert f"- {NO_CALLS}" in body["prompt"] and "- talking about my salary" in body["prompt"]
    assert body["tokens"] == count_tokens(body["prompt"])
    roomy = context(bearer(alice), lins["family"], budget=4000, k=25)
    # The budget still cuts the memories after them.
    assert len(body["cards"]) < len(roomy["cards"])


def test_each_person_gets_their_own_boundaries(bearer, lins):
    prompt = context(bearer(lins["bob"]), lins["family"], budget=4000)["prompt"]
    assert "- Never mention the surprise party" in prompt.split("</boundaries>")[0]
    assert NO_CALLS not in prompt and "salary" not in prompt.split("</boundaries>")[0]


def test_a_boundary_that_no_longer_holds_leaves_the_block(alice, bearer, lins):
    from cards.services import card_retract

    card_retract(card=lins["private"], actor=alice)
    assert "salary" not in context(bearer(alice), lins["family"], budget=4000)["prompt"]


def test_memory_md_lists_every_boundary_under_boundaries_and_not_under_knowledge(as_user, alice, lins):
    response = as_user(alice).get("/api/v1/export/", {"scope": alice.personal_scope.pk, "format": "markdown"})
    assert response.status_code == 200
    profile = zipfile.ZipFile(io.BytesIO(response.content)).read("MEMORY.md").decode()
    boundaries = profile.split("## Boundaries")[1].split("## Knowledge")[0]
    knowledge = profile.split("## Knowledge")[1].split("## Hypotheses")[0]
    assert NO_CALLS in boundaries and NO_CALLS not in knowledge


def test_what_another_member_says_about_the_person_is_not_their_boundary_nor_their_style(alice, bearer, lins):
    remember(lins["family"], lins["bob"], kind="knowledge", label="note", subject="alice", tag="boundary",
             text="Never discuss the move with her", value="Never discuss the move with her")
    remember(lins["family"], lins["bob"], kind="state", label="brevity", subject="alice", value="one-word answers")
    prompt = context(bearer(alice), lins["family"], budget=4000)["prompt"]
    # Among the memories it may be recalled, as what bob said; never as her boundary or her style.
    boundaries = prompt.split("<boundaries>", 1)[1].split("</boundaries>", 1)[0]
    assert "Never discuss the move" not in boundaries and "<profile>" not in prompt
    profile = bearer(alice).get("/api/v1/profile/", {"scope": lins["family"].pk}).json()["items"]
    assert {item["value"] for item in profile if item["group"] == "boundary"} == {NO_CALLS, "talking about my salary"}
    assert not [item for item in profile if item["label"] == "brevity"]
