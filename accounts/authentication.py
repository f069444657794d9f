"""Authentication by API token (`accounts.tokens`: one per device, hashed, expiring) and by a
session bound to the token of its login; the token lookup is cached, to keep hot endpoints
lean."""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import logout as session_logout
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.drainage import set_override
from knox.auth import TokenAuthentication
from knox.models import AuthToken
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated
from rest_framework.request import Request

from accounts import tokens
from accounts.models import User
from config.cache import cache_get, cache_set
from config.memo import ProcessMemo

logger = logging.getLogger("accounts.authentication")

# How long a token's lookup is kept in the cache (shared with Redis, else this process's): a
# token revoked, expired or deleted in the database, or an account deactivated, by any means
# and in any process, stops reading within this much. Long enough that a page's burst of
# requests costs one lookup.
TOKEN_CACHE_SECONDS = 1
# Tokens this process has seen lately, by digest, for ProcessTokenAuthentication: the move's
# statements check the token themselves, so this copy may live longer.
PROCESS_TOKEN_SECONDS = 300
_process_tokens: ProcessMemo[str, tuple[Any, AuthToken]] = ProcessMemo(
    max_entries=10_000, ttl_s=PROCESS_TOKEN_SECONDS
)
# The session's key for the digest of the token its login made (`session_bind_token`).
SESSION_TOKEN_KEY = "_klondike_token"


def _token_from_database(digest: str) -> tuple[Any, AuthToken]:
    """The token's owner and row, by digest (one query)."""
    token = AuthToken.objects.select_related("user").filter(digest=digest).first()
    if token is None:
        raise AuthenticationFailed(gettext("Invalid token."))
    if not token.user.is_active:
        raise AuthenticationFailed(gettext("User inactive or deleted."))
    return token.user, token


def _token_cached(digest: str) -> tuple[Any, AuthToken]:
    """`_token_from_database`, answered from the shared cache when it can. A cache that cannot
    answer is a miss, and the database answers (`config.cache.cache_get`)."""
    cached = cache_get(tokens.token_cache_key(digest))
    if cached is not None:
        return cached
    found = _token_from_database(digest)
    cache_set(tokens.token_cache_key(digest), found, TOKEN_CACHE_SECONDS)
    return found


def _token_in_use(user: Any, token: AuthToken) -> None:
    """Refuse an expired token; extend one in use that is due (at most once a day).

    A kept copy's expiry is the database's or an earlier one (expiries only move on), so a
    copy that is still alive is a token that is still alive, unless it was revoked since.

    :raises AuthenticationFailed: the token has expired.
    """
    now = timezone.now()
    if token.expiry is None or token.expiry <= now:
        raise AuthenticationFailed(gettext("This token has expired: log in again."))
    if tokens.token_renew_if_due(token=token, now=now):
        cache_set(tokens.token_cache_key(token.digest), (user, token), TOKEN_CACHE_SECONDS)


def _digest(key: bytes) -> str:
    try:
        return tokens.token_digest(key.decode())
    except UnicodeError:
        raise AuthenticationFailed(
            gettext("Invalid token header. Token string should not contain invalid characters.")
        ) from None


class CachedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`: knox's header and tokens, found by their digest, the
    primary key (one query, none when the shared cache has it; knox's own class looks up by
    the key's first digits, then goes through all the owner's tokens and deletes the expired
    ones, on every request).

    An expired token is refused on its kept expiry; a token in use is extended once a day.
    The cached entry is dropped on a revocation (`accounts.tokens`), and lives
    TOKEN_CACHE_SECONDS anyway: a token revoked or cut short in the database by other means,
    or an account deactivated, stops authenticating within that in every process; and every
    write that could give it something (a game, a ranked attempt, a hint, a move) checks the
    database first (`user_check_active`, and the move's own statements).
    """

    def authenticate_credentials(self, key: bytes) -> tuple[Any, AuthToken]:
        user, token = self._lookup(_digest(key))
        _token_in_use(user, token)
        return user, token

    def _lookup(self, digest: str) -> tuple[Any, AuthToken]:
        return _token_cached(digest)


class ProcessTokenAuthentication(CachedTokenAuthentication):
    """`CachedTokenAuthentication` with a first layer in this process's memory: no round trip.

    Only for a view whose service checks the token again in the very statements that read and
    write its rows (the move endpoint: `games.services.game_action_apply`), so that a token
    revoked, or an account deactivated, since it was kept here is refused all the same. Other
    processes cannot tell this one that a token was revoked; the database can.
    """

    def _lookup(self, digest: str) -> tuple[Any, AuthToken]:
        kept = _process_tokens.get(digest)
        if kept is None:
            kept = _token_cached(digest)
            _process_tokens.put(digest, kept)
        return kept


# The move endpoint takes the same `Authorization: Token` scheme as every other endpoint; only
# where the token's owner is looked up differs. So the OpenAPI schema has one `tokenAuth`
# component (config/schema.py).
set_override(ProcessTokenAuthentication, "suppress_collision_warning", True)


def forget_process_token(digest: str) -> None:
    """Drop a token from this process's memory (the database refused it)."""
    _process_tokens.discard(digest)


def session_bind_token(request: Any, token: AuthToken) -> None:
    """Bind the session just started (the page's login) to the token that login made: the
    session then lasts only as long as that token (`SessionTokenAuthentication`)."""
    request.session[SESSION_TOKEN_KEY] = token.digest


def session_token_digest(request: Any) -> str | None:
    """The digest of the token the session is bound to, if any."""
    digest = request.session.get(SESSION_TOKEN_KEY)
    return digest if isinstance(digest, str) else None


class SessionTokenAuthentication(SessionAuthentication):
    """DRF's session authentication (with its CSRF check), for a session bound to the token of
    its login: such a session is that device's login, and ends with it. Its token revoked
    (logout elsewhere, logout-all, a password reset) or expired, the session is ended and the
    request goes on as anonymous; in use, the token is extended as a header's would be, and
    it is `request.auth`, so that a move checks it in its own statement. A session bound to no
    token (the admin's) works as DRF's does.
    """

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        found = super().authenticate(request)
        if found is None:
            return None
        digest = session_token_digest(request._request)
        if digest is None:
            return found
        try:
            user, token = _token_cached(digest)
            if user.pk != found[0].pk:
                raise AuthenticationFailed(gettext("Invalid token."))
            _token_in_use(user, token)
        except AuthenticationFailed:
            session_logout(request._request)
            return None
        return found[0], token


def user_check_active(*, user_id: int) -> None:
    """Refuse an account deactivated since its token was cached (one query): a cached token
    must not buy a deactivated account a game, a ranked attempt or a hint, in any process.

    :raises AuthenticationFailed: the account is no longer active.
    """
    if not User.objects.filter(pk=user_id, is_active=True).exists():
        raise AuthenticationFailed(gettext("This account is deactivated."))


def signed_in_user(request: Request) -> User:
    """The account of a request that a view's permissions let through only signed in.

    :raises NotAuthenticated: a visitor (no view that requires a login lets one through).
    """
    user = request.user
    if not isinstance(user, User):
        raise NotAuthenticated()
    return user
