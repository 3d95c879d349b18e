from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return TemplateResponse(request, "annotation/home.html")
