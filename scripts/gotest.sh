#!/usr/bin/env bash
# Runs every test with the race detector and, side by side, the size tests
# without it (testutil.SizeTests: hostile-size input, bounds on memory and
# work, in the packages that list some). The race pass's tests mostly wait
# on the processes they start, so the size pass uses cores it leaves idle.
# The size pass's output is printed whole after the race pass's; the run
# fails when either does.
#
#   GO=go scripts/gotest.sh [go test flags...]
set -uo pipefail
GO=${GO:-go}

# -vet=off: go test would type-check every package again for its vet
# checks; make lint (CI's first step) runs
# the whole of go vet. -p 4: many test binaries mostly wait on the
# processes they start, so two cores run four packages' builds and tests.
flags=(-count=1 -vet=off -p 4)

size_pkgs=$(grep -rl --include='*_test.go' 'testutil.NewSizeTests' . | xargs -r -n1 dirname | sort -u | sed 's|$|/|')
out=$(mktemp); trap 'rm -f "$out"' EXIT

size_rc=0
if [ -n "$size_pkgs" ]; then
  # shellcheck disable=SC2086 # one argument per package
  SMCP_SIZE_TESTS=1 $GO test "${flags[@]}" "$@" $size_pkgs >"$out" 2>&1 &
  size_pid=$!
fi
race_rc=0
GORACE="atexit_sleep_ms=0 ${GORACE:-}" $GO test -race "${flags[@]}" "$@" ./... || race_rc=$?
if [ -n "$size_pkgs" ]; then
  wait "$size_pid" || size_rc=$?
  echo "== size tests, without the race detector: $(echo $size_pkgs)"
  cat "$out"
fi
[ "$race_rc" = 0 ] && [ "$size_rc" = 0 ]
