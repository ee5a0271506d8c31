from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        from cards.services.forget import forget_participant_register

        from .services.forget import review_forget

        # Whatever the store forgets, the queue forgets its copies of too.
        forget_participant_register(review_forget)
