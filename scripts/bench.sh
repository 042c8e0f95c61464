#!/usr/bin/env bash
# Runs every Go benchmark once with allocation counts. Benchmarks that need PostgreSQL read
# TEST_DATABASE_URL, as the tests do.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
go test -run '^$' -bench . -benchmem ./...
