#!/usr/bin/env bash
# The save & next benchmark in Chromium (bench/bench_next_item.py): PostgreSQL as for
# bench/server.sh (POLIS_BENCH_DB=throwaway forces a throwaway cluster), gunicorn with 2
# workers. Arguments go to bench_next_item.py (see --help). It uses its own database,
# polis_bench_next_item, dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
case " $* " in *" -h "* | *" --help "*) exec .venv/bin/python bench/bench_next_item.py --help ;; esac
bench_environment polis_bench_next_item
.venv/bin/python bench/bench_next_item.py "$@"
