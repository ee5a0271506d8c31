from django.apps import AppConfig


class ScopesConfig(AppConfig):
    name = "scopes"
    verbose_name = "Scopes and members"

    def ready(self) -> None:
        # What the ladder's services listen to (README, "How apps tell each other").
        from . import receivers
        from .signals import user_created

        user_created.connect(receivers.user_setup_on_create, dispatch_uid="scopes.user_setup")
