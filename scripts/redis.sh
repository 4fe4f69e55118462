#!/usr/bin/env bash
# Installs redis-server (Debian's package) for the cluster tests when it is
# missing: as root it runs apt-get; otherwise it says how and exits 0, and the
# tests that need Redis skip with a message -- unless SMCP_REQUIRE_REDIS=1
# (CI), which makes a missing redis-server an error here and in the tests.
#
#   scripts/redis.sh          (make redis-deps; make test and make cluster run it)
set -euo pipefail

if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis: redis-server missing; installing Debian's redis-server (root)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  # The package may start a system instance on 6379; the tests run their own
  # servers on free ports and need none.
  if command -v systemctl >/dev/null 2>&1; then systemctl disable --now redis-server >/dev/null 2>&1 || true; fi
  command -v redis-server >/dev/null && { redis-server --version; exit 0; }
fi
msg="redis: redis-server is required by the cluster tests (apt-get install redis-server, brew install redis)"
if [ "${SMCP_REQUIRE_REDIS:-}" = 1 ]; then
  echo "$msg" >&2
  exit 1
fi
echo "$msg; not installed (not root): those tests will skip"
