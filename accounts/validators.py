"""Password validators of our own, listed in AUTH_PASSWORD_VALIDATORS beside Django's."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _


class NotOnlySpacesValidator:
    """Refuses a password made only of spaces (or other white space, such as tabs).

    Django's validators let twelve spaces through: long enough, not common, not numeric.
    """

    message = _("Your password can't be only spaces.")

    def validate(self, password: str, user: Any = None) -> None:
        """:raises ValidationError: the password is nothing but white space."""
        if not password.strip():
            raise ValidationError(self.message, code="password_only_spaces")

    def get_help_text(self) -> str:
        return str(self.message)
