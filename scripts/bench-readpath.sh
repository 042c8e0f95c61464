#!/usr/bin/env bash
# The signed-in read benchmark of docs/benchmarks.md: GET /api/users/getUser with a bearer token
# against the real binary (bin/clearvest serve on a fresh database) and against a bare chi + pgx
# handler running the same SQL (the user's row joined to their figures from the books;
# scripts/bareuser), driven by an open-loop load
# generator in a second process on loopback (scripts/loadgen), at fixed request rates. It prints
# one table: p50/p99/p99.9 and errors per target and rate, CPU per request of each server and
# of its PostgreSQL backends, and the targets (docs/benchmarks.md). scripts/bench.sh runs it after the command comparison;
# it also runs alone, in about (rates x targets x rounds x (duration + warm-up)).
#
#   TEST_DATABASE_URL  PostgreSQL server (a fresh database is created and dropped); unset: the
#                      embedded test cluster in .testdata/pg, as scripts/test.sh does
#   READPATH_RATES     request rates per second (default 1000,2000)
#   READPATH_DURATION  length of each measured run (default 20s)
#   READPATH_ROUNDS    measurements of each target at each rate, alternating (default 3)
#   OUT                results directory (default .testdata/bench/readpath-<time>)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

rates=${READPATH_RATES:-1000,2000}
duration=${READPATH_DURATION:-20s}
rounds=${READPATH_ROUNDS:-3}
out=${OUT:-$root/.testdata/bench/readpath-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

use_test_database

echo "==> signed-in read: building bin/clearvest, scripts/loadgen and scripts/bareuser"
go build -o bin/clearvest ./cmd/clearvest
go build -o "$out/loadgen" ./scripts/loadgen
go build -o "$out/bareuser" ./scripts/bareuser

start_server readpath
# Kept with the results (cleanups run last to first: this one before the server's data goes).
cleanups+=("cp '$server_data/serve.log' '$out/serve.log'")
# The user has money history (three confirmed deposits), so the read joins real figures.
creds=$("$out/loadgen" register -url "$base_url" -deposits 3 -admin-file "$server_data/demo-logins.txt")
read -r token user_id <<<"$creds"

bare_port=$(free_port)
bare_url="http://127.0.0.1:$bare_port"
"$out/bareuser" -addr "127.0.0.1:$bare_port" -user "$user_id" "$server_db_url" >"$out/bareuser.log" 2>&1 &
bare_pid=$!
cleanups+=("stop_server $bare_pid")
# Ready once it serves the row, which also means the read model has the new user (up to a
# minute: another session's long transaction on the server holds projections back).
ready=false
for _ in $(seq 1 600); do
	if curl -fsS -m 2 -o /dev/null "$bare_url/api/users/getUser" 2>/dev/null; then
		ready=true
		break
	fi
	sleep 0.1
done
if [[ $ready != true ]]; then
	echo "the bare handler did not serve the user's row; its log:" >&2
	cat "$out/bareuser.log" >&2
	exit 1
fi

echo "==> open-loop GET /api/users/getUser: rates $rates, $duration per run, $rounds rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$out/loadgen" run -token "$token" -db "$server_db_url" -rates "$rates" -duration "$duration" -rounds "$rounds" \
	-target "clearvest=$base_url/api/users/getUser,pid=$server_pid,app=clearvest" \
	-target "bare=$bare_url/api/users/getUser,pid=$bare_pid,app=bareuser" | tee "$out/readpath.md"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-readpath.sh: results in $out"
