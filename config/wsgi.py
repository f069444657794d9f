import os
from collections.abc import Callable, Iterable
from typing import Any

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Request headers that move the site under a prefix in some servers or frameworks. No client
# may set one: the nodes serve the site at the root, whatever a request says.
PREFIX_HEADERS = ("HTTP_SCRIPT_NAME", "HTTP_X_SCRIPT_NAME", "HTTP_X_FORWARDED_PREFIX")


def at_the_root(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """`app` served at the root whatever a client sends. gunicorn takes a `SCRIPT_NAME` request
    header (from the addresses in its forwarded_allow_ips) as the prefix and cuts it off the
    path: `GET //evil.example/admin` with `SCRIPT_NAME: //evil.example` became the path
    `/admin` and a redirect to `//evil.example/admin/`, off the site. The prefix goes back on
    the path, and the prefix headers are dropped."""

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        prefix = environ.get("SCRIPT_NAME", "")
        if prefix:
            environ["PATH_INFO"] = prefix + environ.get("PATH_INFO", "")
            environ["SCRIPT_NAME"] = ""
        for header in PREFIX_HEADERS:
            environ.pop(header, None)
        return app(environ, start_response)

    return application


application = at_the_root(get_wsgi_application())
