#!/usr/bin/env bash
# The whole test suite (`make test`, and CI through .ci/run): static checks, Go tests against a
# real PostgreSQL, the generated-code check, the UI's own tests, then a browser smoke test
# against the built binary. Cheap failures come first. Needs Go, Node.js and npm; installs
# Debian's chromium when run as root.
#
#   TEST_DATABASE_URL  PostgreSQL server for tests; unset: an embedded cluster in .testdata/pg
#   CHROMIUM_PATH      browser for the smoke test (default /usr/bin/chromium)
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
trap 'exit 130' INT TERM

step() {
	current=$1
	printf '\n==> %s (%ds)\n' "$1" "$((SECONDS - began))"
}

# free_port prints a loopback port nothing listens on (bash's /dev/tcp: no extra tools needed).
free_port() {
	local port _
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 30000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	echo "test.sh: no free port found" >&2
	return 1
}

# stop_server asks a server to shut down gracefully, and insists after 10 s.
stop_server() {
	kill -TERM "$1" 2>/dev/null || return 0
	local _
	for _ in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
}

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

step "ui dependencies"
scripts/ui-deps.sh

step "go vet"
go vet ./...

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
go test -race -count=1 -timeout 8m ./...

step "generated code"
make --no-print-directory check-generated

step "ui typecheck and tests"
(cd ui && npm run --silent typecheck && npm test)

step "build"
(cd ui && npm run --silent build)
go build -o bin/clearvest ./cmd/clearvest

step "browser smoke test"
e2e_db="clearvest_e2e_$$_${RANDOM}"
e2e_url=$(go run ./scripts/createdb -name "$e2e_db" "$TEST_DATABASE_URL")
cleanups+=("go run ./scripts/createdb -drop -name '$e2e_db' \"\$TEST_DATABASE_URL\"")
e2e_data=$(mktemp -d)
cleanups+=("rm -rf '$e2e_data'")
port=$(free_port)
base_url="http://127.0.0.1:$port"
CLEARVEST_ENV=development CLEARVEST_DATA_DIR=$e2e_data CLEARVEST_ADDR="127.0.0.1:$port" \
	CLEARVEST_PUBLIC_URL=$base_url DATABASE_URL=$e2e_url \
	bin/clearvest serve >"$e2e_data/serve.log" 2>&1 &
server=$!
cleanups+=("stop_server $server")

# Up to 60 s: the first start migrates and seeds the demo data.
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
	tail -n 50 "$e2e_data/serve.log" >&2
	exit 1
fi
# The identity flows read the real e-mails the server writes, and the demo admin it seeded.
E2E_BASE_URL=$base_url E2E_MAIL_DIR="$e2e_data/mail" CHROMIUM_PATH=$chromium node --test e2e/
