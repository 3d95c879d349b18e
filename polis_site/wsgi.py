import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "polis_site.settings")
application = get_wsgi_application()
# The URLconf, and with it every view module (the reports' plotting library among them), imported
# now rather than by the first request each worker serves: with gunicorn's preload_app once, in
# the master, whose workers share it. Imported by the first request, it held that request and
# every one queued behind it for about a second, in each worker and again in each replacement.
import_module(settings.ROOT_URLCONF)
