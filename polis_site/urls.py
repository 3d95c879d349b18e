from django.contrib import admin
from django.urls import include, path, register_converter

from annotation.core.converters import IdConverter, PositionConverter
from polis_site import errors

# Before the URL modules that use them are included.
register_converter(IdConverter, "id")
register_converter(PositionConverter, "position")

handler500 = errors.server_error

from annotation.annotate.views import favicon

urlpatterns = [
    path("favicon.ico", favicon),
    path("healthz", errors.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("annotation.api_urls")),
    path("", include("annotation.urls")),
]
