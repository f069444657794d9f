"""The accounts app's errors, each rendered in the API's error format by `config.errors`."""

from __future__ import annotations

from rest_framework import status

from config.errors import ApplicationError, ConflictError, ForbiddenError


class UsernameTakenError(ApplicationError):
    code = "invalid"


class MailUnavailableError(ApplicationError):
    status_code = 503
    code = "unavailable"


class MailLimitedError(ApplicationError):
    """No e-mail sent: the limits of its mailbox (`accounts.mail_limits`); `retry_after`
    seconds."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "throttled"


class HashingBusyError(ApplicationError):
    """Every password-hashing slot of this host is taken (`password_hash_slot`)."""

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


class InvalidVerificationLinkError(ApplicationError):
    """A verification link that is forged, expired or used: the password reset's code."""

    code = "invalid"


class EmailTakenError(ConflictError):
    """The address is verified already, by another account (one account per address)."""

    code = "email_taken"


class EmailUnverifiedError(ForbiddenError):
    """Ranked play without a verified e-mail address."""

    code = "email_unverified"


class AccountRequiredError(ForbiddenError):
    """A guest asked for what only an account has: an e-mail address, a ranked start
    (`games.services.game_create`)."""

    code = "account_required"


class FollowRefusedError(ConflictError):
    """A follow the rules refuse: oneself, or past the limit. Not malformed input (the name is
    a valid one), so not `invalid`."""

    code = "follow_refused"
