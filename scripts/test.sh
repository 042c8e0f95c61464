#!/usr/bin/env bash
# The whole test suite (`make test`, and CI through .ci/run): static checks, Go tests against a
# real PostgreSQL, the money property test against deliberately broken rules (scripts/mutants.sh),
# the generated-code check, the UI's type check, lint and tests, the UI build and
# its JavaScript budgets, a backup restored into a new cluster (scripts/restore-check), two
# servers behind HAProxy with one killed under load (scripts/failover-check), reads on a hot
# standby held behind and stopped (scripts/replica-check), then a browser smoke test against the
# built binary.
# Cheap failures come first. Needs Go, Node.js and npm; installs Debian's chromium and prometheus
# (for promtool) when run as root.
#
#   TEST_DATABASE_URL  PostgreSQL server for tests; unset: an embedded cluster in .testdata/pg
#   CHROMIUM_PATH      browser for the smoke test (default /usr/bin/chromium)
#   PROMTOOL           checker of the alerting rules (default: promtool on PATH)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
began=$SECONDS
current="setup"

# Cleanup actions run in reverse order on any exit, so a failed or interrupted run leaves no
# server, cluster or database behind.
cleanups=()
on_exit() {
	local status=$? i
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
		eval "${cleanups[i]}" || true
	done
	if ((status == 0)); then
		echo "test.sh: all steps passed in $((SECONDS - began))s"
	else
		echo "test.sh: FAILED during '$current' (exit $status) after $((SECONDS - began))s" >&2
	fi
}
trap on_exit EXIT
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap 'exit 130' INT TERM

step() {
	current=$1
	printf '\n==> %s (%ds)\n' "$1" "$((SECONDS - began))"
}



# go vet compiles every package, which the Go tests then reuse: about a minute on a machine
# whose build cache is cold. It runs while the tools below download and install, which mostly
# wait on the network, and its result is read at its own step.
vet_log=$(mktemp)
go vet ./... >"$vet_log" 2>&1 &
vet_pid=$!
cleanups+=("kill $vet_pid 2>/dev/null; rm -f '$vet_log'")

step "browser"
chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [[ -x $chromium ]]; then
	echo "using $chromium"
elif [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq chromium >/dev/null
	echo "installed $("$chromium" --version 2>/dev/null || echo chromium)"
else
	echo "Chromium is needed for the browser smoke test and was not found at $chromium." >&2
	echo "Install it with 'sudo apt-get install chromium' (Debian/Ubuntu), or set CHROMIUM_PATH." >&2
	exit 1
fi

step "alerting rules"
# docs/observability/alerts.yml must load in Prometheus and its alerts fire as its unit tests say
# (docs/observability.md); which metrics it names is checked by the Go tests.
promtool=${PROMTOOL:-$(command -v promtool || true)}
if [[ -z $promtool ]] && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# Only promtool is wanted: the server the package also installs is not started here.
	apt-get install -y -qq --no-install-recommends prometheus >/dev/null
	promtool=$(command -v promtool)
	echo "installed $("$promtool" --version 2>&1 | head -n 1)"
fi
if [[ -z $promtool ]]; then
	echo "promtool is needed to check docs/observability/alerts.yml and was not found." >&2
	echo "Install it with 'sudo apt-get install prometheus' (Debian/Ubuntu), or set PROMTOOL." >&2
	exit 1
fi
"$promtool" check rules docs/observability/alerts.yml
"$promtool" test rules docs/observability/alerts.test.yml

step "ui dependencies"
scripts/ui-deps.sh

step "chain tools"
# anvil and solc-js, for the Go tests against a local Ethereum node.
scripts/chain-deps.sh

step "go vet"
vet_status=0
wait "$vet_pid" || vet_status=$?
cat "$vet_log"
if ((vet_status != 0)); then
	exit "$vet_status"
fi

if [[ -z ${TEST_DATABASE_URL:-} ]]; then
	step "embedded PostgreSQL for tests"
	pgdir=$root/.testdata/pg
	go run ./cmd/clearvest postgres start --data-dir "$pgdir" >/dev/null
	cleanups+=("go run ./cmd/clearvest postgres stop --data-dir '$pgdir'")
	TEST_DATABASE_URL=$(go run ./cmd/clearvest postgres url --data-dir "$pgdir")
	export TEST_DATABASE_URL
else
	echo "using TEST_DATABASE_URL from the environment"
fi

step "go test"
go test -race -count=1 -timeout 12m ./...

step "money mutants"
scripts/mutants.sh

step "generated code"
make --no-print-directory check-generated

step "ui typecheck, lint and tests"
(cd ui && npm run --silent typecheck && npm run --silent lint && npm test)

step "build"
# The type check already ran above; bundle only.
(cd ui && npm run --silent bundle)

step "ui budgets"
# The scripts each page needs, gzipped, against the budgets (docs/public-site.md); prints the table.
(cd ui && npm run --silent check-budgets)

go build -o bin/clearvest ./cmd/clearvest

step "backup and restore"
scripts/restore-check

step "two servers behind HAProxy, one killed"
if ! command -v haproxy >/dev/null; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq haproxy >/dev/null
	else
		echo "HAProxy is needed for the load-balancer test; install it with 'sudo apt-get install haproxy'." >&2
		exit 1
	fi
fi
scripts/failover-check

step "read replica: a hot standby serves reads, held behind and stopped"
scripts/replica-check

step "browser smoke test"
# The server runs as it would behind a reverse proxy on this host, so a test can sign up investors
# from several client addresses (X-Forwarded-For) without the suite as a whole running into the
# per-address limit on registrations.
CLEARVEST_TRUSTED_PROXIES=127.0.0.1/32 start_server e2e
# The identity flows read the real e-mails the server writes, and the demo admin it seeded.
# The money story moves the server's test clock a month on, which ends every session made
# before, so it runs alone, after the others; so does the settings test, which changes the
# withdrawal fee for everyone while it runs.
e2e_env=(E2E_BASE_URL="$base_url" E2E_MAIL_DIR="$server_data/mail" CHROMIUM_PATH="$chromium")
e2e_files=()
for f in e2e/*.test.mjs; do
	[[ $f == e2e/money-story.test.mjs || $f == e2e/settings.test.mjs ]] || e2e_files+=("$f")
done
env "${e2e_env[@]}" node --test "${e2e_files[@]}"
env "${e2e_env[@]}" node --test e2e/settings.test.mjs
env "${e2e_env[@]}" node --test e2e/money-story.test.mjs

step "browser: deposits credited from the chain"
# A second server watching a local Ethereum node (anvil) that mines only when the test says so:
# the investor's own address, a token transfer to it, its confirmations and its credit, live.
# The account key is the public test key of docs/chain.md ("abandon … about"), never a real one.
source scripts/lib/chain.sh
start_anvil "$server_data/anvil.log"
chain_token=$(node e2e/chain/node.mjs deploy "$anvil_url")
CLEARVEST_CHAIN_ETH_RPC_URL=$anvil_url CLEARVEST_CHAIN_ETH_TOKEN=$chain_token CLEARVEST_CHAIN_ETH_CONFIRMATIONS=3 \
	CLEARVEST_CHAIN_ETH_XPUB=xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt \
	CLEARVEST_TRUSTED_PROXIES=127.0.0.1/32 start_server chain
env E2E_BASE_URL="$base_url" E2E_MAIL_DIR="$server_data/mail" CHROMIUM_PATH="$chromium" \
	E2E_ANVIL_URL="$anvil_url" E2E_CHAIN_TOKEN="$chain_token" node --test e2e/chain/*.test.mjs
