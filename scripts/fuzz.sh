#!/usr/bin/env bash
# Runs every fuzz target of the given packages for FUZZTIME each, FUZZJOBS
# targets at a time (each with FUZZJOBS-th of the cores), and exits non-zero
# when one finds a failing input. Targets are found in the test files'
# source (`func FuzzX(`), so no test binary is built just to list them.
#
#   FUZZTIME=5s FUZZJOBS=2 scripts/fuzz.sh ./...
#
# A target that stops with "context deadline exceeded" and wrote no failing
# input hit the Go fuzz coordinator's deadline race (golang/go#75804): that
# is reported and ignored; anything else that fails fails the run.
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
FUZZMINTIME=${FUZZMINTIME:-1s}
jobs=${FUZZJOBS:-2}
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
workers=$(( cores / jobs )); (( workers >= 1 )) || workers=1

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# One line per target: "importpath dir FuzzName".
$GO list -f '{{.ImportPath}} {{.Dir}}' "${@:-./...}" | while read -r pkg dir; do
  { grep -ho '^func Fuzz[A-Za-z0-9_]*(' "$dir"/*_test.go 2>/dev/null || true; } |
    sed 's/^func //; s/($//' | while read -r f; do echo "$pkg $dir $f"; done
done > "$tmp/targets"
[ -s "$tmp/targets" ] || { echo "fuzz: no fuzz targets in ${*:-./...}" >&2; exit 1; }

# run PKG DIR TARGET: one target; its output is printed whole when it ends.
run() {
  local pkg=$1 dir=$2 f=$3 out rc=0 before after
  out=$(mktemp "$tmp/out.XXXXXX")
  before=$(ls "$dir/testdata/fuzz/$f" 2>/dev/null | wc -l)
  $GO test -run '^$' -fuzz "^$f\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINTIME" \
    -parallel "$workers" "$pkg" >"$out" 2>&1 || rc=$?
  { echo "== $pkg $f"; cat "$out"; } | sed 's/^/  /; 1s/^  //'
  if [ "$rc" != 0 ]; then
    after=$(ls "$dir/testdata/fuzz/$f" 2>/dev/null | wc -l)
    if [ "$after" = "$before" ] && grep -q 'context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
      echo "fuzz: $f hit the Go fuzz coordinator's deadline race (golang/go#75804), no failing input; ignored"
    else
      echo "fuzz: FAIL $pkg $f"
      return 1
    fi
  fi
}
export -f run
export GO FUZZTIME FUZZMINTIME workers tmp

n=$(wc -l < "$tmp/targets")
echo "fuzz: $n targets, $FUZZTIME each, $jobs at a time"
xargs -P "$jobs" -L 1 bash -c 'run "$@"' _ < "$tmp/targets"
