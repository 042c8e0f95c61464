# Two commands matter: `make run` (build everything and serve on http://localhost:8080 with an
# embedded PostgreSQL) and `make test` (everything CI checks). The rest are their parts.

GO ?= go
BIN := bin/clearvest

.PHONY: run build ui ui-deps generate check-generated test mutants bench bench-readpath bench-money bench-verify bench-kyc bench-scale bench-maturity lighthouse screens clean

# Development is chosen explicitly, on this machine only: serve refuses development tools (the
# mailbox, the test clock, demo data) on an address others can reach. Either can be overridden.
run: build
	CLEARVEST_ENV=$${CLEARVEST_ENV:-development} CLEARVEST_ADDR=$${CLEARVEST_ADDR:-127.0.0.1:8080} exec ./$(BIN) serve

# The UI is built first because the binary embeds ui/dist.
build: ui
	$(GO) build -o $(BIN) ./cmd/clearvest

ui: ui-deps
	cd ui && npm run build

# npm ci only when package-lock.json (or Node.js) changed since the last install.
ui-deps:
	scripts/ui-deps.sh

generate: ui-deps
	$(GO) generate ./...
	cd ui && npm run generate

check-generated: ui-deps
	scripts/check-generated.sh

test:
	scripts/test.sh

# Only the mutation check (part of make test): TestMoneyProperties must fail on each deliberately
# broken money rule in scripts/mutants/; about half a minute of CPU.
mutants:
	scripts/mutants.sh

bench:
	scripts/bench.sh

# Only the signed-in read benchmark (part of make bench): one table, about 5 minutes.
bench-readpath:
	scripts/bench-readpath.sh

# Only the money commands over HTTP (part of make bench): 10 signed-in clients sending deposit
# requests to the binary, beside a bare handler, with projection lag; about a minute.
bench-money:
	scripts/bench-money.sh

# Only the log audit (part of make bench): clearvest events verify on a million money events,
# beside an export and a raw COPY of the same log; about five minutes.
bench-verify:
	scripts/bench-verify.sh

# What the platform costs as the event log grows (not part of make bench): at each of SCALE_POINTS
# log sizes (default 100k, 1M, 10M events), the rebuild, verify, the maturity job, the dashboard
# and history reads, and a command on a long account, each beside a baseline; CSV, tables and
# SVG graphs in OUT (docs/benchmarks.md, "Cost as history grows"). Hours at ten million events.
bench-scale:
	scripts/bench-scale.sh

# The maturity job alone (not part of make bench): investments settled per second by one serve
# and by two on one database, on copies of one generated log (MATURITY_BASE_BIN: a baseline build
# taking turns); every due investment checked paid exactly once; a few minutes.
bench-maturity:
	scripts/bench-maturity.sh

# Only the KYC upload benchmark (part of make bench): peak memory and throughput of 10 investors
# uploading 10 MB documents at once, beside a file copy of the same bytes; about a minute.
bench-kyc:
	scripts/bench-kyc.sh

# Lighthouse's mobile profile on the home and plans pages of a freshly built server (or the pages
# in LIGHTHOUSE_PAGES): performance, LCP, CLS and TBT of three runs each and their median
# (docs/public-site.md). A benchmark; about three minutes.
lighthouse:
	scripts/lighthouse.sh

# Every screen, signed out, as the demo investor and as the demo admin, on a phone and a desktop:
# full-page PNGs and an index.html contact sheet in SCREENS_DIR (default
# $${TMPDIR:-/tmp}/clearvest-screens), outside the repository (docs/design-system.md). Not a test;
# a few minutes.
screens:
	scripts/screens.sh

# Removes build output and the test cluster (stopped first). ./data, the development
# database, is left alone: delete it yourself to start from an empty demo.
clean:
	if [ -d .testdata/pg/postgres ]; then $(GO) run ./cmd/clearvest postgres stop --data-dir .testdata/pg; fi
	rm -rf bin .testdata
	find ui/dist -mindepth 1 ! -name .gitkeep -exec rm -rf {} +
