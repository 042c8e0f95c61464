#!/usr/bin/env bash
# The KYC upload benchmark of docs/benchmarks.md: the server's peak memory while investors
# upload identity documents all at once (POST /api/users/uploadKycDocuments, a front and a back
# of 10 MB each), and the upload throughput beside a plain file copy of the same bytes on the
# same disk. The uploads come from a second process on loopback (scripts/kycload).
#
# Each round runs on a fresh database and data directory: the investors are registered, then
# the server is restarted, so that the idle measurement is not inflated by the memory the
# password hashing of the registrations left in the process (argon2id, 19 MiB per hash), which
# the uploads would then reuse unseen. The table gives every round and the medians.
# scripts/bench.sh runs it; it also runs alone, in about a minute.
#
#   TEST_DATABASE_URL  PostgreSQL server (a fresh database per round); unset: the embedded test
#                      cluster in .testdata/pg, as scripts/test.sh does
#   KYC_ROUNDS         rounds (default 3)
#   KYC_INVESTORS      investors uploading at once (default 10)
#   KYC_SIZE           bytes per document (default 10000000; the limit is 10485760)
#   KYC_FLAGS          more flags for kycload upload, e.g. -idempotency-key
#   OUT                results directory (default .testdata/bench/kyc-<time>)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

rounds=${KYC_ROUNDS:-3}
investors=${KYC_INVESTORS:-10}
size=${KYC_SIZE:-10000000}
out=${OUT:-$root/.testdata/bench/kyc-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

use_test_database

echo "==> KYC uploads: building bin/clearvest and scripts/kycload"
go build -o bin/clearvest ./cmd/clearvest
go build -o "$out/kycload" ./scripts/kycload

results=$out/results.jsonl
: >"$results"
for round in $(seq "$rounds"); do
	echo "--- round $round of $rounds: $investors investors, 2 documents of $size bytes each; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	start_server "kyc$round"
	"$out/kycload" register -url "$base_url" -n "$investors" >"$out/tokens-$round"
	stop_server "$server_pid"
	cp "$server_data/serve.log" "$out/register-$round.log"
	serve_on "$server_db_url" "$server_data" "$server_data/serve.log"
	cleanups+=("cp '$server_data/serve.log' '$out/serve-$round.log'")
	# shellcheck disable=SC2086 # KYC_FLAGS is a list of flags
	"$out/kycload" upload -url "$base_url" -pid "$server_pid" -tokens "$out/tokens-$round" \
		-copy-dir "$server_data/copy-baseline" -size "$size" ${KYC_FLAGS:-} | tee -a "$results"
	du -sb "$server_data/blobs" | awk '{printf "stored: %d bytes\n", $1}'
	stop_server "$server_pid"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
"$out/kycload" report "$results" | tee "$out/kyc.md"
echo "bench-kyc.sh: results in $out"
