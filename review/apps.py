from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        from cards.provenance import approval_reader_register
        from cards.services.forget import forget_participant_register

        from .selectors import card_approvals
        from .services.forget import review_forget

        # Whatever the store forgets, the queue forgets its copies of too.
        forget_participant_register(review_forget)
        # A card's provenance ends with who approved it here.
        approval_reader_register(card_approvals)
