from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Review"

    def ready(self) -> None:
        # What the queue listens to (README, "How apps tell each other"): imported here, once the apps are loaded.
        from cards.signals import approvals_asked, cards_proposed, forgetting, probe_asked

        from . import receivers

        forgetting.connect(receivers.review_forget_copies, dispatch_uid="review.forget")
        approvals_asked.connect(receivers.card_approvals_answer, dispatch_uid="review.approvals")
        cards_proposed.connect(receivers.proposals_answer_on_propose, dispatch_uid="review.proposals")
        probe_asked.connect(receivers.probe_pending_answer, dispatch_uid="review.probe")

        # A service enqueues its task by the task's registered name, never importing the task module (which
        # imports the service): importing it here registers the tasks in every process, so an eager run
        # (no broker) finds them too.
        from . import tasks  # noqa: F401
