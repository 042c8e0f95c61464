#!/usr/bin/env bash
# Installs the chain tests' tools into scripts/chain/node_modules with `npm ci`, unless they already
# match package-lock.json and the running Node.js: anvil, a local Ethereum node, and solc-js, which
# compiles the test token (platform/chain/ethereum/anviltest).
#
# anvil's binary comes in an optional package for this platform. When npm skipped it (an
# unsupported optional dependency, or install scripts turned off), anvil's own install script
# fetches it instead; the tests refuse to run without it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/chain"

sha256() {
	if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

# The binary the tests start, as the Go harness looks for it.
anvil_binary() {
	local os arch
	case $(uname -s) in Linux) os=linux ;; Darwin) os=darwin ;; *) os=unknown ;; esac
	case $(uname -m) in x86_64 | amd64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=unknown ;; esac
	local platform=node_modules/@foundry-rs/anvil-$os-$arch/bin/anvil
	if [[ -x $platform ]]; then
		echo "$platform"
	elif [[ -x node_modules/@foundry-rs/anvil/anvil ]]; then
		echo node_modules/@foundry-rs/anvil/anvil
	fi
}

stamp=node_modules/.clearvest-lock-stamp
want="node $(node --version) lock $(sha256 package-lock.json)"
if [[ -f $stamp && "$(<"$stamp")" == "$want" && -n "$(anvil_binary)" ]]; then
	echo "chain: node_modules match package-lock.json; skipping npm ci"
	exit 0
fi
npm ci --no-audit --no-fund
if [[ -z "$(anvil_binary)" ]]; then
	(cd node_modules/@foundry-rs/anvil && TARGET_TOOL=anvil node ./postinstall.mjs)
fi
bin=$(anvil_binary)
if [[ -z $bin ]]; then
	echo "chain: no anvil binary for $(uname -s)/$(uname -m) after npm ci" >&2
	exit 1
fi
"$bin" --version | head -n1
# Written only after a complete install; npm ci removes node_modules (and the stamp) first.
printf '%s\n' "$want" >"$stamp"
