#!/usr/bin/env bash
# The item browser benchmark (bench/bench_item_browser.py): server time and queries of the
# organizer's item browser and item page on 10,000 items × 30 annotators, in-process, on
# PostgreSQL (the server on 127.0.0.1:5432 if it answers, else a throwaway cluster; POLIS_BENCH_DB=throwaway forces one,
# POLIS_BENCH_DB=<name> names the database). Its database is dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
bench_database polis_bench_item_browser testserver  # in process: Django's test client
.venv/bin/python bench/bench_item_browser.py "$@"
