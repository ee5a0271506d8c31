from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Memory cards"

    def ready(self) -> None:
        # What the store listens to (README, "How apps tell each other"): imported here, once the apps are loaded.
        from core.signals import database_rule_refused
        from scopes.signals import member_joined, user_set_up

        from . import receivers

        database_rule_refused.connect(receivers.event_update_refused_read, dispatch_uid="cards.event_update")
        user_set_up.connect(receivers.person_entity_give, dispatch_uid="cards.person_entity")
        member_joined.connect(receivers.member_look_alikes_on_join, dispatch_uid="cards.member_look_alikes")

        # A service enqueues its task by the task's registered name, never importing the task module (which
        # imports the service): importing it here registers the tasks in every process, so an eager run
        # (no broker) finds them too.
        from . import tasks  # noqa: F401
