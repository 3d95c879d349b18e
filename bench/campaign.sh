#!/usr/bin/env bash
# The campaign benchmark (bench/bench_campaign.py): a campaign the size of the benchmark's test
# set on PostgreSQL with fsync on (the server on 127.0.0.1:5432 if it answers, else a throwaway
# cluster; POLIS_BENCH_DB=throwaway forces one), gunicorn with 2 workers, then two instances
# behind nginx (installed with apt-get when missing). Arguments go to bench_campaign.py (see
# --help). It uses its own database, polis_campaign, dropped and made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

setup_venv
case " $* " in *" -h "* | *" --help "*) exec .venv/bin/python bench/bench_campaign.py --help ;; esac
if ! command -v nginx >/dev/null; then
    say "installing nginx"
    apt_install nginx
fi
bench_environment polis_campaign
.venv/bin/python bench/bench_campaign.py "$@"
