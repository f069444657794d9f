"""DRF's own messages that reach an API client or the page, as entries of our catalogs.

DRF ships no Croatian catalog (it has Slovak and Polish), so without these a Croatian client
would read DRF's messages in English. `makemessages` collects the strings below into
locale/*/LC_MESSAGES/django.po, where they are translated like our own; LOCALE_PATHS
catalogs come before the apps' ones, so DRF's `gettext` finds our translation. Each string is
DRF's msgid, word for word (tests/config/test_drf_messages.py checks it against DRF's English
catalog): the ones the exception handler (config/errors.py) passes through, from authentication,
permissions, throttling, negotiation, parsing, pagination and the serializer fields our input
serializers use.
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

DRF_MESSAGES = (
    # rest_framework.exceptions
    gettext_noop("A server error occurred."),
    gettext_noop("Invalid input."),
    gettext_noop("Malformed request."),
    gettext_noop("Incorrect authentication credentials."),
    gettext_noop("Authentication credentials were not provided."),
    gettext_noop("You do not have permission to perform this action."),
    gettext_noop("Not found."),
    gettext_noop('Method "{method}" not allowed.'),
    gettext_noop("Could not satisfy the request Accept header."),
    gettext_noop('Unsupported media type "{media_type}" in request.'),
    gettext_noop("Request was throttled."),
    # Throttled formats both before choosing between them: two plain entries, not a plural.
    gettext_noop("Expected available in {wait} second."),
    gettext_noop("Expected available in {wait} seconds."),
    # rest_framework.authentication and knox.auth (the token header)
    gettext_noop("Invalid token header. No credentials provided."),
    gettext_noop("Invalid token header. Token string should not contain spaces."),
    gettext_noop("Invalid token header. Token string should not contain invalid characters."),
    gettext_noop("Invalid token."),
    gettext_noop("User inactive or deleted."),
    # rest_framework.pagination
    gettext_noop("Invalid page."),
    # rest_framework.fields and rest_framework.serializers
    gettext_noop("This field is required."),
    gettext_noop("This field may not be null."),
    gettext_noop("Must be a valid boolean."),
    gettext_noop("Not a valid string."),
    gettext_noop("This field may not be blank."),
    gettext_noop("Ensure this field has no more than {max_length} characters."),
    gettext_noop("Ensure this field has at least {min_length} characters."),
    gettext_noop("Enter a valid email address."),
    gettext_noop("A valid integer is required."),
    gettext_noop("Ensure this value is less than or equal to {max_value}."),
    gettext_noop("Ensure this value is greater than or equal to {min_value}."),
    gettext_noop("String value too large."),
    gettext_noop("A valid number is required."),
    gettext_noop("Date has wrong format. Use one of these formats instead: {format}."),
    gettext_noop('"{input}" is not a valid choice.'),
    gettext_noop('Expected a list of items but got type "{input_type}".'),
    gettext_noop("This selection may not be empty."),
    gettext_noop("Invalid data. Expected a dictionary, but got {datatype}."),
)
