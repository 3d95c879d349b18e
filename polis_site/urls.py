from django.contrib import admin
from django.urls import include, path

from annotation.views.home import favicon

urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/", include("annotation.api.urls")),
    path("", include("annotation.urls")),
]
