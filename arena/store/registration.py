"""A service's account settings: who may register, and how long API tokens last."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

DEFAULT_TOKEN_DAYS = 90
"""How long a token lasts when neither the service nor the request says."""


class Registration(StrEnum):
    """Who may register: anyone, those with an admin's invitation code, or nobody."""

    OPEN = "open"
    INVITE = "invite"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class AccountPolicy:
    """The service's account settings: its registration mode and how long tokens last
    (``token_days`` 0: for ever, unless a request asks for a number of days)."""

    registration: Registration = Registration.OPEN
    token_days: int = DEFAULT_TOKEN_DAYS

    def describe(self) -> str:
        """One line telling the settings."""
        days = f"after {self.token_days} days" if self.token_days else "never"
        return f"registration {self.registration.value}; tokens expire {days}"
