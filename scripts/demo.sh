#!/usr/bin/env bash
# The demo: virtualenv, SQLite database, demo accounts and data, served by gunicorn
# on http://127.0.0.1:8000 with DEBUG off, and the worker that computes the reports beside it. Safe to run again: it keeps the database
# and the secret key, and only adds what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv

# The demo always uses the embedded SQLite database (var/db.sqlite3) and production settings.
unset DATABASE_URL DEBUG POLIS_HTTPS
SECRET_KEY=$(demo_secret_key)
export SECRET_KEY
export ALLOWED_HOSTS=${ALLOWED_HOSTS:-127.0.0.1,localhost}
PORT=${PORT:-8000}

say "migrating var/db.sqlite3"
.venv/bin/python manage.py migrate --noinput -v 0
say "loading the demo"
.venv/bin/python manage.py load_demo
say "collecting static files"
.venv/bin/python manage.py collectstatic --noinput -v 0

say "starting the report worker (manage.py db_worker)"
# At the lowest CPU priority: the annotators' saves first, the reports with the CPU time left.
# In a session of its own: where the kernel groups processes by session (autogroup), nice
# orders a group's processes only, so the worker's own group gets the lowest weight as well
# (once setsid has made it, never the group of this script and gunicorn).
setsid nice -n 19 .venv/bin/python manage.py db_worker --interval 2 &
WORKER=$!
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ]; then
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        if [ "$(cat "/proc/$WORKER/autogroup" 2>/dev/null)" != "$(cat /proc/$$/autogroup)" ]; then
            echo 19 >"/proc/$WORKER/autogroup" 2>/dev/null || true
            break
        fi
        sleep 0.1
    done
fi
trap 'kill "$WORKER" 2>/dev/null; wait "$WORKER" 2>/dev/null' EXIT

say "serving on http://127.0.0.1:$PORT/ (Ctrl+C stops)"
.venv/bin/gunicorn -c deploy/gunicorn.conf.py polis_site.wsgi --bind "127.0.0.1:$PORT" --workers 2
