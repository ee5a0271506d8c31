"""Python client for the memory-site agent API."""

from .client import AsyncMemoryClient, MemoryClient
from .errors import Forbidden, Invalid, MemoryError, NotFound, RateLimited, Unauthorized
from .types import Answer, Card, Context, Count, Job, Profile, ProfileItem, Recalled, Remembered, Scope, Scored

__all__ = ["AsyncMemoryClient", "MemoryClient", "MemoryError", "Unauthorized", "Forbidden", "NotFound", "Invalid",
           "RateLimited", "Answer", "Card", "Context", "Count", "Job", "Profile", "ProfileItem", "Recalled",
           "Remembered", "Scope", "Scored"]
