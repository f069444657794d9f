"""Password validators of our own, listed in AUTH_PASSWORD_VALIDATORS beside Django's, and the
look-alike fold of usernames."""

from __future__ import annotations

import re
import unicodedata
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


# Characters that pass for others in a name, after case folding (Unicode TR39's confusables,
# the ASCII part: a name is ASCII, accounts.views.USERNAME_RE), and the separators that a
# reader skips ("Admin.", "root_", "staff-").
_LOOK_ALIKES = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "$": "s"})
_SEPARATORS = re.compile(r"[\W_]+")
_DOUBLES = (("rn", "m"), ("vv", "w"), ("cl", "d"))


def username_skeleton(name: str) -> str:
    """What a name looks like to a reader: compatibility-normalized (NFKC), case-folded,
    separators and punctuation dropped, look-alike letters and digits made one. Two names with
    the same skeleton pass for each other.

    >>> username_skeleton("Adm1n.") == username_skeleton("admin") == username_skeleton("ADMlN")
    True
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    skeleton = _SEPARATORS.sub("", folded).translate(_LOOK_ALIKES)
    for pair, single in _DOUBLES:
        skeleton = skeleton.replace(pair, single)
    return skeleton
