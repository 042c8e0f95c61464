#!/usr/bin/env bash
# The log audit benchmark of docs/benchmarks.md: how long `clearvest events verify` takes, and
# how much memory it needs, on a log of VERIFY_EVENTS money events. It writes the log into a
# fresh database with scripts/cmdbench/moneylog (realistic investor histories from the account
# aggregate's commands, appended through the event store), builds the read models the way an
# operator would (clearvest projections rebuild --all), then times, in one hyperfine run:
#   - clearvest events verify (decodes every event, checks versions and positions, replays the
#     ledger: postings, trial balance, no negative account, figures against the read model);
#   - clearvest events export --all > /dev/null (the same read of the log, JSON out, no checks);
#   - psql COPY of the events table to /dev/null (the raw read: PostgreSQL alone);
# and measures verify's peak resident memory with /usr/bin/time.
#
#   TEST_DATABASE_URL  PostgreSQL server; unset: the embedded test cluster in .testdata/pg
#   VERIFY_EVENTS      events to write (default 1000000)
#   VERIFY_USERS       investors (default 10000)
#   VERIFY_RUNS        hyperfine runs of each command (default 3)
#   DB_PREFIX          name prefix of the database created (default clearvest)
#   OUT                results directory (default .testdata/bench/verify-<time>)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

events=${VERIFY_EVENTS:-1000000}
users=${VERIFY_USERS:-10000}
runs=${VERIFY_RUNS:-3}
out=${OUT:-$root/.testdata/bench/verify-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

use_test_database
for tool in hyperfine psql; do
	if ! command -v "$tool" >/dev/null; then
		echo "$tool is needed (Debian/Ubuntu: apt-get install $tool, or postgresql-client for psql)" >&2
		exit 1
	fi
done

echo "==> log audit: building bin/clearvest and scripts/cmdbench/moneylog"
go build -o bin/clearvest ./cmd/clearvest
(cd scripts/cmdbench && go build -o "$out/moneylog" ./moneylog)

db="${DB_PREFIX:-clearvest}_verify_$$_${RANDOM}"
db_url=$(go run ./scripts/createdb -name "$db" "$TEST_DATABASE_URL")
cleanups+=("go run ./scripts/createdb -drop -name '$db' \"\$TEST_DATABASE_URL\"")
data=$(mktemp -d)
cleanups+=("rm -rf '$data'")
export CLEARVEST_ENV=development CLEARVEST_DATA_DIR=$data DATABASE_URL=$db_url

bin/clearvest migrate >"$out/migrate.log" 2>&1
echo "==> writing $events money events for $users investors; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/moneylog" -db "$db_url" -events "$events" -users "$users" | tee "$out/moneylog.txt"
echo "==> building the read models (clearvest projections rebuild --all)"
/usr/bin/time -f 'rebuild: %e s wall, %M KB peak RSS' bin/clearvest projections rebuild --all 2>&1 |
	grep -v '^{' | tee "$out/rebuild.txt"
psql "$db_url" -XAtc "SELECT 'log: ' || count(*) || ' events, ' || count(DISTINCT stream_id) || ' streams, ' ||
	pg_size_pretty(pg_total_relation_size('events')) || ' on disk' FROM events" | tee "$out/log.txt"

echo "==> timing (hyperfine, $runs runs each); load average $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine --runs "$runs" --warmup 1 --export-markdown "$out/verify.md" \
	-n 'clearvest events verify' 'bin/clearvest events verify >/dev/null 2>&1' \
	-n 'clearvest events export --all' 'bin/clearvest events export --all >/dev/null 2>&1' \
	-n 'psql COPY events' "psql '$db_url' -XAtc 'COPY (SELECT * FROM events ORDER BY position) TO STDOUT' >/dev/null"
echo "==> peak memory of one verify"
/usr/bin/time -f 'verify: %e s wall, %U s user, %S s system, %M KB peak RSS' bin/clearvest events verify 2>&1 |
	grep -v '^{' | tee "$out/verify-rss.txt"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
cat "$out/verify.md"
echo "bench-verify.sh: results in $out"
