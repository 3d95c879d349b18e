"""What a request gets when the server fails or finds no page, and the health check of load
balancers."""

import sys

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from django.views.defaults import page_not_found
from django.views.defaults import server_error as django_server_error

from annotation.core.errors import Refused
from annotation.core.http import is_api, refusal_json
from annotation.core.problems import problem

# Seconds a client is told to wait before trying again while the database cannot be reached.
RETRY_AFTER_SECONDS = 10


def server_error(request: HttpRequest) -> HttpResponse:
    """The project's 500 handler. Django calls it while handling the exception, so the
    exception is at hand: the database being out of reach (a lost or refused connection, a
    locked SQLite file) is a 503 with Retry-After, JSON for the API and a page otherwise;
    anything else is Django's 500 page (templates/500.html)."""
    error = sys.exc_info()[1]
    if not isinstance(error, (OperationalError, InterfaceError)):
        return django_server_error(request)
    unreachable = problem("database_unreachable")
    if is_api(request):
        response = refusal_json(Refused([unreachable]), 503)
    else:
        # Rendered without a request context, as the 500 page: the context processors read the database.
        response = HttpResponse(loader.get_template("503.html").render({"message": unreachable.message}), status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The project's 404 handler: under /api/ a refusal as the API's others are (a path that is
    no endpoint, an id past the database's range), elsewhere Django's 404 page."""
    if is_api(request):
        return refusal_json(Refused.of("no_such_endpoint"), 404)
    return page_not_found(request, exception)


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
