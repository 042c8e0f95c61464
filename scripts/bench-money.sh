#!/usr/bin/env bash
# The money commands over HTTP benchmark of docs/benchmarks.md: MONEY_WRITERS signed-in users
# (verified e-mail), each a closed-loop client with its own Idempotency-Keys, sending a money
# command (MONEY_COMMAND, default create-deposit: POST /api/payments/create) to the real binary
# (bin/clearvest serve on a fresh database), beside, in the same run of scripts/cmdbench: a bare
# chi + pgx handler INSERTing the same body as one row (scripts/bareuser -append, bare-http), the
# command path in process (clearvest: command.Execute, no HTTP) and the bare INSERT (raw-sql).
# While the http impl runs, cmdbench measures projection lag: from each command's answer until
# every projection's checkpoint has passed the position the server reported.
#
# The server runs with CLEARVEST_REQUEST_LIMITS=off: its ten clients send thousands of deposit
# requests a second from one address, each left waiting for staff, which the per-user and
# per-address request limits and the open deposit quota (docs/security.md, "Rate limits and
# quotas") would refuse after a few dozen. The command path measured is the same; the limits'
# own cost (two counter upserts per limited request) is not in these figures.
#
#   TEST_DATABASE_URL  PostgreSQL server; unset: the embedded test cluster in .testdata/pg
#   MONEY_DURATION     length of each run (default 10s)
#   MONEY_RATES        open-loop rates after the closed loop, e.g. 1000,2000,3000 (default: none)
#   MONEY_WRITERS      clients (default 10)
#   MONEY_COMMAND      the money command (scripts/cmdbench/http.go, moneyCommands; default create-deposit)
#   MONEY_IMPLS        cmdbench impls (default http,bare-http,clearvest,raw-sql)
#   DB_PREFIX          names of the databases created (default clearvest; cmdbench's: cmdbench)
#   OUT                results directory (default .testdata/bench/money-<time>)
#   MONEY_PROFILE      1: also take an 8-second CPU profile of the server during the http run
#                      (from its private metrics listener), saved as server.cpu beside the results;
#                      read it with `go tool pprof -top bin/clearvest <out>/server.cpu`; and the
#                      server's metrics at the end, saved as metrics.txt
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

duration=${MONEY_DURATION:-10s}
rates=${MONEY_RATES:-}
writers=${MONEY_WRITERS:-10}
command=${MONEY_COMMAND:-create-deposit}
impls=${MONEY_IMPLS:-http,bare-http,clearvest,raw-sql}
out=${OUT:-$root/.testdata/bench/money-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

use_test_database

echo "==> money commands over HTTP: building bin/clearvest, scripts/loadgen, scripts/bareuser and scripts/cmdbench"
go build -o bin/clearvest ./cmd/clearvest
go build -o "$out/loadgen" ./scripts/loadgen
go build -o "$out/bareuser" ./scripts/bareuser
(cd scripts/cmdbench && go build -o "$out/cmdbench" .)

if [[ ${MONEY_PROFILE:-0} == 1 ]]; then
	metrics_addr="127.0.0.1:$(free_port)"
	export CLEARVEST_METRICS_ADDR=$metrics_addr
fi
CLEARVEST_REQUEST_LIMITS=off start_server money
cleanups+=("cp '$server_data/serve.log' '$out/serve.log'")
"$out/loadgen" register -url "$base_url" -n "$writers" -verify >"$out/tokens"

bare_port=$(free_port)
bare_url="http://127.0.0.1:$bare_port"
"$out/bareuser" -addr "127.0.0.1:$bare_port" -append "$server_db_url" >"$out/bareuser.log" 2>&1 &
bare_pid=$!
cleanups+=("stop_server $bare_pid")
ready=false
for _ in $(seq 1 100); do
	if curl -fsS -m 2 -o /dev/null -H 'Content-Type: application/json' -d '{}' "$bare_url/bare/append" 2>/dev/null; then
		ready=true
		break
	fi
	sleep 0.1
done
if [[ $ready != true ]]; then
	echo "the bare handler did not start; its log:" >&2
	cat "$out/bareuser.log" >&2
	exit 1
fi

echo "==> $command, $writers clients, $duration per run; load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n ${metrics_addr:-} ]]; then
	# The http impl runs first: profile 8 seconds of it, starting once the clients are going.
	(sleep 1 && curl -fsS -o "$out/server.cpu" "http://$metrics_addr/debug/pprof/profile?seconds=8") &
fi
"$out/cmdbench" -db "$TEST_DATABASE_URL" -impls "$impls" -writers "$writers" -duration "$duration" -rates "$rates" \
	-http "$base_url" -http-pid "$server_pid" -http-db "$server_db_url" -tokens "$out/tokens" -command "$command" \
	-bare "$bare_url" -bare-pid "$bare_pid" | tee "$out/money.md"
if [[ -n ${metrics_addr:-} ]]; then
	curl -fsS -o "$out/metrics.txt" "http://$metrics_addr/metrics" || true
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-money.sh: results in $out"
