from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.urls import Resolver404, include, path, re_path, register_converter, resolve
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView

from config import errors
from config.converters import IdConverter, NameConverter
from config.errors import error_body
from config.health import HealthView
from config.metrics import metrics_view
from config.schema import swagger_ui_view

register_converter(IdConverter, "id")
register_converter(NameConverter, "name")


@csrf_exempt  # it writes nothing: every method gets its 404, not a CSRF 403 first
def api_not_found(request: HttpRequest) -> JsonResponse:
    """Unknown API paths answer 404 in the error format, for every method, with debug on or
    off."""
    return JsonResponse(error_body("not_found", gettext("No such API endpoint.")), status=404)


def page_not_found(request: HttpRequest) -> HttpResponse:
    """Every other path: the site's own 404 page, in the reader's language, with debug on too
    (`make run`), where Django would answer an unmatched path with its technical page. A path
    that names a page once a slash is added goes there, as CommonMiddleware's APPEND_SLASH
    would have sent it (this pattern matches every path, so that check never finds a miss)."""
    if not request.path_info.endswith("/"):
        try:
            match = resolve(request.path_info + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not page_not_found:
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    response: HttpResponse = errors.handler404(request)  # not the name below: Django's setting
    return response


api_v1 = [
    path("", include("accounts.urls")),
    path("", include("games.urls")),
    path("", include("games.daily.urls")),
    path("health", HealthView.as_view(), name="health"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", swagger_ui_view(), name="swagger-ui"),
]

urlpatterns = [
    path("api/v1/", include(api_v1)),
    re_path(r"^api/", api_not_found),
    path("admin/", admin.site.urls),
    # For the scraper alone (config.metrics); the load balancer refuses it too. Outside /api/v1,
    # and not a DRF view: no part of the public API or its schema.
    path("metrics", metrics_view, name="metrics"),
    # set_language (POST language, next): the player's choice, kept in the language cookie.
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("frontend.urls")),
    re_path(r"^", page_not_found),
]

handler400 = "config.errors.handler400"
handler403 = "config.errors.handler403"
handler404 = "config.errors.handler404"
handler500 = "config.errors.handler500"
