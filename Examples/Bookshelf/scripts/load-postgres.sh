#!/usr/bin/env bash
# load-postgres.sh: a load check of two Bookshelf processes on one PostgreSQL
# database. Builds the service in release mode, creates a fresh database on a
# throwaway server (scripts/postgres-server.sh of the repository root, or the
# server of $QUARRY_POSTGRES_URL), starts two processes on it at once (they
# race the migrator, which must apply each migration once), seeds data, runs
# one wrk per process at the same time with scripts/mixed.lua for $DURATION
# seconds, stops both with SIGTERM, then checks with psql that every
# acknowledged write (every 201) is in the database and that book_stats
# agrees with COUNT/SUM over review for every book.
#
#   Examples/Bookshelf/scripts/load-postgres.sh                 # 20 s
#   DURATION=10 THREADS=1 CONNECTIONS=8 Examples/Bookshelf/scripts/load-postgres.sh
#
# RESTART_AFTER=S restarts the PostgreSQL server (`pg_ctl restart -m fast`, as
# a failover or a minor upgrade does) S seconds into the wrk run; it needs the
# server of scripts/postgres-server.sh (started here, or already running for
# this checkout). Then 503 responses are expected while the server is away
# (the service answers 503 when the database is unreachable), and a 500 for
# each write whose COMMIT lost its answer (the service logs "commit outcome
# unknown": the write may or may not be in the database), and only them: the
# check still fails on any other non-2xx response, a socket error, or a lost
# acknowledged write, and prints how many of each there were.
#
# THREADS and CONNECTIONS are per wrk (one wrk per process). KEEP=1 keeps the
# database afterwards; BOOKSHELF_BIN=path uses that binary instead of building. Exits non-zero on any non-2xx response, socket error,
# lost write, inconsistent aggregate, migration applied twice, or an unclean
# exit. Traffic stays on 127.0.0.1 (a server URL elsewhere is refused).
# Not run in CI.
set -euo pipefail

DURATION="${DURATION:-20}"
RESTART_AFTER="${RESTART_AFTER:-}"
THREADS="${THREADS:-1}"
CONNECTIONS="${CONNECTIONS:-8}"
SEED_AUTHORS=10
SEED_BOOKS=100
SEED_REVIEWS=200

cd "$(dirname "$0")/.."
PACKAGE_DIR="$(pwd)"
REPO_DIR="$(cd ../.. && pwd)"

need() {  # need COMMAND DEBIAN_PACKAGE
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "== installing $2 (apt-get)"
        local sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$2" >/dev/null
    fi
}
need wrk wrk
need curl curl
need psql postgresql-client
need python3 python3

WORK="$(mktemp -d /tmp/bookshelf-load-pg.XXXXXX)"
PIDS=()
STARTED_SERVER=0
ADMIN_URL=""
DB_NAME=""
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    done
    if [ -n "$DB_NAME" ] && [ "${KEEP:-0}" != 1 ]; then
        psql -X -q -d "$ADMIN_URL" -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)" >/dev/null 2>&1 || true
    fi
    if [ "$STARTED_SERVER" = 1 ]; then bash "$REPO_DIR/scripts/postgres-server.sh" stop || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# The server: $QUARRY_POSTGRES_URL, else the one postgres-server.sh runs for
# this checkout, else a throwaway one started (and stopped) here.
if [ -z "${QUARRY_POSTGRES_URL:-}" ]; then
    if ! bash "$REPO_DIR/scripts/postgres-server.sh" status >/dev/null 2>&1; then
        echo "== starting a throwaway PostgreSQL server (scripts/postgres-server.sh)"
        bash "$REPO_DIR/scripts/postgres-server.sh" start
        STARTED_SERVER=1
    fi
    eval "$(bash "$REPO_DIR/scripts/postgres-server.sh" env)"
fi
ADMIN_URL="$QUARRY_POSTGRES_URL"
if [ -n "$RESTART_AFTER" ] && ! bash "$REPO_DIR/scripts/postgres-server.sh" status >/dev/null 2>&1; then
    echo "RESTART_AFTER needs the server of scripts/postgres-server.sh, which this script can restart"
    exit 1
fi

# The URL of another database on the same server (same user, host, port, options).
url_with_database() {  # url_with_database URL DATABASE
    python3 - "$1" "$2" <<'PY'
import sys, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
print(urllib.parse.urlunsplit((url.scheme, url.netloc, "/" + sys.argv[2], url.query, "")))
PY
}
HOST="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlsplit(sys.argv[1]).hostname or "")' "$ADMIN_URL")"
case "$HOST" in
    127.0.0.1 | localhost | ::1) ;;
    *) echo "refusing a PostgreSQL server that is not on the loopback interface ($HOST)"; exit 1 ;;
esac

if [ -n "${BOOKSHELF_BIN:-}" ]; then
    BIN="$BOOKSHELF_BIN"  # an already built binary (a debug one, to try the script out)
else
    echo "== building (release)"
    swift build -c release --product bookshelf
    BIN="$(swift build -c release --show-bin-path)/bookshelf"
fi

DB_NAME="bookshelf_load_$(date +%s)_$$"
psql -X -q -v ON_ERROR_STOP=1 -d "$ADMIN_URL" -c "CREATE DATABASE \"$DB_NAME\""
DB_URL="$(url_with_database "$ADMIN_URL" "$DB_NAME")"
sql() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$DB_URL" "$@"; }

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
PORT_A="$(free_port)"
PORT_B="$(free_port)"
while [ "$PORT_B" = "$PORT_A" ]; do PORT_B="$(free_port)"; done
BASE_A="http://127.0.0.1:$PORT_A"
BASE_B="http://127.0.0.1:$PORT_B"

echo "== starting two processes at once on database $DB_NAME: $BASE_A and $BASE_B"
BOOKSHELF_DATABASE="$DB_URL" "$BIN" --hostname 127.0.0.1 --port "$PORT_A" --log-level warning >"$WORK/service-a.log" 2>&1 &
PID_A=$!
BOOKSHELF_DATABASE="$DB_URL" "$BIN" --hostname 127.0.0.1 --port "$PORT_B" --log-level warning >"$WORK/service-b.log" 2>&1 &
PID_B=$!
PIDS=("$PID_A" "$PID_B")
wait_healthy() {  # wait_healthy BASE PID LOG
    for _ in $(seq 1 150); do
        if curl -fsS "$1/health" >/dev/null 2>&1; then return 0; fi
        if ! kill -0 "$2" 2>/dev/null; then echo "the service exited:"; cat "$3"; exit 1; fi
        sleep 0.2
    done
    curl -fsS "$1/health" >/dev/null
}
wait_healthy "$BASE_A" "$PID_A" "$WORK/service-a.log"
wait_healthy "$BASE_B" "$PID_B" "$WORK/service-b.log"
echo "migrations applied: $(sql -c 'SELECT count(*) FROM quarry_migrations')"

echo "== seeding $SEED_AUTHORS authors, $SEED_BOOKS books, $SEED_REVIEWS reviews (half through each process)"
post() { curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -d "$3" "$1$2"; }
pick() { if [ $(( $1 % 2 )) = 0 ]; then echo "$BASE_A"; else echo "$BASE_B"; fi; }
for a in $(seq 1 "$SEED_AUTHORS"); do post "$(pick "$a")" /authors "{\"name\": \"Author $a\"}"; done
for b in $(seq 1 "$SEED_BOOKS"); do
    post "$(pick "$b")" /books "{\"author_id\": $(( (b - 1) % SEED_AUTHORS + 1 )), \"title\": \"Book $b\", \"isbn\": \"seed-$b\", \"published\": $(( 1950 + b % 70 )), \"price_cents\": $(( 500 + b * 7 ))}"
done
for r in $(seq 1 "$SEED_REVIEWS"); do
    post "$(pick "$r")" /reviews "{\"book_id\": $(( (r * 37) % SEED_BOOKS + 1 )), \"reviewer\": \"seed-$r\", \"rating\": $(( r % 5 + 1 ))}"
done

echo "== wrk on both processes at once: ${DURATION}s, each $THREADS thread(s), $CONNECTIONS connections"
mkdir -p "$WORK/a" "$WORK/b"
BOOKSHELF_LOAD_DIR="$WORK/a" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency \
    -s "$PACKAGE_DIR/scripts/mixed.lua" "$BASE_A" -- "$SEED_AUTHORS" "$SEED_BOOKS" wrka >"$WORK/wrk-a.txt" &
WRK_A=$!
BOOKSHELF_LOAD_DIR="$WORK/b" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency \
    -s "$PACKAGE_DIR/scripts/mixed.lua" "$BASE_B" -- "$SEED_AUTHORS" "$SEED_BOOKS" wrkb >"$WORK/wrk-b.txt" &
WRK_B=$!
RESTART_MS=""
if [ -n "$RESTART_AFTER" ]; then
    sleep "$RESTART_AFTER"
    echo "== restarting the PostgreSQL server (pg_ctl restart -m fast) at ${RESTART_AFTER}s"
    RESTART_START=$(date +%s%N)
    bash "$REPO_DIR/scripts/postgres-server.sh" restart
    RESTART_MS=$(( ($(date +%s%N) - RESTART_START) / 1000000 ))
    echo "the server was back after ${RESTART_MS} ms"
fi
wait "$WRK_A"
wait "$WRK_B"
echo "-- process A ($BASE_A)"; cat "$WORK/wrk-a.txt"
echo "-- process B ($BASE_B)"; cat "$WORK/wrk-b.txt"

echo "== stopping both processes (SIGTERM)"
STOP_START=$(date +%s%N)
kill -TERM "$PID_A" "$PID_B"
STATUS_A=0
wait "$PID_A" || STATUS_A=$?
STATUS_B=0
wait "$PID_B" || STATUS_B=$?
PIDS=()
STOP_MS=$(( ($(date +%s%N) - STOP_START) / 1000000 ))
echo "exit status: A $STATUS_A, B $STATUS_B (both stopped in ${STOP_MS} ms)"
for log in "$WORK/service-a.log" "$WORK/service-b.log"; do
    if grep -qiE "error|critical" "$log"; then echo "$log:"; cat "$log"; fi
done

echo "== checking every acknowledged write and the aggregates (psql)"
cat "$WORK"/a/acked-*.csv "$WORK"/b/acked-*.csv > "$WORK/acked.csv" 2>/dev/null || : > "$WORK/acked.csv"
CHECK="$(sql <<SQL
CREATE TEMPORARY TABLE acked (kind TEXT NOT NULL, tag TEXT NOT NULL);
\\copy acked FROM '$WORK/acked.csv' WITH (FORMAT csv)
SELECT 'acked_books=' || count(*) FROM acked WHERE kind = 'book';
SELECT 'acked_reviews=' || count(*) FROM acked WHERE kind = 'review';
SELECT 'acked_distinct=' || count(DISTINCT kind || tag) FROM acked;
SELECT 'missing_books=' || count(*) FROM acked WHERE kind = 'book' AND tag NOT IN (SELECT isbn FROM book);
SELECT 'missing_reviews=' || count(*) FROM acked WHERE kind = 'review' AND tag NOT IN (SELECT reviewer FROM review);
SELECT 'stored_books=' || count(*) FROM book WHERE isbn LIKE 'wrk%';
SELECT 'stored_reviews=' || count(*) FROM review WHERE reviewer LIKE 'wrk%';
SELECT 'books=' || count(*) FROM book;
SELECT 'reviews=' || count(*) FROM review;
SELECT 'stats_mismatches=' || count(*)
FROM book
LEFT JOIN book_stats s ON s.book_id = book.id
LEFT JOIN (SELECT book_id, COUNT(*) AS n, SUM(rating) AS total FROM review GROUP BY book_id) r ON r.book_id = book.id
WHERE COALESCE(s.review_count, 0) <> COALESCE(r.n, 0) OR COALESCE(s.rating_total, 0) <> COALESCE(r.total, 0);
SELECT 'audit_mismatch=' || ((SELECT count(*) FROM book) - (SELECT count(*) FROM audit WHERE action = 'insert'));
SELECT 'migration_rows=' || count(*) FROM quarry_migrations;
SELECT 'migration_names=' || count(DISTINCT name) FROM quarry_migrations;
SQL
)"
echo "$CHECK"
echo "$CHECK" > "$WORK/check.txt"
value() { grep "^$1=" "$2" | head -1 | cut -d= -f2; }
A="$WORK/a/summary.txt"
B="$WORK/b/summary.txt"
C="$WORK/check.txt"
ACKED=$(( $(value acked_books "$C") + $(value acked_reviews "$C") ))
MISSING=$(( $(value missing_books "$C") + $(value missing_reviews "$C") ))
STORED=$(( $(value stored_books "$C") + $(value stored_reviews "$C") ))
POSTS=$(( $(value posts_acked "$A") + $(value posts_acked "$B") ))
REQUESTS=$(( $(value requests "$A") + $(value requests "$B") ))
NON2XX=$(( $(value non2xx "$A") + $(value non2xx "$B") ))
UNAVAILABLE=$(( $(value status503 "$A") + $(value status503 "$B") ))
FAILED500=$(( $(value status500 "$A") + $(value status500 "$B") ))
UNKNOWN=$(cat "$WORK/service-a.log" "$WORK/service-b.log" | grep -c "commit outcome unknown" || true)
SOCKET=$(( $(value socket_errors "$A") + $(value socket_errors "$B") ))

echo
echo "== Bookshelf PostgreSQL load check ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(psql -X -At -d "$DB_URL" -c 'SHOW server_version'))"
echo "processes:           2 on one database, each with wrk: $THREADS thread(s), $CONNECTIONS connections, $(value seconds "$A") s"
echo "requests:            $REQUESTS ($(( $(value rps "$A") + $(value rps "$B") )) requests/s: A $(value rps "$A"), B $(value rps "$B"))"
echo "latency A:           p50 $(value p50_ms "$A") ms, p90 $(value p90_ms "$A") ms, p99 $(value p99_ms "$A") ms, max $(value max_ms "$A") ms"
echo "latency B:           p50 $(value p50_ms "$B") ms, p90 $(value p90_ms "$B") ms, p99 $(value p99_ms "$B") ms, max $(value max_ms "$B") ms"
echo "non-2xx responses:   $NON2XX ($UNAVAILABLE of them 503; $FAILED500 500, for $UNKNOWN commits of unknown outcome)"
if [ -n "$RESTART_AFTER" ]; then echo "server restart:      at ${RESTART_AFTER} s, back after ${RESTART_MS} ms"; fi
echo "socket errors:       $SOCKET"
echo "acknowledged writes: $ACKED (2xx POSTs counted by wrk: $POSTS)"
echo "lost writes:         $MISSING (rows written by wrk: $STORED; $(( STORED - ACKED )) committed but unacknowledged, in flight when wrk stopped)"
echo "book_stats:          $(value stats_mismatches "$C") of $(value books "$C") books differ from COUNT/SUM over $(value reviews "$C") reviews"
echo "audit:               $(value audit_mismatch "$C") books without their insert entry"
echo "migrations:          $(value migration_rows "$C") rows, $(value migration_names "$C") names (two processes raced the migrator)"
echo "service exits:       A $STATUS_A, B $STATUS_B, ${STOP_MS} ms after SIGTERM"

FAILED=0
if [ -n "$RESTART_AFTER" ]; then
    [ "$NON2XX" = $(( UNAVAILABLE + FAILED500 )) ] && [ "$FAILED500" = "$UNKNOWN" ] \
        || { echo "FAIL: non-2xx responses other than 503, or 500s other than commits of unknown outcome"; FAILED=1; }
else
    [ "$NON2XX" = 0 ] || { echo "FAIL: non-2xx responses"; FAILED=1; }
fi
[ "$SOCKET" = 0 ] || { echo "FAIL: socket errors"; FAILED=1; }
[ "$MISSING" = 0 ] || { echo "FAIL: lost writes"; FAILED=1; }
[ "$ACKED" = "$POSTS" ] || { echo "FAIL: acknowledged writes not all recorded"; FAILED=1; }
[ "$ACKED" = "$(value acked_distinct "$C")" ] || { echo "FAIL: duplicate write tags"; FAILED=1; }
[ "$(value stats_mismatches "$C")" = 0 ] || { echo "FAIL: book_stats differs from the reviews"; FAILED=1; }
[ "$(value audit_mismatch "$C")" = 0 ] || { echo "FAIL: audit entries missing"; FAILED=1; }
# As many as Migrations.swift registers, each once.
EXPECTED_MIGRATIONS="$(grep -c 'migrator.registerMigration("' Sources/BookshelfService/Migrations.swift)"
[ "$(value migration_rows "$C")" = "$EXPECTED_MIGRATIONS" ] && [ "$(value migration_names "$C")" = "$EXPECTED_MIGRATIONS" ] \
    || { echo "FAIL: migrations (expected $EXPECTED_MIGRATIONS, each once)"; FAILED=1; }
[ "$STATUS_A" = 0 ] && [ "$STATUS_B" = 0 ] || { echo "FAIL: a process did not exit cleanly"; FAILED=1; }
if [ "$FAILED" = 0 ]; then echo "PASS"; fi
exit "$FAILED"
