#!/usr/bin/env bash
# The history-growth benchmark of docs/benchmarks.md ("Cost as history grows"): what the
# platform's operations cost as the event log grows, at each of SCALE_POINTS log sizes, each
# figure beside a baseline measured in the same run (the smallest point, a fresh database, or a
# new account on the same server). At each point, on a fresh database:
#   1. scripts/cmdbench/moneylog writes the log: one investor per 100 events, each history made
#      of the account aggregate's own commands and appended through the event store, as the
#      command path writes them;
#   2. clearvest projections rebuild --all: events/s of each read model;
#   3. clearvest events verify under /usr/bin/time -v: wall time and peak resident memory;
#   4. the database's size, and the events table's (pg_database_size, pg_total_relation_size);
#   5. the maturity job: every investment still running in the log has ended (the histories end
#      in 2025), so the first serve settles all of them at once; settled/s is the count over the
#      span between the first and the last InvestmentMatured event, and the run checks each due
#      investment was paid exactly once and nothing is left due (a CPU profile of the server is
#      taken during it);
#   6. a signed-in investor with three confirmed deposits: GET /api/invest/dashboard and
#      /api/invest/getTransactionHistory open loop at SCALE_RATE req/s (scripts/loadgen), beside
#      the same investor's reads on a server with a fresh database, alternating;
#   7. a deposit request (POST /api/payments/create) on an account whose stream moneylog grew to
#      SCALE_HEAVY_EVENTS events, beside a new account's on the same server: cold (the first
#      command after a restart, SCALE_RESTARTS restarts; the long account loads from the
#      snapshot an unmeasured first command saved) and warm (SCALE_COMMANDS one after another,
#      p99, after one unmeasured command on each account).
# Results: OUT/results.csv (events,graph,series,value,unit), OUT/results.md, per-point logs and
# profiles, and the graphs OUT/svg/*.svg (scripts/scalebench plot).
#
#   TEST_DATABASE_URL   PostgreSQL server; unset: the embedded test cluster in .testdata/pg
#   SCALE_POINTS        log sizes in events (default "100000 1000000 10000000")
#   SCALE_PER_INVESTOR  events per investor (default 100: 100,000 investors at ten million)
#   SCALE_RATE          request rate of the dashboard and history reads (default 1000)
#   SCALE_DURATION      length of each measured read run (default 10s)
#   SCALE_ROUNDS        read runs of each target, alternating (default 2)
#   SCALE_HEAVY_EVENTS  events of the long account (default 10000)
#   SCALE_COMMANDS      warm commands per account (default 200)
#   SCALE_RESTARTS      cold commands per account, one per server restart (default 3)
#   SCALE_KEEP          1: keep each point's database and data directory (for profiles afterwards;
#                       remove them yourself)
#   DB_PREFIX           name prefix of the databases created (default clearvest)
#   OUT                 results directory (default .testdata/bench/scale-<time>)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

points=${SCALE_POINTS:-100000 1000000 10000000}
per_investor=${SCALE_PER_INVESTOR:-100}
rate=${SCALE_RATE:-1000}
duration=${SCALE_DURATION:-10s}
rounds=${SCALE_ROUNDS:-2}
heavy_events=${SCALE_HEAVY_EVENTS:-10000}
commands=${SCALE_COMMANDS:-200}
restarts=${SCALE_RESTARTS:-3}
out=${OUT:-$root/.testdata/bench/scale-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

use_test_database
require_psql

echo "==> history growth: building bin/clearvest, moneylog, loadgen and scalebench"
go build -o bin/clearvest ./cmd/clearvest
(cd scripts/cmdbench && go build -o "$out/moneylog" ./moneylog)
go build -o "$out/loadgen" ./scripts/loadgen
go build -o "$out/scalebench" ./scripts/scalebench

csv=$out/results.csv
echo "events,graph,series,value,unit" >"$csv"
# row EVENTS GRAPH SERIES VALUE UNIT
row() { echo "$1,$2,$3,$4,$5" >>"$csv"; }
log() { echo "==> $*; load average $(cut -d' ' -f1-3 /proc/loadavg)"; }

# The baseline of the reads: one server on a fresh database, up for the whole run; at each point
# an investor with three confirmed deposits signs up there.
start_server fresh
fresh_url=$base_url
fresh_pid=$server_pid
fresh_data=$server_data
cleanups+=("cp '$server_data/serve.log' '$out/fresh-serve.log'")

# p99s FILE: the p99s (ms) of the grown log's server and of the fresh one, from loadgen's
# comparison table ("| rate | scale | p99 | fresh p99 | ratio | …").
p99s() { awk -F'|' '$3 ~ /^ *scale *$/ && $4 ~ /ms/ {gsub(/ ms| /, "", $4); gsub(/ ms| /, "", $5); print $4, $5; exit}' "$1"; }

for events in $points; do
	investors=$((events / per_investor))
	pdir=$out/$events
	mkdir -p "$pdir"
	db="${DB_PREFIX:-clearvest}_scale_${events}_$$"
	db_url=$(go run ./scripts/createdb -name "$db" "$TEST_DATABASE_URL")
	if [[ ${SCALE_KEEP:-0} != 1 ]]; then
		cleanups+=("go run ./scripts/createdb -drop -name '$db' \"\$TEST_DATABASE_URL\"")
	fi
	data=$(mktemp -d)
	if [[ ${SCALE_KEEP:-0} != 1 ]]; then
		cleanups+=("rm -rf '$data'")
	fi
	q() { psql "$db_url" -XAtqc "$1"; }

	DATABASE_URL=$db_url bin/clearvest migrate >"$pdir/migrate.log" 2>&1
	log "$events events: writing the log ($investors investors)"
	"$out/moneylog" -db "$db_url" -events "$events" -users "$investors" | tee "$pdir/moneylog.txt"
	actual=$(q "SELECT count(*) FROM events")
	row "$events" write moneylog "$(grep -o '([0-9]* events/s)' "$pdir/moneylog.txt" | tr -dc 0-9)" events/s

	log "$events events: clearvest projections rebuild --all"
	DATABASE_URL=$db_url CLEARVEST_DATA_DIR=$data CLEARVEST_ENV=development \
		/usr/bin/time -f 'rebuild --all: %e s wall, %U s user, %M KB peak RSS' bin/clearvest projections rebuild --all \
		>"$pdir/rebuild.txt" 2>"$pdir/rebuild.err" || { cat "$pdir/rebuild.err" >&2; exit 1; }
	grep -v '^{' "$pdir/rebuild.err" >>"$pdir/rebuild.txt" || true
	cat "$pdir/rebuild.txt"
	sed -n 's/^\([^:]*\): rebuilt from [0-9]* events in .* (\([0-9]*\) events\/s).*/\1 \2/p' "$pdir/rebuild.txt" |
		while read -r name eps; do row "$events" rebuild "$name" "$eps" events/s; done
	row "$events" rebuild-total wall "$(sed -n 's/^rebuild --all: \([0-9.]*\) s wall.*/\1/p' "$pdir/rebuild.txt")" s

	log "$events events: clearvest events verify"
	DATABASE_URL=$db_url CLEARVEST_DATA_DIR=$data CLEARVEST_ENV=development \
		/usr/bin/time -v bin/clearvest events verify >"$pdir/verify.txt" 2>"$pdir/verify.time" || {
		cat "$pdir/verify.txt" "$pdir/verify.time" >&2
		exit 1
	}
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,t,":"); s=0; for(i=1;i<=n;i++) s=s*60+t[i]; print s}' "$pdir/verify.time")
	rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2/1024}' "$pdir/verify.time")
	echo "verify: $wall s wall, $rss MB peak RSS: $(tail -n 1 "$pdir/verify.txt")"
	row "$events" verify "events verify" "$wall" s
	row "$events" verify-memory "events verify" "$rss" MB

	q "ANALYZE events"
	dbsize=$(q "SELECT pg_database_size(current_database())")
	evsize=$(q "SELECT pg_total_relation_size('events')")
	echo "size: database $((dbsize / 1048576)) MB, events $((evsize / 1048576)) MB, $actual events, $investors investors" |
		tee "$pdir/size.txt"
	row "$events" size database $((dbsize / 1048576)) MB
	row "$events" size "events table" $((evsize / 1048576)) MB
	row "$events" size-per "database per event" $((dbsize / actual)) bytes
	row "$events" size-per "events table per event" $((evsize / actual)) bytes
	row "$events" size-per "database per investor" $((dbsize / investors)) bytes
	echo "$events,size-per-million,database,$((dbsize * 1000000 / actual / 1048576)),MB" >>"$pdir/extra.csv"

	# The maturity job: the first serve settles every investment whose term has ended.
	q "CREATE TABLE bench_due AS SELECT investment_id FROM rm_investments.investments WHERE status = 'Active' AND end_at <= now()"
	due=$(q "SELECT count(*) FROM bench_due")
	head=$(q "SELECT coalesce(max(position), 0) FROM events")
	log "$events events: the maturity job settling $due due investments"
	metrics_addr="127.0.0.1:$(free_port)"
	export CLEARVEST_METRICS_ADDR=$metrics_addr
	CLEARVEST_REQUEST_LIMITS=off serve_on "$db_url" "$data" "$pdir/serve-maturity.log"
	pid=$server_pid
	(curl -fsS -o "$pdir/maturity.cpu" "http://$metrics_addr/debug/pprof/profile?seconds=10" 2>/dev/null || true) &
	profiler=$!
	for _ in $(seq 1 36000); do
		left=$(q "SELECT count(*) FROM bench_due d JOIN rm_investments.investments i USING (investment_id) WHERE i.status = 'Active'")
		[[ $left == 0 ]] && break
		sleep 0.1
	done
	wait "$profiler" || true
	read -r paid span dupes unpaid < <(q "WITH m AS (SELECT data->>'investmentId' AS id, recorded_at FROM events
			WHERE position > $head AND type = 'account.investment_matured' AND data->>'investmentId' IN (SELECT investment_id FROM bench_due))
		SELECT count(*), coalesce(extract(epoch FROM max(recorded_at) - min(recorded_at)), 0),
			count(*) - count(DISTINCT id), (SELECT count(*) FROM bench_due WHERE investment_id NOT IN (SELECT id FROM m))
		FROM m" | tr '|' ' ')
	settled_s=$(awk -v n="$paid" -v s="$span" 'BEGIN {printf "%.0f", (s > 0 ? n / s : 0)}')
	check="paid $paid of $due due, $dupes paid twice, $unpaid unpaid"
	echo "maturity: $paid settled in $span s ($settled_s settled/s); $check" | tee "$pdir/maturity.txt"
	if [[ $paid != "$due" || $dupes != 0 || $unpaid != 0 ]]; then
		echo "maturity check failed: $check" >&2
		exit 1
	fi
	row "$events" maturity "settled/s" "$settled_s" settled/s
	echo "$events,maturity-count,due,$due,investments" >>"$pdir/extra.csv"

	# The readers and the two accounts of the command comparison, signed up through the API.
	read -r token _ < <("$out/loadgen" register -url "$base_url" -deposits 3 -admin-file "$data/demo-logins.txt")
	read -r heavy_token heavy_id < <("$out/loadgen" register -url "$base_url" -verify)
	read -r new_token _ < <("$out/loadgen" register -url "$base_url" -verify)
	stop_server "$pid"

	log "$events events: growing one account to $heavy_events events"
	"$out/moneylog" -db "$db_url" -user "$heavy_id" -events "$heavy_events" | tee -a "$pdir/moneylog.txt"
	# One unmeasured start: the live read models catch up with the long account's events.
	serve_on "$db_url" "$data" "$pdir/serve-catchup.log"
	head=$(q "SELECT max(position) FROM events")
	for _ in $(seq 1 6000); do
		[[ $(q "SELECT count(*) FROM projection_checkpoints WHERE position < $head") == 0 ]] && break
		sleep 0.1
	done
	# moneylog appended the long account's events straight to the log, so it has no snapshot
	# yet; the account's own commands would have left one. One command saves it.
	# The snapshot is written after the command has answered, in the background.
	"$out/scalebench" command -url "$base_url" -token "$heavy_token" -n 1 >/dev/null
	snap=""
	for _ in $(seq 1 100); do
		snap=$(q "SELECT version FROM snapshots WHERE stream_id = 'account-$heavy_id'")
		[[ -n $snap ]] && break
		sleep 0.1
	done
	[[ -n $snap ]] || { log "the long account has no snapshot 10 s after a command"; exit 1; }
	echo "the long account's snapshot is at version $snap" | tee -a "$pdir/moneylog.txt"
	stop_server "$server_pid"

	log "$events events: cold commands ($restarts restarts)"
	: >"$pdir/cold.txt"
	for r in $(seq 1 "$restarts"); do
		CLEARVEST_REQUEST_LIMITS=off serve_on "$db_url" "$data" "$pdir/serve-cold-$r.log"
		# The first command after a start pays for the process's cold caches too: alternate
		# which account goes first.
		if ((r % 2)); then order="heavy new"; else order="new heavy"; fi
		for who in $order; do
			tok=$heavy_token
			[[ $who == new ]] && tok=$new_token
			echo "$who $("$out/scalebench" command -url "$base_url" -token "$tok" -n 1 | cut -d' ' -f1)" >>"$pdir/cold.txt"
		done
		stop_server "$server_pid"
	done
	cat "$pdir/cold.txt"
	for who in heavy new; do
		row "$events" command "$who account cold (max of $restarts)" "$(awk -v w=$who '$1 == w && $2 > m {m = $2} END {print m}' "$pdir/cold.txt")" ms
	done

	CLEARVEST_REQUEST_LIMITS=off serve_on "$db_url" "$data" "$pdir/serve.log"
	pid=$server_pid
	log "$events events: warm commands ($commands each)"
	# One command on each account first, unmeasured: the account's load, and the new server's
	# first connections and statements, are the cold figures' part, not the warm ones'.
	for tok in "$heavy_token" "$new_token"; do
		"$out/scalebench" command -url "$base_url" -token "$tok" -n 1 >/dev/null
	done
	for who in heavy new; do
		tok=$heavy_token
		[[ $who == new ]] && tok=$new_token
		if [[ $who == heavy ]]; then
			# Where the long account's commands spend their time: a CPU profile of the server.
			(curl -fsS -o "$pdir/command-heavy.cpu" "http://$metrics_addr/debug/pprof/profile?seconds=5" 2>/dev/null || true) &
		fi
		read -r first p50 p99 max < <("$out/scalebench" command -url "$base_url" -token "$tok" -n "$commands")
		echo "$who warm: p50 $p50 ms, p99 $p99 ms, max $max ms" | tee -a "$pdir/warm.txt"
		row "$events" command "$who account warm p99" "$p99" ms
	done

	log "$events events: dashboard and history at $rate req/s"
	# A new investor on the fresh server for each point: a sign-in's token expires within the
	# hour a point can take.
	read -r fresh_token _ < <("$out/loadgen" register -url "$fresh_url" -deposits 3 -admin-file "$fresh_data/demo-logins.txt")
	for path in dashboard getTransactionHistory; do
		# Where a read's time goes: the server's CPU profile, and the statements PostgreSQL is
		# running, sampled twice a second.
		(curl -fsS -o "$pdir/$path.cpu" "http://$metrics_addr/debug/pprof/profile?seconds=8" 2>/dev/null || true) &
		(for _ in $(seq 1 16); do
			q "SELECT left(regexp_replace(query, '\s+', ' ', 'g'), 200) FROM pg_stat_activity
				WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()"
			sleep 0.5
		done | sort | uniq -c | sort -rn >"$pdir/$path-statements.txt") &
		"$out/loadgen" run -rates "$rate" -duration "$duration" -rounds "$rounds" \
			-target "scale=$base_url/api/invest/$path,pid=$pid,token=$token" \
			-target "fresh=$fresh_url/api/invest/$path,pid=$fresh_pid,token=$fresh_token" | tee "$pdir/$path.md"
		name=$path
		[[ $path == getTransactionHistory ]] && name=history
		read -r grown fresh < <(p99s "$pdir/$path.md")
		row "$events" reads "$name on the grown log" "$grown" ms
		row "$events" reads "$name on a fresh database" "$fresh" ms
	done
	stop_server "$pid"
	unset CLEARVEST_METRICS_ADDR
	# The point's database is dropped now, not at exit: ten million events take gigabytes.
	if [[ ${SCALE_KEEP:-0} == 1 ]]; then
		echo "kept: $db_url, data directory (its keys) $data" | tee "$pdir/database.txt"
	else
		go run ./scripts/createdb -drop -name "$db" "$TEST_DATABASE_URL"
	fi
done

"$out/scalebench" plot -csv "$csv" -out "$out/svg"
{
	echo "| events | graph | series | value | unit |"
	echo "|--:|---|---|--:|---|"
	tail -n +2 "$csv" | awk -F, '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}'
} >"$out/results.md"
cat "$out/results.md"
echo "bench-scale.sh: results in $out"
