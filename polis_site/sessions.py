"""Database sessions (django.contrib.sessions.backends.db) whose read is one hand-written query.

The session is read on every request; building the ORM query took longer than the database
took to answer it. Only the public ``load()`` is replaced, and only for a live session: an
unknown or expired key goes to Django's own ``load()``, which drops the key so that a new one
is made on save. Everything else, logout's server-side delete included, is Django's.
"""

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    def load(self) -> dict:
        if self.session_key is None:
            return super().load()
        connection = connections[router.db_for_read(self.model)]
        table = connection.ops.quote_name(self.model._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",
                [self.session_key, connection.ops.adapt_datetimefield_value(timezone.now())],
            )
            found = cursor.fetchone()
        if found is None:
            return super().load()
        return self.decode(found[0])
