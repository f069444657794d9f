"""Token authentication with the token -> user lookup cached, to keep hot endpoints lean."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from django.core.cache import cache
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import AuthenticationFailed

from accounts.models import User
from config.cache import CACHE_ERRORS, cache_get, cache_set
from config.memo import ProcessMemo

logger = logging.getLogger("accounts.authentication")

TOKEN_CACHE_SECONDS = 300
# Tokens this process has seen lately, for ProcessTokenAuthentication.
_process_tokens: ProcessMemo[str, tuple[Any, Token]] = ProcessMemo(
    max_entries=10_000, ttl_s=TOKEN_CACHE_SECONDS
)


def token_cache_key(key: str) -> str:
    """Cache key for a token; the key itself is hashed so the cache never holds it."""
    return "auth:token:" + hashlib.sha256(key.encode()).hexdigest()


def token_cache_forget(key: str) -> None:
    """Drop a token's entry from the shared cache (logout), even while this process leaves the
    cache alone. If the cache cannot answer, the token is revoked all the same: its entry
    there may then outlive it by up to TOKEN_CACHE_SECONDS, should that cache come back with
    its data, and moves, which check the token in the database, refuse it at once."""
    try:
        cache.delete(token_cache_key(key))
    except CACHE_ERRORS:
        logger.warning(
            "logout: the cache did not answer; its token entry may linger", exc_info=True
        )


class CachedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, answering from the cache when it can.

    The cached entry is dropped on logout (`accounts.services.user_logout`); an account that
    is deactivated stops authenticating within TOKEN_CACHE_SECONDS, and every write that
    could give it something (a game, a ranked attempt, a hint, a move) checks the database
    first (`user_check_active`, and the move's own statements). A cache that cannot answer
    is a miss, and the database answers (`config.cache.cache_get`).
    """

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        cache_key = token_cache_key(key)
        cached = cache_get(cache_key)
        if cached is not None:
            return cached
        user, token = super().authenticate_credentials(key)
        cache_set(cache_key, (user, token), TOKEN_CACHE_SECONDS)
        return user, token


class ProcessTokenAuthentication(CachedTokenAuthentication):
    """`CachedTokenAuthentication` with a first layer in this process's memory: no round trip.

    Only for a view whose service checks the token again in the very statements that read and
    write its rows (the move endpoint: `games.services.game_action_apply`), so that a token
    revoked or an account deactivated since it was kept here is refused all the same. Other
    processes cannot tell this one that a token was revoked; the database can.
    """

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        memo_key = token_cache_key(key)
        kept = _process_tokens.get(memo_key)
        if kept is not None:
            return kept
        user, token = super().authenticate_credentials(key)
        _process_tokens.put(memo_key, (user, token))
        return user, token


def forget_process_token(key: str) -> None:
    """Drop a token from this process's memory (the database refused it)."""
    _process_tokens.discard(token_cache_key(key))


def user_check_active(*, user_id: int) -> None:
    """Refuse an account deactivated since its token was cached (one query): a cached token
    must not buy a deactivated account a game, a ranked attempt or a hint, in any process.

    :raises AuthenticationFailed: the account is no longer active.
    """
    if not User.objects.filter(pk=user_id, is_active=True).exists():
        raise AuthenticationFailed("This account is deactivated.")
