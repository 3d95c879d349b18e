from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from annotation.roles import ADJUDICATOR, ANNOTATOR, ORGANIZER, has_role
from annotation.selectors.queue import datasets_with_work


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Annotators: their datasets with progress; organizers and adjudicators: the way to their pages."""
    is_annotator = has_role(request.user, ANNOTATOR)
    return TemplateResponse(
        request,
        "annotation/home.html",
        {
            "is_annotator": is_annotator,
            "is_organizer": has_role(request.user, ORGANIZER),
            "is_adjudicator": has_role(request.user, ADJUDICATOR),
            "datasets": datasets_with_work(request.user) if is_annotator else [],
        },
    )
