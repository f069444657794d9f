"""The Celery app. Settings come from Django's (`CELERY_*`); tasks from each app's tasks.py."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.contrib.django.task import DjangoTask
from django.db import transaction

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger("config.celery")


class AfterCommitTask(DjangoTask):
    """A task whose `delay_on_commit` never fails the request that committed: a broker that
    cannot take the task (Redis down or hanging) is logged, and the caller's answer stands.
    What is lost is caught up: the ranking every minute (`rank_open_boards`) and at the close;
    an integrity check or an analysis is simply missing."""

    def delay_on_commit(self, *args: Any, **kwargs: Any) -> None:
        transaction.on_commit(lambda: self.delay_after_commit(*args, **kwargs))

    def delay_after_commit(self, *args: Any, **kwargs: Any) -> None:
        """`delay`, from a callback that runs once a transaction has committed: a broker that
        cannot take the task is logged, not raised."""
        try:
            self.delay(*args, **kwargs)
        except Exception:  # the transaction has committed: nothing to undo
            logger.exception("could not send %s%r after the commit", self.name, args)


app = Celery("klondike", task_cls=AfterCommitTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
