#!/usr/bin/env bash
# The benchmarks of docs/benchmarks.md (`make bench`): the PostgreSQL benchmarks of the command
# path, the event store and the projections, each beside its raw-SQL baseline, repeated for
# benchstat; then the open-loop command comparison (scripts/cmdbench: Clearvest, the bare
# INSERT and a peer library in one run); then the signed-in read benchmark
# (scripts/bench-readpath.sh), the money commands over HTTP (scripts/bench-money.sh), the log
# audit on a million money events (scripts/bench-verify.sh), the KYC upload benchmark
# (scripts/bench-kyc.sh) and an HTTP load
# test of the built binary with wrk from a second process on loopback. Takes about fifty
# minutes on 2 cores; run it on an otherwise idle machine and PostgreSQL server, since anything
# else running there is measured too (the CPU-time metrics, go-cpu-* and pg-cpu-*, are the least
# affected by it).
#
#   TEST_DATABASE_URL  PostgreSQL server (a fresh database per benchmark); unset: the embedded
#                      test cluster in .testdata/pg, as scripts/test.sh does
#   BENCH              benchmark regexp (default: the benchmarks of docs/benchmarks.md)
#   COUNT              rounds, i.e. runs of each benchmark (default 6, the fewest benchstat trusts)
#   OUT                results directory (default .testdata/bench/<time>)
#   CMDBENCH_DURATION  length of each open-loop run (default 10s); 0 skips the comparison
#   CMDBENCH_RATES     offered rates, commands per second (default 1000,2000,3000,4000,5000,6000)
#   WRK_DURATION       length of each HTTP load run (default 15s); 0 skips the HTTP load test
#   READPATH_DURATION  length of each run of the signed-in read benchmark (scripts/bench-readpath.sh,
#                      which also reads READPATH_RATES and READPATH_ROUNDS; default 20s); 0 skips it
#   MONEY_DURATION     length of each run of the money commands over HTTP (scripts/bench-money.sh,
#                      which also reads MONEY_RATES, MONEY_WRITERS, MONEY_COMMAND; default 10s); 0 skips it
#   VERIFY_EVENTS      events in the log that `events verify` is timed on (scripts/bench-verify.sh,
#                      which also reads VERIFY_USERS and VERIFY_RUNS; default 1000000); 0 skips it
#   KYC_ROUNDS         rounds of the KYC upload benchmark (scripts/bench-kyc.sh, which also reads
#                      KYC_INVESTORS, KYC_SIZE and KYC_FLAGS; default 3); 0 skips it
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

bench=${BENCH:-'^Benchmark(Command|Append|AppendBatch10|ReadAll|Rebuild|LiveCatchUp|MoneyCommand)$'}
count=${COUNT:-6}
out=${OUT:-$root/.testdata/bench/$(date -u +%Y%m%dT%H%M%SZ)}
wrk_duration=${WRK_DURATION:-15s}
cmdbench_duration=${CMDBENCH_DURATION:-10s}
cmdbench_rates=${CMDBENCH_RATES:-1000,2000,3000,4000,5000,6000}
benchstat=(go run golang.org/x/perf/cmd/benchstat@latest)
mkdir -p "$out"

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM



# summarise prints a markdown table of the medians of bench.txt: each clearvest result beside
# its baselines, the throughput ratio, and the target where there is one (docs/benchmarks.md). CPU times
# are per operation (us) or per event (ns), of this process (go-cpu) and its database
# backends (pg-cpu).
summarise() {
	awk '/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
		for (i = 3; i < NF; i += 2) print name, $(i + 1), $i
	}' "$1" | sort -k1,1 -k2,2 -k3,3g | awk '
		{ key = $1 " " $2; n[key]++; v[key, n[key]] = $3; if (n[key] == 1) order[++k] = key }
		END { for (j = 1; j <= k; j++) { key = order[j]; c = n[key]
			print key, (c % 2) ? v[key, (c + 1) / 2] : (v[key, c / 2] + v[key, c / 2 + 1]) / 2 } }' |
	awk '
		{ split($1, p, "/impl="); row = p[1]; impl = p[2]; val[row, impl, $2] = $3
		  if (impl == "clearvest" && $2 ~ /^(cmds\/s|appends\/s|events\/s|p50-ms|p99-ms|go-cpu-.*|pg-cpu-.*)$/) { if (!((row, $2) in seen)) { seen[row, $2] = 1; rows[++k] = row SUBSEP $2 } } }
		END {
			target["Command/writers=10", "cmds/s"] = ">= 4000"; target["Command/writers=10", "p99-ms"] = "<= 10"
			target["Rebuild", "events/s"] = ">= 150000"; target["LiveCatchUp", "events/s"] = ">= 30000"
			printf "| benchmark | metric | clearvest | raw SQL | ratio | target | |\n|---|---|--:|--:|--:|---|---|\n"
			for (j = 1; j <= k; j++) {
				split(rows[j], rk, SUBSEP); row = rk[1]; unit = rk[2]; cv = val[row, "clearvest", unit]
				for (b = 1; b <= 2; b++) {
					base = (b == 1) ? "raw-sql" : "raw-read"
					if (!((row, base, unit) in val)) continue
					rv = val[row, base, unit]
					ratio = (unit ~ /\/s$/) ? sprintf("%.2f", cv / rv) : ""
					t = (b == 1) ? target[row, unit] : ""; verdict = ""
					if (t ~ /^>=/) verdict = (cv >= substr(t, 4) + 0) ? "met" : "missed"
					if (t ~ /^<=/) verdict = (cv <= substr(t, 4) + 0) ? "met" : "missed"
					f = (unit ~ /-ms$/) ? "%.2f" : "%.0f"
					printf "| %s | %s | " f " | " f " (%s) | %s | %s | %s |\n", row, unit, cv, rv, base, ratio, t, verdict
				}
			}
		}'
}

use_test_database

pg_version=unknown
if command -v psql >/dev/null; then
	pg_version=$(psql "$TEST_DATABASE_URL" -XAtc 'SHOW server_version' 2>/dev/null || echo unknown)
fi
# benchstat shows "key: value" lines as the configuration the results were measured in.
{
	echo "go: $(go env GOVERSION)"
	echo "postgres: $pg_version"
	echo "cpus: $(nproc)"
	echo "ram: $(awk '/MemTotal/ {printf "%.0fGiB", $2 / 1048576}' /proc/meminfo)"
} >"$out/bench.txt"

echo "==> go benchmarks ($count rounds) into $out/bench.txt"
# Rounds of -count 1 rather than -count "$count": -count repeats each benchmark back to back,
# so a change in the machine's load between a result and its baseline would show up in their
# ratio; rounds keep them side by side. -p 1: packages one after another, or they would
# measure each other.
for round in $(seq "$count"); do
	echo "--- round $round of $count, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	go test -p 1 -run '^$' -bench "$bench" -benchmem -count 1 -timeout 30m \
		./app/command ./eventstore/postgres ./projections ./api | tee -a "$out/bench.txt"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "==> benchstat"
(cd "$out" && "${benchstat[@]}" bench.txt) | tee "$out/benchstat.txt"
echo
echo "==> clearvest against its raw-SQL baselines (medians; ratio = clearvest / baseline)"
summarise "$out/bench.txt" | tee "$out/summary.md"

if [[ $cmdbench_duration != 0 ]]; then
	echo
	echo "==> command throughput, open loop: clearvest, the bare INSERT and the peer (scripts/cmdbench)"
	(cd scripts/cmdbench && go run . -db "$TEST_DATABASE_URL" -duration "$cmdbench_duration" -rates "$cmdbench_rates") |
		tee "$out/cmdbench.md"
fi

if [[ ${READPATH_DURATION:-20s} != 0 ]]; then
	echo
	OUT=$out/readpath scripts/bench-readpath.sh
fi

if [[ ${MONEY_DURATION:-10s} != 0 ]]; then
	echo
	OUT=$out/money scripts/bench-money.sh
fi

if [[ ${VERIFY_EVENTS:-1000000} != 0 ]]; then
	echo
	OUT=$out/verify scripts/bench-verify.sh
fi

if [[ ${KYC_ROUNDS:-3} != 0 ]]; then
	echo
	OUT=$out/kyc scripts/bench-kyc.sh
fi

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
start_server bench
for path in /api/meta /healthz; do
	echo "--- GET $path"
	wrk -t2 -c50 -d"$wrk_duration" --latency "$base_url$path" | tee -a "$out/wrk.txt"
done
echo
echo "bench.sh: results in $out"
