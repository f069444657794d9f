"""Hooks: how a lower layer has a higher one act without importing it (docs/architecture.md,
"Layers").

The lower layer declares a `Hook` and calls it where the work belongs; the higher layer's
function is connected to it in an `AppConfig.ready()` (`games.apps`, `accounts.apps`), which
Django runs in every process: web, Celery worker, management command and test run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")


class Hook(Generic[P]):
    """A call from a lower layer to the functions a higher layer connects, in the order they
    were connected. A receiver's exception reaches the caller.

    >>> game_ended: Hook[[int]] = Hook("games.services.game_ended")
    >>> game_ended.connect(print)
    >>> game_ended(7)
    7

    :raises LookupError: on a call with nothing connected; a hook left unconnected would
        silently drop work that the layer above must do.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self._receivers: list[Callable[P, object]] = []

    def connect(self, receiver: Callable[P, object]) -> None:
        """Call `receiver` on each call of the hook; connecting it again changes nothing."""
        if receiver not in self._receivers:
            self._receivers.append(receiver)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> None:
        if not self._receivers:
            raise LookupError(f"nothing is connected to the hook {self.name}")
        for receiver in self._receivers:
            receiver(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Hook({self.name!r})"
