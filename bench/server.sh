#!/usr/bin/env bash
# The server benchmark (bench/bench_server.py): PostgreSQL (the server on 127.0.0.1:5432 if it
# answers, else a throwaway cluster with fsync on; POLIS_BENCH_DB=throwaway forces one),
# gunicorn with 2 workers and persistent connections, 8 clients. Arguments go to
# bench_server.py (see --help). It uses its own database, polis_bench, dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
case " $* " in *" -h "* | *" --help "*) exec .venv/bin/python bench/bench_server.py --help ;; esac
if [ ! -x /usr/bin/chromium ]; then
    say "installing Chromium"
    apt_install chromium
fi

if [ "${POLIS_BENCH_DB:-auto}" != throwaway ] && postgres_answers 127.0.0.1 5432; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/polis_bench"
else
    start_throwaway_postgres on
    export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/polis_bench"
fi

unset DEBUG POLIS_HTTPS
SECRET_KEY=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(50))')
export SECRET_KEY ALLOWED_HOSTS=127.0.0.1 CONN_MAX_AGE=60
.venv/bin/python bench/bench_server.py "$@"
