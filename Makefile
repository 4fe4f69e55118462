# smcp-browse — build, test and run.
# `make demo` runs the browser on the embedded demo; `make test` runs every test.

GO          ?= go
BIN         := bin/smcp-browse
NODE_DIR    := test/node
NODE_STAMP  := $(NODE_DIR)/node_modules/.stamp
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHSTAT   := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
FUZZTIME    ?= 10s
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: all build test unit bench benchstat fuzz lint demo e2e interop node-deps clean

all: build

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/smcp-browse

# npm peers used by the wire and conformance tests (real third-party clients).
node-deps: $(NODE_STAMP)

$(NODE_STAMP): $(NODE_DIR)/package.json $(wildcard $(NODE_DIR)/package-lock.json)
	@command -v node >/dev/null || { echo "node is required for the wire tests (install Node.js >= 20)"; exit 1; }
	cd $(NODE_DIR) && if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
	touch $@

# Every test, with the race detector; the npm peers must be present.
test: node-deps
	SMCP_REQUIRE_NODE=1 $(GO) test -race -count=1 ./...

# Go tests only, no npm peers (tests that need them skip).
unit:
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Compare two bench outputs: make benchstat OLD=old.txt NEW=new.txt
benchstat:
	$(GO) run $(BENCHSTAT) $(OLD) $(NEW)

# Short, bounded runs of every fuzz target.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

demo: build
	./$(BIN) --demo

e2e: build
	scripts/e2e.sh

interop: build
	scripts/interop.sh

clean:
	rm -rf bin
