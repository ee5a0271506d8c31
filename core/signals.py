"""What the neutral core tells the apps above it. Apps tell each other things one way (README, "How apps
tell each other"): the app that speaks declares a Django signal in its `signals.py`, and the app that listens
connects its receiver in its AppConfig.ready, so the speaker never imports the listener."""

from django.dispatch import Signal

# A rule the database holds (a trigger, a constraint) refused a write with an IntegrityError (`error=`). The app
# that owns the rule answers it as its own DomainError, and None for any other error, so the one mapping to 4xx
# (core.api.errors) needs to know no app. The first answer that is not None, in connection order, is the refusal.
database_rule_refused = Signal()
