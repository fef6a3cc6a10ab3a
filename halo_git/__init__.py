"""halo-git: HALO agent event traces as Git history."""

from .api import Halo
from .errors import Conflict, HaloError, IntegrityError, InvalidCall, NotFound, UnknownEvents
from .model import Event

__all__ = ["Halo", "Event", "HaloError", "InvalidCall", "UnknownEvents", "NotFound", "Conflict", "IntegrityError"]
__version__ = "0.1.0"
