"""Account writes: register, log in, log out, reset a forgotten password, verify an e-mail
address. Views call these; they hold the rules."""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from axes.handlers.proxy import AxesProxyHandler
from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import PasswordResetTokenGenerator, default_token_generator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.crypto import constant_time_compare
from django.utils.encoding import force_bytes, force_str
from django.utils.http import base36_to_int, urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext
from knox.models import AuthToken
from kombu.exceptions import OperationalError
from rest_framework.exceptions import AuthenticationFailed

from accounts import lockout, mail_limits, tokens
from accounts.errors import (
    AccountRequiredError,
    EmailTakenError,
    EmailUnverifiedError,
    HashingBusyError,
    InvalidCredentialsError,
    InvalidResetLinkError,
    InvalidVerificationLinkError,
    LoginLockedError,
    MailLimitedError,
    MailUnavailableError,
    UsernameTakenError,
)
from accounts.models import MailSent, RankedMailbox, User
from accounts.validators import email_canonical, username_skeleton
from config.env import VAR_DIR
from config.errors import ApplicationError
from config.hooks import Hook
from config.slots import HostSlots

logger = logging.getLogger("accounts.services")

# Sends the task that e-mails the reset links for (email, domain, use_https, language) now, not
# after a commit (`accounts.tasks.password_reset_queue`, connected in `accounts.apps`); raises
# kombu's OperationalError when the broker is away.
password_reset_queue: Hook[[str, str, bool, str]] = Hook("accounts.services.password_reset_queue")
# Sends the task that e-mails a verification link for (user id, address, domain, use_https,
# language) once the transaction commits (`accounts.tasks.email_verification_queue`, connected
# in `accounts.apps`); a broker that is away is logged, and the player asks again.
email_verification_queue: Hook[[int, str, str, bool, str]] = Hook(
    "accounts.services.email_verification_queue"
)

# Names a player may not take, in any letter case: they would pass for the site speaking.
RESERVED_USERNAMES = frozenset(
    {"admin", "root", "support", "moderator", "system", "staff", "klondike"}
)
# ... nor one that passes for one of them: "Admin.", "root_", "r00t", "rnoderator"
# (`username_skeleton`).
_RESERVED_SKELETONS = frozenset(map(username_skeleton, RESERVED_USERNAMES))
PASSWORD_RESET_SUBJECT_TEMPLATE = "registration/klondike_password_reset_subject.txt"
PASSWORD_RESET_EMAIL_TEMPLATE = "registration/klondike_password_reset_email.txt"


# One host's password hashes at once (settings.PASSWORD_HASHES_AT_ONCE), as lock files shared
# by all its processes (config.slots): a login flood from many addresses, each within its
# throttle, would otherwise keep every core hashing and starve the players' moves.
_hash_slots = HostSlots("password-hash", settings.PASSWORD_HASHES_AT_ONCE, VAR_DIR / "locks")


@contextlib.contextmanager
def password_hash_slot() -> Iterator[None]:
    """Hold one of the host's password-hashing slots for the block.

    :raises HashingBusyError: all are taken: 503 `unavailable` at once, `retry_after` 1 s.
    """
    with _hash_slots.take() as got:
        if not got:
            raise HashingBusyError(
                gettext("Too many sign-ins at this moment: try again in a second."),
                retry_after=1,
            )
        yield


@dataclass(frozen=True)
class MailOrigin:
    """Where the link of an e-mail points and which language it falls back to: the asking
    site's origin (SITE_URL, never the request's Host) and the request's language. An account that
    picked a language gets its e-mails in that one."""

    domain: str
    use_https: bool
    language: str = settings.LANGUAGE_CODE


@transaction.atomic
def user_register(
    *,
    username: str,
    password: str,
    email: str = "",
    guest: User | None = None,
    language: str = "",
    origin: MailOrigin | None = None,
    device: str = "",
) -> tuple[User, AuthToken, str]:
    """Create a user and an API token for this device (`device`: `accounts.tokens.device_id`);
    returns the user, the token and its key (known only now: the database keeps its digest).

    With `guest` (the caller's session is a guest's), the guest becomes the account in place:
    its games, their move logs and its stats stay its own, since nothing but its user row
    changes (the log is append-only). Its join date becomes now, so that playing as a guest
    first does not age an account past the integrity check's new-account rule, and its
    session's token is revoked (the caller starts a session on the new one). `language` is the
    one the player picked before signing up, if any (a code of settings.LANGUAGES). With an
    `email` and an `origin`, a verification link is e-mailed to the address after the commit
    (`user_email_set`), unless the mailbox's limits refuse it (`accounts.mail_limits`: the
    sign-up goes on, and `user_email_verification_send` sends one later); the address stays
    unverified until it is opened.

    :raises ApplicationError: the name is reserved (RESERVED_USERNAMES, or a look-alike of one:
        `username_skeleton`), or
        the password fails the validators (code `invalid`).
    :raises UsernameTakenError: the name is taken, in any letter case.
    :raises AuthenticationFailed: `guest` is no longer an active guest (signed up already in
        another tab, or purged).
    """
    if username_skeleton(username) in _RESERVED_SKELETONS:
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
    with password_hash_slot():
        candidate.set_password(password)
    try:
        # A savepoint, so a lost race on the unique name leaves the outer transaction usable.
        with transaction.atomic():
            candidate.save()
    except IntegrityError:
        message = gettext("That username is taken.")
        raise UsernameTakenError(message, fields={"username": [message]}) from None
    if candidate.email and origin is not None:
        with contextlib.suppress(MailLimitedError):
            _verification_mail_queue(user=candidate, origin=origin)
    if guest is not None:
        tokens.token_revoke_all(user=candidate)
    token, key = tokens.token_create(user=candidate, device=device)
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


def _token_caches_forget(user: User) -> None:
    """After the commit, drop the account's tokens from the shared cache, which keeps each with
    its owner's row: the next request sees the row as it now is."""
    digests = list(AuthToken.objects.filter(user=user).values_list("digest", flat=True))
    transaction.on_commit(lambda: tokens.token_caches_forget(digests=digests))


@transaction.atomic
def user_language_set(*, user: User, language: str) -> User:
    """Keep the language a player picked (a code of settings.LANGUAGES, checked by the caller)
    on their profile: their next sign-in, on any device, sets it again, and their e-mails
    are written in it."""
    user.language = language
    user.save(update_fields=["language"])
    _token_caches_forget(user)  # the next request (`me`, an e-mail's language) sees it
    return user


def user_login(
    *,
    request: HttpRequest,
    username: str,
    password: str,
    device_user_id: int | None = None,
    device: str = "",
) -> tuple[User, AuthToken, str]:
    """Check the credentials (username in any case) and give this device a new API token
    (`accounts.tokens.token_create`: each login is a device of its own, logged out on its
    own, recorded as `device`: `accounts.tokens.device_id`); returns the user, the token and
    its key.

    `request` goes to `authenticate()`, so that django-axes counts a failure against the
    account from this address and against the address, and refuses a locked-out login before
    hashing anything. A device already signed in to the account (`device_user_id`: the
    account of the valid token or session it came with) is not kept out by a lock, which is
    aimed at guessers: it has the account already, and a neighbour's failures on a shared
    address must not lock its owner out. Not atomic on purpose: a failure is recorded even
    though this raises.

    :raises LoginLockedError: too many failed logins for the account or from the address
        (this failure may be the one that reached the limit); `retry_after` seconds.
    :raises InvalidCredentialsError: unknown user, wrong password or inactive account.
    """
    if "\x00" in username or "\x00" in password:
        # No account has one (PostgreSQL cannot even compare a string that holds it).
        raise InvalidCredentialsError(gettext("Wrong username or password."))
    stored = User.objects.filter(username__iexact=username).only("username").first()
    name = stored.username if stored else username
    with password_hash_slot():
        user = authenticate(request, username=name, password=password)
    locked = getattr(request, "axes_locked_out", False)
    if user is None and locked and stored is not None and stored.pk == device_user_id:
        with password_hash_slot():
            user = ModelBackend().authenticate(request, username=name, password=password)
        # Not locked after all (AxesMiddleware would put its lockout answer in place of this
        # one); and a wrong password from the account's own device is no guess.
        locked = request.axes_locked_out = False  # type: ignore[attr-defined]
    if user is None:
        if locked:
            seconds = lockout.lockout_seconds_left(request=request, credentials={"username": name})
            raise LoginLockedError(lockout.locked_message(seconds), retry_after=seconds)
        raise InvalidCredentialsError(gettext("Wrong username or password."))
    token, key = tokens.token_create(user=user, device=device)
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
    or not the address belongs to an account. `domain` and `use_https` (the site's, SITE_URL)
    make the link; the e-mail is written in `language` (the
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
            ),
            retry_after=60,
        ) from None


class _ResetForm(PasswordResetForm):
    """Django's reset form, sending to each account as the mailbox's limits let it
    (`accounts.mail_limits`)."""

    def get_users(self, email: str) -> Iterator[Any]:
        for user in super().get_users(email):
            try:
                mail_limits.mail_send_reserve(
                    user=user, email=user.email, kind=MailSent.Kind.PASSWORD_RESET
                )
            except MailLimitedError:
                continue
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
    password, as the mailbox's limits let it (`accounts.mail_limits`: one a minute per
    account, and the mailbox's daily cap).

    The link, `<scheme>://<domain>/password-reset/<uid>/<token>`, carries Django's
    `default_token_generator` token: it expires after PASSWORD_RESET_TIMEOUT and stops working
    once the password changes or the account signs in on the site. An address that is not
    well formed, or matches no account, sends nothing. The e-mail greets the account by its
    name only when the address is verified: an unverified one may be a stranger's, who is
    not to be greeted by a name the sender chose. The subject and the text are in the
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
            # An int: the template counts with it (its stubs allow strings only).
            extra_email_context={"valid_minutes": settings.PASSWORD_RESET_TIMEOUT // 60},  # type: ignore[dict-item]
        )


def _link_account(uid: str, *, lock: bool = False) -> User | None:
    """The active account an e-mailed link's `uid` (its id in URL-safe base64) names, locked
    for the transaction with `lock`; None for a uid that does not decode or names none."""
    try:
        pk = int(force_str(urlsafe_base64_decode(uid)))
    except (TypeError, ValueError, OverflowError):
        return None
    accounts = User.objects.select_for_update() if lock else User.objects
    return accounts.filter(pk=pk, is_active=True).first()


def _reset_link_user(*, uid: str, token: str) -> User:
    """The active account a reset link names, if its token is valid.

    :raises InvalidResetLinkError: the uid names no active account, or the token is forged,
        expired or used (it is bound to the password it was issued under).
    """
    user = _link_account(uid)
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
    with password_hash_slot():
        form.save()
    user_logout_all(user=user)
    AxesProxyHandler.reset_attempts(username=lockout.lockout_key(username=user.username))
    return user


# --- E-mail address: verified by a link, needed for ranked play ---------------------------

EMAIL_VERIFICATION_SUBJECT_TEMPLATE = "registration/klondike_email_verification_subject.txt"
EMAIL_VERIFICATION_EMAIL_TEMPLATE = "registration/klondike_email_verification_email.txt"


class EmailVerificationTokenGenerator(PasswordResetTokenGenerator):
    """Django's reset token, salted apart and bound to the account's address and to whether it
    is verified: a link stops working once it is used, or the address changes, and
    EMAIL_VERIFICATION_TIMEOUT seconds after it was made."""

    key_salt = "accounts.services.EmailVerificationTokenGenerator"

    def _make_hash_value(self, user: Any, timestamp: int) -> str:
        verified = user.email_verified_at
        verified_text = "" if verified is None else verified.replace(microsecond=0).isoformat()
        return f"{user.pk}{user.email}{verified_text}{timestamp}"

    def check_token(self, user: Any, token: str | None) -> bool:
        """Django's check (each secret, then the age), with this link's own lifetime: the
        parent class reads PASSWORD_RESET_TIMEOUT, an hour."""
        if not (user and token):
            return False
        try:
            ts_b36, _ = token.split("-")
            timestamp = base36_to_int(ts_b36)
        except ValueError:
            return False
        if not any(
            constant_time_compare(self._make_token_with_timestamp(user, timestamp, secret), token)
            for secret in [self.secret, *self.secret_fallbacks]
        ):
            return False
        age = self._num_seconds(self._now()) - timestamp
        return 0 <= age <= settings.EMAIL_VERIFICATION_TIMEOUT


email_verification_token_generator = EmailVerificationTokenGenerator()


def _check_account(user: User) -> None:
    """:raises AccountRequiredError: `user` is a guest (an address is an account's)."""
    if user.is_guest:
        raise AccountRequiredError(
            gettext("Sign up first: an e-mail address belongs to an account, not to a guest.")
        )


def _verification_mail_queue(*, user: User, origin: MailOrigin) -> None:
    """Have a verification link for the account's present address e-mailed after the commit,
    counted against the mailbox's limits.

    :raises MailLimitedError: the limits refuse it (`accounts.mail_limits.mail_send_reserve`).
    """
    mail_limits.mail_send_reserve(user=user, email=user.email, kind=MailSent.Kind.VERIFICATION)
    email_verification_queue(user.pk, user.email, origin.domain, origin.use_https, origin.language)


@transaction.atomic
def user_email_set(*, user: User, email: str, origin: MailOrigin) -> tuple[User, bool]:
    """Give the account the address `email`, unverified, and have a verification link
    e-mailed to it after the commit (`user_email_verification_mail`). Returns the account and
    whether a link is on its way: not when `email` is its verified mailbox already (in any
    spelling: `email_canonical`), which then stays as it is.

    Another account's verified address is accepted here, so that the answer never tells
    whether an address belongs to someone; its link is refused when opened
    (`user_email_verify`). A changed address is no longer verified. Checked before anything
    changes: the mailbox's limits (`accounts.mail_limits`).

    :raises AccountRequiredError: `user` is a guest.
    :raises MailLimitedError: the limits refuse a link now: nothing changes (429).
    """
    _check_account(user)
    locked = User.objects.select_for_update().get(pk=user.pk)
    email = User.objects.normalize_email(email)
    if locked.email_verified_at is not None and locked.email_canonical == email_canonical(email):
        return locked, False
    if locked.email != email or locked.email_verified_at is not None:
        locked.email, locked.email_verified_at = email, None
        locked.save(update_fields=["email", "email_verified_at"])
        _token_caches_forget(locked)
    _verification_mail_queue(user=locked, origin=origin)  # a refusal rolls the change back
    return locked, True


@transaction.atomic
def user_email_verification_send(*, user: User, origin: MailOrigin) -> tuple[User, bool]:
    """Have a new verification link e-mailed to the account's present address, after the
    commit. Returns the account and whether a link is on its way: not when the address is
    verified already.

    :raises AccountRequiredError: `user` is a guest.
    :raises ApplicationError: the account has no address (code `invalid`, `fields.email`).
    :raises MailLimitedError: the mailbox's limits refuse a link now (429).
    """
    _check_account(user)
    current = User.objects.get(pk=user.pk)
    if not current.email:
        message = gettext("Your account has no e-mail address yet: give one first.")
        raise ApplicationError(message, fields={"email": [message]})
    if current.email_verified_at is not None:
        return current, False
    _verification_mail_queue(user=current, origin=origin)
    return current, True


def user_email_verification_mail(
    *, user_id: int, email: str, domain: str, use_https: bool, language: str
) -> bool:
    """E-mail the link `<scheme>://<domain>/verify-email/<uid>/<token>` to `email`, if it is
    still the address of the active account `user_id` and unverified (the request that
    queued it counted it against the mailbox's limits). Returns whether it was sent. The
    e-mail names no account: a stranger may have typed the address. It is in the language
    the account picked (`User.language`), else in `language` (one of settings.LANGUAGES;
    another falls back to English).
    """
    user = User.objects.filter(pk=user_id, is_active=True, is_guest=False).first()
    if user is None or user.email != email or user.email_verified_at is not None:
        return False  # changed or verified since the link was asked for: nothing to send
    context = {
        "user": user,
        "protocol": "https" if use_https else "http",
        "domain": domain,
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": email_verification_token_generator.make_token(user),
        "valid_hours": settings.EMAIL_VERIFICATION_TIMEOUT // 3600,
    }
    with translation.override(user.language or language):
        subject = render_to_string(EMAIL_VERIFICATION_SUBJECT_TEMPLATE, context)
        body = render_to_string(EMAIL_VERIFICATION_EMAIL_TEMPLATE, context)
    # A header cannot hold a line break: the subject template's lines make one line.
    send_mail("".join(subject.splitlines()), body, None, [email])
    return True


@transaction.atomic
def user_email_verify(*, uid: str, token: str) -> User:
    """Verify the account's address with a verification link's uid and token. The link works
    once (its token is bound to the address being unverified), for
    EMAIL_VERIFICATION_TIMEOUT seconds, and only while the address is the one it was sent to.

    :raises InvalidVerificationLinkError: a bad, forged, expired or used link, or one of an
        account that is inactive or a guest (code `invalid`, `fields.token`).
    :raises EmailTakenError: another account verified this mailbox first (in any spelling:
        `email_canonical`), or it is another account's ranked identity (`RankedMailbox`),
        even one since deleted.
    """
    user = _link_account(uid, lock=True)
    if (
        user is None
        or user.is_guest
        or not user.email
        or not email_verification_token_generator.check_token(user, token)
    ):
        message = gettext("This verification link is invalid, used or expired. Ask for a new one.")
        raise InvalidVerificationLinkError(message, fields={"token": [message]})
    if (
        RankedMailbox.objects.filter(email_canonical=user.email_canonical)
        .exclude(user_id=user.pk)
        .exists()
    ):
        raise _ranked_taken()
    user.email_verified_at = timezone.now()
    try:
        # A savepoint, so that a lost race for the address leaves the outer transaction usable.
        with transaction.atomic():
            user.save(update_fields=["email_verified_at"])
    except IntegrityError:  # accounts_user_verified_mailbox_unique
        raise EmailTakenError(
            gettext("This address is verified for another account already: give another one.")
        ) from None
    _token_caches_forget(user)
    return user


def _ranked_elsewhere() -> Exists:
    """Whether the outer account's mailbox is another account's ranked identity."""
    return Exists(
        RankedMailbox.objects.filter(email_canonical=OuterRef("email_canonical")).exclude(
            user_id=OuterRef("pk")
        )
    )


def user_check_verified_email(*, user: User) -> None:
    """Refuse ranked play to an account without a verified address (one query, the database's
    word: a cached row may be older than a verification or a change of address). A guest is
    let through: ranks are for accounts, and `games.services.game_create` refuses it with
    `account_required`, the answer a guest gets, whatever its address.

    :raises EmailUnverifiedError: the account's address is missing or unverified.
    :raises EmailTakenError: its mailbox is another account's ranked identity (only a race
        with `user_email_verify`, which refuses that, gets here).
    """
    row = (
        User.objects.filter(pk=user.pk)
        .annotate(elsewhere=_ranked_elsewhere())
        .values_list("is_guest", "email_verified_at", "elsewhere")
        .first()
    )
    if row is not None and row[2] and row[1] is not None:
        raise _ranked_taken()
    if row is None or row[0] or row[1] is not None:
        return  # gone (the caller's activity check refuses it) or a guest: refused elsewhere
    raise EmailUnverifiedError(
        gettext(
            "Ranked play needs a verified e-mail address: verify yours with the link we e-mail "
            "you, then start your attempt."
        )
    )


def _ranked_taken() -> EmailTakenError:
    return EmailTakenError(
        gettext(
            "This address plays ranked for another account: verify another one for this account."
        )
    )


def user_ranked_mailbox_record(*, user: User) -> None:
    """Inside the transaction that records a ranked attempt (`games.daily.services.attempts.
    daily_start`): keep the account's verified mailbox as its ranked identity for good
    (`RankedMailbox`), so that no other account verifies it again.

    :raises EmailTakenError: it is another account's already (a race with a verification):
        the caller's transaction rolls back, and nothing is ranked.
    """
    verified = User.objects.filter(pk=user.pk, email_verified_at__isnull=False)
    mailbox = verified.values_list("email_canonical", flat=True).first()
    if not mailbox:
        return
    record, _ = RankedMailbox.objects.get_or_create(
        email_canonical=mailbox, defaults={"user": user, "first_played_at": timezone.now()}
    )
    if record.user_id != user.pk:
        raise _ranked_taken()
