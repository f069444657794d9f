"""System checks of the accounts app (`manage.py check --deploy`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register

_LOCAL_BACKENDS = {
    "django.core.mail.backends.filebased.EmailBackend",
    "django.core.mail.backends.console.EmailBackend",
}


@register(Tags.security, deploy=True)
def check_mail_leaves_the_machine(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """The scaled stack with no mail server: reset links would never reach anyone."""
    if getattr(settings, "EMBEDDED", True) or settings.EMAIL_BACKEND not in _LOCAL_BACKENDS:
        return []
    return [
        Warning(
            "No mail server is configured: password reset e-mails are written to files, "
            "and no player receives them.",
            hint="Set EMAIL_HOST (and EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, "
            "DEFAULT_FROM_EMAIL); see .env.example.",
            id="accounts.W001",
        )
    ]
