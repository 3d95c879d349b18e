"""What a request gets when the server fails, and the health check of load balancers."""

import sys

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django.views.defaults import server_error as django_server_error

# Seconds a client is told to wait before trying again while the database cannot be reached.
RETRY_AFTER_SECONDS = 10
API_PREFIX = "/api/"


def server_error(request: HttpRequest) -> HttpResponse:
    """The project's 500 handler. Django calls it while handling the exception, so the
    exception is at hand: the database being out of reach (a lost or refused connection, a
    locked SQLite file) is a 503 with Retry-After, JSON for the API and a page otherwise;
    anything else is Django's 500 page (templates/500.html)."""
    error = sys.exc_info()[1]
    if not isinstance(error, (OperationalError, InterfaceError)):
        return django_server_error(request)
    message = _("The database cannot be reached at the moment. Nothing was lost; please try again in a few seconds.")
    if request.path.startswith(API_PREFIX):
        response = JsonResponse({"detail": message}, status=503)
    else:
        # Rendered without a request context, as the 500 page: the context processors read the database.
        response = HttpResponse(loader.get_template("503.html").render({"message": message}), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database answers and every migration is applied, else 503; no login, no data."""
    try:
        executor = MigrationExecutor(connection)
        unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError:
        return JsonResponse({"status": "database unreachable"}, status=503)
    if unapplied:
        return JsonResponse({"status": "migrations not applied"}, status=503)
    return JsonResponse({"status": "ok"})
