# smcp-browse — build, test and run.
# `make demo` runs the browser on the embedded demo, `make unit` the fast
# unit tests, `make test` every test.

GO          ?= go
BIN         := bin/smcp-browse
NODE_DIR    := test/node
NODE_STAMP  := $(NODE_DIR)/node_modules/.stamp
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHSTAT   := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
FUZZTIME    ?= 10s
# Minimizing each new interesting input takes up to a minute by default;
# readers of large formats find one at nearly every run and would do
# nothing else.
FUZZMINTIME ?= 1s
FUZZPKGS    ?= ./...
# Fuzz targets run this many at a time, sharing the cores.
FUZZJOBS    ?= 2
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: all build test test-deps unit bench benchstat fuzz lint demo e2e interop node-deps redis-deps cluster soak clean

all: build

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/smcp-browse

# npm peers used by the wire and conformance tests (real third-party clients).
node-deps: $(NODE_STAMP)

$(NODE_STAMP): $(NODE_DIR)/package.json $(wildcard $(NODE_DIR)/package-lock.json)
	@command -v node >/dev/null || { echo "node is required for the wire tests (install Node.js >= 20)"; exit 1; }
	cd $(NODE_DIR) && if npm ls --depth=0 >/dev/null 2>&1; then echo "npm test peers already installed"; \
	  elif [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
	touch $@

# redis-server for the cluster tests (scripts/sysdeps.sh: apt-get as root,
# else it stops with the command to run).
redis-deps:
	scripts/sysdeps.sh redis

# The race detector's runtime sleeps a second at every exit of a race-built
# program (GORACE atexit_sleep_ms, default 1000) so that goroutines still
# running may report races. The tests run many such programs (each test
# binary, and the smcp-browse they start for every ls, cat, Computer and
# document server), and wait for most of them to exit. Races are still
# reported as they happen (exit status 66). A GORACE of your own is kept
# and comes last.
RACE_ENV    := GORACE="atexit_sleep_ms=0 $(GORACE)"

# Every test with the race detector and, side by side (its tests mostly
# wait on the processes they start), the size tests without it: the few
# that feed hostile-size input (testutil.SizeTests) and skip under the
# detector, which slows them tenfold and inflates their memory figures.
# test-deps comes first: a machine without the system tools stops within
# seconds, not after minutes of tests. Every tool is required here (a
# missing one fails the test that needs it, never skips it).
test: test-deps node-deps
	SMCP_REQUIRE_NODE=1 SMCP_REQUIRE_TOOLS=1 SMCP_REQUIRE_REDIS=1 GO=$(GO) scripts/gotest.sh

# The system tools and files the tests compare against (scripts/sysdeps.sh
# test: installed with apt-get as root, else the command to run), and the
# PDF engine compiled into its on-disk cache once, before the test
# processes that start serve-docs.
test-deps:
	GO=$(GO) scripts/test-deps.sh
	$(GO) run ./cmd/warmpdf

# The scale-out tests alone, Redis required: nodes in one process (the
# single-node suite run across nodes) and as real processes (kill -9, Redis
# restarted, Redis down).
cluster: redis-deps
	SMCP_REQUIRE_REDIS=1 $(RACE_ENV) $(GO) test -race -count=1 ./server/... ./test/cluster/

# 1,000 agents and 1,000 computers over 3 nodes on loopback for 60 s
# (SOAK_PAIRS, SOAK_SECONDS); prints requests/s, p50/p99, lost and mismatched
# answers and each node's memory. Not part of make test.
SOAK_PAIRS   ?= 1000
SOAK_SECONDS ?= 60
soak: redis-deps
	SMCP_REQUIRE_REDIS=1 SMCP_SOAK=1 SMCP_SOAK_PAIRS=$(SOAK_PAIRS) SMCP_SOAK_SECONDS=$(SOAK_SECONDS) \
	  $(GO) test -count=1 -timeout 30m -run '^TestSoak$$' -v ./test/cluster/

# The packages' own tests, fast: nothing installed, no race detector,
# -short (the long runs skip), results cached between runs; the
# whole-system tests under test/ are left to make test. A test whose tool,
# npm peer or Redis is missing skips, saying how to get it.
unit:
	$(GO) test -short $$($(GO) list ./... | grep -v '/test/')

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Compare two bench outputs: make benchstat OLD=old.txt NEW=new.txt
benchstat:
	$(GO) run $(BENCHSTAT) $(OLD) $(NEW)

# Short, bounded runs of every fuzz target, FUZZJOBS at a time
# (scripts/fuzz.sh). A fuzz target whose package does not build fails. Go 1.26's fuzz coordinator can end a duration run
# with a bare "context deadline exceeded" and no failing input
# (golang/go#75804, fixed in Go 1.27); that case alone is reported and
# ignored, anything else (a written failing input) fails.
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINTIME=$(FUZZMINTIME) FUZZJOBS=$(FUZZJOBS) scripts/fuzz.sh $(FUZZPKGS)

lint:
	@files=$$(git ls-files --cached --others --exclude-standard '*.go' | while read -r f; do [ -f "$$f" ] && echo "$$f"; done); \
	out=$$(gofmt -l $$files); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@# The command builds for the other systems users run it on (the tests are Linux's).
	GOOS=windows $(GO) build -o /dev/null ./cmd/smcp-browse
	GOOS=darwin $(GO) build -o /dev/null ./cmd/smcp-browse

demo: build
	./$(BIN) --demo

e2e: build
	scripts/e2e.sh

# The official A2C-SMCP Python SDK (pinned in interop/requirements.txt, installed
# into .venv) as Agent, Server and Computer against ours; see docs/interop.md.
interop: build
	scripts/interop.sh

clean:
	rm -rf bin
