#!/usr/bin/env bash
# Fails when generated code is stale: it regenerates everything (Go code and the UI's API
# client) and reports every file that changed or appeared. Comparing the tree before and after,
# rather than against the last commit, keeps the check meaningful in a work tree with
# uncommitted edits; in a clean CI clone it is the same as `git diff --exit-code` plus a check
# for new untracked files.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "check-generated: warning: not inside a git checkout; skipping" >&2
	exit 0
fi

# Local state changes by itself (a running test cluster writes WAL), so it is left out even
# where .gitignore does not mention it.
excludes=(':(exclude).testdata' ':(exclude)data' ':(exclude)bin' ':(exclude)ui/node_modules' ':(exclude)ui/dist')

snapshot() {
	local list
	list=$(git ls-files -z --cached --others --exclude-standard -- . "${excludes[@]}" |
		while IFS= read -r -d '' f; do if [[ -f $f ]]; then printf '%s\n' "$f"; fi; done)
	[[ -n $list ]] || return 0
	paste -d' ' <(printf '%s\n' "$list" | git hash-object --stdin-paths) <(printf '%s\n' "$list")
}

before=$(snapshot)
go generate ./...
(cd ui && npm run --silent generate)
after=$(snapshot)

if [[ "$before" != "$after" ]]; then
	echo "check-generated: generated files are out of date; run 'make generate' and commit the result:" >&2
	diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed -n 's/^[<>] [0-9a-f]* /  /p' | sort -u >&2
	exit 1
fi
echo "check-generated: generated files are up to date"
