#!/usr/bin/env bash
# The benchmarks of docs/benchmarks.md (`make bench`): the PostgreSQL benchmarks of the command
# path, the event store and the projections, each beside its raw-SQL baseline, repeated for
# benchstat; then an HTTP load test of the built binary with wrk from a second process on
# loopback. Takes about seven minutes on 2 cores; run it on an otherwise idle machine and
# PostgreSQL server, since anything else running there is measured too.
#
#   TEST_DATABASE_URL  PostgreSQL server (a fresh database per benchmark); unset: the embedded
#                      test cluster in .testdata/pg, as scripts/test.sh does
#   BENCH              benchmark regexp (default: the benchmarks of docs/benchmarks.md)
#   COUNT              runs of each benchmark (default 6, the fewest benchstat trusts)
#   OUT                results directory (default .testdata/bench/<time>)
#   WRK_DURATION       length of each HTTP load run (default 15s); 0 skips the HTTP load test
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

bench=${BENCH:-'^Benchmark(Command|AppendBatch10|ReadAll|Rebuild|LiveCatchUp)$'}
count=${COUNT:-6}
out=${OUT:-$root/.testdata/bench/$(date -u +%Y%m%dT%H%M%SZ)}
wrk_duration=${WRK_DURATION:-15s}
benchstat=(go run golang.org/x/perf/cmd/benchstat@latest)
mkdir -p "$out"

cleanups=()
on_exit() {
	local i
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
		eval "${cleanups[i]}" || true
	done
}
trap on_exit EXIT
trap 'exit 130' INT TERM

# free_port prints a loopback port nothing listens on.
free_port() {
	local port _
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	echo "bench.sh: no free port found" >&2
	return 1
}

# stop_server asks the server to shut down gracefully, and insists after 10 s.
stop_server() {
	kill -TERM "$1" 2>/dev/null || return 0
	local _
	for _ in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
}

if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	pgdir=$root/.testdata/pg
	go run ./cmd/clearvest postgres start --data-dir "$pgdir" >/dev/null
	cleanups+=("go run ./cmd/clearvest postgres stop --data-dir '$pgdir'")
	TEST_DATABASE_URL=$(go run ./cmd/clearvest postgres url --data-dir "$pgdir")
	export TEST_DATABASE_URL
fi

{
	echo "# $(go version)"
	echo "# cpus: $(nproc), $(awk '/MemTotal/ {printf "%.0f GiB RAM", $2 / 1048576}' /proc/meminfo)"
	echo "# postgres: $(go run ./scripts/createdb -version "$TEST_DATABASE_URL" 2>/dev/null || echo unknown)"
} >"$out/machine.txt"

echo "==> go benchmarks (count $count) into $out/bench.txt"
# -p 1: packages one after another, or they would measure each other.
go test -p 1 -run '^$' -bench "$bench" -benchmem -count "$count" -timeout 30m \
	./command ./eventstore/postgres ./projections | tee "$out/bench.txt"

echo
echo "==> benchstat"
"${benchstat[@]}" "$out/bench.txt" | tee "$out/benchstat.txt"
echo
echo "==> clearvest against its raw-SQL baselines (benchstat -col /impl)"
"${benchstat[@]}" -col '/impl@(raw-sql clearvest raw-read)' -filter '.unit:(cmds/s OR events/s OR p99-ms)' "$out/bench.txt" |
	tee "$out/ratios.txt"

if [[ $wrk_duration == 0 ]]; then
	exit 0
fi
echo
echo "==> HTTP load (wrk, $wrk_duration per endpoint, 2 threads, 50 connections)"
if ! command -v wrk >/dev/null; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq wrk >/dev/null
	else
		echo "wrk is needed for the HTTP load test and was not found. Install it (Debian/Ubuntu:" >&2
		echo "'sudo apt-get install wrk'), or set WRK_DURATION=0 to skip this part." >&2
		exit 1
	fi
fi
go build -o bin/clearvest ./cmd/clearvest
db="clearvest_bench_$$_${RANDOM}"
db_url=$(go run ./scripts/createdb -name "$db" "$TEST_DATABASE_URL")
cleanups+=("go run ./scripts/createdb -drop -name '$db' \"\$TEST_DATABASE_URL\"")
data=$(mktemp -d)
cleanups+=("rm -rf '$data'")
port=$(free_port)
base_url="http://127.0.0.1:$port"
CLEARVEST_ENV=development CLEARVEST_DATA_DIR=$data CLEARVEST_ADDR="127.0.0.1:$port" \
	CLEARVEST_PUBLIC_URL=$base_url DATABASE_URL=$db_url \
	bin/clearvest serve >"$data/serve.log" 2>&1 &
server=$!
cleanups+=("stop_server $server")
ready=false
for _ in $(seq 1 120); do
	if ! kill -0 "$server" 2>/dev/null; then
		break
	fi
	if curl -fsS -m 2 -o /dev/null "$base_url/readyz" 2>/dev/null; then
		ready=true
		break
	fi
	sleep 0.5
done
if [[ $ready != true ]]; then
	echo "the server did not become ready at $base_url/readyz; its log:" >&2
	tail -n 50 "$data/serve.log" >&2
	exit 1
fi
for path in /api/meta /healthz; do
	echo "--- GET $path"
	wrk -t2 -c50 -d"$wrk_duration" --latency "$base_url$path" | tee -a "$out/wrk.txt"
done
echo
echo "bench.sh: results in $out"
