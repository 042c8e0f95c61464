#!/usr/bin/env bash
# Mutation check of the money property test (`make mutants`, and a step of scripts/test.sh):
# each patch in scripts/mutants/ breaks one money rule on purpose (a doubled return, half-up
# rounding, the declared amount credited instead of the received one, a second referral bonus,
# staff confirming their own deposit). For each, a copy of the module with that one patch applied
# must fail TestMoneyProperties; the unpatched copy must pass it. A test that a broken rule cannot
# fail proves nothing. Prints, per mutant, the step and assertion that caught it.
#
# No database is needed: the property test is pure domain code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
test_run='^TestMoneyProperties$'
test_pkg=./domain/ledger/

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The module as it is in the working tree (committed or not), without the UI and browser tests,
# which no Go package under test needs.
git ls-files -z --cached --others --exclude-standard -- . ':!ui' ':!e2e' |
	while IFS= read -r -d '' f; do
		[[ -f $f ]] && printf '%s\0' "$f"
	done | (cd "$root" && xargs -0 cp --parents -t "$work")

run() { # dir → the test's output; its status in $status
	status=0
	(cd "$1" && go test -count=1 -run "$test_run" "$test_pkg") >"$work.out" 2>&1 || status=$?
}

echo "==> unpatched: TestMoneyProperties must pass"
run "$work"
if ((status != 0)); then
	cat "$work.out" >&2
	echo "mutants.sh: TestMoneyProperties fails without any mutant" >&2
	exit 1
fi

missed=()
for patch in scripts/mutants/*.patch; do
	name=$(basename "$patch" .patch)
	copy=$work.$name
	cp -a "$work" "$copy"
	if ! (cd "$copy" && git apply "$root/$patch"); then
		echo "mutants.sh: $patch no longer applies to the code it breaks; make it again from the current code" >&2
		exit 1
	fi
	run "$copy"
	if ((status == 0)); then
		echo "MISSED  $name: TestMoneyProperties still passes"
		missed+=("$name")
	elif ! grep -q -- '--- FAIL: TestMoneyProperties' "$work.out"; then
		cat "$work.out" >&2
		echo "mutants.sh: $name does not build or the test did not run" >&2
		rm -rf "$copy" "$work.out"
		exit 1
	else
		# The first failure: "sequence with seed N: step S: <what differed>".
		echo "caught  $name: $(grep -m1 -o 'sequence with seed.*' "$work.out")"
	fi
	rm -rf "$copy"
done
rm -f "$work.out"
if ((${#missed[@]} > 0)); then
	echo "mutants.sh: TestMoneyProperties misses ${missed[*]}" >&2
	exit 1
fi
echo "mutants.sh: every mutant was caught"
