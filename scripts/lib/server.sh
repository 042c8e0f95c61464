# shellcheck shell=bash
# Shared by scripts/test.sh and scripts/bench.sh, which source it: starting a throwaway server
# for browser tests and load tests. The caller keeps a `cleanups` array and runs it on exit, so
# a failed or interrupted run leaves no server, database or data directory behind.

# run_cleanups runs the caller's cleanups in reverse order; callers trap it on EXIT.
run_cleanups() {
	local i
	for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
		eval "${cleanups[i]}" || true
	done
}

# use_test_database exports TEST_DATABASE_URL: the caller's, or else the embedded test cluster
# of make test (.testdata/pg), started now and stopped by the cleanups.
# require_psql stops the script when the PostgreSQL client is missing.
require_psql() {
	if ! command -v psql >/dev/null; then
		echo "psql is needed (Debian/Ubuntu: apt-get install postgresql-client)" >&2
		exit 1
	fi
}

use_test_database() {
	if [[ -n ${TEST_DATABASE_URL:-} ]]; then
		return 0
	fi
	local pgdir=$PWD/.testdata/pg
	go run ./cmd/clearvest postgres start --data-dir "$pgdir" >/dev/null
	cleanups+=("go run ./cmd/clearvest postgres stop --data-dir '$pgdir'")
	TEST_DATABASE_URL=$(go run ./cmd/clearvest postgres url --data-dir "$pgdir")
	export TEST_DATABASE_URL
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
	echo "no free port found" >&2
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

# serve_on DATABASE_URL DATA_DIR LOG runs `serve` in development mode (the binary in
# $clearvest_bin, default bin/clearvest) on that database and data directory, on a free loopback
# port, logging to LOG, and waits until /readyz answers (up to 60 s: the first start migrates
# and seeds the demo data). It sets base_url and server_pid; the stop is added to cleanups.
serve_on() {
	local port pid ready=false _
	port=$(free_port)
	base_url="http://127.0.0.1:$port"
	CLEARVEST_ENV=development CLEARVEST_DATA_DIR=$2 CLEARVEST_ADDR="127.0.0.1:$port" \
		CLEARVEST_PUBLIC_URL=$base_url DATABASE_URL=$1 \
		"${clearvest_bin:-bin/clearvest}" serve >"$3" 2>&1 &
	pid=$!
	server_pid=$pid
	cleanups+=("stop_server $pid")
	for _ in $(seq 1 120); do
		if ! kill -0 "$pid" 2>/dev/null; then
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
		tail -n 50 "$3" >&2
		return 1
	fi
}

# start_server NAME runs serve (serve_on) on a fresh database of TEST_DATABASE_URL and a fresh
# data directory (the database's name starts with DB_PREFIX, default clearvest). It sets
# base_url, server_pid, server_data and server_db_url, and exports E2E_DATABASE_URL (the same
# database), so that a browser test can run a command line tool against the server it tests.
start_server() {
	local db="${DB_PREFIX:-clearvest}_$1_$$_${RANDOM}" db_url
	db_url=$(go run ./scripts/createdb -name "$db" "$TEST_DATABASE_URL")
	server_db_url=$db_url
	export E2E_DATABASE_URL=$db_url
	cleanups+=("go run ./scripts/createdb -drop -name '$db' \"\$TEST_DATABASE_URL\"")
	server_data=$(mktemp -d)
	cleanups+=("rm -rf '$server_data'")
	serve_on "$db_url" "$server_data" "$server_data/serve.log"
}
