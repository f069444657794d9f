"""Token authentication with the token -> user lookup cached, to keep hot endpoints lean."""

from __future__ import annotations

import hashlib
from typing import Any

from django.core.cache import cache
from rest_framework.authentication import TokenAuthentication

TOKEN_CACHE_SECONDS = 300


def token_cache_key(key: str) -> str:
    """Cache key for a token; the key itself is hashed so the cache never holds it."""
    return "auth:token:" + hashlib.sha256(key.encode()).hexdigest()


class CachedTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, answering from the cache when it can.

    The cached entry is dropped on logout (`accounts.services.user_logout`); an account that
    is deactivated stops authenticating within TOKEN_CACHE_SECONDS.
    """

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        cache_key = token_cache_key(key)
        cached = cache.get(cache_key)
        if cached is not None:
            return cached
        user, token = super().authenticate_credentials(key)
        cache.set(cache_key, (user, token), TOKEN_CACHE_SECONDS)
        return user, token
