import factory

from cards.embeddings import current_space
from scopes.models import Scope, ScopeKind, User
from scopes.services import scope_create


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    username = factory.Sequence(lambda n: f"user{n}")
    display_name = factory.LazyAttribute(lambda o: o.username.title())
    password = factory.django.Password("correct horse battery staple")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        # Through the manager, so the personal scope and "me" entity come with the user.
        return model_class.objects.create_user(*args, **kwargs)


def family_scope(*, owner: User, name: str = "Family") -> Scope:
    return scope_create(name=name, kind=ScopeKind.FAMILY, creator=owner)


def card_vector(embedding, space: str | None = None) -> dict:
    """A card's vector fields, for a card made as a row: the vector, and the space it is of (the current one
    unless another is named; none without a vector)."""
    return {"embedding": embedding, "embedding_space": None if embedding is None else space or current_space()}
