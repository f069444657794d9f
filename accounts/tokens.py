"""API tokens: one per login (a device), stored as a digest, expiring when left unused.

django-rest-knox's model and hashing: the client holds a random key of 64 hex digits, the
database its SHA-512 digest (the primary key) and, for knox's own lookup, which this project
does not use, its first 15 digits; a stolen dump of the table gives no usable token. Every
token has an expiry, `TOKEN_TTL_DAYS` (knox's `TOKEN_TTL`) after its last use: a use extends
it at most once a day (`token_renew_if_due`), so a device in use stays logged in and the
token of a device left alone dies. Expired tokens are deleted at their owner's next login and
by the daily beat task (`accounts.tasks.delete_expired_tokens`).

A token's row, owner and expiry are kept in the shared cache (`token_cache_key`) and, for the
move's hot path, in the process's memory (`accounts.authentication`); a write here that ends
a token drops it from the shared cache. Other processes' memory is not told: the move's own
statement checks the digest, its owner, its expiry and the account in the database.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from knox.crypto import hash_token
from knox.models import AuthToken, get_digest_token
from knox.settings import CONSTANTS, knox_settings

from accounts.models import TokenDevice, User
from config.cache import CACHE_ERRORS

logger = logging.getLogger("accounts.tokens")

# A token in use is extended at most this often, so that a request never costs a write.
RENEW_INTERVAL = timedelta(days=1)
# An API client's device id (`token_device`), which the integrity check takes where a
# browser's id would be (games.models.AttemptOrigin.browser), begins with this.
DEVICE_PREFIX = "device:"
# Live tokens an account may hold; a login past this ends the devices left alone longest (a
# script that logs in on every run and never logs out must not grow the table without end).
MAX_TOKENS_PER_USER = 50


def token_digest(key: str) -> str:
    """The digest the database keeps of a token's key (knox's hash: SHA-512, hex)."""
    return hash_token(key)


def token_ttl() -> timedelta:
    """How long a token lives after its last extension (`TOKEN_TTL_DAYS`)."""
    ttl: timedelta = knox_settings.TOKEN_TTL
    return ttl


def token_cache_key(digest: str) -> str:
    """The shared cache's key for a token: its digest, never the key itself."""
    return "auth:token:" + digest


def token_cache_forget(*, digest: str) -> None:
    """Drop a token's entry from the shared cache (a revocation), even while this process
    leaves the cache alone. If the cache cannot answer, the token is revoked all the same:
    its entry there may then outlive it by up to the entry's timeout, should that cache come
    back with its data, and moves, which check the token in the database, refuse it at once."""
    try:
        cache.delete(token_cache_key(digest))
    except CACHE_ERRORS:
        logger.warning(
            "revocation: the cache did not answer; its token entry may linger", exc_info=True
        )


def token_caches_forget(*, digests: list[str]) -> None:
    """`token_cache_forget` of each of `digests`."""
    for digest in digests:
        token_cache_forget(digest=digest)


def _forget(digests: list[str]) -> None:
    """Drop revoked tokens from the shared cache now, and again once the deletion commits: a
    request that read a row before the commit may have put it back in between."""
    token_caches_forget(digests=digests)
    transaction.on_commit(lambda: token_caches_forget(digests=digests))


def token_build(*, user: User, now: datetime | None = None) -> tuple[AuthToken, str]:
    """A new token for `user`, not saved yet, and its key (the one time the key is known):
    what `token_create` saves, and what a benchmark saves in bulk."""
    digest, key = get_digest_token()
    token = AuthToken(
        digest=digest,
        token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH],
        user=user,
        expiry=(now or timezone.now()) + token_ttl(),
    )
    return token, key


def device_id(*, browser: str, address: str | None, agent: str) -> str:
    """The device of a login, for the integrity check (docs/daily.md, "Integrity"): its
    browser id (`config.browser`) when it has one, else a keyed hash of its client address and
    `User-Agent`, so that logins of two accounts from one script or one machine give the same
    id, and the id tells nothing of the address."""
    if browser:
        return browser
    origin = f"{address or ''}|{agent}".encode()
    digest = hmac.new(str(settings.SECRET_KEY).encode(), origin, hashlib.sha256).hexdigest()
    return DEVICE_PREFIX + digest[:32]


def token_device(*, digest: str) -> str:
    """The device of the login that made a token ("" when none was recorded)."""
    found = TokenDevice.objects.filter(token_id=digest).values_list("device", flat=True).first()
    return found or ""


@transaction.atomic
def token_create(*, user: User, device: str = "") -> tuple[AuthToken, str]:
    """Give `user` a new token, for one device (each login and register makes one), and
    return it with its key; `device` (`device_id`) is recorded with it. Drops the account's
    expired tokens, and its tokens beyond MAX_TOKENS_PER_USER that were used least lately (the
    earliest expiry)."""
    now = timezone.now()
    AuthToken.objects.filter(user=user, expiry__lte=now).delete()
    token, key = token_build(user=user, now=now)
    token.save(force_insert=True)
    if device:
        TokenDevice.objects.create(token=token, device=device)
    surplus = list(
        AuthToken.objects.filter(user=user)
        .order_by("-expiry", "-created")
        .values_list("digest", flat=True)[MAX_TOKENS_PER_USER:]
    )
    if surplus:
        AuthToken.objects.filter(digest__in=surplus).delete()
        _forget(surplus)
    return token, key


@transaction.atomic
def token_revoke(*, digest: str) -> None:
    """End one token (one device's logout); nothing if it is gone already."""
    AuthToken.objects.filter(digest=digest).delete()
    _forget([digest])


@transaction.atomic
def token_revoke_all(*, user: User) -> int:
    """End every token of the account (log out everywhere); returns how many there were."""
    digests = list(AuthToken.objects.filter(user=user).values_list("digest", flat=True))
    AuthToken.objects.filter(digest__in=digests).delete()
    _forget(digests)
    return len(digests)


def token_renew_if_due(*, token: AuthToken, now: datetime) -> bool:
    """Extend a token in use to TOKEN_TTL_DAYS from `now`, if it was last extended over a day
    ago (half its lifetime, for a lifetime under two days); returns whether it was due, and
    so whether `token`, the caller's kept copy, now carries a new expiry.

    At most one write a day per token, whatever the number of processes: the UPDATE's own
    condition passes over a token another process has just extended (or one revoked
    meanwhile), and the kept copy takes the new expiry either way, so this process does not
    ask again before a day has passed.
    """
    ttl = token_ttl()
    due = now + ttl - min(RENEW_INTERVAL, ttl / 2)
    if token.expiry is None or token.expiry > due:
        return False
    expiry = now + ttl
    AuthToken.objects.filter(digest=token.digest, expiry__gt=now, expiry__lte=due).update(
        expiry=expiry
    )
    token.expiry = expiry
    return True


def tokens_delete_expired(*, now: datetime | None = None) -> int:
    """Delete every expired token (the beat's daily job); returns how many. Idempotent.

    No cache entry needs dropping: a kept copy of an expired token carries its expiry, and
    is refused on it."""
    _, deleted = AuthToken.objects.filter(expiry__lte=now or timezone.now()).delete()
    return deleted.get(AuthToken._meta.label, 0)  # their devices go with them, uncounted
