#!/usr/bin/env bash
# A throwaway PostgreSQL server for the QuarryPostgres tests, locally and in CI.
#
#     bash scripts/postgres-server.sh start    # a fresh cluster on 127.0.0.1, a free port
#     eval "$(bash scripts/postgres-server.sh env)"   # export QUARRY_POSTGRES_URL=...
#     swift test
#     bash scripts/postgres-server.sh stop     # stops it and deletes its files
#
#     bash scripts/postgres-server.sh start --ssl CERT KEY [CLIENT_CA]
#                                              # the same, TLS only (see below)
#
# `start` installs Debian's `postgresql` package when `initdb`/`pg_ctl` are
# missing, creates a cluster in a new temporary directory (trust
# authentication, on 127.0.0.1 only, no durability: fsync is off, since the
# data is thrown away), starts it on a free TCP port, creates the database
# `quarry_test`, and writes the URL and the directory to a state file
# (.build-pg-server/state, or $QUARRY_POSTGRES_STATE_DIR/state). `initdb` and
# `postgres` refuse to run as root: as root, they run as the `postgres` system
# user, which owns the directory. `env` prints the export line; `stop` stops the
# server (`pg_ctl stop -m fast`) and removes the directory and the state file.
#
# For tests that take the server down (the fault tests' PrivatePostgresServer),
# three commands keep the cluster, its port and its state file:
#
#     bash scripts/postgres-server.sh restart        # pg_ctl restart -m fast
#     bash scripts/postgres-server.sh stop-server    # pg_ctl stop -m fast
#     bash scripts/postgres-server.sh start-server   # pg_ctl start, same port
#
# With `--ssl CERT KEY`, the server has TLS on with that certificate and key
# (PEM files, copied into the cluster's directory: the key must be owned by the
# server's user and not readable by others), and accepts TCP connections over
# TLS only (`hostssl` in pg_hba.conf). A third file, CLIENT_CA, makes it ask
# clients for a certificate signed by that authority (optional: trust
# authentication still lets clients without one in), shown in pg_stat_ssl.
set -euo pipefail
cd "$(dirname "$0")/.."

state_dir="${QUARRY_POSTGRES_STATE_DIR:-$PWD/.build-pg-server}"
state_file="$state_dir/state"
database="quarry_test"
superuser="postgres"

log() { echo "postgres-server: $*" >&2; }
die() { log "$*"; exit 1; }

# The folder of initdb and pg_ctl: PATH first, then Debian's versioned folders
# (newest first). Prints nothing when there are none.
find_bin_dir() {
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v pg_ctl)")"
        return
    fi
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
            echo "$dir"
            return
        fi
    done
}

install_postgresql() {
    log "initdb/pg_ctl not found: installing Debian's postgresql package"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -q
    $sudo apt-get install -y -q postgresql
}

# Runs a command as the user that owns the cluster: `postgres` when we are
# root (initdb and postgres refuse root), ourselves otherwise.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        if command -v runuser >/dev/null 2>&1; then
            runuser -u postgres -- "$@"
        else
            su postgres -s /bin/bash -c "$(printf '%q ' "$@")"
        fi
    else
        "$@"
    fi
}

# Runs a command that starts the server (pg_ctl start or restart) with no file
# descriptor open but 0, 1 and 2: the server keeps none of its caller's. A
# caller that waits until every copy of a pipe or socket it gave this script is
# closed (Foundation's Process on Linux does) would otherwise wait for the
# server to stop. Call it in a subshell, with redirections on the subshell
# only: it closes the descriptors of its shell, including the copies that bash
# keeps of redirected ones.
without_inherited_fds() {
    local fd
    for fd in $(ls /proc/$BASHPID/fd 2>/dev/null || ls /dev/fd); do
        # (The listing's own descriptor is in the list, and closed by now.)
        if [ "$fd" -gt 2 ] && [ -e "/dev/fd/$fd" ]; then eval "exec $fd>&-"; fi
    done
    "$@"
}

# A TCP port that nothing listens on at 127.0.0.1 right now.
free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' && return
    fi
    local port
    for port in $(seq 54320 54999); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "$port"
            return
        fi
    done
    die "no free TCP port found in 54320...54999"
}

read_state() {
    [ -f "$state_file" ] || return 1
    # shellcheck disable=SC1090
    source "$state_file"
}

server_running() {
    read_state || return 1
    [ -d "$DATA_DIR" ] && as_owner "$BIN_DIR/pg_ctl" status -D "$DATA_DIR" >/dev/null 2>&1
}

start() {
    local ssl_cert="" ssl_key="" ssl_ca=""
    if [ "${1:-}" = "--ssl" ]; then
        [ $# -ge 3 ] || die "usage: $0 start --ssl CERT KEY [CLIENT_CA]"
        ssl_cert="$2"
        ssl_key="$3"
        ssl_ca="${4:-}"
        local file
        for file in "$ssl_cert" "$ssl_key" ${ssl_ca:+"$ssl_ca"}; do
            [ -r "$file" ] || die "cannot read $file"
        done
    elif [ $# -gt 0 ]; then
        die "unknown option $1 (usage: $0 start [--ssl CERT KEY [CLIENT_CA]])"
    fi
    if server_running; then
        log "already running: $URL (stop it first for a fresh one)"
        return 0
    fi
    if [ -f "$state_file" ]; then
        log "removing the state of a server that no longer runs"
        stop_quietly
    fi

    local bin_dir
    bin_dir="$(find_bin_dir)"
    if [ -z "$bin_dir" ]; then
        install_postgresql
        bin_dir="$(find_bin_dir)"
        [ -n "$bin_dir" ] || die "no initdb/pg_ctl after installing postgresql (looked in PATH and /usr/lib/postgresql/*/bin)"
    fi

    if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
        die "running as root, but there is no 'postgres' system user to run initdb and postgres as (install Debian's postgresql package)"
    fi

    local dir
    # As root, /tmp: the postgres user must be able to reach the directory.
    local parent="${TMPDIR:-/tmp}"
    if [ "$(id -u)" -eq 0 ]; then parent=/tmp; fi
    dir="$(mktemp -d "$parent/quarry-postgres.XXXXXX")"
    chmod 700 "$dir"
    if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
    local data="$dir/data"

    as_owner "$bin_dir/initdb" -D "$data" -U "$superuser" --auth=trust --encoding=UTF8 --no-locale >"$dir/initdb.log" 2>&1 || {
        cat "$dir/initdb.log" >&2
        rm -rf "$dir"
        die "initdb failed"
    }
    # Trust, on 127.0.0.1 and the cluster's own Unix socket only; over TCP,
    # TLS only when the server has a certificate.
    local host_type="host " ssl_settings=""
    if [ -n "$ssl_cert" ]; then
        host_type="hostssl"
        cp "$ssl_cert" "$dir/server.crt"
        cp "$ssl_key" "$dir/server.key"
        ssl_settings="ssl = on
ssl_cert_file = '$dir/server.crt'
ssl_key_file = '$dir/server.key'"
        if [ -n "$ssl_ca" ]; then
            cp "$ssl_ca" "$dir/client-ca.crt"
            ssl_settings="$ssl_settings
ssl_ca_file = '$dir/client-ca.crt'"
        fi
        chmod 600 "$dir/server.key"
        if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"/*.crt "$dir/server.key"; fi
    fi
    as_owner tee "$data/pg_hba.conf" >/dev/null <<EOF
# Written by scripts/postgres-server.sh: a throwaway test cluster.
local all all trust
$host_type all all 127.0.0.1/32 trust
EOF

    local port attempt
    for attempt in 1 2 3 4 5; do
        port="$(free_port)"
        as_owner tee "$data/postgresql.auto.conf" >/dev/null <<EOF
# Written by scripts/postgres-server.sh: a throwaway test cluster.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
# The tests run many suites in parallel, each with a pool of its own: a full
# run peaked at 431 connections (2026-12-05), and one run went over 500.
max_connections = 1000
fsync = off
synchronous_commit = off
full_page_writes = off
$ssl_settings
EOF
        if (without_inherited_fds as_owner "$bin_dir/pg_ctl" start -w -t 60 -D "$data" -l "$dir/server.log") >/dev/null; then
            break
        fi
        if [ "$attempt" -eq 5 ]; then
            tail -n 20 "$dir/server.log" >&2 || true
            rm -rf "$dir"
            die "the server did not start (5 attempts)"
        fi
        log "port $port: the server did not start, trying another port"
    done

    "$bin_dir/createdb" -h 127.0.0.1 -p "$port" -U "$superuser" "$database" || {
        as_owner "$bin_dir/pg_ctl" stop -D "$data" -m fast >/dev/null 2>&1 || true
        rm -rf "$dir"
        die "createdb $database failed"
    }

    local url="postgres://$superuser@127.0.0.1:$port/$database"
    mkdir -p "$state_dir"
    {
        echo "# Written by scripts/postgres-server.sh start; read by env and stop."
        printf 'URL=%q\n' "$url"
        printf 'DIR=%q\n' "$dir"
        printf 'DATA_DIR=%q\n' "$data"
        printf 'BIN_DIR=%q\n' "$bin_dir"
        printf 'PORT=%q\n' "$port"
    } >"$state_file"
    log "started $("$bin_dir/postgres" --version) at $url (files in $dir)"
}

# Stops the server of the state file, if any, and removes its files.
stop_quietly() {
    read_state || return 0
    if [ -d "${DATA_DIR:-}" ]; then
        as_owner "$BIN_DIR/pg_ctl" stop -D "$DATA_DIR" -m fast -w >/dev/null 2>&1 || true
    fi
    case "${DIR:-}" in
        */quarry-postgres.*) rm -rf "$DIR" ;;
    esac
    rm -f "$state_file"
}

stop() {
    if ! read_state; then
        log "no server to stop (no $state_file)"
        return 0
    fi
    stop_quietly
    log "stopped and removed $DIR"
}

# The cluster of the state file, for restart, stop-server and start-server.
require_cluster() {
    read_state || die "no server (no $state_file): run 'bash scripts/postgres-server.sh start' first"
    [ -d "${DATA_DIR:-}" ] || die "the cluster's directory $DATA_DIR no longer exists"
}

# Stops the server (fast: open sessions are ended) and starts it again on the
# same port. Fails when it was not running.
restart() {
    require_cluster
    (without_inherited_fds as_owner "$BIN_DIR/pg_ctl" restart -D "$DATA_DIR" -m fast -w -t 60 -l "$DIR/server.log") >/dev/null || {
        tail -n 20 "$DIR/server.log" >&2 || true
        die "pg_ctl restart failed"
    }
    log "restarted $URL"
}

# Stops the server process (fast), keeping the cluster and the state file.
stop_server() {
    require_cluster
    if ! as_owner "$BIN_DIR/pg_ctl" status -D "$DATA_DIR" >/dev/null 2>&1; then
        log "not running: $URL"
        return 0
    fi
    as_owner "$BIN_DIR/pg_ctl" stop -D "$DATA_DIR" -m fast -w -t 60 >/dev/null || die "pg_ctl stop failed"
    log "stopped the server of $URL (the cluster is kept: start-server starts it again)"
}

# Starts the server process of the cluster again, on the same port.
start_server() {
    require_cluster
    if as_owner "$BIN_DIR/pg_ctl" status -D "$DATA_DIR" >/dev/null 2>&1; then
        log "already running: $URL"
        return 0
    fi
    (without_inherited_fds as_owner "$BIN_DIR/pg_ctl" start -D "$DATA_DIR" -w -t 60 -l "$DIR/server.log") >/dev/null || {
        tail -n 20 "$DIR/server.log" >&2 || true
        die "pg_ctl start failed (is port $PORT taken?)"
    }
    log "started the server of $URL again"
}

env_line() {
    read_state || die "no server (no $state_file): run 'bash scripts/postgres-server.sh start' first"
    printf 'export QUARRY_POSTGRES_URL=%q\n' "$URL"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) stop ;;
    env) env_line ;;
    restart) restart ;;
    stop-server) stop_server ;;
    start-server) start_server ;;
    status)
        if server_running; then echo "running: $URL"; else echo "not running"; exit 1; fi
        ;;
    *)
        echo "usage: $0 start [--ssl CERT KEY [CLIENT_CA]]|stop|env|status|restart|stop-server|start-server" >&2
        exit 64
        ;;
esac
