#!/usr/bin/env bash
# Every screen of the app as PNGs (`make screens`): builds the UI and the binary, serves them in
# development on a fresh database and data directory (scripts/lib/server.sh, which seeds the demo
# accounts and plans), and renders each page of the route table signed out, as the demo investor
# and as the demo admin, on a phone (375×812) and a desktop (1440×900), with scripts/screens.mjs.
# The PNGs and an index.html contact sheet go to a folder outside the repository, printed at the
# end. For looking at the screens, not a test (docs/design-system.md, "Looking at every screen").
#
#   SCREENS_DIR        where the screens go (default ${TMPDIR:-/tmp}/clearvest-screens; emptied of
#                      earlier PNGs first)
#   CHROMIUM_PATH      browser (default /usr/bin/chromium); nothing is downloaded
#   TEST_DATABASE_URL  PostgreSQL server to create the database on; unset: the embedded test cluster
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cleanups=()
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
trap run_cleanups EXIT
trap 'exit 130' INT TERM

out=${SCREENS_DIR:-${TMPDIR:-/tmp}/clearvest-screens}
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in
"$PWD"/*)
	echo "SCREENS_DIR must be outside the repository ($out)" >&2
	exit 2
	;;
esac
find "$out" -maxdepth 1 -name '*.png' -delete

make --no-print-directory build
use_test_database
# The sign-ins come from one address; the limits on sign-ups and sign-ins per address apply to
# what the script does as to anyone.
CLEARVEST_TRUSTED_PROXIES=127.0.0.1/32 start_server screens
echo "serving $base_url"

E2E_BASE_URL="$base_url" E2E_MAIL_DIR="$server_data/mail" SCREENS_LOGINS="$server_data/demo-logins.txt" \
	SCREENS_DIR="$out" CHROMIUM_PATH=${CHROMIUM_PATH:-/usr/bin/chromium} node scripts/screens.mjs
echo "$out"
