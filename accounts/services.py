"""Account writes: register, log in, log out, reset a forgotten password. Views call these;
they hold the rules."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.utils import timezone, translation
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode
from django.utils.translation import gettext
from knox.models import AuthToken
from kombu.exceptions import OperationalError
from rest_framework import status
from rest_framework.exceptions import AuthenticationFailed

from accounts import lockout, tokens
from accounts.models import User
from config.api import ApplicationError
from config.hooks import Hook

logger = logging.getLogger("accounts.services")

# Sends the task that e-mails the reset links for (email, domain, use_https, language) now, not
# after a commit (`accounts.tasks.password_reset_queue`, connected in `accounts.apps`); raises
# kombu's OperationalError when the broker is away.
password_reset_queue: Hook[[str, str, bool, str]] = Hook("accounts.services.password_reset_queue")

# Names a player may not take, in any letter case: they would pass for the site speaking.
RESERVED_USERNAMES = frozenset(
    {"admin", "root", "support", "moderator", "system", "staff", "klondike"}
)
# At most one reset e-mail per account in this many seconds, however often it is asked for.
PASSWORD_RESET_MAIL_INTERVAL_S = 60
PASSWORD_RESET_SUBJECT_TEMPLATE = "registration/klondike_password_reset_subject.txt"
PASSWORD_RESET_EMAIL_TEMPLATE = "registration/klondike_password_reset_email.txt"


class UsernameTakenError(ApplicationError):
    code = "invalid"


class MailUnavailableError(ApplicationError):
    status_code = 503
    code = "unavailable"


class InvalidCredentialsError(ApplicationError):
    status_code = 401
    code = "invalid_credentials"


class LoginLockedError(ApplicationError):
    """Too many failed logins for the account or from the address; `retry_after` seconds."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "throttled"


class InvalidResetLinkError(ApplicationError):
    code = "invalid"


@transaction.atomic
def user_register(
    *,
    username: str,
    password: str,
    email: str = "",
    guest: User | None = None,
    language: str = "",
) -> tuple[User, AuthToken, str]:
    """Create a user and an API token for this device; returns the user, the token and its
    key (known only now: the database keeps its digest).

    With `guest` (the caller's session is a guest's), the guest becomes the account in place:
    its games, their move logs and its stats stay its own, since nothing but its user row
    changes (the log is append-only). Its join date becomes now, so that playing as a guest
    first does not age an account past the integrity check's new-account rule, and its
    session's token is revoked (the caller starts a session on the new one). `language` is the
    one the player picked before signing up, if any (a code of settings.LANGUAGES).

    :raises ApplicationError: the name is reserved (RESERVED_USERNAMES, in any letter case), or
        the password fails the validators (code `invalid`).
    :raises UsernameTakenError: the name is taken, in any letter case.
    :raises AuthenticationFailed: `guest` is no longer an active guest (signed up already in
        another tab, or purged).
    """
    if username.lower() in RESERVED_USERNAMES:
        message = gettext("That username is reserved.")
        raise ApplicationError(message, fields={"username": [message]})
    if User.objects.filter(username__iexact=username).exists():
        message = gettext("That username is taken.")
        raise UsernameTakenError(message, fields={"username": [message]})
    candidate = User(username=username, email=email)
    if guest is not None:
        candidate = _guest_locked(guest)
        candidate.username, candidate.email = username, email
        candidate.is_guest = False
        candidate.date_joined = timezone.now()
    if language:
        candidate.language = language
    try:
        validate_password(password, user=candidate)
    except DjangoValidationError as exc:
        messages = list(exc.messages)
        raise ApplicationError(messages[0], fields={"password": messages}) from None
    candidate.set_password(password)
    try:
        # A savepoint, so a lost race on the unique name leaves the outer transaction usable.
        with transaction.atomic():
            candidate.save()
    except IntegrityError:
        message = gettext("That username is taken.")
        raise UsernameTakenError(message, fields={"username": [message]}) from None
    if guest is not None:
        tokens.token_revoke_all(user=candidate)
    token, key = tokens.token_create(user=candidate)
    return candidate, token, key


def _guest_locked(guest: User) -> User:
    """The guest's row, locked until the transaction ends, if it is still an active guest.

    :raises AuthenticationFailed: it signed up already, or was deactivated or purged.
    """
    row = User.objects.select_for_update().filter(pk=guest.pk, is_guest=True, is_active=True)
    locked = row.first()
    if locked is None:
        raise AuthenticationFailed(gettext("This guest session has ended: reload the page."))
    return locked


# A guest's name: a character no player's name may hold (`accounts.views.USERNAME_RE`), so it
# never collides with, or passes for, a real player's.
GUEST_NAME_PREFIX = "~guest-"


@transaction.atomic
def guest_create() -> tuple[User, AuthToken]:
    """Create a guest account and the API token its browser session is bound to; returns
    both. The guest has no usable password (it cannot log in) and the token's key is not
    kept anywhere: the session is its only way in, and a guest whose token expired or was
    revoked is gone for good (`guests_purge`)."""
    guest = User(username=GUEST_NAME_PREFIX + secrets.token_hex(8), is_guest=True)
    guest.set_unusable_password()
    guest.save(force_insert=True)
    token, _ = tokens.token_create(user=guest)
    return guest, token


@transaction.atomic
def guests_purge(*, now: datetime | None = None) -> tuple[int, int]:
    """Remove the guests nobody can reach any more: those without a live API token (their
    session's token expired, unused for TOKEN_TTL_DAYS, or was revoked by a sign-out; a
    guest has no other way in). A guest that owns nothing is deleted; one that still owns
    games is deactivated instead, since a game's move log is append-only and is never
    deleted (the caller deletes their unplayed games first: `accounts.tasks`). Returns
    (deleted, deactivated). Idempotent.
    """
    idle = guests_idle(now=now)
    _, deleted = idle.filter(games__isnull=True).delete()
    deactivated = idle.update(is_active=False)
    return deleted.get(User._meta.label, 0), deactivated


def guests_idle(*, now: datetime | None = None) -> QuerySet[User]:
    """The active guests without a live API token: nobody can sign in as them again."""
    live = AuthToken.objects.filter(user=OuterRef("pk"), expiry__gt=now or timezone.now())
    return User.objects.filter(is_guest=True, is_active=True).exclude(Exists(live))


@transaction.atomic
def user_language_set(*, user: User, language: str) -> User:
    """Keep the language a player picked (a code of settings.LANGUAGES, checked by the caller)
    on their profile: their next sign-in, on any device, sets it again, and their e-mails
    are written in it."""
    user.language = language
    user.save(update_fields=["language"])
    # The shared cache keeps each token with its owner's row: drop them, so that the next
    # request (`me`, an e-mail's language) sees the new choice.
    digests = list(AuthToken.objects.filter(user=user).values_list("digest", flat=True))
    transaction.on_commit(lambda: [tokens.token_cache_forget(digest=d) for d in digests])
    return user


def user_login(
    *, request: HttpRequest, username: str, password: str
) -> tuple[User, AuthToken, str]:
    """Check the credentials (username in any case) and give this device a new API token
    (`accounts.tokens.token_create`: each login is a device of its own, logged out on its
    own); returns the user, the token and its key.

    `request` goes to `authenticate()`, so that django-axes counts a failure against the
    account and the client address, and refuses a locked-out login before hashing anything.
    Not atomic on purpose: a failure is recorded even though this raises.

    :raises LoginLockedError: too many failed logins for the account or from the address
        (this failure may be the one that reached the limit); `retry_after` seconds.
    :raises InvalidCredentialsError: unknown user, wrong password or inactive account.
    """
    stored = User.objects.filter(username__iexact=username).only("username").first()
    name = stored.username if stored else username
    user = authenticate(request, username=name, password=password)
    if user is None:
        if getattr(request, "axes_locked_out", False):
            seconds = lockout.lockout_seconds_left(request=request, credentials={"username": name})
            raise LoginLockedError(lockout.locked_message(seconds), retry_after=seconds)
        raise InvalidCredentialsError(gettext("Wrong username or password."))
    token, key = tokens.token_create(user=user)
    return user, token, key


@transaction.atomic
def user_logout(*, token_digests: Iterable[str]) -> None:
    """Revoke the tokens a caller logged out with (its own device's: the token it sent, or
    the one its session is bound to); the account's other devices stay logged in."""
    for digest in set(token_digests):
        tokens.token_revoke(digest=digest)


def user_logout_all(*, user: User) -> int:
    """Revoke every API token of the account (log out everywhere; the page's sessions end
    with the tokens they are bound to); returns how many there were."""
    return tokens.token_revoke_all(user=user)


def user_password_reset_request(
    *, email: str, domain: str, use_https: bool, language: str = settings.LANGUAGE_CODE
) -> None:
    """Have a password reset link e-mailed to the accounts with this address, if any.

    Sends a task and looks nothing up here, so the caller's answer takes the same time whether
    or not the address belongs to an account. `domain` (the request's host, checked against
    ALLOWED_HOSTS) and `use_https` make the link; the e-mail is written in `language` (the
    asking request's).

    :raises MailUnavailableError: the task queue cannot take the request (Redis down); the
        same answer for every address.
    """
    try:
        password_reset_queue(email, domain, use_https, language)
    except OperationalError:  # kombu's: the broker is away
        logger.warning("password reset: the task queue did not answer", exc_info=True)
        raise MailUnavailableError(
            gettext(
                "Password reset e-mails cannot be sent just now; please try again in a few minutes."
            )
        ) from None


class _ResetForm(PasswordResetForm):
    """Django's reset form, sending to an account at most once per interval."""

    def get_users(self, email: str) -> Iterator[Any]:
        for user in super().get_users(email):
            if cache.add(f"accounts:reset-mail:{user.pk}", 1, PASSWORD_RESET_MAIL_INTERVAL_S):
                yield user

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        *args: Any,
        **kwargs: Any,
    ) -> None:
        """Writes each account's e-mail in the language it picked, if it picked one."""
        with translation.override(context["user"].language or translation.get_language()):
            super().send_mail(subject_template_name, email_template_name, context, *args, **kwargs)


def user_password_reset_send(
    *, email: str, domain: str, use_https: bool, language: str = settings.LANGUAGE_CODE
) -> None:
    """E-mail a reset link to each active account with this address (any case) and a usable
    password, unless one was sent to it in the last PASSWORD_RESET_MAIL_INTERVAL_S seconds.

    The link, `<scheme>://<domain>/password-reset/<uid>/<token>`, carries Django's
    `default_token_generator` token: it expires after PASSWORD_RESET_TIMEOUT and stops working
    once the password changes or the account signs in on the site. An address that is not
    well formed, or matches no account, sends nothing. The subject and the text are in the
    language the account picked (`User.language`), else in `language` (one of
    settings.LANGUAGES; another falls back to English).
    """
    form = _ResetForm({"email": email})
    if not form.is_valid():
        return
    with translation.override(language):
        form.save(
            domain_override=domain,
            use_https=use_https,
            token_generator=default_token_generator,
            subject_template_name=PASSWORD_RESET_SUBJECT_TEMPLATE,
            email_template_name=PASSWORD_RESET_EMAIL_TEMPLATE,
            extra_email_context={"valid_minutes": settings.PASSWORD_RESET_TIMEOUT // 60},
        )


def _reset_link_user(*, uid: str, token: str) -> User:
    """The active account a reset link names, if its token is valid.

    :raises InvalidResetLinkError: the uid names no active account, or the token is forged,
        expired or used (it is bound to the password it was issued under).
    """
    try:
        pk = int(force_str(urlsafe_base64_decode(uid)))
        user = User.objects.get(pk=pk, is_active=True)
    except (TypeError, ValueError, OverflowError, User.DoesNotExist):
        user = None
    if user is None or not default_token_generator.check_token(user, token):
        message = gettext("This password reset link is invalid or has expired. Ask for a new one.")
        raise InvalidResetLinkError(message, fields={"token": [message]})
    return user


@transaction.atomic
def user_password_reset_confirm(*, uid: str, token: str, new_password: str) -> User:
    """Set a new password with a reset link's uid and token, then revoke the account's API
    tokens (its sessions end too: they were bound to the old password) and lift its login
    lockout. The link works once: the token is bound to the old password.

    :raises InvalidResetLinkError: a bad, forged, expired or used link (code `invalid`).
    :raises ApplicationError: the new password fails the validators (code `invalid`).
    """
    user = _reset_link_user(uid=uid, token=token)
    form = SetPasswordForm(user, {"new_password1": new_password, "new_password2": new_password})
    if not form.is_valid():
        messages = [str(m) for errors in form.errors.values() for m in errors]
        raise ApplicationError(messages[0], fields={"new_password": messages})
    form.save()
    user_logout_all(user=user)
    AxesProxyHandler.reset_attempts(username=lockout.lockout_key(username=user.username))
    return user
