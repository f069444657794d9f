"""Daily challenge writes: the retention of ranked attempts' origins (address, browser)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from games.models import (
    AttemptLink,
    AttemptOrigin,
)

# How long the origin of a ranked attempt (client address, browser id) is kept.
ORIGIN_RETENTION = timedelta(days=30)


def origins_purge(*, now: datetime | None = None) -> int:
    """Delete the origins of ranked attempts older than ORIGIN_RETENTION, and the links the
    integrity check found between them; returns how many origins."""
    now = now or timezone.now()
    AttemptLink.objects.filter(created_at__lt=now - ORIGIN_RETENTION).delete()
    deleted, _ = AttemptOrigin.objects.filter(created_at__lt=now - ORIGIN_RETENTION).delete()
    return deleted
