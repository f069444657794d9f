"""Daily challenge writes, one module per topic (as Zulip's `zerver/actions/`): the deals,
the attempts, the rankings, the closing of a board, the streaks, the attempts' origins.

Every write is one transaction; Celery tasks and Redis updates are sent after the commit.
"""
