from django.urls import path

from annotation.views import home

urlpatterns = [
    path("", home.home, name="home"),
]
