"""Serializer fields stricter than DRF's defaults: a wrong JSON type is an error, not coerced."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.validators import MaxLengthValidator, MinLengthValidator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy
from rest_framework import serializers

# DRF words a length limit with one form for every number ("at least {min_length}
# characters"), which Croatian, Slovak and Polish decline by the number: 3 znaka, 5 znakova.
_AT_LEAST = ngettext_lazy(
    "Ensure this field has at least %(limit_value)d character.",
    "Ensure this field has at least %(limit_value)d characters.",
    "limit_value",
)
_NO_MORE_THAN = ngettext_lazy(
    "Ensure this field has no more than %(limit_value)d character.",
    "Ensure this field has no more than %(limit_value)d characters.",
    "limit_value",
)


def _length_validators_in_plural(field: serializers.CharField) -> None:
    """Give `field` length validators whose messages agree with their number in every
    language, in place of DRF's."""
    field.validators = [
        v for v in field.validators if not isinstance(v, MinLengthValidator | MaxLengthValidator)
    ]
    if field.min_length is not None:
        field.validators.append(MinLengthValidator(field.min_length, message=_AT_LEAST))
    if field.max_length is not None:
        field.validators.append(MaxLengthValidator(field.max_length, message=_NO_MORE_THAN))


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers, booleans, lists and objects instead of str()-ing them,
    and words its length limits in the plural their number takes."""

    default_error_messages = {"invalid": _("Must be a string.")}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _length_validators_in_plural(self)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class EmailField(serializers.EmailField):
    """DRF's EmailField, with its length limit worded in the plural its number takes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _length_validators_in_plural(self)


class StrictIntegerField(serializers.IntegerField):
    """An IntegerField that refuses strings, floats and booleans."""

    default_error_messages = {"invalid": _("Must be an integer.")}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A BooleanField that takes only JSON's true and false, not "yes", 1 or "true"."""

    default_error_messages = {"invalid": _("Must be true or false.")}

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


def refuse_unknown_fields(data: Any, known: Iterable[str]) -> None:
    """For a body whose shape is one of several (`oneOf` in the schema): a field it does not
    take is an error, not ignored, since it may be a misspelt one that changes the answer.

    :raises ValidationError: `data` is an object with a key not in `known`.
    """
    if isinstance(data, dict):
        unknown = sorted(set(data) - set(known))
        if unknown:
            message = _("Not a field of this request.")
            raise serializers.ValidationError({key: [message] for key in unknown})


# The last page number any list may be asked for: deeper is no list of ours.
MAX_PAGE = 10_000_000


class PageNumberField(serializers.IntegerField):
    """A `?page=` number, checked alike on every list: an integer from 1 to MAX_PAGE; anything
    else is the one message."""

    default_error_messages = {
        key: _("A page number is a positive integer.")
        for key in ("invalid", "min_value", "max_value", "max_string_length")
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=1, max_value=MAX_PAGE, **kwargs)
