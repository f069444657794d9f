from django.contrib import admin
from django.http import HttpRequest, JsonResponse
from django.urls import include, path, re_path, register_converter
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView

from config.converters import IdConverter, NameConverter
from config.errors import error_body
from config.health import HealthView
from config.schema import swagger_ui_view

register_converter(IdConverter, "id")
register_converter(NameConverter, "name")


@csrf_exempt  # it writes nothing: every method gets its 404, not a CSRF 403 first
def api_not_found(request: HttpRequest) -> JsonResponse:
    """Unknown API paths answer 404 in the error format, for every method, with debug on or
    off."""
    return JsonResponse(error_body("not_found", gettext("No such API endpoint.")), status=404)


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
    # set_language (POST language, next): the player's choice, kept in the language cookie.
    path("i18n/", include("django.conf.urls.i18n")),
    path("", include("frontend.urls")),
]

handler400 = "config.errors.handler400"
handler403 = "config.errors.handler403"
handler404 = "config.errors.handler404"
handler500 = "config.errors.handler500"
