#!/usr/bin/env bash
# The maturity job benchmark of docs/benchmarks.md: investments settled per second by one
# `serve` and by two on one database. It writes a log of MATURITY_EVENTS money events with
# scripts/cmdbench/moneylog (histories ending in 2025, so every investment still running is due)
# and builds its read models once, into a template database. Each run then copies the template
# (CREATE DATABASE ... TEMPLATE), starts its serve processes together and waits until nothing
# is due; settled/s is the number paid over the span from the first to the last
# `account.investment_matured`, and the run fails unless every due investment was paid exactly
# once.
#
# With MATURITY_BASE_BIN (a clearvest binary built from another commit, e.g. from a detached
# worktree of main), each round runs that build and this one in turn, one process then two, the
# two builds taking the lead in turn.
#
#   TEST_DATABASE_URL   PostgreSQL server; unset: the embedded test cluster in .testdata/pg
#   MATURITY_EVENTS     events of the log (default 300000); MATURITY_USERS investors (3000)
#   MATURITY_ROUNDS     rounds (default 2)
#   MATURITY_PROCESSES  the serve processes of each run, in turn (default "1 2")
#   MATURITY_BASE_BIN   the baseline binary (default: none, this build only)
#   MATURITY_TEMPLATE_URL  a database already holding such a log and its read models (on the
#                       server of TEST_DATABASE_URL), used instead of writing one
#   DB_PREFIX           name prefix of the databases created (default clearvest)
#   OUT                 results directory (default .testdata/bench/maturity-<time>)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

events=${MATURITY_EVENTS:-300000}
users=${MATURITY_USERS:-3000}
rounds=${MATURITY_ROUNDS:-2}
processes=${MATURITY_PROCESSES:-1 2}
out=${OUT:-$root/.testdata/bench/maturity-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

use_test_database
require_psql

echo "==> maturity: building bin/clearvest and scripts/cmdbench/moneylog"
go build -o bin/clearvest ./cmd/clearvest
(cd scripts/cmdbench && go build -o "$out/moneylog" ./moneylog)
builds=("this:$root/bin/clearvest")
if [[ -n ${MATURITY_BASE_BIN:-} ]]; then
	builds=("base:$MATURITY_BASE_BIN" "${builds[@]}")
fi

if [[ -n ${MATURITY_TEMPLATE_URL:-} ]]; then
	template_url=$MATURITY_TEMPLATE_URL
	template=$(psql "$template_url" -XAtc "SELECT current_database()")
else
	template="${DB_PREFIX:-clearvest}_maturity_$$"
	template_url=$(go run ./scripts/createdb -name "$template" "$TEST_DATABASE_URL")
	cleanups+=("go run ./scripts/createdb -drop -name '$template' \"\$TEST_DATABASE_URL\"")
	data=$(mktemp -d)
	cleanups+=("rm -rf '$data'")
	DATABASE_URL=$template_url bin/clearvest migrate >"$out/migrate.log" 2>&1
	echo "==> writing $events money events for $users investors"
	"$out/moneylog" -db "$template_url" -events "$events" -users "$users" | tail -n 1
	echo "==> building the read models (clearvest projections rebuild --all)"
	DATABASE_URL=$template_url CLEARVEST_DATA_DIR=$data CLEARVEST_ENV=development \
		bin/clearvest projections rebuild --all >"$out/rebuild.log" 2>&1
fi
read -r logged due accounts < <(psql "$template_url" -XAtc "SELECT (SELECT count(*) FROM events), count(*), count(DISTINCT user_id)
	FROM rm_investments.investments WHERE status = 'Active' AND end_at <= now()" | tr '|' ' ')
echo "==> $logged events, $due investments due on $accounts accounts"

# run NAME BIN PROCS: one run on a fresh copy of the template; prints settled/s and the serve
# processes' CPU seconds. It runs in a subshell ($(run ...)), with cleanups of its own: its
# servers and its copy.
run() {
	local name=$1 bin=$2 procs=$3 db url head pids=() i port
	cleanups=()
	trap run_cleanups EXIT
	db="${DB_PREFIX:-clearvest}_maturity_run_$$_${RANDOM}"
	psql "$TEST_DATABASE_URL" -XAtqc "CREATE DATABASE $db TEMPLATE $template"
	cleanups+=("go run ./scripts/createdb -drop -name '$db' \"\$TEST_DATABASE_URL\" >/dev/null")
	url=${template_url/$template/$db}
	psql "$url" -XAtqc "CREATE TABLE bench_due AS SELECT investment_id FROM rm_investments.investments WHERE status = 'Active' AND end_at <= now()"
	head=$(psql "$url" -XAtc "SELECT coalesce(max(position), 0) FROM events")
	for ((i = 0; i < procs; i++)); do
		port=$(free_port)
		mkdir -p "$out/$name-$procs-$i"
		CLEARVEST_ENV=development CLEARVEST_DATA_DIR="$out/$name-$procs-$i" CLEARVEST_ADDR="127.0.0.1:$port" \
			CLEARVEST_PUBLIC_URL="http://127.0.0.1:$port" CLEARVEST_REQUEST_LIMITS=off DATABASE_URL=$url \
			"$bin" serve >"$out/$name-$procs-$i/serve.log" 2>&1 &
		pids+=($!)
		cleanups+=("stop_server $!")
	done
	for _ in $(seq 1 36000); do
		left=$(psql "$url" -XAtc "SELECT count(*) FROM bench_due d JOIN rm_investments.investments i USING (investment_id) WHERE i.status = 'Active'")
		[[ $left == 0 ]] && break
		sleep 0.1
	done
	# The serve processes' CPU (user + system, from their start), less sensitive than settled/s
	# to what else the machine is doing.
	cpu=0
	for pid in "${pids[@]}"; do
		cpu=$((cpu + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
		stop_server "$pid"
	done
	read -r paid span dupes unpaid < <(psql "$url" -XAtc "WITH m AS (SELECT data->>'investmentId' AS id, recorded_at FROM events
			WHERE position > $head AND type = 'account.investment_matured' AND data->>'investmentId' IN (SELECT investment_id FROM bench_due))
		SELECT count(*), coalesce(extract(epoch FROM max(recorded_at) - min(recorded_at)), 0),
			count(*) - count(DISTINCT id), (SELECT count(*) FROM bench_due WHERE investment_id NOT IN (SELECT id FROM m))
		FROM m" | tr '|' ' ')
	if [[ $paid != "$due" || $dupes != 0 || $unpaid != 0 ]]; then
		echo "maturity check failed ($name, $procs processes): paid $paid of $due due, $dupes twice, $unpaid unpaid" >&2
		exit 1
	fi
	# Not awk itself as the last command: bash would exec it in place of the subshell, whose
	# cleanups would then never run.
	line=$(awk -v n="$paid" -v s="$span" -v c="$cpu" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.0f %.1f", (s > 0 ? n / s : 0), c / hz}')
	echo "$line"
}

echo "build,processes,round,settled_per_s,serve_cpu_s,load" >"$out/results.csv"
for ((r = 1; r <= rounds; r++)); do
	# Every other round the other build goes first, so that a load rising or falling over the
	# run favours neither.
	order=("${builds[@]}")
	if ((r % 2 == 0 && ${#builds[@]} == 2)); then
		order=("${builds[1]}" "${builds[0]}")
	fi
	for b in "${order[@]}"; do
		name=${b%%:*} bin=${b#*:}
		for procs in $processes; do
			result=$(run "$name" "$bin" "$procs")
			read -r s cpu <<<"$result"
			load=$(cut -d' ' -f1 /proc/loadavg)
			echo "$name,$procs,$r,$s,$cpu,$load" >>"$out/results.csv"
			echo "round $r: $name, $procs process(es): $s settled/s, serve CPU $cpu s (every due investment paid once; load $load)"
		done
	done
done
echo "==> results in $out/results.csv"
