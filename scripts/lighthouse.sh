#!/usr/bin/env bash
# Lighthouse on the public site (`make lighthouse`): builds the UI and the binary, serves them on a
# fresh database and data directory (scripts/lib/server.sh), and runs Lighthouse's mobile profile
# (simulated throttling: a mid-range phone on slow 4G) against the home page and the plans page (or
# the pages in LIGHTHOUSE_PAGES) with Debian's Chromium. Prints performance, LCP, CLS and TBT of
# each run and their median per page. A benchmark, not a test: it never fails on a score. Results
# are recorded in docs/benchmarks.md ("Public site").
#
#   LIGHTHOUSE_RUNS    runs per page (default 3)
#   LIGHTHOUSE_PAGES   paths to measure, space-separated (default "/ /investment-plans")
#   CHROME_PATH        browser (default CHROMIUM_PATH, else /usr/bin/chromium); nothing is downloaded
#   TEST_DATABASE_URL  PostgreSQL server to create the database on; unset: the embedded test cluster
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

runs=${LIGHTHOUSE_RUNS:-3}
read -r -a paths <<<"${LIGHTHOUSE_PAGES:-/ /investment-plans}"
export CHROME_PATH=${CHROME_PATH:-${CHROMIUM_PATH:-/usr/bin/chromium}}
out=test-output/lighthouse
mkdir -p "$out"

# Lighthouse has its own small dependency tree, apart from the UI's.
lh=scripts/lighthouse
stamp=$lh/node_modules/.clearvest-lock-stamp
want="node $(node --version) lock $(sha256sum "$lh/package-lock.json" | cut -d' ' -f1)"
if [[ ! -f $stamp || "$(<"$stamp")" != "$want" ]]; then
	(cd "$lh" && npm ci --no-audit --no-fund)
	printf '%s\n' "$want" >"$stamp"
fi

make --no-print-directory build
use_test_database
start_server lighthouse
echo "serving $base_url; $("$CHROME_PATH" --version 2>/dev/null || echo "$CHROME_PATH")"

reports=()
for path in "${paths[@]}"; do
	for i in $(seq 1 "$runs"); do
		report="$out/$(echo "${path#/}" | tr -c 'A-Za-z0-9-\n' '_' | sed 's/^$/home/')-$i.json"
		"$lh/node_modules/.bin/lighthouse" "$base_url$path" \
			--only-categories=performance \
			--chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync" \
			--output=json --output-path="$report" --quiet
		reports+=("$report")
	done
done
node "$lh/summary.mjs" "${reports[@]}"
