"""The API's lists: `?page=` pages of 20, `{count, next, previous, results}`."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from config.fields import PageNumberField


class PagePagination(PageNumberPagination):
    """`?page=` pagination; a malformed page number is a 400, a page past the end a 404."""

    page_size_query_param = None

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        raw = request.query_params.get(self.page_query_param)
        if raw is not None:
            try:
                PageNumberField().run_validation(raw)
            except exceptions.ValidationError as exc:
                raise exceptions.ValidationError({"page": exc.detail}) from None
        return super().paginate_queryset(queryset, request, view)


def paginated_response(*, request: Any, view: Any, queryset: Any, item: Any) -> Response:
    """A page of `queryset` in the `{count, next, previous, results}` shape, each row mapped
    through `item`.

    :raises ValidationError: a malformed page number.
    :raises NotFound: a page past the end.
    """
    paginator = PagePagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response([item(row) for row in page or []])
