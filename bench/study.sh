#!/usr/bin/env bash
# The panel study benchmark (bench/bench_study.py): PostgreSQL as for bench/server.sh
# (POLIS_BENCH_DB=throwaway forces a throwaway cluster), gunicorn with two workers per core, 400
# participants entering within 10 s. Arguments go to bench_study.py (see --help). It uses its
# own database, polis_bench_study, dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
case " $* " in *" -h "* | *" --help "*) exec .venv/bin/python bench/bench_study.py --help ;; esac
bench_environment polis_bench_study
.venv/bin/python bench/bench_study.py "$@"
