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
bench_environment polis_bench
.venv/bin/python bench/bench_server.py "$@"
