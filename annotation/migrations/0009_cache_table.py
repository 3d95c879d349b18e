"""The database cache's table (settings.CACHES: the throttle counts of every worker and
instance), made by `migrate` as `manage.py createcachetable` makes it: a deployment that runs
the migrations has it (without it every /api/token/ request failed). Made only where missing,
so a database where createcachetable already ran is left as it is."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0008_withdrawn_items_index"),
    ]

    operations = [
        # Not undone: the table holds only counts that expire, and other caches may share it.
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
