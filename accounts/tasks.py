"""Celery tasks of the accounts app. Each calls one service."""

from __future__ import annotations

from celery import shared_task

from accounts import services, tokens


@shared_task(soft_time_limit=60, time_limit=90)
def send_password_reset(email: str, domain: str, use_https: bool) -> None:
    """E-mail the reset links for `email` (`accounts.services.user_password_reset_send`).

    Not `acks_late`: a run that dies after sending is not repeated, so nobody gets the e-mail
    twice; at worst it is not sent and the player asks again.
    """
    services.user_password_reset_send(email=email, domain=domain, use_https=use_https)


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def delete_expired_tokens() -> int:
    """Delete every expired API token (`accounts.tokens.tokens_delete_expired`); the beat
    runs it daily. Idempotent."""
    return tokens.tokens_delete_expired()


def password_reset_queue(email: str, domain: str, use_https: bool) -> None:
    """Send `send_password_reset` now (`services.password_reset_queue`, connected in
    `accounts.apps`); kombu's OperationalError when the broker is away."""
    send_password_reset.delay(email, domain, use_https)
