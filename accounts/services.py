"""Account writes: register, log in, log out. Views call these; they hold the rules."""

from __future__ import annotations

from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from accounts.authentication import token_cache_key
from accounts.models import User
from config.api import ApplicationError


class UsernameTakenError(ApplicationError):
    code = "invalid"


class InvalidCredentialsError(ApplicationError):
    status_code = 401
    code = "invalid_credentials"


@transaction.atomic
def user_register(*, username: str, password: str, email: str = "") -> tuple[User, Token]:
    """Create a user and their API token.

    :raises UsernameTakenError: the name is taken, in any letter case.
    :raises ApplicationError: the password fails Django's validators (code `invalid`).
    """
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTakenError(
            "That username is taken.", fields={"username": ["That username is taken."]}
        )
    candidate = User(username=username, email=email)
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
        raise UsernameTakenError(
            "That username is taken.", fields={"username": ["That username is taken."]}
        ) from None
    token = Token.objects.create(user=candidate)
    return candidate, token


def user_login(*, username: str, password: str) -> tuple[User, Token]:
    """Check the credentials (username in any case) and return the user and their token.

    :raises InvalidCredentialsError: unknown user, wrong password or inactive account.
    """
    stored = User.objects.filter(username__iexact=username).only("username").first()
    user = authenticate(username=stored.username if stored else username, password=password)
    if user is None:
        raise InvalidCredentialsError("Wrong username or password.")
    token, _ = Token.objects.get_or_create(user=user)
    return user, token  # type: ignore[return-value]


@transaction.atomic
def user_logout(*, user: User) -> None:
    """Revoke the user's API token (every script logged in with it) and its cache entry."""
    for token in Token.objects.filter(user=user):
        cache.delete(token_cache_key(token.key))
        token.delete()
