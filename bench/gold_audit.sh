#!/usr/bin/env bash
# The gold audit benchmark (bench/bench_gold_audit.py): the audit queue of 10,000 commas items ×
# 3 annotators, in-process, on PostgreSQL (the server on 127.0.0.1:5432 if it answers, else a
# throwaway cluster; POLIS_BENCH_DB=throwaway forces one, POLIS_BENCH_DB=<name> names the
# database). Its database is dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
bench_database polis_bench_gold_audit testserver  # in process: Django's test client
.venv/bin/python bench/bench_gold_audit.py "$@"
