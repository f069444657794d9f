"""Password validators of our own, listed in AUTH_PASSWORD_VALIDATORS beside Django's, and the
look-alike fold of usernames."""

from __future__ import annotations

import contextlib
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


# Providers whose mailboxes ignore dots in the local part, and the domain each delivers for.
_DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}
_QUOTED_PAIR = re.compile(r"\\(.)")


def email_canonical(address: str) -> str:
    """The mailbox an address is delivered to, as one string to compare (docs/api.md,
    "E-mail verification"): compatibility-normalized (NFKC) and case-folded; a quoted local
    part unquoted; the domain IDNA-encoded, as Django encodes it when sending; the local part
    cut at its first `+` (a sub-address: the same mailbox); and at gmail.com and
    googlemail.com, one domain and no dots. "" for "".

    >>> email_canonical('"U.X+tag"@GoogleMail.com') == email_canonical("ux@gmail.com")
    True
    """
    if not address:
        return ""
    local, at, domain = unicodedata.normalize("NFKC", address).casefold().rpartition("@")
    if not at:
        return address.casefold()
    if len(local) >= 2 and local[0] == local[-1] == '"':
        local = _QUOTED_PAIR.sub(r"\1", local[1:-1])
    domain = domain.rstrip(".")
    # As django.utils.encoding.punycode sends it; a name IDNA does not encode (the form
    # refuses it) is compared as folded.
    with contextlib.suppress(UnicodeError):
        domain = domain.encode("idna").decode("ascii")
    local = local.split("+", 1)[0] or local
    if domain in _DOTLESS_DOMAINS:
        local, domain = local.replace(".", "") or local, _DOTLESS_DOMAINS[domain]
    return f"{local}@{domain}"
