#!/usr/bin/env bash
# The item browser benchmark (bench/bench_item_browser.py): server time and queries of the
# organizer's item browser and item page on 10,000 items × 30 annotators, in-process, on
# PostgreSQL (the server on 127.0.0.1:5432 if it answers, else a throwaway cluster; POLIS_BENCH_DB=throwaway forces one,
# POLIS_BENCH_DB=<name> names the database). Its database is dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
name=polis_bench_item_browser
case "${POLIS_BENCH_DB:-auto}" in auto | throwaway) ;; *) name=$POLIS_BENCH_DB ;; esac
if [ "${POLIS_BENCH_DB:-auto}" != throwaway ] && postgres_answers 127.0.0.1 5432; then
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$name"
else
    start_throwaway_postgres on
    export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/$name"
fi
unset DEBUG POLIS_HTTPS
SECRET_KEY=$(.venv/bin/python -c 'import secrets; print(secrets.token_urlsafe(50))')
export SECRET_KEY ALLOWED_HOSTS=testserver CONN_MAX_AGE=60
.venv/bin/python bench/bench_item_browser.py "$@"
