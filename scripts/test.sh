#!/usr/bin/env bash
# The whole test suite on PostgreSQL with the browser tests in Debian's Chromium.
#
# Database: DATABASE_URL if set; else the server on 127.0.0.1:5432 if it answers;
# else a throwaway cluster (installed with apt-get if missing), stopped at the end.
# POLIS_TEST_DB=throwaway forces the throwaway cluster; POLIS_TEST_DB=sqlite is a
# quicker development run on SQLite (not the test command: PostgreSQL-only checks fail under CI=true).
# Arguments are passed to pytest, e.g. scripts/test.sh tests/e2e -x
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv

if [ ! -x /usr/bin/chromium ]; then
    say "installing Chromium"
    apt_install chromium
fi
if ! command -v pdflatex >/dev/null || ! command -v bibtex >/dev/null; then
    say "installing texlive-latex-recommended (the paper kit's test compiles paper.tex)"
    apt_install texlive-latex-recommended
fi
if ! command -v nginx >/dev/null; then
    say "installing nginx (the two-instance test runs deploy/nginx.conf)"
    apt_install nginx
fi

mode=${POLIS_TEST_DB:-auto}
case "$mode" in
auto | throwaway | sqlite) ;;
*) die "POLIS_TEST_DB must be auto, throwaway or sqlite, not '$mode'" ;;
esac

if [ "$mode" = sqlite ]; then
    unset DATABASE_URL
    say "database: SQLite (development run)"
elif [ -n "${DATABASE_URL:-}" ] && [ "$mode" = auto ]; then
    say "database: DATABASE_URL"
elif [ "$mode" = auto ] && postgres_answers 127.0.0.1 5432; then
    # A name of this run's own, so that two runs on one server do not share a test database.
    export DATABASE_URL="postgres://postgres@127.0.0.1:5432/polis_run_$$"
    say "database: the PostgreSQL server on 127.0.0.1:5432"
else
    start_throwaway_postgres off
    export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/polis"
fi

say "lint: ruff (pyflakes, isort, bugbear; pyproject.toml)"
.venv/bin/ruff check --no-cache .

# Tests run with DEBUG off, as in production (tests/settings.py gives them a key).
unset DEBUG POLIS_HTTPS
say "running the test suite"
status=0
.venv/bin/python -m pytest "$@" || status=$?
exit "$status"
