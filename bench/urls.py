"""The real URLs plus `GET /bench/constant`: a bare Django view returning constant JSON.

It is the benchmark's baseline: what the same gunicorn and middleware stack serve when the
view does no work, to compare the move endpoint's throughput against.
"""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from config.urls import *  # noqa: F403  (handler400 ... handler500 too)
from config.urls import urlpatterns as _real_urlpatterns

_CONSTANT = b'{"ok":true}'


def constant(request: HttpRequest) -> HttpResponse:
    """A constant JSON body, no database, no cache."""
    return HttpResponse(_CONSTANT, content_type="application/json")


urlpatterns = [path("bench/constant", constant), *_real_urlpatterns]
