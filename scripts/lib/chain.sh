# shellcheck shell=bash
# Sourced after scripts/lib/server.sh: a local Ethereum node (anvil, from scripts/chain-deps.sh)
# for the chain-deposit browser test. It mines only when asked (evm_mine), so the test decides
# when a transfer gains a confirmation.

# start_anvil runs anvil on a free loopback port and waits until it answers. It sets anvil_url;
# the stop is added to cleanups.
start_anvil() {
	local bin="" candidate port pid _
	# The package npm installs for this platform, or where anvil's install script puts it.
	for candidate in scripts/chain/node_modules/@foundry-rs/anvil-*/bin/anvil scripts/chain/node_modules/@foundry-rs/anvil/anvil; do
		if [[ -x $candidate ]]; then
			bin=$candidate
			break
		fi
	done
	if [[ -z $bin ]]; then
		echo "no anvil binary; install the chain tools with scripts/chain-deps.sh" >&2
		return 1
	fi
	port=$(free_port)
	anvil_url="http://127.0.0.1:$port"
	"$bin" --host 127.0.0.1 --port "$port" --no-mining >"${1:-/dev/null}" 2>&1 &
	pid=$!
	cleanups+=("stop_server $pid")
	for _ in $(seq 1 100); do
		if curl -fsS -m 2 -o /dev/null -H 'Content-Type: application/json' \
			-d '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "$anvil_url" 2>/dev/null; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "anvil did not answer at $anvil_url" >&2
	return 1
}
