"""Request parameters no name or id can hold: the character U+0000 in the path or in the query
string. PostgreSQL refuses it in any text it is sent (a query naming ``a\\x00b`` fails in the
database, a 500), and no user name, id, source or setting holds it.

One check for every page and endpoint, the middleware ``refuse_nul_parameters`` (in
settings.MIDDLEWARE): 400 naming the parameter, before any view reads it, nothing changed.
Posted forms are not looked at here, as their free text (a flag's comment) is refused by the
page that reads it, in its own words; a view reading a name or id from a form refuses U+0000
with ``refuse_parameters`` (``posted_object`` for ids). Files and JSON bodies are checked where
they are read, each problem with its file, line or field (annotation.core.storable)."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from annotation.core.errors import Refused
from annotation.core.http import is_api, refusal_json
from annotation.core.problems import problem

NUL = "\x00"


def nul_parameters(request: HttpRequest) -> list[str]:
    """The names of the request's parameters holding U+0000: "path", and those of the query
    string (a name holding it written with the escape \\x00)."""
    found = ["path"] if NUL in request.path_info else []
    for name, values in request.GET.lists():
        if NUL in name or any(NUL in value for value in values):
            shown = name.replace(NUL, "\\x00")
            if shown not in found:
                found.append(shown)
    return found


def refuse_nul_parameters(get_response: Callable[[HttpRequest], HttpResponse]):
    """Middleware: a request with U+0000 in its path or query string is a 400 naming it."""

    def middleware(request: HttpRequest) -> HttpResponse:
        names = nul_parameters(request)
        return refuse_parameters(request, names) if names else get_response(request)

    return middleware


def refuse_parameters(request: HttpRequest, names: list[str]) -> HttpResponse:
    """400 naming the parameters that hold U+0000 (JSON under /api/, as the API's refusals:
    detail, problems, codes; else a page)."""
    refused = Refused([problem("unstorable/parameter", name) for name in names])
    if is_api(request):
        return refusal_json(refused, 400)
    # The link back leaves the path out when the path itself is refused.
    back = "/" if "path" in names else request.path
    return TemplateResponse(request, "refused_parameters.html", {"problems": refused.messages, "back": back}, status=400).render()
