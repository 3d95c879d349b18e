# Shared steps of scripts/demo.sh, scripts/test.sh and the bench/*.sh wrappers (sourced, not run).
# Expects the caller to have `set -euo pipefail` and to be in the repository root.

PYTHON=${PYTHON:-python3}
VENV=.venv

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Commands to run when the calling script exits, last registered first.
_on_exit=()
_run_on_exit() {
    local i
    for ((i = ${#_on_exit[@]} - 1; i >= 0; i--)); do eval "${_on_exit[i]}" || true; done
}
on_exit() {
    _on_exit+=("$1")
    trap _run_on_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

_apt_updated=
apt_install() {
    [ "$(id -u)" = 0 ] || die "needs root to install $* (apt-get install -y $*)"
    if [ -z "$_apt_updated" ]; then
        DEBIAN_FRONTEND=noninteractive apt-get update -q
        _apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}

# .venv with requirements.txt installed; pip runs again only when requirements.txt changed.
setup_venv() {
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "Python 3.11 or newer is needed ($PYTHON is $("$PYTHON" -V 2>&1))"
    if [ ! -x "$VENV/bin/python" ]; then
        "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || apt_install python3-venv
        say "creating $VENV"
        "$PYTHON" -m venv "$VENV"
    fi
    local wanted stamp="$VENV/.requirements.sha256"
    wanted=$(sha256sum requirements.txt | cut -d' ' -f1)
    if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
        say "installing requirements.txt into $VENV"
        "$VENV/bin/pip" install --disable-pip-version-check -q -r requirements.txt
        echo "$wanted" >"$stamp"
    fi
}

# The demo's SECRET_KEY: made once, kept in var/ (git-ignored), readable by root only.
demo_secret_key() {
    mkdir -p var
    if [ ! -s var/secret_key ]; then
        (umask 077 && "$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(50))' >var/secret_key)
    fi
    cat var/secret_key
}

# True when a PostgreSQL server accepts user postgres on host:port.
postgres_answers() {
    "$VENV/bin/python" - "$1" "$2" <<'PY' 2>/dev/null
import sys
import psycopg
psycopg.connect(host=sys.argv[1], port=int(sys.argv[2]), user="postgres", dbname="postgres", connect_timeout=3).close()
PY
}

spare_port() {
    "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Start a throwaway PostgreSQL cluster (installed with apt-get if missing) on a spare
# port, its socket and data in a temp folder, stopped and deleted when the script exits.
# $1 = fsync setting ("off" for tests, "on" for benchmarks). Sets PG_PORT.
start_throwaway_postgres() {
    local fsync=${1:-off} bin tmp as_pg=()
    if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
        say "installing PostgreSQL"
        apt_install postgresql
    fi
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    tmp=$(mktemp -d /tmp/polis-pg.XXXXXX)
    if [ "$(id -u)" = 0 ]; then
        # PostgreSQL refuses to run as root.
        chown postgres: "$tmp"
        as_pg=(runuser -u postgres --)
    fi
    PG_PORT=$(spare_port)
    say "starting a throwaway PostgreSQL cluster ($bin) on 127.0.0.1:$PG_PORT, fsync=$fsync"
    # Run from the temp folder: user postgres may not be allowed into the checkout (e.g. under /root).
    (cd "$tmp" && "${as_pg[@]}" "$bin/initdb" -D "$tmp/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8) \
        >"$tmp/initdb.log" 2>&1 || { cat "$tmp/initdb.log" >&2; die "initdb failed"; }
    on_exit "(cd '$tmp' && ${as_pg[*]} '$bin/pg_ctl' -D '$tmp/data' -m fast -w stop >/dev/null); rm -rf '$tmp'"
    (cd "$tmp" && "${as_pg[@]}" "$bin/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -o \
        "-p $PG_PORT -k $tmp -c listen_addresses=127.0.0.1 -c fsync=$fsync" start >/dev/null) \
        || { cat "$tmp/server.log" >&2; die "the throwaway PostgreSQL did not start"; }
}

# The benchmarks' database and the settings of a production run: DATABASE_URL names database
# $1 (POLIS_BENCH_DB=<name>: that one) on the server on 127.0.0.1:5432 if it answers, else on a
# throwaway cluster with fsync on (POLIS_BENCH_DB=throwaway forces one); ALLOWED_HOSTS is $2.
bench_database() {
    local database=$1
    case "${POLIS_BENCH_DB:-auto}" in auto | throwaway) ;; *) database=$POLIS_BENCH_DB ;; esac
    if [ "${POLIS_BENCH_DB:-auto}" != throwaway ] && postgres_answers 127.0.0.1 5432; then
        export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$database"
    else
        start_throwaway_postgres on
        export DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/$database"
    fi
    unset DEBUG POLIS_HTTPS
    SECRET_KEY=$("$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(50))')
    export SECRET_KEY ALLOWED_HOSTS=$2 CONN_MAX_AGE=60
}

# The server benchmarks' side: Chromium, and database $1 served on 127.0.0.1.
bench_environment() {
    if [ ! -x /usr/bin/chromium ]; then
        say "installing Chromium"
        apt_install chromium
    fi
    bench_database "$1" 127.0.0.1
}
