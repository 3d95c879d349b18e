from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, register_converter

from annotation.core.converters import IdConverter, PositionConverter
from polis_site import errors

# Before the URL modules that use them are included.
register_converter(IdConverter, "id")
register_converter(PositionConverter, "position")

handler404 = errors.not_found
handler500 = errors.server_error

from annotation.annotate.views import favicon

# Django's account pages (django.contrib.auth.urls) but its e-mail password reset: no e-mail is
# sent by this site, so nobody asks for a reset link; an organizer hands out the one-time link
# (annotation.accounts.services.password_link), confirmed by Django's own view.
account_patterns = [
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    # The person who sets their password is logged in at once (one step, not a second login).
    path("reset/<uidb64>/<token>/", auth_views.PasswordResetConfirmView.as_view(
        post_reset_login=True, post_reset_login_backend="annotation.core.roles.UserWithRolesBackend",
    ), name="password_reset_confirm"),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]

urlpatterns = [
    path("favicon.ico", favicon),
    path("healthz", errors.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include(account_patterns)),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("annotation.api_urls")),
    path("", include("annotation.urls")),
]
