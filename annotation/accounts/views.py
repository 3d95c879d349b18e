"""The organizer's accounts page: accounts by role, new accounts, password links, deactivation and
the release of a departed annotator's items."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotation.accounts.forms import AccountForm, AccountsCsvForm
from annotation.accounts.selectors import accounts_by_role
from annotation.accounts.services import (
    create_account,
    create_accounts_from_csv,
    new_password_link,
    set_active,
    set_single_keys,
)
from annotation.core.errors import Refused
from annotation.core.files import uploaded_source
from annotation.core.http import posted_object, refusal_status
from annotation.core.roles import organizer_required
from annotation.datasets.assigning import release_items
from annotation.models import Dataset


@never_cache
@organizer_required
@require_http_methods(["GET", "POST"])
def accounts(request: HttpRequest) -> HttpResponse:
    """Accounts by role. POST action=create (one), csv (many), link (a new password link),
    deactivate, activate, release (an inactive annotator's unanswered items of one dataset).
    Password links are shown in the answer to the POST that made them, and never again."""
    action = request.POST.get("action")
    one_form = AccountForm(request.POST if action == "create" else None)
    csv_form = AccountsCsvForm(request.POST if action == "csv" else None, request.FILES if action == "csv" else None)
    problems, status = [], 200
    links: list[tuple[User, str]] = []
    if request.method == "POST":
        if action in ("create", "csv"):
            form = one_form if action == "create" else csv_form
            if form.is_valid():
                data = form.cleaned_data
                try:
                    if action == "create":
                        made = [create_account(name=data["name"], email=data["email"], role=data["role"])]
                    else:
                        made = create_accounts_from_csv(source=uploaded_source(data["accounts"]), role=data["role"])
                except Refused as refused:
                    problems, status = refused.problems, refusal_status(refused)
                else:
                    links = [(new.user, request.build_absolute_uri(new.password_link)) for new in made]
                    one_form, csv_form = AccountForm(), AccountsCsvForm()
        elif action in ("link", "deactivate", "activate", "release"):
            user = posted_object(request, User, "user")
            try:
                if action == "link":
                    links = [(user, request.build_absolute_uri(new_password_link(user, by=request.user)))]
                elif action == "release":
                    result = release_items(posted_object(request, Dataset, "dataset"), user, by=request.user)
                    messages.success(request, _("%(count)d assignments added.") % {"count": result.total_added})
                else:
                    set_active(user, action == "activate", by=request.user)
                    messages.success(
                        request,
                        (_("%(name)s can log in again.") if action == "activate" else _("%(name)s can no longer log in."))
                        % {"name": user.get_username()},
                    )
            except Refused as refused:
                problems, status = refused.problems, refusal_status(refused)
            else:
                if action != "link":
                    return redirect("organizer_accounts")
        else:
            return HttpResponse(status=400)
    return TemplateResponse(
        request,
        "annotation/organizer/accounts.html",
        {
            "roles": accounts_by_role(request.user),
            "one_form": one_form,
            "csv_form": csv_form,
            "problems": problems,
            "links": links,
            "link_days": settings.PASSWORD_RESET_TIMEOUT // 86400,
        },
        status=status,
    )


@login_required
@require_POST
def key_settings(request: HttpRequest) -> HttpResponse:
    """POST single_keys=on|off: whether the person's single-character shortcuts act without Alt
    (from the keys window of an item or adjudication page); back to the page it came from."""
    choice = request.POST.get("single_keys")
    if choice not in ("on", "off"):
        return HttpResponse(status=400)
    set_single_keys(request.user, choice == "on")
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = reverse("home")
    return redirect(back)
