"""What the ladder tells the apps above it; it knows none of them (README, "How apps tell each other")."""

from django.dispatch import Signal

# A new user's personal scope exists (`user=`, `scope=`): what an app gives every new user (cards: their own
# person entity). Sent inside user_setup's transaction, so a receiver's failure undoes the setup.
user_set_up = Signal()

# `user=` joined the shared `scope=` (cards: propose merging look-alikes of the new member). Sent inside
# membership_set's transaction, before the member's grants are written.
member_joined = Signal()
