#!/usr/bin/env bash
# load.sh: a load check of the Bookshelf service. Builds it in release mode,
# starts it on 127.0.0.1 (a free port) with a fresh database, seeds data, runs
# wrk with scripts/mixed.lua (80% GETs, 20% unique POSTs) for $DURATION
# seconds, stops the service with SIGTERM, then checks in the database that
# every acknowledged write (every 201) is there.
#
#   Examples/Bookshelf/scripts/load.sh              # 30 s
#   DURATION=10 THREADS=2 CONNECTIONS=16 Examples/Bookshelf/scripts/load.sh
#
# Exits non-zero on any non-2xx response, socket error, lost write, or an
# unclean service exit. Traffic goes to 127.0.0.1 only.
set -euo pipefail

DURATION="${DURATION:-30}"
THREADS="${THREADS:-2}"
CONNECTIONS="${CONNECTIONS:-16}"
SEED_AUTHORS=10
SEED_BOOKS=100
SEED_REVIEWS=200

cd "$(dirname "$0")/.."
PACKAGE_DIR="$(pwd)"

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
need sqlite3 sqlite3
need curl curl

echo "== building (release)"
swift build -c release --product bookshelf
BIN="$(swift build -c release --show-bin-path)/bookshelf"

WORK="$(mktemp -d /tmp/bookshelf-load.XXXXXX)"
DB="$WORK/load.sqlite"
SERVICE_PID=""
cleanup() {
    if [ -n "$SERVICE_PID" ] && kill -0 "$SERVICE_PID" 2>/dev/null; then kill -KILL "$SERVICE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
    else
        local port
        for port in $(seq 18080 18180); do
            if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
        done
        echo "no free port found" >&2; exit 1
    fi
}
PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT"

echo "== starting the service on $BASE, database $DB"
"$BIN" --database "$DB" --hostname 127.0.0.1 --port "$PORT" --log-level warning >"$WORK/service.log" 2>&1 &
SERVICE_PID=$!
for _ in $(seq 1 150); do
    if curl -fsS "$BASE/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$SERVICE_PID" 2>/dev/null; then echo "the service exited:"; cat "$WORK/service.log"; exit 1; fi
    sleep 0.2
done
curl -fsS "$BASE/health" >/dev/null

echo "== seeding $SEED_AUTHORS authors, $SEED_BOOKS books, $SEED_REVIEWS reviews"
post() { curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -d "$2" "$BASE$1"; }
for a in $(seq 1 "$SEED_AUTHORS"); do post /authors "{\"name\": \"Author $a\"}"; done
for b in $(seq 1 "$SEED_BOOKS"); do
    post /books "{\"author_id\": $(( (b - 1) % SEED_AUTHORS + 1 )), \"title\": \"Book $b\", \"isbn\": \"seed-$b\", \"published\": $(( 1950 + b % 70 )), \"price_cents\": $(( 500 + b * 7 ))}"
done
for r in $(seq 1 "$SEED_REVIEWS"); do
    post /reviews "{\"book_id\": $(( (r * 37) % SEED_BOOKS + 1 )), \"reviewer\": \"seed-$r\", \"rating\": $(( r % 5 + 1 ))}"
done

echo "== wrk: ${DURATION}s, $THREADS threads, $CONNECTIONS connections"
BOOKSHELF_LOAD_DIR="$WORK" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 10s --latency \
    -s "$PACKAGE_DIR/scripts/mixed.lua" "$BASE" -- "$SEED_AUTHORS" "$SEED_BOOKS" | tee "$WORK/wrk.txt"

echo "== stopping the service (SIGTERM)"
STOP_START=$(date +%s%N)
kill -TERM "$SERVICE_PID"
SERVICE_STATUS=0
wait "$SERVICE_PID" || SERVICE_STATUS=$?
SERVICE_PID=""
STOP_MS=$(( ($(date +%s%N) - STOP_START) / 1000000 ))
echo "service exit status: $SERVICE_STATUS (stopped in ${STOP_MS} ms)"
if grep -qiE "error|critical" "$WORK/service.log"; then echo "service log:"; cat "$WORK/service.log"; fi

echo "== checking every acknowledged write"
cat "$WORK"/acked-*.csv > "$WORK/acked.csv" 2>/dev/null || : > "$WORK/acked.csv"
CHECK="$(sqlite3 -batch ':memory:' <<SQL
CREATE TABLE acked(kind TEXT NOT NULL, tag TEXT NOT NULL);
.import --csv $WORK/acked.csv acked
ATTACH '$DB' AS s;
SELECT 'acked_books=' || count(*) FROM acked WHERE kind = 'book';
SELECT 'acked_reviews=' || count(*) FROM acked WHERE kind = 'review';
SELECT 'acked_distinct=' || count(DISTINCT kind || tag) FROM acked;
SELECT 'missing_books=' || count(*) FROM acked WHERE kind = 'book' AND tag NOT IN (SELECT isbn FROM s.book);
SELECT 'missing_reviews=' || count(*) FROM acked WHERE kind = 'review' AND tag NOT IN (SELECT reviewer FROM s.review);
SELECT 'stored_books=' || count(*) FROM s.book WHERE isbn LIKE 'wrk-%';
SELECT 'stored_reviews=' || count(*) FROM s.review WHERE reviewer LIKE 'wrk-%';
SELECT 'integrity=' || (SELECT integrity_check FROM s.pragma_integrity_check);
SQL
)"
echo "$CHECK"
value() { grep "^$1=" "$2" | head -1 | cut -d= -f2; }
echo "$CHECK" > "$WORK/check.txt"
S="$WORK/summary.txt"
ACKED=$(( $(value acked_books "$WORK/check.txt") + $(value acked_reviews "$WORK/check.txt") ))
MISSING=$(( $(value missing_books "$WORK/check.txt") + $(value missing_reviews "$WORK/check.txt") ))

echo
echo "== Bookshelf load check ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
echo "duration:            $(value seconds "$S") s, $THREADS threads, $CONNECTIONS connections"
echo "requests:            $(value requests "$S") ($(value rps "$S") requests/s)"
echo "latency:             p50 $(value p50_ms "$S") ms, p90 $(value p90_ms "$S") ms, p99 $(value p99_ms "$S") ms, max $(value max_ms "$S") ms"
echo "non-2xx responses:   $(value non2xx "$S")"
echo "socket errors:       $(value socket_errors "$S")"
echo "acknowledged writes: $ACKED (2xx POSTs counted by wrk: $(value posts_acked "$S"))"
STORED=$(( $(value stored_books "$WORK/check.txt") + $(value stored_reviews "$WORK/check.txt") ))
echo "lost writes:         $MISSING (rows written by wrk: $STORED; $(( STORED - ACKED )) committed but unacknowledged, in flight when wrk stopped)"
echo "integrity check:     $(value integrity "$WORK/check.txt")"
echo "service exit:        $SERVICE_STATUS, ${STOP_MS} ms after SIGTERM"

FAILED=0
[ "$(value non2xx "$S")" = 0 ] || { echo "FAIL: non-2xx responses"; FAILED=1; }
[ "$(value socket_errors "$S")" = 0 ] || { echo "FAIL: socket errors"; FAILED=1; }
[ "$MISSING" = 0 ] || { echo "FAIL: lost writes"; FAILED=1; }
[ "$ACKED" = "$(value posts_acked "$S")" ] || { echo "FAIL: acknowledged writes not all recorded"; FAILED=1; }
[ "$ACKED" = "$(value acked_distinct "$WORK/check.txt")" ] || { echo "FAIL: duplicate write tags"; FAILED=1; }
[ "$(value integrity "$WORK/check.txt")" = ok ] || { echo "FAIL: integrity check"; FAILED=1; }
[ "$SERVICE_STATUS" = 0 ] || { echo "FAIL: the service did not exit cleanly"; FAILED=1; }
if [ "$FAILED" = 0 ]; then echo "PASS"; fi
exit "$FAILED"
