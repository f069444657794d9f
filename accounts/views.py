"""Account endpoints (API spec §Accounts). Thin: validate, call one service, serialize."""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.contrib.auth import login as session_login
from django.contrib.auth import logout as session_logout
from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from django.middleware.csrf import get_token
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from knox.models import AuthToken
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import APIException, PermissionDenied
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from accounts import following, selectors, services, tokens
from accounts.authentication import (
    CachedTokenAuthentication,
    SessionTokenAuthentication,
    session_bind_token,
    session_token_digest,
    signed_in_user,
)
from accounts.models import User
from accounts.serializers import StatsSerializer, UserSerializer
from config.browser import browser_id
from config.fields import EmailField, StrictBooleanField, StrictCharField
from config.schema import errors
from config.site import site_domain, site_uses_https
from config.throttles import BusyRefundedView, ScopedThrottle, client_address
from games import selectors as game_selectors
from games.daily import selectors as daily_selectors
from games.daily.serializers import BadgeSerializer, UserRatingSerializer

USERNAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _wants_session(request: Request) -> bool:
    """Whether to log the caller in with a session too; checked before anything is written.

    A script that sends no CSRF cookie gets a token and no session. A browser page sends the
    cookie and the X-CSRFToken header; a cross-site form cannot, so it cannot plant a session
    (login CSRF).

    :raises PermissionDenied: the CSRF cookie is present but the token is missing or wrong.
    """
    if settings.CSRF_COOKIE_NAME not in request.COOKIES:
        return False
    SessionAuthentication().enforce_csrf(request)
    return True


def _start_session(request: Request, user: Any, token: AuthToken) -> None:
    """Log the page in with a session, bound to the token its login made: the session is that
    device's login, and ends when the token is revoked or expires."""
    session_login(request._request, user, backend="django.contrib.auth.backends.ModelBackend")
    session_bind_token(request._request, token)


def _picked_language(request: Request) -> str:
    """The language the visitor picked with the site's picker (its cookie), if it is one of
    ours; "" when they have not picked one."""
    language = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "")
    return language if language in dict(settings.LANGUAGES) else ""


def _set_language_cookie(response: Response, language: str) -> None:
    """The language cookie, as Django's set_language view writes it (LocaleMiddleware reads
    it first)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


def _mail_origin(request: Request) -> services.MailOrigin:
    """The site's origin (SITE_URL, not the request's Host) and the request's language, for
    the links and the language of the e-mails it asks for."""
    return services.MailOrigin(
        domain=site_domain(),
        use_https=site_uses_https(),
        language=translation.get_language() or settings.LANGUAGE_CODE,
    )


def _device(request: Request) -> str:
    """The device of a login or a sign-up, recorded with its token (`tokens.device_id`)."""
    return tokens.device_id(
        browser=browser_id(request),
        address=client_address(request),
        agent=request.META.get("HTTP_USER_AGENT", ""),
    )


def _auth_result(user: Any, token: AuthToken, key: str) -> dict[str, Any]:
    return {"user": UserSerializer(user).data, "token": key, "expiry": token.expiry}


AuthOutput = inline_serializer(
    "AuthResult",
    fields={
        "user": UserSerializer(),
        "token": serializers.CharField(),
        "expiry": serializers.DateTimeField(),
    },
)


def _session_guest(request: Request) -> Any:
    """The guest whose session made the request, if it is a guest's (None otherwise)."""
    user = request.user
    return user if user.is_authenticated and getattr(user, "is_guest", False) else None


class RegisterView(BusyRefundedView):
    # The session, if any, only to find a guest to convert; DRF checks its CSRF token.
    authentication_classes = [SessionTokenAuthentication]
    permission_classes = [AllowAny]
    throttle_classes = [ScopedThrottle]
    throttle_scope = "register"

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        username = StrictCharField(
            min_length=3,
            max_length=30,
            validators=[
                RegexValidator(
                    USERNAME_RE,
                    gettext_lazy(
                        "Use letters, digits, '_', '.' or '-', starting with a letter or digit."
                    ),
                )
            ],
        )
        password = StrictCharField(max_length=128, trim_whitespace=False)
        email = EmailField(required=False, allow_blank=True, max_length=254)

    @extend_schema(
        request=InputSerializer, responses={201: AuthOutput, **errors("unavailable")}, auth=[]
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wants_session = _wants_session(request)
        # A language picked before signing up becomes the account's; an address gets its
        # verification link.
        user, token, key = services.user_register(
            **data.validated_data,
            guest=_session_guest(request),
            language=_picked_language(request),
            origin=_mail_origin(request),
            device=_device(request),
        )
        if wants_session:
            _start_session(request, user, token)
        return Response(_auth_result(user, token, key), status=status.HTTP_201_CREATED)


class CredentialField(StrictCharField):
    """A login's username or password. Any string is one (as the schema says): one with a NUL
    character matches no account, so the login answers it as wrong credentials (401,
    `services.user_login`), not as malformed input."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]


class LoginView(BusyRefundedView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedThrottle]
    throttle_scope = "login"

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        username = CredentialField(max_length=150)
        password = CredentialField(max_length=128, trim_whitespace=False)

    @extend_schema(
        request=InputSerializer,
        responses={200: AuthOutput, **errors("invalid_credentials", "unavailable")},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        wants_session = _wants_session(request)
        user, token, key = services.user_login(
            request=request._request,
            device_user_id=_signed_in_user_id(request),
            device=_device(request),
            **data.validated_data,
        )
        if wants_session:
            _start_session(request, user, token)
        response = Response(_auth_result(user, token, key))
        # The language the player picked follows them to this device (docs/i18n.md).
        if user.language:
            _set_language_cookie(response, user.language)
        return response


def _signed_in_user_id(request: Request) -> int | None:
    """The account this device is signed in to already, by a valid token or session it sent
    (a login's lockout does not keep that device out), else None."""
    for authentication in (CachedTokenAuthentication(), SessionTokenAuthentication()):
        try:
            found = authentication.authenticate(request)
        except APIException:
            continue  # an invalid token, or a session without its CSRF token: not signed in
        if found is not None:
            return int(found[0].pk)
    return None


class BorrowedRateThrottle(ScopedThrottle):
    """The view's own scope, counted apart from the others, at the rate of the scope the view
    names in `throttle_rate_of`, unless DEFAULT_THROTTLE_RATES gives its own scope a rate."""

    def allow_request(self, request: Any, view: Any) -> bool:
        self.rate_of = getattr(view, "throttle_rate_of", None)
        return super().allow_request(request, view)

    def get_rate(self) -> str | None:
        rates = api_settings.DEFAULT_THROTTLE_RATES
        rate = (self.scope and rates.get(self.scope)) or (self.rate_of and rates.get(self.rate_of))
        return str(rate) if rate else None


class PasswordResetView(BusyRefundedView):
    """Asks for a reset link by e-mail; the answer never tells whether the address is known."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "password_reset"
    throttle_rate_of = "register"  # each request may send an e-mail

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        email = EmailField(max_length=254)

    class OutputSerializer(serializers.Serializer[dict[str, str]]):
        detail = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={202: OutputSerializer, **errors("unavailable")},  # the e-mail queue is away
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_password_reset_request(
            email=data.validated_data["email"],
            domain=site_domain(),
            use_https=site_uses_https(),
            language=translation.get_language(),
        )
        detail = gettext("If an account has this e-mail address, a reset link is on its way to it.")
        return Response({"detail": detail}, status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmView(BusyRefundedView):
    """Sets a new password with the uid and token of a reset link."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "password_reset_confirm"
    throttle_rate_of = "login"  # a credential check, as a login is

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        uid = StrictCharField(max_length=64)
        token = StrictCharField(max_length=128)
        new_password = StrictCharField(max_length=128, trim_whitespace=False)

    @extend_schema(request=InputSerializer, responses={204: None, **errors("unavailable")}, auth=[])
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_password_reset_confirm(**data.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GuestView(APIView):
    """Starts a guest's session: a browser plays at once, without signing up (docs/api.md,
    "Guests"). A session only, never a token: a script registers instead."""

    authentication_classes = [SessionTokenAuthentication]
    permission_classes = [AllowAny]
    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "guest"
    throttle_rate_of = "register"  # a guest costs the rows a sign-up does

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        user = UserSerializer()

    @extend_schema(
        request=None,
        responses={
            201: OutputSerializer,
            200: OpenApiResponse(OutputSerializer, description="already signed in: unchanged"),
            **errors("permission_denied"),  # a guest's session needs the CSRF cookie
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        if request.user.is_authenticated:
            return Response({"user": UserSerializer(request.user).data})
        if not _wants_session(request):
            raise PermissionDenied(
                gettext(
                    "A guest plays in a browser session: send the CSRF cookie and the "
                    "X-CSRFToken header (GET /api/v1/auth/csrf)."
                )
            )
        user, token = services.guest_create()
        _start_session(request, user, token)
        return Response({"user": UserSerializer(user).data}, status=status.HTTP_201_CREATED)


class LogoutView(APIView):
    """Logs out this device: revokes the token the request came with (or its session's) and
    ends its session. The account's other devices stay logged in."""

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        digests = [session_token_digest(request._request)]
        if isinstance(request.auth, AuthToken):
            digests.append(request.auth.digest)
        services.user_logout(token_digests=[d for d in digests if d is not None])
        session_logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    """Logs out every device of the account: revokes all its tokens (the page's sessions end
    with theirs) and ends this request's session."""

    @extend_schema(request=None, responses={204: None})
    def post(self, request: Request) -> Response:
        services.user_logout_all(user=request.user)  # type: ignore[arg-type]
        session_logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CsrfView(APIView):
    """Sets the CSRF cookie and returns its token, for the page's first POST."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: inline_serializer("Csrf", fields={"csrf_token": serializers.CharField()})},
        auth=[],
    )
    def get(self, request: Request) -> Response:
        return Response({"csrf_token": get_token(request._request)})


class MeView(APIView):
    class OutputSerializer(UserSerializer):
        # The owner's own: a public profile never shows the address.
        email = serializers.EmailField(
            read_only=True, help_text='The account\'s e-mail address, "" without one.'
        )
        email_verified = serializers.BooleanField(
            read_only=True,
            help_text="Whether the address is verified: ranked daily play needs it.",
        )
        stats = serializers.SerializerMethodField()

        class Meta(UserSerializer.Meta):
            fields = [
                *UserSerializer.Meta.fields,
                "email",
                "email_verified",
                "profile_private",
                "stats",
            ]
            read_only_fields = fields
            extra_kwargs = {
                **UserSerializer.Meta.extra_kwargs,
                "profile_private": {
                    "help_text": "Hidden from other players: the profile answers them 404, and "
                    "they can neither follow the player nor see them in their following views."
                },
            }

        @extend_schema(responses=StatsSerializer)
        def get_stats(self, user: Any) -> dict[str, Any]:
            return game_selectors.user_stats(user=user)

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        language = serializers.ChoiceField(choices=[code for code, _name in settings.LANGUAGES])
        profile_private = StrictBooleanField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        return Response(self.OutputSerializer(signed_in_user(request)).data)

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def patch(self, request: Request) -> Response:
        """Keeps the language the player picked on their profile, and sets it as the language
        cookie of this device; makes the profile private or public. Every field is optional,
        as in any PATCH: without one, nothing changes."""
        data = self.InputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        user = signed_in_user(request)
        if "language" in data.validated_data:
            user = services.user_language_set(user=user, language=data.validated_data["language"])
        if "profile_private" in data.validated_data:
            user = following.user_privacy_set(
                user=user, private=data.validated_data["profile_private"]
            )
        response = Response(self.OutputSerializer(user).data)
        if user.language:
            _set_language_cookie(response, user.language)
        return response


class EmailOutputSerializer(serializers.Serializer[dict[str, Any]]):
    email = serializers.EmailField()
    email_verified = serializers.BooleanField()
    detail = serializers.CharField()


def _email_answer(user: Any, sent: bool) -> Response:
    """202 with a link on its way; 200 when the address is verified already."""
    if sent:
        detail = gettext("The link is on its way to %(email)s.") % {"email": user.email}
    else:
        detail = gettext("%(email)s is verified already.") % {"email": user.email}
    body = {"email": user.email, "email_verified": user.email_verified, "detail": detail}
    return Response(body, status=status.HTTP_202_ACCEPTED if sent else status.HTTP_200_OK)


_EMAIL_RESPONSES = {
    202: OpenApiResponse(EmailOutputSerializer, description="a verification link is on its way"),
    200: OpenApiResponse(EmailOutputSerializer, description="the address is verified already"),
    # throttled: also no link sent, by the mailbox's limits (`accounts.mail_limits`)
    **errors("account_required", "throttled"),
}


class MeEmailView(APIView):
    """Sets the account's address, unverified, and e-mails it a verification link. The answer
    is the same whether or not another account has the address. When the mailbox's limits
    send no link (`accounts.mail_limits`: one a minute and 5 a day per mailbox and account,
    mail for 3 accounts a day per mailbox), 429 `throttled` with `retry_after`, and nothing
    changes."""

    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "email_verification"
    throttle_rate_of = "register"  # each request may send an e-mail

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        email = EmailField(max_length=254)

    @extend_schema(request=InputSerializer, responses=_EMAIL_RESPONSES)
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, sent = services.user_email_set(
            user=request.user,  # type: ignore[arg-type]
            email=data.validated_data["email"],
            origin=_mail_origin(request),
        )
        return _email_answer(user, sent)


class MeEmailVerificationView(APIView):
    """E-mails a new verification link to the account's present address. When the mailbox's
    limits send no link (as for `me/email`), 429 `throttled` with `retry_after`."""

    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "email_verification"  # counted with MeEmailView's: one mailbox's worth
    throttle_rate_of = "register"

    @extend_schema(
        request=None,
        responses={**_EMAIL_RESPONSES, **errors("invalid")},  # invalid: no address yet
    )
    def post(self, request: Request) -> Response:
        user, sent = services.user_email_verification_send(
            user=request.user,  # type: ignore[arg-type]
            origin=_mail_origin(request),
        )
        return _email_answer(user, sent)


class VerifyEmailView(APIView):
    """Verifies an address with the uid and token of its link, whoever is signed in here (the
    link may be opened on another device)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "email_verify"
    throttle_rate_of = "login"  # a credential check, as a login is

    class InputSerializer(serializers.Serializer[dict[str, str]]):
        uid = StrictCharField(max_length=64)
        token = StrictCharField(max_length=128)

    class OutputSerializer(serializers.Serializer[Any]):
        email = serializers.EmailField()
        email_verified = serializers.BooleanField()

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            # invalid: a bad, used or expired link (the body's checks add it too)
            **errors("email_taken"),
        },
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_email_verify(**data.validated_data)
        return Response(self.OutputSerializer(user).data)


class UserProfileView(APIView):
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        username = serializers.CharField()
        date_joined = serializers.DateTimeField()
        stats = StatsSerializer()
        ratings = UserRatingSerializer(
            many=True, help_text="The player's rating in each draw they have one."
        )
        badges = BadgeSerializer(many=True, help_text="The badges the player earned.")
        followers = serializers.IntegerField(help_text="Players following this one.")
        following = serializers.IntegerField(help_text="Players this one follows.")
        followed = serializers.BooleanField(
            allow_null=True,
            help_text="Whether the caller follows this player; null for a visitor or the "
            "player themself.",
        )

    @extend_schema(responses={200: OutputSerializer, **errors("not_found")})
    def get(self, request: Request, username: str) -> Response:
        viewer = request.user if isinstance(request.user, User) else None
        user = selectors.user_get_by_username(username=username, viewer=viewer)
        profile = {
            "username": user.username,
            "date_joined": user.date_joined,
            "stats": game_selectors.user_stats(user=user),
            "ratings": daily_selectors.user_ratings(user=user, now=timezone.now()),
            "badges": daily_selectors.user_badges(user=user),
            **following.follow_counts(user=user, viewer=viewer),
        }
        return Response(self.OutputSerializer(profile).data)


class FollowView(APIView):
    """Follow a player, or stop following them (docs/api.md, "Following")."""

    throttle_classes = [BorrowedRateThrottle]
    throttle_scope = "follow"  # a script's follows count apart from its game starts
    throttle_rate_of = "games"

    @extend_schema(
        request=None,
        responses={204: None, **errors("follow_refused", "account_required", "not_found")},
    )
    def put(self, request: Request, username: str) -> Response:
        following.user_follow(follower=signed_in_user(request), username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={204: None, **errors("not_found")})
    def delete(self, request: Request, username: str) -> Response:
        following.user_unfollow(follower=signed_in_user(request), username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeFollowingView(APIView):
    class OutputSerializer(serializers.Serializer[dict[str, Any]]):
        user = serializers.CharField()
        since = serializers.DateTimeField()

    @extend_schema(responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(following.user_following(user=signed_in_user(request)))
