#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests, on a free loopback port.
#
#   eval "$(tools/pg_test_server.sh start DIR)"   # prints: export PAIZHUO_TEST_PG_URL=...
#   tools/pg_test_server.sh down DIR              # stops the server (fast: sessions ended), keeps it
#   tools/pg_test_server.sh up DIR                # starts it again, same port and data
#   tools/pg_test_server.sh stop DIR
#
# DIR is created (a fresh temporary directory is best); the cluster, its log and its unix
# socket live in it, trust authentication, fsync off (nothing here is worth keeping).
# The binaries are looked up on PATH, then under /usr/lib/postgresql/*/bin; when they are
# missing and we are root, the distribution's `postgresql` package is installed.
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` user
# (created when missing).
set -euo pipefail

find_bindir() {
    local d
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|down|up|stop DIR" >&2; exit 2; }

case "$cmd" in
start)
    if ! bindir=$(find_bindir); then
        if [ "$(id -u)" = 0 ]; then
            echo "PostgreSQL not found: installing the postgresql package" >&2
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2
            # The package may start a cluster of its own; ours does not need it.
            service postgresql stop >/dev/null 2>&1 || true
        fi
        bindir=$(find_bindir) || { echo "no PostgreSQL binaries (initdb, pg_ctl)" >&2; exit 1; }
    fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then
        chown postgres "$dir"
    fi
    port=$(free_port)
    as_owner "$bindir/initdb" -D "$dir/data" -A trust -U paizhuo -E UTF8 --no-sync \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-h 127.0.0.1 -p $port -k $dir -F -c max_connections=60" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    echo "export PAIZHUO_TEST_PG_URL=postgresql+asyncpg://paizhuo@127.0.0.1:$port/postgres"
    ;;
down)
    bindir=$(find_bindir)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null
    ;;
up)
    bindir=$(find_bindir)
    port=$(cat "$dir/port")
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
        -o "-h 127.0.0.1 -p $port -k $dir -F -c max_connections=60" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    bindir=$(find_bindir) || exit 0
    if [ -d "$dir/data" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|down|up|stop DIR" >&2
    exit 2
    ;;
esac
