from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Memory cards"

    def ready(self) -> None:
        from core.errors import integrity_reader_register
        from scopes.services import member_joined_register, user_setup_register

        from .services.corrections import event_update_refused
        from .services.entities import member_look_alikes_propose, person_entity_ensure

        # The write-once trigger on events is the card domain's rule: the API's
        # one error mapping learns here how to read its refusal.
        integrity_reader_register(event_update_refused)
        # Every new user gets their own person entity with their personal scope.
        user_setup_register(person_entity_ensure)
        # Someone joining a scope may already be there under a name someone wrote.
        member_joined_register(member_look_alikes_propose)
