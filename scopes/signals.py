"""What the ladder tells whoever listens — its own services, and the apps above it, none of which it knows
(README, "How apps tell each other")."""

from django.dispatch import Signal

# A user row was created through the manager (create_user, create_superuser, so every path: a service, the admin,
# createsuperuser), inside its transaction (`user=`). The ladder's own services answer it (scopes.receivers:
# user_setup), since the models they import cannot import them; user_set_up follows.
user_created = Signal()

# A new user's personal scope exists (`user=`, `scope=`): what an app gives every new user (cards: their own
# person entity). Sent inside user_setup's transaction, so a receiver's failure undoes the setup.
user_set_up = Signal()

# `user=` joined the shared `scope=` (cards: propose merging look-alikes of the new member). Sent inside
# membership_set's transaction, before the member's grants are written.
member_joined = Signal()
