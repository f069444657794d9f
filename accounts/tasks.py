"""Celery tasks of the accounts app. Each calls one service."""

from __future__ import annotations

from celery import shared_task

from accounts import services, tokens
from games import services as game_services


@shared_task(soft_time_limit=60, time_limit=90)
def send_password_reset(email: str, domain: str, use_https: bool, language: str = "en") -> None:
    """E-mail the reset links for `email`, in `language` (`accounts.services.
    user_password_reset_send`). `language` has a default for tasks queued before it existed.

    Not `acks_late`: a run that dies after sending is not repeated, so nobody gets the e-mail
    twice; at worst it is not sent and the player asks again.
    """
    services.user_password_reset_send(
        email=email, domain=domain, use_https=use_https, language=language
    )


@shared_task(soft_time_limit=60, time_limit=90)
def send_email_verification(
    user_id: int, email: str, domain: str, use_https: bool, language: str
) -> bool:
    """E-mail a verification link to `email`, still the unverified address of account
    `user_id` (`accounts.services.user_email_verification_mail`); returns whether it was sent.

    Not `acks_late`, as the reset's: a run that dies after sending is not repeated; at worst
    nothing is sent and the player asks again.
    """
    return services.user_email_verification_mail(
        user_id=user_id, email=email, domain=domain, use_https=use_https, language=language
    )


@shared_task(acks_late=True, soft_time_limit=60, time_limit=90)
def delete_expired_tokens() -> int:
    """Delete every expired API token (`accounts.tokens.tokens_delete_expired`); the beat
    runs it daily. Idempotent."""
    return tokens.tokens_delete_expired()


@shared_task(acks_late=True, soft_time_limit=300, time_limit=330)
def purge_idle_guests() -> tuple[int, int]:
    """Remove the guests nobody can reach any more (`accounts.services.guests_purge`): their
    unplayed games first (`games.services.games_unplayed_delete`), then the guests that own
    nothing, and the others are deactivated. The beat runs it daily. Idempotent; returns
    (deleted, deactivated)."""
    game_services.games_unplayed_delete(users=services.guests_idle())
    return services.guests_purge()


def password_reset_queue(email: str, domain: str, use_https: bool, language: str) -> None:
    """Send `send_password_reset` now (`services.password_reset_queue`, connected in
    `accounts.apps`); kombu's OperationalError when the broker is away."""
    send_password_reset.delay(email, domain, use_https, language)


def email_verification_queue(
    user_id: int, email: str, domain: str, use_https: bool, language: str
) -> None:
    """Send `send_email_verification` once the transaction commits, so that a worker reads the
    address just written (`services.email_verification_queue`, connected in `accounts.apps`);
    a broker that is away is logged (`config.celery.AfterCommitTask`)."""
    send_email_verification.delay_on_commit(user_id, email, domain, use_https, language)
