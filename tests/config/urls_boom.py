"""A URLconf for the error-format tests: the real routes plus views that fail on purpose."""

from django.http import HttpRequest
from django.urls import path
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView

from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as real_urlpatterns


class BoomView(APIView):
    permission_classes = [AllowAny]

    def get(self, request: Request) -> None:
        raise RuntimeError("secret internal detail")


def plain_boom(request: HttpRequest) -> None:
    raise RuntimeError("secret internal detail")


urlpatterns = [
    path("api/v1/test-boom", BoomView.as_view()),
    path("api/v1/test-plain-boom", plain_boom),
    *real_urlpatterns,
]
