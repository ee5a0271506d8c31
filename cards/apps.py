from django.apps import AppConfig


class CardsConfig(AppConfig):
    name = "cards"
    verbose_name = "Memory cards"

    def ready(self) -> None:
        from core.errors import integrity_reader_register

        from .services.corrections import event_update_refused

        # The write-once trigger on events is the card domain's rule: the API's
        # one error mapping learns here how to read its refusal.
        integrity_reader_register(event_update_refused)
