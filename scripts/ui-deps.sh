#!/usr/bin/env bash
# Installs ui/node_modules with `npm ci` unless they already match package-lock.json and the
# running Node.js: npm ci deletes and refetches everything, which costs a minute on every run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../ui"

sha256() {
	if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

stamp=node_modules/.clearvest-lock-stamp
want="node $(node --version) lock $(sha256 package-lock.json)"
if [[ -f $stamp && "$(<"$stamp")" == "$want" ]]; then
	echo "ui: node_modules match package-lock.json; skipping npm ci"
	exit 0
fi
npm ci --no-audit --no-fund
# Written only after a complete install; npm ci removes node_modules (and the stamp) first.
printf '%s\n' "$want" >"$stamp"
